// FQL v10's native collections through the official `fauna` driver against a real server (one
// process here, a tier of two workers in the runner's tier pass): user functions called as globals
// with their role, a role whose v10 predicate decides what a key's holder reads, credentials and
// login to a token whose secret works on both endpoints, Query.identity, and keys and functions
// made in one language used from the other.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fql } from 'fauna';
import faunadb, { query as q } from 'faunadb';
import { startFlora, type FloraProcess } from '../helpers/server';
import { V10Clients, serviceFailure } from '../helpers/v10';

let flora: FloraProcess;
let admin: Client;

const clients = new V10Clients(() => flora.url);
const v10 = (secret: string): Client => clients.client(secret);

function v4(secret: string): faunadb.Client {
  const url = new URL(flora.url);
  return new faunadb.Client({ secret, domain: url.hostname, port: Number(url.port), scheme: 'http' });
}

before(async () => {
  flora = await startFlora();
  admin = v10(flora.secret);
  await admin.query(fql`Collection.create({ name: "Note" })`);
  await admin.query(fql`Collection.create({ name: "User" })`);
  await admin.query(fql`Note.create({ text: "public", public: true }); Note.create({ text: "secret", public: false })`);
});

after(async () => {
  clients.closeAll();
  await flora?.stop();
});

test('a user function is a global; v4 calls it too', async () => {
  await admin.query(fql`Function.create({ name: "double", body: "x => x * 2" })`);
  assert.equal((await admin.query(fql`double(21)`)).data, 42);
  assert.equal((await admin.query(fql`double.definition.body`)).data, 'x => x * 2');
  assert.equal(await v4(flora.secret).query(q.Call(q.Function('double'), 4)), 8);
});

test('a role with a v10 read predicate decides what its key reads, through both endpoints', async () => {
  await admin.query(fql`Role.create({
    name: "reader",
    privileges: [{ resource: "Note", actions: { read: "doc => doc.public" } }]
  })`);
  const secret = (await admin.query<string>(fql`Key.create({ role: "reader" }).secret`)).data;
  // A document the role may not read is a null document in the set (reading a field of it is
  // permission_denied, as the core answers).
  assert.deepEqual((await v10(secret).query<(string | null)[]>(fql`Note.all().map(d => d?.text).toArray()`)).data, ['public', null]);
  assert.deepEqual((await v10(secret).query<string[]>(fql`Note.all().where(d => d != null).map(.text).toArray()`)).data, ['public']);
  assert.equal((await serviceFailure(v10(secret).query(fql`Note.all().map(.text).toArray()`))).code, 'permission_denied');
  const page = (await v4(secret).query(q.Map(q.Paginate(q.Documents(q.Collection('Note'))), q.Lambda('r', q.Select(['data', 'text'], q.Get(q.Var('r'))))))) as { data: string[] };
  assert.ok(!page.data.includes('secret') || page.data.length === 0, `v4 read ${JSON.stringify(page.data)}`);
  const denied = await serviceFailure(v10(secret).query(fql`Note.create({ text: "nope" })`));
  assert.equal(denied.code, 'permission_denied');
});

test('credentials: login gives a token whose secret answers on both endpoints, and Query.identity is its document', async () => {
  const userId = (await admin.query<string>(fql`let u = User.create({ name: "ada" }); Credential.create({ document: u, password: "sekrit" }); u.id`)).data;
  const token = (await admin.query<string>(fql`Credential.byDocument(User.byId(${userId})!)!.login("sekrit").secret`)).data;
  assert.equal((await v10(token).query(fql`Query.identity()!.name`)).data, 'ada');
  const viaV4 = (await v4(token).query(q.CurrentIdentity())) as { id: string };
  assert.equal(viaV4.id, userId);
  const wrong = await serviceFailure(admin.query(fql`Credential.byDocument(User.byId(${userId})!)!.login("wrong")`));
  assert.ok(wrong.code.length > 0);
});

test('a key made through v4 authenticates v10 requests', async () => {
  const made = (await v4(flora.secret).query(q.CreateKey({ role: 'admin' }))) as { secret: string };
  assert.equal((await v10(made.secret).query(fql`1 + 1`)).data, 2);
});

