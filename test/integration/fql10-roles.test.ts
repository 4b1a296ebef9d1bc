// FQL v10 roles as an application uses them, through the official `fauna` driver against a real
// server: a role whose members log in (Credential login, so Query.identity() is their user
// document) and whose v10 predicates get documents as the core passes them (RoleEvalAction.scala
// fqlxLambdaArgs): `create` and `create_with_id` the new document (an id needs both, as
// WriteBroker checks), `write` the document before and after, `read`, `delete` and
// `history_read` the document, `call` the function's arguments, membership the user document.
// Refusals are the core's permission_denied. Also the core's answers to a function whose role
// does not exist, and to a function called by the query that creates it.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fql, type TimeStub } from 'fauna';
import { startFlora, type FloraProcess } from '../helpers/server';
import { V10Clients, serviceFailure } from '../helpers/v10';

const DENIED = 'Insufficient privileges to perform the action.';

let flora: FloraProcess;
let admin: Client;
/** Users' ids and their tokens' clients. */
let annId: string;
let bobId: string;
let ann: Client;
let eve: Client;

const clients = new V10Clients(() => flora.url);
const v10 = (secret: string): Client => clients.client(secret);

async function denied(work: Promise<unknown>): Promise<void> {
  const e = await serviceFailure(work);
  assert.equal(e.code, 'permission_denied');
  assert.equal(e.message, DENIED);
}

/** A user with a password, logged in: its id and a client with its token. */
async function user(name: string, fields = fql`{}`): Promise<[string, Client]> {
  const id = (await admin.query<string>(fql`let u = User.create(Object.assign({ name: ${name} }, ${fields})); Credential.create({ document: u, password: "pw" }); u.id`)).data;
  const token = (await admin.query<string>(fql`Credential.byDocument(User.byId(${id})!)!.login("pw").secret`)).data;
  return [id, v10(token)];
}

before(async () => {
  flora = await startFlora();
  admin = v10(flora.secret);
  await admin.query(fql`Collection.create({ name: "User" }); Collection.create({ name: "Post" })`);
  await admin.query(fql`Function.create({ name: "double", body: "x => x * 2" })`);
  await admin.query(fql`Role.create({
    name: "author",
    membership: [{ resource: "User", predicate: "user => user.banned != true" }],
    privileges: [
      { resource: "User", actions: { read: true } },
      { resource: "Post", actions: {
        read: "doc => doc.public == true",
        create: "doc => doc.owner == Query.identity() && doc.coll == Post && doc.id != null",
        create_with_id: "doc => doc.id != 13",
        write: "(oldDoc, newDoc) => oldDoc.owner == Query.identity() && newDoc.owner == oldDoc.owner",
        delete: "doc => doc.owner == Query.identity()",
        history_read: "doc => doc.owner == Query.identity()"
      } },
      { resource: "double", actions: { call: "x => x > 0" } }
    ]
  })`);
  [annId, ann] = await user('ann');
  [bobId] = await user('bob');
  [, eve] = await user('eve', fql`{ banned: true }`);
});

after(async () => {
  clients.closeAll();
  await flora?.stop();
});

test('Query.identity() is the logged-in user document', async () => {
  assert.equal((await ann.query(fql`Query.identity()!.name`)).data, 'ann');
});

test('create: the predicate gets the new document (id, coll and fields at the top level)', async () => {
  const made = await ann.query<{ title: string }>(fql`Post.create({ title: "mine", owner: Query.identity(), public: true })`);
  assert.equal(made.data.title, 'mine');
  await denied(ann.query(fql`Post.create({ title: "forged", owner: User.byId(${bobId}), public: true })`));
  assert.equal((await admin.query(fql`Post.where(.title == "forged").count()`)).data, 0);
});

test('create with an id: create_with_id gets the new document, and create must allow it too', async () => {
  assert.equal((await ann.query(fql`Post.create({ id: "12", title: "chosen", owner: Query.identity() }).id`)).data, '12');
  await denied(ann.query(fql`Post.create({ id: "13", title: "unlucky", owner: Query.identity() })`));
  await denied(ann.query(fql`Post.create({ id: "14", title: "forged", owner: User.byId(${bobId}) })`));
  assert.deepEqual((await admin.query(fql`[Post.byId("13").exists(), Post.byId("14").exists()]`)).data, [false, false]);
});

