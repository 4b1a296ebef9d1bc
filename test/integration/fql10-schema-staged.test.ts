// Staged schema pushes (issue 33) through plain HTTP and the `fauna` driver, against a real
// server: POST /schema/1/update?staged=true keeps the files aside while v10 queries still see the
// active schema, the staged index builds in the background (GET /schema/1/staged/status `pending`
// with the core's pending summary, then `ready`), commit applies everything at once and refuses
// before `ready`, abandon leaves the active schema as it was, a second push (staged or not) replaces
// the staged one, and a restart keeps what is staged (it lives in the store). The core's words come from
// SchemaEndpointStagedSpec and SchemaStatus.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fql } from 'fauna';
import { startFlora, waitFor, type FloraProcess } from '../helpers/server';
import { schemaCall, serviceFailure, V10Clients, type SchemaAnswer } from '../helpers/v10';

// Background builds pause between batches, so that `pending` lasts long enough to be seen (3 s or
// more: at 0.4 s a loaded machine saw `ready` already).
let flora: FloraProcess;
const clients = new V10Clients(() => flora.url);
const CHILD = () => `${flora.secret}:staged:admin`;
const v10 = () => clients.client(CHILD());

before(async () => {
  flora = await startFlora({ env: { FLORA_TEST_BUILD_DELAY_MS: '1500' } });
  await clients.client(flora.secret).query(fql`Database.create({ name: "staged" })`);
});
after(async () => {
  clients.closeAll();
  await flora?.stop();
});

const call = (method: string, path: string, files?: Record<string, string>, secret = CHILD()) => schemaCall(flora.url, secret, method, path, files);

const status = async (): Promise<unknown> => {
  const a = await call('GET', '/schema/1/staged/status');
  assert.equal(a.status, 200);
  assert.deepEqual(Object.keys(a.json), ['version', 'status']);
  return a.json.status;
};
const summary = async () => {
  const a = await call('GET', '/schema/1/staged/status?format=summary');
  assert.equal(a.status, 200);
  return { status: a.json.status, pending: a.json.pending_summary, diff: a.json.diff };
};
const ready = () => waitFor('the staged schema to be ready', async () => (await status()) === 'ready');
const error = (a: SchemaAnswer): [number, unknown] => [a.status, (a.json.error as { message?: string } | undefined)?.message];

const ACTIVE = 'collection User {\n  name: String\n}\n\nfunction foo() { 1 }\n';
const STAGED = 'collection User {\n  name: String\n\n  index byName {\n    terms [.name]\n  }\n}\n\nfunction foo() { 2 }\n\ncollection Extra {}\n';

test('a staged push: the active schema serves until commit, the index builds (pending, then ready), commit applies it at once', async () => {
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'main.fsl': ACTIVE })).status, 200);
  assert.equal(await status(), 'none');
  // GET /schema/1/status is the same route.
  assert.deepEqual(await call('GET', '/schema/1/status'), await call('GET', '/schema/1/staged/status'));
  assert.deepEqual(await summary(), { status: 'none', pending: '', diff: '' });
  await v10().query(fql`Set.sequence(0, 600).forEach(i => User.create({ name: "user-#{i}" }))`);

  const version = (await call('GET', '/schema/1/staged/status')).json.version as number;
  const pushed = await call('POST', `/schema/1/update?staged=true&version=${version}`, { 'main.fsl': STAGED });
  assert.equal(pushed.status, 200);
  assert.deepEqual(Object.keys(pushed.json), ['version']);
  assert.equal(await status(), 'pending');
  assert.deepEqual(await summary(), {
    status: 'pending',
    pending: '* Collection User:\n  ~ index byName: building\n',
    diff: '* Adding collection `Extra` to main.fsl:11:1\n* Modifying collection `User` at main.fsl:1:1\n* Modifying function `foo` at main.fsl:9:1\n',
  });

  // Queries see the active schema: the old function, no index, no new collection.
  assert.equal((await v10().query(fql`foo()`)).data, 1);
  assert.deepEqual((await v10().query(fql`Collection.byName("User")!.indexes`)).data, {});
  assert.equal((await serviceFailure(v10().query(fql`User.byName("user-0").count()`))).code, 'invalid_function_invocation');
  assert.equal((await v10().query(fql`Collection.byName("Extra") == null`)).data, true);
  // The files: active by default, staged with staged=true.
  assert.deepEqual((await call('GET', '/schema/1/files')).json.files, [{ filename: 'main.fsl' }]);
  assert.equal((await call('GET', '/schema/1/files/main.fsl')).json.content, ACTIVE);
  assert.equal((await call('GET', '/schema/1/files/main.fsl?staged=true')).json.content, STAGED);
  // Diffs against the staged schema with staged=true, against the active one without.
  assert.equal((await call('POST', '/schema/1/diff?staged=true&format=summary', { 'main.fsl': STAGED })).json.diff, '');
  assert.equal((await call('POST', '/schema/1/validate?format=summary', { 'main.fsl': ACTIVE })).json.diff, '');

  assert.deepEqual(error(await call('POST', '/schema/1/staged/commit?force=true')), [400, 'Cannot commit schema before it is in the `ready` state. Check schema status for details.']);
  await ready();
  assert.deepEqual((await summary()).pending, '');

  const committed = await call('POST', '/schema/1/staged/commit?force=true');
  assert.equal(committed.status, 200);
  assert.equal(await status(), 'none');
  assert.equal((await v10().query(fql`foo()`)).data, 2);
  // The index built while staged serves at once (a build started at commit would not be ready yet).
  assert.equal((await v10().query(fql`User.byName("user-7").count()`)).data, 1);
  assert.equal((await v10().query(fql`Collection.byName("Extra")!.name`)).data, 'Extra');
  assert.equal((await call('GET', '/schema/1/files/main.fsl')).json.content, STAGED);
  assert.deepEqual(error(await call('POST', '/schema/1/staged/commit?force=true')), [400, 'There is no staged schema to commit']);
});

