// The schema API's single-item routes (issue 33) through plain HTTP and the `fauna` driver, against
// a real server: GET, POST and DELETE /schema/1/items/{resource}/{name} and POST
// /schema/1/items/{resource}, with `validate=true` for the diff alone; a new item goes to main.fsl,
// a changed one is patched where it stands, and an item posted under a new name is a rename (a
// collection keeps its documents and their ids). Statuses and words: SchemaEndpointSpec,
// SchemaEndpointStagedSpec and SchemaEndpoint.scala of the core.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fql, type Client } from 'fauna';
import { startFlora, type FloraProcess } from '../helpers/server';
import { schemaCall, V10Clients, type SchemaAnswer } from '../helpers/v10';

let flora: FloraProcess;
const clients = new V10Clients(() => flora.url);

before(async () => {
  flora = await startFlora();
});
after(async () => {
  clients.closeAll();
  await flora?.stop();
});

type Db = { v10: Client; call: (method: string, path: string, body?: string | Record<string, string>) => Promise<SchemaAnswer> };

/** A database of its own; `call` sends a snippet as the body, or files as multipart. */
async function database(name: string): Promise<Db> {
  await clients.client(flora.secret).query(fql`Database.create({ name: ${name} })`);
  const secret = `${flora.secret}:${name}:admin`;
  const call = (method: string, path: string, body?: string | Record<string, string>) => schemaCall(flora.url, secret, method, path, body);
  return { v10: clients.client(secret), call };
}

const message = (a: SchemaAnswer): [number, unknown] => [a.status, (a.json.error as { message?: string } | undefined)?.message];
const definition = (a: SchemaAnswer) => a.json.definition as Record<string, unknown>;

/** An item of each resource, named `name` (SchemaEndpointSpec's anFSLFor). */
const FSL: Record<string, (name: string) => string> = {
  collections: (n) => `collection ${n} {\n  index byName {\n    terms [.name]\n  }\n}`,
  functions: (n) => `function ${n}(x) { x + 1 }`,
  roles: (n) => `role ${n} {\n  privileges Base {\n    read\n  }\n}`,
  access_providers: (n) => `access provider ${n} {\n  issuer "https://fauna0.auth0.com"\n  jwks_uri "https://fauna.auth0.com/.well-known/jwks.json"\n}`,
};
const COLL = { collections: 'Collection', functions: 'Function', roles: 'Role', access_providers: 'AccessProvider' } as const;

test('POST /items/{resource}: validate answers a diff, then the item is created at the end of main.fsl; its definition comes back', async () => {
  const { call } = await database('create');
  // Roles name a collection: Base is pushed first.
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'base.fsl': 'collection Base {}' })).status, 200);
  for (const [tpe, fsl] of Object.entries(FSL)) {
    const snippet = fsl(`New${tpe.replace('_', '')}`);
    const validate = await call('POST', `/schema/1/items/${tpe}?validate=true`, snippet);
    assert.equal(validate.status, 200, JSON.stringify(validate.json));
    assert.deepEqual(Object.keys(validate.json), ['version', 'diff']);
    assert.ok((validate.json.diff as string).length > 0);
    const main = ((await call('GET', '/schema/1/files/main.fsl')).json.content as string | undefined) ?? '';
    const created = await call('POST', `/schema/1/items/${tpe}`, snippet);
    assert.equal(created.status, 200, JSON.stringify(created.json));
    assert.deepEqual(Object.keys(created.json), ['version', 'filename', 'span', 'content', 'definition']);
    assert.equal(created.json.filename, 'main.fsl');
    assert.equal(created.json.content, snippet);
    // FSL.append: after a blank line.
    assert.deepEqual(created.json.span, { start: main.length + 2, end: main.length + 2 + snippet.length });
    assert.equal(definition(created).name, `New${tpe.replace('_', '')}`);
    assert.equal(definition(created).coll, COLL[tpe as keyof typeof COLL]);
    assert.ok((created.json.version as number) > (validate.json.version as number));
  }
  const files = await call('GET', '/schema/1/files/main.fsl');
  assert.ok((files.json.content as string).endsWith(`\n\n${FSL.access_providers('Newaccessproviders')}`));
});