test('write: the predicate gets the document before and after the write', async () => {
  const id = (await ann.query<string>(fql`Post.create({ title: "draft", owner: Query.identity(), public: true }).id`)).data;
  assert.equal((await ann.query(fql`Post.byId(${id})!.update({ title: "edited" }).title`)).data, 'edited');
  assert.equal((await ann.query(fql`Post.byId(${id})!.replace({ title: "replaced", owner: Query.identity(), public: true }).title`)).data, 'replaced');
  // Giving the post away changes newDoc's owner only.
  await denied(ann.query(fql`Post.byId(${id})!.update({ owner: User.byId(${bobId}) })`));
  // Someone else's post: oldDoc's owner is not the identity.
  const bobs = (await admin.query<string>(fql`Post.create({ title: "bob's", owner: User.byId(${bobId}), public: true }).id`)).data;
  await denied(ann.query(fql`Post.byId(${bobs})!.update({ owner: Query.identity() })`));
  assert.equal((await admin.query(fql`Post.byId(${bobs})!.owner.name`)).data, 'bob');
  assert.equal((await admin.query(fql`Post.byId(${id})!.title`)).data, 'replaced');
});

test('read: documents the predicate refuses are null documents; reading their fields is permission_denied, asserting them null_value', async () => {
  const hidden = (await admin.query<string>(fql`Post.create({ title: "hidden", owner: User.byId(${annId}), public: false }).id`)).data;
  const titles = (await ann.query<(string | null)[]>(fql`Post.all().map(d => d?.title).toArray()`)).data;
  assert.ok(titles.includes(null) && !titles.includes('hidden'), JSON.stringify(titles));
  await denied(ann.query(fql`Post.byId(${hidden}).title`));
  const bang = await serviceFailure(ann.query(fql`Post.byId(${hidden})!`));
  assert.equal(bang.code, 'null_value');
  assert.equal(bang.message, 'Null value, due to permission denied');
});

test('delete: the predicate gets the document', async () => {
  const own = (await ann.query<string>(fql`Post.create({ title: "temp", owner: Query.identity(), public: true }).id`)).data;
  const bobs = (await admin.query<string>(fql`Post.create({ title: "keep", owner: User.byId(${bobId}), public: true }).id`)).data;
  await ann.query(fql`Post.byId(${own})!.delete()`);
  assert.equal((await admin.query(fql`Post.byId(${own}).exists()`)).data, false);
  await denied(ann.query(fql`Post.byId(${bobs})!.delete()`));
  assert.equal((await admin.query(fql`Post.byId(${bobs}).exists()`)).data, true);
});

test('history_read: a document read at a valid time is checked by history_read, given the document', async () => {
  const own = (await ann.query<string>(fql`Post.create({ title: "then", owner: Query.identity(), public: false }).id`)).data;
  const bobs = (await admin.query<string>(fql`Post.create({ title: "theirs then", owner: User.byId(${bobId}), public: true }).id`)).data;
  // A later write of ann's: her next queries (the driver sends its last txn time) have a snapshot
  // after both posts, so their times are in the past (Flora reads `at` the snapshot as the present).
  await ann.query(fql`Post.create({ title: "later", owner: Query.identity(), public: true })`);
  const ownTs = (await admin.query<TimeStub>(fql`Post.byId(${own})!.ts`)).data;
  const bobsTs = (await admin.query<TimeStub>(fql`Post.byId(${bobs})!.ts`)).data;
  // Her own private post: read refuses it now, history_read lets her read it then.
  await denied(ann.query(fql`Post.byId(${own}).title`));
  assert.equal((await ann.query(fql`at (${ownTs}) { Post.byId(${own})!.title }`)).data, 'then');
  // Bob's public post: readable now, not then.
  assert.equal((await ann.query(fql`Post.byId(${bobs})!.title`)).data, 'theirs then');
  await denied(ann.query(fql`at (${bobsTs}) { Post.byId(${bobs}).title }`));
});

