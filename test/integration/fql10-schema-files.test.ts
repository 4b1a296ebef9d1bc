// The schema API's active part (issue 33) through plain HTTP and the drivers, against a real
// server: files pushed with POST /schema/1/update apply at once (documents obey the collection's
// fields, unique and check constraints through v10 and v4, its index answers, the function and
// role exist), GET /schema/1/files answers them as pushed, a collection made with
// Collection.create joins them in a generated main.fsl, validate answers the core's `summary`
// diff, a bad file or a stale version is refused with the core's words and nothing changes.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fql, ServiceError } from 'fauna';
import { query as q, type Client as V4Client } from 'faunadb';
import { makeKey, serverForFile } from '../helpers/server';
import { schemaCall } from '../helpers/v10';

const server = serverForFile();
let v10client: Client | undefined;
/** Made at first use: the server starts in serverForFile's hook. */
const v10 = (): Client => (v10client ??= new Client({ secret: server.flora.secret, endpoint: new URL(server.flora.url), max_attempts: 1 }));
const v4 = (): V4Client => server.drivers.h1;
after(() => v10client?.close());

const BOOKS = `collection Book {
  title: String
  year: Int?
  unique [.title]
  index byYear {
    terms [.year]
  }
  check positiveYear ((doc) => doc.year == null || doc.year > 0)
}
`;
const CODE = `function double(x: Int): Int {
  x * 2
}

role reader {
  privileges Book {
    read
  }
  privileges double {
    call
  }
}
`;

const call = (method: string, path: string, files?: Record<string, string>, secret = server.flora.secret) => schemaCall(server.flora.url, secret, method, path, files);

const files = async (): Promise<Record<string, string>> => {
  const list = (await call('GET', '/schema/1/files')).json.files as { filename: string }[];
  const out: Record<string, string> = {};
  for (const { filename } of list) out[filename] = (await call('GET', `/schema/1/files/${encodeURIComponent(filename)}`)).json.content as string;
  return out;
};

test('a push applies at once: documents obey the schema through v10 and v4, the index answers, the function and role exist', async () => {
  const pushed = await call('POST', '/schema/1/update?force=true', { 'books.fsl': BOOKS, 'code.fsl': CODE });
  assert.equal(pushed.status, 200);
  assert.deepEqual(Object.keys(pushed.json), ['version']);
  assert.equal(typeof pushed.json.version, 'number');

  assert.equal((await v10().query(fql`Book.create({ title: "Dune", year: 1965 }).title`)).data, 'Dune');
  assert.deepEqual((await v10().query(fql`Book.byYear(1965).map(.title).toArray()`)).data, ['Dune']);
  assert.equal((await v10().query(fql`double(21)`)).data, 42);
  assert.equal((await v10().query(fql`Role.byName("reader")!.privileges.length`)).data, 2);
  const typed = await v10().query(fql`Book.create({ title: 3 })`).catch((e: ServiceError) => e);
  assert.ok(typed instanceof ServiceError);
  assert.equal(typed.code, 'constraint_failure');
  assert.deepEqual(typed.constraint_failures, [{ paths: [['title']], message: 'Expected String, provided Int' }]);
  const unique = await v10().query(fql`Book.create({ title: "Dune" })`).catch((e: ServiceError) => e);
  assert.equal((unique as ServiceError).code, 'constraint_failure');
  const checked = await v10().query(fql`Book.create({ title: "Neg", year: -1 })`).catch((e: ServiceError) => e);
  assert.deepEqual((checked as ServiceError).constraint_failures, [{ paths: [], message: 'Document failed check constraint `positiveYear`' }]);

  // v4 writes go through the same schema.
  await v4().query(q.Create(q.Collection('Book'), { data: { title: 'Emma', year: 1815 } }));
  await assert.rejects(v4().query(q.Create(q.Collection('Book'), { data: { title: 7 } })));
  assert.deepEqual((await v10().query(fql`Book.all().map(.title).toArray()`)).data, ['Dune', 'Emma']);
  assert.deepEqual(await v4().query(q.Count(q.Documents(q.Collection('Book')))), 2);
});

test('the files answer as pushed, with the version; an unknown file is 404', async () => {
  const list = await call('GET', '/schema/1/files');
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.files, [{ filename: 'books.fsl' }, { filename: 'code.fsl' }]);
  assert.deepEqual(await files(), { 'books.fsl': BOOKS, 'code.fsl': CODE });
  const one = await call('GET', '/schema/1/files/books.fsl');
  assert.equal(one.json.version, list.json.version);
  assert.deepEqual(await call('GET', '/schema/1/files/nope.fsl'), { status: 404, json: { error: { message: 'Not found' } } });
  const status = await call('GET', '/schema/1/staged/status');
  assert.deepEqual(status, { status: 200, json: { version: list.json.version, status: 'none' } });
});

test('validate answers the summary diff and changes nothing', async () => {
  // A field new to a collection with documents comes with its `add` migration (the core's validator).
  const changed = BOOKS.replace('year: Int?', 'year: Int?\n  pages: Int?').replace('\n}\n', '\n  migrations {\n    add .pages\n  }\n}\n');
  const r = await call('POST', '/schema/1/validate?format=summary', { 'books.fsl': changed, 'main.fsl': 'collection Author {\n  name: String\n}\n' });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.diff, '* Adding collection `Author` to main.fsl:1:1\n* Removing function `double` from code.fsl:1:1\n* Removing role `reader` from code.fsl:5:1\n* Modifying collection `Book` at books.fsl:1:1\n');
  assert.deepEqual(await files(), { 'books.fsl': BOOKS, 'code.fsl': CODE });
});