test('POST /items/{resource}: one snippet of the route kind, not a duplicate, valid FSL (the same words for validate)', async () => {
  const { call } = await database('snippets');
  const both = async (path: string, body: string) => {
    const checked = message(await call('POST', `${path}?validate=true`, body));
    assert.deepEqual(message(await call('POST', path, body)), checked);
    return checked;
  };
  assert.deepEqual(await both('/schema/1/items/functions', ''), [400, 'No FSL snippet provided']);
  assert.deepEqual(await both('/schema/1/items/functions', '  '), [400, 'No FSL snippet provided']);
  assert.deepEqual(await both('/schema/1/items/functions', `${FSL.functions('a')}\n${FSL.functions('b')}\n`), [400, 'Expected a single schema item, got: 2']);
  assert.deepEqual(await both('/schema/1/items/collections', FSL.functions('a')), [400, 'Wrong FSL snippet. Expected a collection']);
  assert.deepEqual(await both('/schema/1/items/access_providers', FSL.collections('A')), [400, 'Wrong FSL snippet. Expected an access provider']);
  const [status, invalid] = await both('/schema/1/items/collections', 'collection \\Foo {}');
  assert.equal(status, 400);
  assert.match(String(invalid), /^error: /);
  assert.equal((await call('POST', '/schema/1/items/functions', FSL.functions('dup'))).status, 200);
  const [dupStatus, dup] = await both('/schema/1/items/functions', FSL.functions('dup'));
  assert.equal(dupStatus, 400);
  assert.match(String(dup), /error: Duplicate/);
});

test('GET /items/{resource}/{name}: the item where it stands, with its definition; 404 for an unknown item, 409 for a stale version', async () => {
  const { call } = await database('get');
  const fsl = FSL.collections('Thing');
  const pushed = await call('POST', '/schema/1/update?override=false', { 'test.fsl': fsl });
  assert.equal(pushed.status, 200);
  const vs = pushed.json.version as number;
  const got = await call('GET', `/schema/1/items/collections/Thing?version=${vs}`);
  assert.equal(got.status, 200);
  assert.deepEqual({ ...got.json, definition: undefined }, { version: vs, filename: 'test.fsl', span: { start: 0, end: fsl.length }, content: fsl, definition: undefined });
  assert.equal(definition(got).name, 'Thing');
  assert.equal(definition(got).coll, 'Collection');
  assert.deepEqual(Object.keys(definition(got).indexes as object), ['byName']);
  assert.deepEqual(message(await call('GET', '/schema/1/items/collections/Nope')), [404, 'Not found']);
  assert.deepEqual(message(await call('GET', '/schema/1/items/functions/Thing')), [404, 'Not found']);
  assert.deepEqual(message(await call('GET', `/schema/1/items/collections/Thing?version=${vs + 1}`)), [409, 'Stale schema version provided']);
  // The OpenAPI document's path (no `items/`) is the same route.
  assert.deepEqual((await call('GET', '/schema/1/collections/Thing')).json.content, fsl);
  assert.deepEqual(message(await call('GET', '/schema/1/items/widgets/Thing')), [404, 'Not found']);
  assert.deepEqual(message(await call('PUT', '/schema/1/items/collections/Thing', fsl)), [405, 'Method not allowed']);
  assert.deepEqual(message(await call('GET', '/schema/1/items/collections')), [405, 'Method not allowed']);
});