test('a protected database refuses destructive schema changes with the core\'s failures; its flags are reported', async () => {
  await admin.query(fql`Database.create({ name: "prot", protected: true, typechecked: false })`);
  const shown = (await admin.query<{ protected: boolean; typechecked: boolean }>(fql`Database.byName("prot")!`)).data;
  assert.equal(shown.protected, true);
  assert.equal(shown.typechecked, false);
  const p = v10(`${flora.secret}:prot:admin`);
  await p.query(fql`Database.create({ name: "child" })`);
  const child = v10(`${flora.secret}:prot/child:admin`);
  // The flags are inherited (Database.foldAncestors); isEnvProtected is for admin keys only.
  assert.deepEqual((await admin.query(fql`[Query.isEnvProtected(), Query.isEnvTypechecked()]`)).data, [false, true]);
  assert.deepEqual((await p.query(fql`[Query.isEnvProtected(), Query.isEnvTypechecked()]`)).data, [true, false]);
  assert.deepEqual((await child.query(fql`[Query.isEnvProtected(), Query.isEnvTypechecked()]`)).data, [true, false]);
  assert.equal((await serviceFailure(v10(`${flora.secret}:prot:server`).query(fql`Query.isEnvProtected()`))).code, 'permission_denied');

  await p.query(fql`Collection.create({ name: "Foo", history_days: 30, indexes: { byX: { terms: [{ field: ".x" }] }, byY: { terms: [{ field: ".y" }] } } })`);
  const refused = (what: string) => `${what}: destructive change forbidden because database is in protected mode.`;
  // SchemaManagerSpec "protected mode forbids destructive changes".
  const del = await serviceFailure(p.query(fql`Foo.definition.delete()`));
  assert.equal(del.code, 'constraint_failure');
  assert.equal(del.message, 'Failed to delete Collection `Foo`.');
  assert.deepEqual(del.constraint_failures, [{ paths: [], message: refused('Cannot delete collection') }]);
  const lower = await serviceFailure(p.query(fql`Foo.definition.update({ history_days: 15 })`));
  assert.equal(lower.code, 'constraint_failure');
  assert.equal(
    lower.queryInfo?.summary,
    [
      'error: Failed to update Collection `Foo`.',
      'constraint failures:',
      `  ${refused('Cannot decrease `history_days` field')}`,
      'at *query*:1:22',
      '  |',
      '1 | Foo.definition.update({ history_days: 15 })',
      '  |                      ^^^^^^^^^^^^^^^^^^^^^^',
      '  |',
    ].join('\n'),
  );
  assert.equal((await p.query(fql`Foo.definition.update({ history_days: 60 }).history_days`)).data, 60);
  const removeHD = await serviceFailure(p.query(fql`Foo.definition.update({ history_days: null })`));
  assert.deepEqual(removeHD.constraint_failures, [{ paths: [], message: refused('Cannot remove `history_days` field') }]);
  // Adding ttl_days is refused with the core's words for it.
  const ttl = await serviceFailure(p.query(fql`Foo.definition.update({ ttl_days: 5 })`));
  assert.deepEqual(ttl.constraint_failures, [{ paths: [], message: refused('Cannot remove `ttl_days` field') }]);
  const index = await serviceFailure(p.query(fql`Foo.definition.update({ indexes: { byX: null } })`));
  assert.equal(index.code, 'invalid_schema');
  assert.equal(index.message, 'Invalid database schema update.\n');
  assert.deepEqual(index.constraint_failures, [{ paths: [], message: refused('Cannot cause deletion of backing index') }]);
  // Adding an index, and writing documents, are not destructive; nothing above changed the collection.
  await p.query(fql`Foo.definition.update({ indexes: { byZ: { terms: [{ field: ".z" }] } } })`);
  assert.deepEqual((await p.query(fql`Object.keys(Foo.definition.indexes)`)).data, ['byX', 'byY', 'byZ']);
  assert.equal((await p.query(fql`Foo.create({ x: 1 }).x`)).data, 1);
  // The inherited flag protects the child database's collections too; an unprotected database deletes freely.
  await child.query(fql`Collection.create({ name: "Bar" })`);
  assert.equal((await serviceFailure(child.query(fql`Bar.definition.delete()`))).message, 'Failed to delete Collection `Bar`.');
  await admin.query(fql`Collection.create({ name: "Gone" })`);
  assert.equal((await admin.query(fql`Gone.definition.delete().exists()`)).data, false);
});

test("documents of different kinds: order() by the core's collection ids, then names or ids; `<` by id, then collection (Value.compare, ValueCmp)", async () => {
  await admin.query(fql`Collection.create({ name: "Zeta" }); Function.create({ name: "bFn", body: "x => x" }); Role.create({ name: "ordRole" })`);
  await admin.query(fql`Collection.create({ name: "Alpha" }); Function.create({ name: "aFn", body: "x => x" })`);
  // Ids grow with time: the key's is above the note's.
  const [note, key] = (await admin.query<string[]>(fql`let n = Note.create({ text: "o" }); [n.id, Key.create({ role: "server" }).id]`)).data;
  assert.ok(BigInt(key) > BigInt(note));
  type Shown = { coll: { name: string }; name?: string; id?: string };
  const ordered = (
    await admin.query<Shown[]>(fql`[Note.byId(${note}), Key.byId(${key}), Function.byName("bFn"), Collection.byName("Zeta"), Role.byName("ordRole"),
      Function.byName("aFn"), Collection.byName("Alpha")].order()`)
  ).data;
  assert.deepEqual(
    ordered.map((d) => `${d.coll.name}:${d.name ?? (d.id === key ? 'key' : d.id === note ? 'note' : d.id)}`),
    ['Collection:Alpha', 'Collection:Zeta', 'Key:key', 'Function:aFn', 'Function:bFn', 'Role:ordRole', 'Note:note'],
  );
  // `<`: the id first (a named document's internal id: the one made first is less), then the collection.
  assert.deepEqual(
    (
      await admin.query(fql`[
        Function.byName("bFn") < Function.byName("aFn"),
        Collection.byName("Zeta") < Collection.byName("Alpha"),
        Key.byId(${key}) > Note.byId(${note}),
        Function.byName("aFn") < Key.byId(${key}),
        Note.byId(${note}) <= Note.byId(${note})
      ]`)
    ).data,
    [true, true, true, true, true],
  );
});

test('distinct() takes two references to one document, or one named document, as one value', async () => {
  const id = (await admin.query<string>(fql`Note.create({ text: "twice" }).id`)).data;
  const n = await admin.query<number[]>(fql`[
    [Note.byId(${id}), Note.byId(${id}), Note.all().where(.text == "twice").first()].toSet().distinct().count(),
    [Collection.byName("Note"), Collection.byName("Note"), Collection.byName("User")].toSet().distinct().count()
  ]`);
  assert.deepEqual(n.data, [1, 2]);
});