test('bad files and stale versions are refused with the core\'s words, and nothing changes', async () => {
  const parse = await call('POST', '/schema/1/update?force=true', { 'bad.fsl': 'collection {\n' });
  assert.deepEqual(parse, { status: 400, json: { error: { message: 'error: Expected `}`\nat bad.fsl:1:13\n  |\n1 | collection {\n  |             ^\n  |' } } });
  const dup = await call('POST', '/schema/1/update?force=true', { 'a.fsl': 'role R {}\n', 'b.fsl': 'role R {}\n' });
  assert.deepEqual(dup, { status: 400, json: { error: { message: 'Duplicate role `R` in b.fsl (originally seen in a.fsl)' } } });
  const stale = await call('POST', '/schema/1/update?version=1', { 'books.fsl': BOOKS });
  assert.deepEqual(stale, { status: 409, json: { error: { message: 'Stale schema version provided' } } });
  const name = await call('POST', '/schema/1/update?force=true', { 'books.txt': BOOKS });
  assert.deepEqual(name, { status: 400, json: { error: { message: 'Invalid filename `books.txt`' } } });
  assert.deepEqual(await files(), { 'books.fsl': BOOKS, 'code.fsl': CODE });
  assert.deepEqual(await call('GET', '/schema/1/files', undefined, 'nope'), { status: 401, json: { error: { message: 'Access token required' } } });
});

test('at most 1023 files besides main.fsl (the core\'s SchemaEndpointSpec)', async () => {
  const others = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`foo${i}.fsl`, '// hi']));
  const tooMany = { status: 400, json: { error: { message: 'Too many files' } } };
  assert.equal((await call('POST', '/schema/1/validate', others(1023))).status, 200);
  assert.deepEqual(await call('POST', '/schema/1/validate', others(1024)), tooMany);
  assert.equal((await call('POST', '/schema/1/validate', { ...others(1023), 'main.fsl': '// hi' })).status, 200);
  assert.deepEqual(await call('POST', '/schema/1/validate', { ...others(1024), 'main.fsl': '// hi' }), tooMany);
  assert.deepEqual(await files(), { 'books.fsl': BOOKS, 'code.fsl': CODE });
});

test('a collection made with Collection.create pulls as FSL in main.fsl; a push without it deletes it', async () => {
  await v10().query(fql`Collection.create({ name: "Made", fields: { n: { signature: "Int" } } })`);
  const now = await files();
  assert.equal(now['books.fsl'], BOOKS);
  assert.equal(now['main.fsl'], '// The following schema is auto-generated.\n// This file contains FSL for FQL10-compatible schema items.\n\ncollection Made {\n  n: Int\n  history_days 30\n}\n');
  // The files are the whole schema: what they leave out is deleted, the rest stays as it was.
  const r = await call('POST', `/schema/1/update?version=${(await call('GET', '/schema/1/files')).json.version}`, { 'books.fsl': BOOKS });
  assert.equal(r.status, 200);
  assert.deepEqual((await v10().query(fql`Collection.all().map(.name).toArray()`)).data, ['Book']);
  assert.equal((await v10().query(fql`Function.byName("double") == null`)).data, true);
  assert.deepEqual(await files(), { 'books.fsl': BOOKS });
  assert.equal((await v10().query(fql`Book.all().count()`)).data, 2);
});

test('items changed through FQL are rewritten where the files have them (doc comments kept), deleted ones cut out', async () => {
  const text = '// Shelves.\ncollection Shelf {\n  label: String\n}\n\ncollection Gone {}\n';
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'books.fsl': BOOKS, 'shelf.fsl': text })).status, 200);
  await v10().query(fql`Collection.byName("Shelf")!.update({ history_days: 5 }); Collection.byName("Gone")!.delete(); null`);
  const now = await files();
  assert.equal(now['books.fsl'], BOOKS);
  assert.equal(now['shelf.fsl'], '// Shelves.\ncollection Shelf {\n  label: String\n  history_days 5\n}\n\n\n');
});

test('admin secrets push; server and server-readonly ones read only (SchemaABACSpec), a client one neither; unknown routes and methods', async () => {
  const key = async (role: string) => makeKey(server.flora, role);
  const readonly = await key('server-readonly');
  assert.equal((await call('GET', '/schema/1/files', undefined, readonly)).status, 200);
  const denied = { status: 403, json: { error: { message: 'Access denied' } } };
  assert.deepEqual(await call('POST', '/schema/1/update?force=true', { 'books.fsl': BOOKS }, readonly), denied);
  assert.deepEqual(await call('GET', '/schema/1/files', undefined, await key('client')), denied);
  const serverKey = await key('server');
  assert.equal((await call('GET', '/schema/1/files', undefined, serverKey)).status, 200);
  assert.deepEqual(await call('POST', '/schema/1/update?force=true', { 'books.fsl': BOOKS }, serverKey), denied);
  assert.deepEqual(await call('POST', '/schema/1/staged/abandon?force=true', undefined, serverKey), denied);
  assert.equal((await call('POST', '/schema/1/validate?force=true', { 'books.fsl': BOOKS }, serverKey)).status, 200);
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'books.fsl': BOOKS }, await key('admin'))).status, 200);
  assert.deepEqual(await files(), { 'books.fsl': BOOKS });
  assert.deepEqual(await call('GET', '/schema/1/nope'), { status: 404, json: { error: { message: 'Not found' } } });
  assert.deepEqual(await call('POST', '/schema/1/files'), { status: 405, json: { error: { message: 'Method not allowed' } } });
});