test('POST /items/{resource}/{name}: the item is patched in its own file, the others untouched; unchanged, the diff is empty and the version stays', async () => {
  const { call } = await database('update');
  const other = 'function other() { 0 }\n';
  const pushed = await call('POST', '/schema/1/update?force=true', { 'existing.fsl': other, 'test.fsl': `// head\n\n${FSL.functions('f')}\n// tail\n` });
  const vs = pushed.json.version as number;
  const same = await call('POST', '/schema/1/items/functions/f?validate=true', FSL.functions('f'));
  assert.deepEqual(same.json, { version: vs, diff: '' });
  const changed = 'function f(x) { x + 2 }';
  const validate = await call('POST', '/schema/1/items/functions/f?validate=true', changed);
  assert.deepEqual(validate.json, { version: vs, diff: '* Modifying function `f` at test.fsl:3:1:\n  ~ change body\n\n' });
  const updated = await call('POST', `/schema/1/items/functions/f?version=${vs}`, changed);
  assert.equal(updated.status, 200, JSON.stringify(updated.json));
  assert.equal(updated.json.filename, 'test.fsl');
  assert.deepEqual(updated.json.span, { start: 9, end: 9 + changed.length });
  assert.ok((updated.json.version as number) > vs);
  assert.equal((await call('GET', '/schema/1/files/test.fsl')).json.content, `// head\n\n${changed}\n// tail\n`);
  assert.equal((await call('GET', '/schema/1/files/existing.fsl')).json.content, other);
  // The same again changes nothing: the item as it stands, at the version there is.
  const again = await call('POST', '/schema/1/items/functions/f', changed);
  assert.equal(again.status, 200);
  assert.equal(again.json.version, updated.json.version);
  assert.deepEqual(message(await call('POST', `/schema/1/items/functions/f?version=${vs}`, changed)), [409, 'Stale schema version provided']);
  assert.deepEqual(message(await call('POST', '/schema/1/items/functions/nope', changed)), [404, 'Not found']);
  assert.deepEqual(message(await call('POST', '/schema/1/items/functions/nope?validate=true', changed)), [404, 'Not found']);
  assert.deepEqual(message(await call('POST', '/schema/1/items/roles/f', FSL.functions('f'))), [400, 'Wrong FSL snippet. Expected a role']);
});

test('POST /items/{resource}/{name}: a validation error points into the patched file (SchemaEndpointSpec)', async () => {
  const { call } = await database('invalid');
  assert.equal((await call('POST', '/schema/1/update?override=false', { 'foo.fsl': 'collection Foo {\n  foo: String\n}' })).status, 200);
  const invalid = 'collection Foo {\n  migrations {\n    drop .foo\n    drop .foo\n  }\n}';
  const expected = [
    'error: Cannot drop field `.foo`. Dropped fields must be removed from schema',
    'at foo.fsl:3:10',
    '  |',
    '3 |     drop .foo',
    '  |          ^^^^',
    '  |',
    'hint: Field defined here',
    'at foo.fsl:4:11',
    '  |',
    '4 |     drop .foo',
    '  |           ^^^',
    '  |',
  ].join('\n');
  assert.deepEqual(message(await call('POST', '/schema/1/items/collections/Foo?validate=true', invalid)), [400, expected]);
  assert.deepEqual(message(await call('POST', '/schema/1/items/collections/Foo', invalid)), [400, expected]);
});

test('an item posted under a new name is a rename: the collection keeps its documents, their ids and ts, and its indexes', async () => {
  const { v10, call } = await database('rename');
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'test.fsl': FSL.collections('Foo') })).status, 200);
  const doc = (await v10.query(fql`let d = Foo.create({ name: "ann" }); { id: d.id, ts: d.ts }`)).data as { id: string; ts: unknown };
  const validate = await call('POST', '/schema/1/items/collections/Foo?validate=true', FSL.collections('Bar'));
  assert.deepEqual(validate.json.diff, '* Modifying collection `Foo` at test.fsl:1:1:\n  * Configuration:\n  ~ rename to `Bar`\n\n');
  const renamed = await call('POST', '/schema/1/items/collections/Foo', FSL.collections('Bar'));
  assert.equal(renamed.status, 200, JSON.stringify(renamed.json));
  assert.equal(definition(renamed).name, 'Bar');
  const moved = (await v10.query(fql`let d = Bar.byId(${doc.id})!; { id: d.id, ts: d.ts, name: d.name }`)).data;
  assert.deepEqual(moved, { ...doc, name: 'ann' });
  assert.equal((await v10.query(fql`Bar.byName("ann").count()`)).data, 1);
  assert.equal((await v10.query(fql`Collection.byName("Foo") == null`)).data, true);
  assert.equal((await call('GET', '/schema/1/files/test.fsl')).json.content, FSL.collections('Bar'));
  // A function too: the new name answers, the old one is gone.
  assert.equal((await call('POST', '/schema/1/items/functions', FSL.functions('inc'))).status, 200);
  assert.equal((await call('POST', '/schema/1/items/functions/inc', FSL.functions('plusOne'))).status, 200);
  assert.deepEqual((await v10.query(fql`[plusOne(1), Function.byName("inc") == null]`)).data, [2, true]);
});

