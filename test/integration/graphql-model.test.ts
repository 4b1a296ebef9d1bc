// The import's analysis in process (no server): relation recognition and naming, the artefacts
// planned for a schema, merging, and the served SDL.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, printSchema } from 'graphql';
import { buildApi } from '../../src/graphql/api';
import { encodeType } from '../../src/graphql/model';
import { SchemaImportError, checkDocument, mergeDocuments, parseSdl, printDocument } from '../../src/graphql/sdl';

const model = (sdl: string) => buildApi(sdl).model;
const indexNames = (sdl: string) => model(sdl).indexes.map((i) => i.name).sort();

describe('relations', () => {
  test('one-to-many is named after the list side; the single side holds the ref', () => {
    const m = model('type User { cars: [Car] @relation } type Car { owner: User! }');
    assert.deepEqual(
      m.relations.map((r) => [r.name, r.kind, r.holder, r.other, r.index]),
      [['user_cars', 'one-to-many', { type: 'Car', field: 'owner' }, { type: 'User', field: 'cars' }, 'user_cars_by_user']],
    );
    const idx = m.indexes.find((i) => i.name === 'user_cars_by_user')!;
    assert.deepEqual([idx.source, idx.terms, idx.unique], ['Car', [['data', 'owner']], false]);
    // The workshop's names.
    assert.ok(indexNames('type Owner { stores: [Store]! @relation  email: String! @unique } type Store { owner: Owner! }').includes('owner_stores_by_owner'));
  });

  test('one-to-one: the type that sorts first holds the ref, behind a unique index', () => {
    const m = model('type User { profile: Profile } type Profile { user: User }');
    const r = m.relations[0];
    assert.deepEqual([r.name, r.kind, r.holder, r.index], ['profile_user', 'one-to-one', { type: 'Profile', field: 'user' }, 'profile_user_by_user']);
    assert.equal(m.indexes.find((i) => i.name === 'profile_user_by_user')!.unique, true);
    assert.equal(m.types.get('User')!.byName.get('profile')!.kind, 'o2oInverse');
  });

  test("many-to-many: a link collection and three indexes (Fauna's professional-network names)", () => {
    const m = model('type Profile { skills: [Skill!] @relation  projects: [Project] @relation } type Skill { profiles: [Profile!] @relation } type Project { profile: [Profile] @relation }');
    assert.deepEqual(m.collections.map((c) => c.name).sort(), ['Profile', 'Project', 'Skill', 'profile_projects', 'profile_skills']);
    assert.deepEqual(indexNames('type Profile { skills: [Skill!] @relation } type Skill { profiles: [Profile!] @relation }'), [
      'profile_skills_by_profile',
      'profile_skills_by_profile_and_skill',
      'profile_skills_by_skill',
    ]);
    const link = m.relations.find((r) => r.name === 'profile_skills')!.link!;
    assert.deepEqual([link.holderField, link.otherField], ['profileID', 'skillID']);
  });

  test('explicit names pair the fields when several point back', () => {
    const m = model(`
      type User { drives: [Car] @relation(name: "driver")  owns: [Car] @relation(name: "car_owner") }
      type Car { driver: User @relation(name: "driver")  owner: User @relation(name: "car_owner") }`);
    assert.deepEqual(m.relations.map((r) => [r.name, r.holder.field, r.other.field, r.index]).sort(), [
      ['car_owner', 'owner', 'owns', 'car_owner_by_user'],
      ['driver', 'driver', 'drives', 'driver_by_user'],
    ]);
  });

  test('a single field with no field pointing back is a plain ref; a list without @relation is an array of refs', () => {
    const m = model('type Car { maker: Maker  parts: [Part] } type Maker { name: String } type Part { name: String }');
    assert.equal(m.relations.length, 0);
    assert.equal(m.types.get('Car')!.byName.get('maker')!.kind, 'ref');
    assert.equal(m.types.get('Car')!.byName.get('parts')!.kind, 'refs');
    assert.deepEqual(indexNames('type Car { maker: Maker  parts: [Part] } type Maker { name: String } type Part { name: String }'), []);
  });

  test('ambiguity and dangling relations are errors', () => {
    assert.throws(() => model('type User { a: Car  b: Car } type Car { user: User }'), /Ambiguous relation/);
    assert.throws(() => model('type User { cars: [Car] @relation } type Car { name: String }'), /has no counterpart/);
    assert.throws(() => model('type User { car: Car @relation(name: "x") } type Car { user: User @relation(name: "y") }'), /has no counterpart/);
    assert.throws(() => model('type User { car: Car @relation(name: "bad-name") } type Car { user: User }'), /may contain only letters/);
  });
});

