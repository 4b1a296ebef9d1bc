// The schema API's diff formats (issue 33) over plain HTTP against a real server: POST
// /schema/1/diff and /validate answer the core's `semantic` diff by default (and for `diff=true`),
// `summary` and `textual` when asked (`format`, else `diff`), coloured with `color=ansi`; GET
// /schema/1/staged/status adds `pending_summary` and the active-to-staged diff when a format is
// asked, and nothing for a format it does not know; `staged=true` diffs against the staged files.
// Exact strings: the core's DiffRender (see test/unit/fql10/schemaDiff.test.ts for its specs).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fql } from 'fauna';
import { startFlora, waitFor, type FloraProcess } from '../helpers/server';
import { schemaCall, V10Clients } from '../helpers/v10';

let flora: FloraProcess;
const clients = new V10Clients(() => flora.url);
/** Staging needs a child database (the core stages nothing in the root). */
const CHILD = () => `${flora.secret}:diffs:admin`;

before(async () => {
  flora = await startFlora();
  await clients.client(flora.secret).query(fql`Database.create({ name: "diffs" })`);
});
after(async () => {
  clients.closeAll();
  await flora?.stop();
});

const call = (method: string, path: string, files?: Record<string, string>) => schemaCall(flora.url, CHILD(), method, path, files);

const diff = async (path: string, files: Record<string, string>): Promise<unknown> => {
  const a = await call('POST', path, files);
  assert.equal(a.status, 200, JSON.stringify(a.json));
  assert.deepEqual(Object.keys(a.json), ['version', 'diff']);
  return a.json.diff;
};

const ACTIVE = 'collection User {\n  name: String\n}\n\nfunction foo() { 1 }\n\nrole reader {\n  privileges User {\n    read\n  }\n}\n';
const PROPOSED = {
  'main.fsl': 'collection User {\n  name: String\n  index byName {\n    terms [.name]\n  }\n  ttl_days 7\n}\n\nfunction foo() { 2 }\n',
  'more.fsl': '@role(server)\nfunction bar() { 0 }\n',
};

const SEMANTIC = [
  '* Adding function `bar` to more.fsl:1:1:',
  '  + add role set to server',
  '',
  '* Removing role `reader` from main.fsl:7:1:',
  '  - remove privileges on `User`',
  '',
  '* Modifying collection `User` at main.fsl:1:1:',
  '  * Indexes:',
  '  + add index `byName`',
  '',
  '  * Configuration:',
  '  + add ttl_days set to 7',
  '',
  '* Modifying function `foo` at main.fsl:9:1:',
  '  ~ change body',
  '',
  '',
].join('\n');
const SUMMARY = '* Adding function `bar` to more.fsl:1:1\n* Removing role `reader` from main.fsl:7:1\n* Modifying collection `User` at main.fsl:1:1\n* Modifying function `foo` at main.fsl:9:1\n';
// java-diff-utils' alignment (the core's), and its hunk end counted in rows.
const TEXTUAL = [
  'main.fsl',
  '@ line 1 to 12',
  '  collection User {',
  '    name: String',
  '- }',
  '+   index byName {',
  '-',
  '+     terms [.name]',
  '- function foo() { 1 }',
  '-',
  '- role reader {',
  '-   privileges User {',
  '-     read',
  '    }',
  '+   ttl_days 7',
  '  }',
  '+',
  '+ function foo() { 2 }',
  '',
  'more.fsl',
  '@ line 1 to 2',
  '+ @role(server)',
  '+ function bar() { 0 }',
  '',
].join('\n');

test('validate and diff: semantic by default and for diff=true, summary and textual when asked, ANSI colours with color=ansi; nothing changes', async () => {
  assert.equal((await call('POST', '/schema/1/update?force=true', { 'main.fsl': ACTIVE })).status, 200);
  for (const path of ['/schema/1/diff', '/schema/1/validate', '/schema/1/diff?diff=true', '/schema/1/diff?format=semantic', '/schema/1/diff?format=bogus']) {
    assert.equal(await diff(path, PROPOSED), SEMANTIC, path);
  }
  assert.equal(await diff('/schema/1/diff?format=summary', PROPOSED), SUMMARY);
  assert.equal(await diff('/schema/1/diff?diff=summary', PROPOSED), SUMMARY);
  assert.equal(await diff('/schema/1/validate?format=textual', PROPOSED), TEXTUAL);
  // `format` first, then `diff`.
  assert.equal(await diff('/schema/1/diff?format=textual&diff=summary', PROPOSED), TEXTUAL);
  assert.equal(await diff('/schema/1/diff?format=bogus&diff=summary', PROPOSED), SUMMARY);
  assert.equal(await diff('/schema/1/diff?format=summary&color=ansi', PROPOSED), SUMMARY.replace(/^\* (\w+ \w+ `\w+`)/gm, '\u001b[1;34m* $1\u001b[0m'));
  const coloured = (await diff('/schema/1/diff?color=ansi', PROPOSED)) as string;
  assert.ok(coloured.startsWith('\u001b[1;34m* Adding function `bar`\u001b[0m to more.fsl:1:1:\n\u001b[32m  + add role set to server\u001b[0m\n\n'), coloured);
  // Unchanged files: no diff in any format.
  for (const format of ['semantic', 'summary', 'textual']) assert.equal(await diff(`/schema/1/diff?format=${format}`, { 'main.fsl': ACTIVE }), '', format);
  assert.equal((await clients.client(CHILD()).query(fql`Function.byName("bar") == null`)).data, true);
});

test('staged/status: the active-to-staged diff in the format asked, with the pending summary; none for an unknown format; diff with staged=true against the staged files', async () => {
  assert.equal((await call('POST', '/schema/1/update?force=true&staged=true', PROPOSED)).status, 200);
  await waitFor('the staged schema to be ready', async () => (await call('GET', '/schema/1/staged/status')).json.status === 'ready');
  const status = async (query: string) => {
    const a = await call('GET', `/schema/1/staged/status?${query}`);
    assert.equal(a.status, 200);
    return a.json;
  };
  const version = (await status('')).version;
  assert.deepEqual(await status('diff=true'), { version, status: 'ready', pending_summary: '', diff: SEMANTIC });
  assert.deepEqual(await status('format=semantic'), { version, status: 'ready', pending_summary: '', diff: SEMANTIC });
  assert.deepEqual(await status('diff=textual'), { version, status: 'ready', pending_summary: '', diff: TEXTUAL });
  assert.deepEqual(await status('format=summary'), { version, status: 'ready', pending_summary: '', diff: SUMMARY });
  assert.deepEqual(await status('format=bogus'), { version, status: 'ready' });
  // Against the staged files, the active ones are the change back.
  assert.equal(await diff('/schema/1/diff?staged=true&format=summary', { 'main.fsl': ACTIVE }), '* Adding role `reader` to main.fsl:7:1\n* Removing function `bar` from more.fsl:1:1\n* Modifying collection `User` at main.fsl:1:1\n* Modifying function `foo` at main.fsl:5:1\n');
  assert.equal(await diff('/schema/1/diff?staged=true', PROPOSED), '');
  assert.equal(await diff('/schema/1/diff?staged=true&format=textual', PROPOSED), '');
  assert.equal((await call('POST', '/schema/1/staged/abandon?force=true')).status, 200);
  assert.deepEqual(await status('format=semantic'), { version: (await status('')).version, status: 'none', pending_summary: '', diff: '' });
});
