// Relations (graphql.md A.3.4–A.3.6): one-to-one, one-to-many and many-to-many, read in both
// directions through the indexes the import made, written with nested create / connect /
// disconnect; plain lists of refs; refs written through FQL.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q, values } from 'faunadb';
import { ClientPool, startFlora, type FloraProcess } from '../helpers/server';
import { fails, mustImport, ok } from '../helpers/graphql';

let srv: FloraProcess;
let pool: ClientPool;
let secret: string;
let db: faunadb.Client;

const SCHEMA = `
type User {
  name: String!
  profile: Profile
  posts: [Post] @relation
  groups: [Group] @relation
  favorites: [Post]
}
type Profile { bio: String  user: User }
type Post {
  title: String!
  author: User
  comments: [Comment] @relation
}
type Comment { text: String!  post: Post! }
type Group { name: String!  members: [User] @relation }
type Query { allUsers: [User!]  allPosts: [Post!]  allGroups: [Group!]  postsByAuthor(author: ID!): [Post!] }
`;

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'gqlrel' }));
  secret = `${srv.secret}:gqlrel:admin`;
  db = pool.client(secret);
  await mustImport(srv.url, secret, SCHEMA);
});
after(async () => {
  await pool.close();
  await srv.stop();
});

const run = (query: string, variables?: Record<string, unknown>) => ok(srv.url, secret, query, variables);
const names = (page: { data: ({ name?: string; title?: string; text?: string } | null)[] }) =>
  page.data.map((x) => x?.name ?? x?.title ?? x?.text).sort();