test('call: the predicate gets the call\'s arguments', async () => {
  assert.equal((await ann.query(fql`double(21)`)).data, 42);
  await denied(ann.query(fql`double(-1)`));
});

test('membership: the predicate gets the user document; a user it refuses has no role', async () => {
  assert.equal((await eve.query(fql`Query.identity()!.name`)).data, 'eve');
  await denied(eve.query(fql`Post.create({ title: "eve's", owner: Query.identity(), public: true })`));
  await denied(eve.query(fql`double(1)`));
});

test('native documents: predicates get the v10 document (read, create, write, delete), as on user documents', async () => {
  await admin.query(fql`Collection.create({ name: "Note" }); Role.create({ name: "spare" })`);
  await admin.query(fql`Role.create({
    name: "keeper",
    membership: [{ resource: "User", predicate: "user => user.name == 'kim'" }],
    privileges: [
      { resource: "Credential", actions: {
        read: "cred => cred.document.name != 'bob'",
        write: "(before, after) => before.document == Query.identity() && after.document == before.document"
      } },
      { resource: "Token", actions: {
        create: "token => token.document == Query.identity() && token.ttl != null && token.id != null",
        delete: "token => token.data?.temp == true"
      } },
      { resource: "Role", actions: {
        read: "role => role.name == 'keeper'",
        write: "(before, after) => before.name == 'spare' && after.name == 'spare' && after.data?.ok == true"
      } },
      { resource: "Collection", actions: { write: "(before, after) => before.name == 'Note' && after.history_days == 3" } }
    ]
  })`);
  const [, kim] = await user('kim');
  // read: a credential is its document's (Credential.byDocument reads it).
  assert.equal((await kim.query(fql`Credential.byDocument(User.byId(${annId})!)!.document.name`)).data, 'ann');
  await denied(kim.query(fql`Credential.byDocument(User.byId(${bobId})!).document`));
  assert.deepEqual((await kim.query(fql`[Role.byName("keeper")!.membership.length, Role.byName("author").exists()]`)).data, [1, false]);
  // write: the credential before and after (a password change keeps its document).
  await kim.query(fql`Credential.byDocument(Query.identity()!)!.update({ password: "pw2" })`);
  await denied(kim.query(fql`Credential.byDocument(User.byId(${annId})!)!.update({ password: "stolen" })`));
  assert.equal((await admin.query(fql`Credential.byDocument(User.byId(${annId})!)!.verify("pw")`)).data, true);
  // create: the new token, its id and fields at the top level.
  assert.equal((await kim.query(fql`Token.create({ document: Query.identity(), ttl: Time.now().add(1, "hour") }).document.name`)).data, 'kim');
  await denied(kim.query(fql`Token.create({ document: Query.identity() })`));
  await denied(kim.query(fql`Token.create({ document: User.byId(${annId})!, ttl: Time.now().add(1, "hour") })`));
  // delete: someone else's token, by its fields.
  const [temp, kept] = (await admin.query<string[]>(fql`[true, false].map(t => Token.create({ document: User.byId(${annId})!, data: { temp: t } }).id)`)).data;
  await kim.query(fql`Token.byId(${temp}).delete()`);
  await denied(kim.query(fql`Token.byId(${kept}).delete()`));
  assert.deepEqual((await admin.query(fql`[Token.byId(${temp}).exists(), Token.byId(${kept}).exists()]`)).data, [false, true]);
  // write on named documents: the role and the collection definition before and after.
  await kim.query(fql`Role.byName("spare").update({ data: { ok: true } })`);
  await denied(kim.query(fql`Role.byName("spare").update({ data: { ok: false } })`));
  await denied(kim.query(fql`Role.byName("spare").update({ name: "other", data: { ok: true } })`));
  await kim.query(fql`Note.definition.update({ history_days: 3 })`);
  await denied(kim.query(fql`Note.definition.update({ history_days: 4 })`));
  assert.deepEqual((await admin.query(fql`[Role.byName("spare")!.data.ok, Note.definition.history_days]`)).data, [true, 3]);
});