describe('artefacts', () => {
  test('collections, indexes and functions of a schema', () => {
    const m = model(`
      type Todo @collection(name: "todos") { title: String! @unique  done: Boolean }
      type Query {
        todosByDone(done: Boolean!): [Todo]
        firstTodo: Todo @index(name: "todo_first")
        stats: Int @resolver
        report(from: Date, to: Date): [String] @resolver(name: "make_report", paginated: true)
      }
      type Mutation { reset: Boolean @resolver(name: "reset_all") }`);
    assert.deepEqual(m.collections, [{ name: 'todos', type: 'Todo' }]);
    const byDone = m.indexes.find((i) => i.name === 'todosByDone')!;
    assert.deepEqual([byDone.source, byDone.terms, byDone.values, byDone.unique], ['todos', [['data', 'done']], [], false]);
    assert.deepEqual(byDone.meta, {
      name: 'todosByDone',
      directives: [{ name: 'index', args: { name: 'todosByDone' } }],
      type: { List: { Named: 'Todo' } },
      arguments: [{ name: 'done', type: { NotNull: { Named: 'Boolean' } } }],
    });
    assert.ok(m.indexes.find((i) => i.name === 'todo_first')!.explicit);
    assert.equal(m.indexes.find((i) => i.name === 'unique_Todo_title')!.unique, true);
    assert.deepEqual(m.functions.map((f) => f.name).sort(), ['make_report', 'reset_all', 'stats']);
  });

  test('the served schema', () => {
    const api = buildApi(`
      type Post { title: String!  author: User!  tags: [String!]!  meta: Meta }
      type User { name: String  posts: [Post] @relation }
      type Meta @embedded { words: Int! }
      type Query { posts(title: String): [Post] }`);
    const sdl = printSchema(api.schema);
    for (const part of [
      'type Post {\n  """The document\'s ID."""\n  _id: ID!',
      'author: User!',
      'posts(_size: Int, _cursor: String): PostPage!',
      'posts(_size: Int, _cursor: String, title: String): PostPage!',
      'input PostInput {\n  title: String!\n  author: PostAuthorRelation\n  tags: [String!]!\n  meta: MetaInput\n}',
      'input PartialUpdatePostInput {\n  title: String\n  author: PostAuthorRelation\n  tags: [String!]\n  meta: PartialUpdateMetaInput\n}',
      'input MetaInput {\n  words: Int!\n}',
      'input PartialUpdateMetaInput {\n  words: Int\n}',
      "Allow manipulating the relationship between the types 'Post' and 'User' using the field 'Post.author'.",
      'input PostAuthorRelation {',
      'input UserPostsRelation {',
      'findPostByID(',
      'partialUpdateUser(',
    ])
      assert.ok(sdl.includes(part), `missing ${JSON.stringify(part)} in\n${sdl}`);
    assert.equal((api.schema.getType('Meta') as never as { getFields(): Record<string, unknown> }).getFields()._id, undefined);
    assert.equal(api.schema.getType('MetaPage'), undefined);
    // A required to-one relation has no disconnect.
    assert.ok(!/input PostAuthorRelation \{[^}]*disconnect/.test(sdl));
  });

  test('type encodings and merging', () => {
    const t = (parse('type X { f: [User!]! }').definitions[0] as never as { fields: { type: never }[] }).fields[0].type;
    assert.deepEqual(encodeType(t), { NotNull: { List: { NotNull: { Named: 'User' } } } });
    const old = checkDocument(parseSdl('type A { x: Int } type Query { allA: [A]  one: A }'));
    const next = checkDocument(parseSdl('type A { y: Int } type B { z: Int } type Query { allB: [B]  one: B }'));
    const merged = printDocument(mergeDocuments(old, next));
    assert.match(merged, /type A \{\n {2}y: Int\n\}/);
    assert.match(merged, /type Query \{\n {2}allA: \[A\]\n {2}one: B\n {2}allB: \[B\]\n\}/);
  });

  test('errors name the line and column with an excerpt', () => {
    try {
      buildApi('type A {\n  x: Int\n  y: Unknown\n}');
      assert.fail('accepted');
    } catch (e) {
      assert.ok(e instanceof SchemaImportError);
      assert.equal(e.message, "The type 'Unknown' of the field 'A.y' is not declared. (line 3, column 6):\n  y: Unknown\n     ^");
    }
  });
});