test('DELETE /items/{resource}/{name}: validate, then the item is cut out of its file; then 404', async () => {
  const { v10, call } = await database('delete');
  const pushed = await call('POST', '/schema/1/update?override=false', { 'test.fsl': `${FSL.functions('gone')}\n\nfunction kept() { 1 }\n` });
  assert.equal(pushed.status, 200);
  const validate = await call('DELETE', '/schema/1/items/functions/gone?validate=true');
  assert.deepEqual(validate.json, { version: pushed.json.version, diff: '* Removing function `gone` from test.fsl:1:1\n\n' });
  const deleted = await call('DELETE', '/schema/1/items/functions/gone');
  assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
  assert.deepEqual({ ...deleted.json, version: 0, definition: undefined }, { version: 0, filename: 'test.fsl', span: { start: 0, end: FSL.functions('gone').length }, content: FSL.functions('gone'), definition: undefined });
  assert.equal(definition(deleted).name, 'gone');
  assert.equal((await call('GET', '/schema/1/files/test.fsl')).json.content, '\n\nfunction kept() { 1 }\n');
  assert.equal((await v10.query(fql`Function.byName("gone") == null`)).data, true);
  assert.deepEqual(message(await call('DELETE', '/schema/1/items/functions/gone?validate=true')), [404, 'Not found']);
  assert.deepEqual(message(await call('DELETE', '/schema/1/items/functions/gone')), [404, 'Not found']);
  assert.deepEqual(message(await call('GET', `/schema/1/items/functions/gone?version=${deleted.json.version}`)), [404, 'Not found']);
});

test('with a schema staged, an item write (a rename included) is staged; commit renames the collection with its documents', async () => {
  const { v10, call } = await database('staged');
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'foo.fsl': 'collection Foo {}' })).status, 200);
  await v10.query(fql`Foo.create({ id: "1", a: 1 })`);
  // A no-op update to enter staged mode (SchemaEndpointStagedSpec).
  assert.equal((await call('POST', '/schema/1/update?force=true&staged=true', { 'foo.fsl': 'collection Foo {}' })).status, 200);
  const res = await call('POST', '/schema/1/items/collections/Foo?force=true', 'collection Bar {}');
  assert.equal(res.status, 200, JSON.stringify(res.json));
  assert.equal((await v10.query(fql`Foo.byId("1")!.a`)).data, 1, 'the active schema serves until commit');
  const status = await call('GET', '/schema/1/staged/status?format=semantic');
  assert.equal(status.json.diff, '* Modifying collection `Foo` at foo.fsl:1:1:\n  * Configuration:\n  ~ rename to `Bar`\n\n');
  assert.equal((await call('POST', '/schema/1/staged/commit?force=true')).status, 200);
  assert.equal((await v10.query(fql`Bar.byId("1")!.a`)).data, 1);
});

test('server and read-only secrets read items but write none (SchemaABACSpec); a client secret does neither', async () => {
  const { call } = await database('perms');
  assert.equal((await call('POST', '/schema/1/items/functions', FSL.functions('id'))).status, 200);
  const as = async (role: string, method: string, path: string, body?: string) => {
    const res = await fetch(new URL(path, flora.url), { method, headers: { authorization: `Bearer ${flora.secret}:perms:${role}` }, body });
    return message({ status: res.status, json: (await res.json()) as Record<string, unknown> });
  };
  assert.equal((await as('server-readonly', 'GET', '/schema/1/items/functions/id'))[0], 200);
  assert.deepEqual(await as('server-readonly', 'POST', '/schema/1/items/functions/id', FSL.functions('id')), [403, 'Access denied']);
  assert.equal((await as('server', 'GET', '/schema/1/items/functions/id'))[0], 200);
  assert.deepEqual(await as('server', 'POST', '/schema/1/items/functions/id', FSL.functions('id')), [403, 'Access denied']);
  assert.deepEqual(await as('server', 'DELETE', '/schema/1/items/functions/id'), [403, 'Access denied']);
  assert.deepEqual(await as('client', 'GET', '/schema/1/items/functions/id'), [403, 'Access denied']);
});