test('abandon leaves the active schema as it was; a second push, staged or not, replaces the staged one', async () => {
  const first = STAGED.replace('function foo() { 2 }', 'function foo() { 3 }').replace('terms [.name]', 'terms [.name]\n    values [.name]');
  assert.equal((await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': first })).status, 200);
  assert.equal((await call('POST', '/schema/1/staged/abandon?force=true')).status, 200);
  assert.equal(await status(), 'none');
  assert.equal((await v10().query(fql`foo()`)).data, 2);
  assert.equal((await call('GET', '/schema/1/files/main.fsl?staged=true')).json.content, STAGED);
  assert.deepEqual(error(await call('POST', '/schema/1/abandon?force=true')), [400, 'There is no staged schema to abandon']);

  const second = STAGED.replace('function foo() { 2 }', 'function foo() { 4 }');
  assert.equal((await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': first })).status, 200);
  // With a schema staged, a push without staged=true replaces the staged one too (the core keeps
  // the active schema pinned until commit or abandon).
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'main.fsl': second })).status, 200);
  assert.equal((await v10().query(fql`foo()`)).data, 2);
  assert.equal((await call('GET', '/schema/1/files/main.fsl?staged=true')).json.content, second);
  assert.equal((await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': second })).status, 200);
  assert.equal((await call('GET', '/schema/1/files/main.fsl?staged=true')).json.content, second);
  // The second push adds no index: nothing to build.
  assert.equal(await status(), 'ready');
  assert.equal((await v10().query(fql`foo()`)).data, 2);
  assert.equal((await call('POST', '/schema/1/commit?force=true')).status, 200);
  assert.equal((await v10().query(fql`foo()`)).data, 4);
});

test('a staged push that does not check is refused with the core\'s words, and nothing is staged', async () => {
  // Refused where the items are written, as an active push is.
  const bad = await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': STAGED + '\nrole r {\n  privileges Nope {\n    read\n  }\n}\n' });
  assert.deepEqual(error(bad), [400, 'Failed to create Role.\nResource `Nope` does not exist.']);
  assert.equal(await status(), 'none');
  assert.deepEqual(error(await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': 'collection {' })), [400, 'error: Expected `}`\nat main.fsl:1:13\n  |\n1 | collection {\n  |             ^\n  |']);
  const stale = await call('POST', '/schema/1/update?staged=true&version=1', { 'main.fsl': STAGED });
  assert.deepEqual(error(stale), [409, 'Stale schema version provided']);
});

test('the root database stages nothing: a staged push, commit and abandon are refused, its status is none', async () => {
  const root = flora.secret;
  const refused = [400, 'Schema cannot be staged in the root database'];
  assert.deepEqual(error(await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': 'function foo() { 2 }' }, root)), refused);
  assert.deepEqual(error(await call('POST', '/schema/1/staged/commit?force=true', undefined, root)), refused);
  assert.deepEqual(error(await call('POST', '/schema/1/staged/abandon?force=true', undefined, root)), refused);
  assert.equal((await call('GET', '/schema/1/staged/status', undefined, root)).json.status, 'none');
});

test('a restart keeps the staged schema: its build resumes, and it commits afterwards', async () => {
  const withIndex = STAGED.replace('function foo() { 2 }', 'function foo() { 5 }').replace('terms [.name]', 'terms [.name]\n    values [.name]');
  assert.equal((await call('POST', '/schema/1/update?staged=true&force=true', { 'main.fsl': withIndex })).status, 200);
  assert.equal(await status(), 'pending');
  clients.closeAll();
  flora = await flora.restart();
  assert.ok(['pending', 'ready'].includes((await status()) as string));
  assert.equal((await call('GET', '/schema/1/files/main.fsl?staged=true')).json.content, withIndex);
  assert.equal((await v10().query(fql`foo()`)).data, 4);
  await ready();
  assert.equal((await call('POST', '/schema/1/staged/commit?force=true')).status, 200);
  assert.equal((await v10().query(fql`foo()`)).data, 5);
  assert.deepEqual((await v10().query(fql`User.byName("user-3").map(.name).toArray()`)).data, ['user-3']);
});