test("a function's role must name a role: the core's constraint failure", async () => {
  const e = await serviceFailure(admin.query(fql`Function.create({ name: "aFn", body: "_ => null", role: "aRole" })`));
  assert.equal(e.code, 'constraint_failure');
  assert.equal(e.message, 'Failed to create Function.');
  assert.deepEqual(e.constraint_failures, [{ paths: [['role']], message: 'Field refers to an unknown role name `aRole`.' }]);
  assert.equal((await admin.query(fql`Function.byName("aFn").exists()`)).data, false);
});

test("a function's or key's role is checked once the query has run (NameValidationHook): its role may come later in the query", async () => {
  // FQL2UserFunctionSpec "can create refer its refered role", both orders.
  await admin.query(fql`Function.create({ name: "early", body: "() => Query.isEnvProtected()", role: "later" })
Role.create({ name: "later", privileges: { resource: "Collection", actions: { read: true } } })`);
  await admin.query(fql`Role.create({ name: "first", privileges: { resource: "Collection", actions: { read: true } } })
Function.create({ name: "second", body: "_ => null", role: "first" })`);
  assert.equal((await admin.query(fql`early.definition.role`)).data, 'later');
  // Running with the role: not an admin key any more.
  assert.equal((await serviceFailure(admin.query(fql`early()`))).code, 'permission_denied');
  const secret = (await admin.query<string>(fql`let k = Key.create({ role: "keyRole" }); Role.create({ name: "keyRole" }); k.secret`)).data;
  assert.equal((await v10(secret).query(fql`1 + 1`)).data, 2);
  // The failure points at the write; the role deleted later in the query counts as missing.
  const gone = await serviceFailure(admin.query(fql`Function.create({ name: "orphan", body: "_ => null", role: "first" })
Role.byName("first")!.delete()`));
  assert.equal(gone.code, 'constraint_failure');
  assert.equal(
    gone.queryInfo?.summary,
    [
      'error: Failed to create Function.',
      'constraint failures:',
      '  role: Field refers to an unknown role name `first`.',
      'at *query*:1:16',
      '  |',
      '1 | Function.create({ name: "orphan", body: "_ => null", role: "first" })',
      '  |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
      '  |',
    ].join('\n'),
  );
  // The latest write of a document is the one checked: an update to a builtin role, or a delete, clears it.
  await admin.query(fql`Function.create({ name: "fixed", body: "_ => null", role: "nope" }); Function.byName("fixed")!.update({ role: "server" })`);
  await admin.query(fql`Key.create({ role: "nope" }).delete()`);
  const updated = await serviceFailure(admin.query(fql`Function.byName("fixed")!.update({ role: "nope" })`));
  assert.equal(updated.message, 'Failed to update Function `fixed`.');
});

test('a function created by a query cannot be called in it (the schema the query began with has none)', async () => {
  const global = await serviceFailure(admin.query(fql`Function.create({ name: "f", body: "x => x" }); f(1)`));
  assert.equal(global.code, 'unbound_variable');
  assert.equal(global.message, 'Unbound variable `f`');
  // Refused, so nothing was created; by name, the core's hint says why.
  assert.equal((await admin.query(fql`Function.byName("f").exists()`)).data, false);
  const byName = await serviceFailure(admin.query(fql`Function.create({
  name: "Foo",
  body: "x => x"
})
Function("Foo")`));
  assert.equal(byName.code, 'invalid_argument');
  assert.equal(
    byName.queryInfo?.summary,
    [
      'error: invalid argument `function`: No such user function `Foo`.',
      'at *query*:5:9',
      '  |',
      '5 | Function("Foo")',
      '  |         ^^^^^^^',
      '  |',
      'hint: A function cannot be created and used in the same query.',
      '  |',
      '5 | Function("Foo")',
      '  |         ^^^^^^^',
      '  |',
    ].join('\n'),
  );
  // The next query has it.
  await admin.query(fql`Function.create({ name: "f", body: "x => x + 1" })`);
  assert.equal((await admin.query(fql`f(1)`)).data, 2);
});