describe('relations', () => {
  test('the import names relations, indexes and the link collection as Fauna did', async () => {
    const idx = async (name: string) =>
      (await db.query(q.Get(q.Index(name)))) as { source: values.Ref; terms: { field: string[] }[]; values?: { field: string[] }[]; unique: boolean };
    const posts = await idx('user_posts_by_user');
    assert.equal(posts.source.id, 'Post');
    assert.deepEqual(posts.terms, [{ field: ['data', 'author'] }]);
    assert.equal(posts.unique, false);
    const comments = await idx('post_comments_by_post');
    assert.equal(comments.source.id, 'Comment');
    assert.deepEqual(comments.terms, [{ field: ['data', 'post'] }]);
    const oneToOne = await idx('profile_user_by_user');
    assert.equal(oneToOne.source.id, 'Profile');
    assert.deepEqual(oneToOne.terms, [{ field: ['data', 'user'] }]);
    assert.equal(oneToOne.unique, true);
    // Many-to-many: a link collection named after the relation and three indexes.
    assert.equal(await db.query(q.Exists(q.Collection('group_members'))), true);
    const byGroup = await idx('group_members_by_group');
    assert.equal(byGroup.source.id, 'group_members');
    assert.deepEqual(byGroup.terms, [{ field: ['data', 'groupID'] }]);
    const byUser = await idx('group_members_by_user');
    assert.deepEqual(byUser.terms, [{ field: ['data', 'userID'] }]);
    const byBoth = await idx('group_members_by_group_and_user');
    assert.deepEqual(byBoth.terms, [{ field: ['data', 'groupID'] }, { field: ['data', 'userID'] }]);
    // The relation inputs (one `__type` per operation: issue 30).
    const lookups = {
      a: '__type(name: "UserPostsRelation") { inputFields { name type { name kind ofType { name } } } }',
      b: '__type(name: "PostAuthorRelation") { inputFields { name } }',
      c: '__type(name: "CommentPostRelation") { inputFields { name } }',
      d: '__type(name: "PostInput") { inputFields { name type { name } } }',
    };
    const types: Record<string, any> = {};
    for (const [alias, field] of Object.entries(lookups)) types[alias] = (await run(`{ ${alias}: ${field} }`))[alias];
    assert.deepEqual(types.a.inputFields.map((f: { name: string }) => f.name), ['create', 'connect', 'disconnect']);
    assert.equal(types.a.inputFields[0].type.kind, 'LIST');
    assert.equal(types.a.inputFields[0].type.ofType.name, 'PostInput');
    assert.deepEqual(types.b.inputFields.map((f: { name: string }) => f.name), ['create', 'connect', 'disconnect']);
    // A required to-one field has no `disconnect`.
    assert.deepEqual(types.c.inputFields.map((f: { name: string }) => f.name), ['create', 'connect']);
    assert.equal(types.d.inputFields.find((f: { name: string }) => f.name === 'author').type.name, 'PostAuthorRelation');
  });

  test('one-to-many in both directions: create, connect, disconnect, pages', async () => {
    const made = await run(`mutation {
      createUser(data: {name: "Ann", posts: {create: [{title: "p1"}, {title: "p2"}]}}) {
        _id name posts { data { _id title author { name } } }
      }
    }`);
    const ann = made.createUser;
    assert.deepEqual(names(ann.posts), ['p1', 'p2']);
    assert.ok(ann.posts.data.every((p: { author: { name: string } }) => p.author.name === 'Ann'));
    // The FQL side: the single side stores the ref, the list side nothing.
    const p1 = (await db.query(q.Get(q.Ref(q.Collection('Post'), ann.posts.data[0]._id)))) as { data: { author: values.Ref } };
    assert.ok(p1.data.author instanceof values.Ref);
    assert.equal(p1.data.author.id, ann._id);
    const annDoc = (await db.query(q.Get(q.Ref(q.Collection('User'), ann._id)))) as { data: Record<string, unknown> };
    assert.deepEqual(annDoc.data, { name: 'Ann' });

    // The other direction: a post connects to its author.
    const p3 = (await run(`mutation { createPost(data: {title: "p3", author: {connect: "${ann._id}"}}) { _id author { _id } } }`)).createPost;
    assert.equal(p3.author._id, ann._id);
    // A post written through FQL with a ref appears in the user's page.
    await db.query(q.Create(q.Collection('Post'), { data: { title: 'p4', author: q.Ref(q.Collection('User'), ann._id) } }));
    let user = (await run(`{ findUserByID(id: "${ann._id}") { posts { data { title } } } }`)).findUserByID;
    assert.deepEqual(names(user.posts), ['p1', 'p2', 'p3', 'p4']);

    // An index query whose ID argument names a ref field matches the ref.
    const byAuthor = (await run(`{ postsByAuthor(author: "${ann._id}") { data { title } } }`)).postsByAuthor;
    assert.deepEqual(names(byAuthor), ['p1', 'p2', 'p3', 'p4']);

    // Pages of the relation.
    const first = (await run(`{ findUserByID(id: "${ann._id}") { posts(_size: 3) { data { title } after } } }`)).findUserByID.posts;
    assert.equal(first.data.length, 3);
    const rest = (await run(`query($c: String) { findUserByID(id: "${ann._id}") { posts(_size: 3, _cursor: $c) { data { title } after before } } }`, { c: first.after }))
      .findUserByID.posts;
    assert.equal(rest.data.length, 1);
    assert.equal(rest.after, null);
    assert.equal(typeof rest.before, 'string');

    // Moving a post to another user (connect from the list side), then disconnecting one.
    const bob = (await run(`mutation { createUser(data: {name: "Bob", posts: {connect: ["${p3._id}"]}}) { _id posts { data { title } } } }`)).createUser;
    assert.deepEqual(names(bob.posts), ['p3']);
    user = (await run(`mutation { partialUpdateUser(id: "${ann._id}", data: {posts: {disconnect: ["${ann.posts.data[0]._id}"], create: [{title: "p5"}]}}) { posts { data { title } } } }`))
      .partialUpdateUser;
    assert.deepEqual(names(user.posts), ['p2', 'p4', 'p5']);
    const orphan = (await run(`{ findPostByID(id: "${ann.posts.data[0]._id}") { title author { name } } }`)).findPostByID;
    assert.deepEqual(orphan, { title: 'p1', author: null });
    // Disconnect from the single side.
    const p2id = ann.posts.data[1]._id;
    const p2 = (await run(`mutation { partialUpdatePost(id: "${p2id}", data: {author: {disconnect: true}}) { author { name } } }`)).partialUpdatePost;
    assert.equal(p2.author, null);

    // Connecting an id that does not exist is an error (and nothing is written).
    const e = await fails(srv.url, secret, 'mutation { createPost(data: {title: "ghost", author: {connect: "123"}}) { _id } }');
    assert.equal(e.extensions!.code, 'instance not found');
    assert.equal(await db.query(q.Count(q.Filter(q.Documents(q.Collection('Post')), q.Lambda('r', q.Equals('ghost', q.Select(['data', 'title'], q.Get(q.Var('r')))))))), 0);
  });

  test('a required to-one relation and nested creates two levels deep', async () => {
    const made = await run(`mutation {
      createUser(data: {name: "Cy", posts: {create: [{title: "deep", comments: {create: [{text: "c1"}, {text: "c2"}]}}]}}) {
        posts { data { _id title comments { data { text post { title author { name } } } } } }
      }
    }`);
    const post = made.createUser.posts.data[0];
    assert.deepEqual(names(post.comments), ['c1', 'c2']);
    assert.ok(post.comments.data.every((c: any) => c.post.title === 'deep' && c.post.author.name === 'Cy'));
    const c = (await run(`mutation { createComment(data: {text: "c3", post: {connect: "${post._id}"}}) { post { title } } }`)).createComment;
    assert.deepEqual(c, { post: { title: 'deep' } });
    // A dangling required ref (the post deleted through FQL) is an error on that field only.
    const lone = (await run(`mutation { createComment(data: {text: "lone", post: {create: {title: "temp"}}}) { _id post { _id } } }`)).createComment;
    await db.query(q.Delete(q.Ref(q.Collection('Post'), lone.post._id)));
    const e = await fails(srv.url, secret, `{ findCommentByID(id: "${lone._id}") { text post { title } } }`);
    assert.match(e.message, /Cannot return null for non-nullable field Comment.post/);
  });

  test('one-to-one in both directions; a second connection violates uniqueness', async () => {
    const u = (await run('mutation { createUser(data: {name: "Di", profile: {create: {bio: "hello"}}}) { _id profile { _id bio user { name } } } }')).createUser;
    assert.equal(u.profile.bio, 'hello');
    assert.equal(u.profile.user.name, 'Di');
    // The profile holds the ref.
    const prof = (await db.query(q.Get(q.Ref(q.Collection('Profile'), u.profile._id)))) as { data: { user: values.Ref } };
    assert.equal(prof.data.user.id, u._id);
    // Connect from the holding side.
    const p2 = (await run('mutation { createProfile(data: {bio: "solo"}) { _id user { name } } }')).createProfile;
    assert.equal(p2.user, null);
    const ed = (await run(`mutation { createUser(data: {name: "Ed"}) { _id } }`)).createUser;
    const linked = (await run(`mutation { partialUpdateProfile(id: "${p2._id}", data: {user: {connect: "${ed._id}"}}) { user { name profile { bio } } } }`))
      .partialUpdateProfile;
    assert.deepEqual(linked, { user: { name: 'Ed', profile: { bio: 'solo' } } });
    // A second profile for Ed: unique index violation.
    const e = await fails(srv.url, secret, `mutation { createProfile(data: {bio: "two", user: {connect: "${ed._id}"}}) { _id } }`);
    assert.equal(e.extensions!.code, 'instance not unique');
    // From the other side, connecting replaces the previous profile.
    const moved = (await run(`mutation { partialUpdateUser(id: "${ed._id}", data: {profile: {connect: "${u.profile._id}"}}) { profile { bio } } }`))
      .partialUpdateUser;
    assert.deepEqual(moved.profile, { bio: 'hello' });
    const old = (await run(`{ findProfileByID(id: "${p2._id}") { user { name } } a: findUserByID(id: "${u._id}") { profile { bio } } }`));
    assert.deepEqual(old, { findProfileByID: { user: null }, a: { profile: null } });
    const gone = (await run(`mutation { partialUpdateUser(id: "${ed._id}", data: {profile: {disconnect: true}}) { profile { bio } } }`)).partialUpdateUser;
    assert.equal(gone.profile, null);
  });

  test('many-to-many in both directions; links go with a deleted document', async () => {
    const g = (await run(`mutation {
      createGroup(data: {name: "g1", members: {create: [{name: "m1"}, {name: "m2"}]}}) { _id members { data { _id name groups { data { name } } } } }
    }`)).createGroup;
    assert.deepEqual(names(g.members), ['m1', 'm2']);
    assert.ok(g.members.data.every((m: any) => m.groups.data[0].name === 'g1'));
    const [m1, m2] = [...g.members.data].sort((a: any, b: any) => a.name.localeCompare(b.name));
    // The link documents.
    const links = (await db.query(q.Map(q.Paginate(q.Documents(q.Collection('group_members'))), q.Lambda('r', q.Select('data', q.Get(q.Var('r'))))))) as {
      data: { groupID: values.Ref; userID: values.Ref }[];
    };
    assert.equal(links.data.length, 2);
    assert.ok(links.data.every((l) => l.groupID.id === g._id));
    // From the other side: m1 joins a new group; connecting twice adds one link only.
    const g2 = (await run('mutation { createGroup(data: {name: "g2"}) { _id } }')).createGroup;
    await run(`mutation { partialUpdateUser(id: "${m1._id}", data: {groups: {connect: ["${g2._id}"]}}) { _id } }`);
    const m1groups = (await run(`mutation { partialUpdateUser(id: "${m1._id}", data: {groups: {connect: ["${g2._id}"]}}) { groups { data { name } } } }`))
      .partialUpdateUser;
    assert.deepEqual(names(m1groups.groups), ['g1', 'g2']);
    const g2members = (await run(`{ findGroupByID(id: "${g2._id}") { members { data { name } } } }`)).findGroupByID;
    assert.deepEqual(names(g2members.members), ['m1']);
    // Disconnect from the group side.
    const after1 = (await run(`mutation { partialUpdateGroup(id: "${g._id}", data: {members: {disconnect: ["${m2._id}"]}}) { members { data { name } } } }`))
      .partialUpdateGroup;
    assert.deepEqual(names(after1.members), ['m1']);
    // Deleting m1 removes its links.
    await run(`mutation { deleteUser(id: "${m1._id}") { _id } }`);
    const left = (await run(`{ a: findGroupByID(id: "${g._id}") { members { data { name } } } b: findGroupByID(id: "${g2._id}") { members { data { name } } } }`));
    assert.deepEqual(left, { a: { members: { data: [] } }, b: { members: { data: [] } } });
    assert.equal(await db.query(q.Count(q.Documents(q.Collection('group_members')))), 0);
  });

  test('a list without @relation is an array of refs', async () => {
    const u = (await run('mutation { createUser(data: {name: "Fay"}) { _id } }')).createUser;
    const a = (await run('mutation { createPost(data: {title: "fa"}) { _id } }')).createPost;
    const made = (await run(`mutation { partialUpdateUser(id: "${u._id}", data: {favorites: {connect: ["${a._id}"], create: [{title: "fb"}]}}) { favorites { title } } }`))
      .partialUpdateUser;
    assert.deepEqual(made.favorites.map((p: { title: string }) => p.title).sort(), ['fa', 'fb']);
    const doc = (await db.query(q.Get(q.Ref(q.Collection('User'), u._id)))) as { data: { favorites: values.Ref[] } };
    assert.equal(doc.data.favorites.length, 2);
    assert.ok(doc.data.favorites.every((r) => r instanceof values.Ref));
    const less = (await run(`mutation { partialUpdateUser(id: "${u._id}", data: {favorites: {disconnect: ["${a._id}"]}}) { favorites { title } } }`))
      .partialUpdateUser;
    assert.deepEqual(less.favorites, [{ title: 'fb' }]);
  });
});
