// The dashboard's Schema tab and a collection's FSL (issue 33), in headless Chromium: a new file
// validated (the summary diff) then pushed, listed and shown; its collection in the Collections tab
// with its definition; a bad file refused with the core's message and caret; a collection made with
// FQL v4 shown as the generated main.fsl has it; a file loaded from disk; a push refused when the
// schema changed meanwhile.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardSession, SKIP, STEP } from '../helpers/browser';
import { httpRequest, serverForFile, type RawResponse } from '../helpers/server';

const file = serverForFile();
const ui = dashboardSession(() => file.flora);
const { see, shot, signIn, openTab, runQuery } = ui;
const page = () => ui.page;

const PETS = 'collection Pets {\n  name: String\n  index byName {\n    terms [.name]\n  }\n}\n';
const DOUBLE = 'function double(x: Number): Number {\n  x * 2\n}\n';
const PETS_WITH_AGE = 'collection Pets {\n  name: String\n  age: Int?\n  index byName {\n    terms [.name]\n  }\n}\n';

async function text(selector: string): Promise<string> {
  return (await page().locator(selector).first().textContent()) ?? '';
}

/** An FQL v10 query in the database `shop`, past the dashboard. */
function v10(query: string): Promise<RawResponse> {
  return httpRequest(file.flora.url, { method: 'POST', path: '/query/1', headers: { authorization: `Bearer ${file.flora.secret}:shop:admin` }, body: JSON.stringify({ query }) });
}

/** The names of the files the Schema tab lists. */
async function listed(): Promise<string[]> {
  return page().locator('#schema-files button.schema-file').allTextContents();
}

/** Types `source` as the edited file's text, validates it and waits for the diff. */
async function validate(source: string): Promise<string> {
  await page().fill('#schema-text', source);
  assert.equal(await page().isDisabled('#push-schema'), true);
  await page().click('#validate-schema');
  await page().locator('#schema-diff:not(:empty)').waitFor(STEP);
  return text('#schema-diff');
}

test('the Schema tab shows and pushes FSL files', { skip: SKIP, timeout: 180_000 }, async (t) => {
  await t.test('a new database has no schema files', async () => {
    await signIn(file.flora.secret);
    await see('#db-tree button.db', '(root)');
    await ui.createDatabase('shop');
    await see('#databases .notice', 'Created database shop: it is selected');
    await openTab('schema');
    await see('#schema-scope', 'in shop');
    assert.equal(await text('#schema-files .empty'), 'No schema files: the database has no collections, functions, roles or access providers.');
  });

  await t.test('a new file: validated, then pushed, listed and shown', async () => {
    await page().click('#new-schema-file');
    await page().fill('#schema-file-name', 'pets.fsl');
    assert.equal(await validate(PETS), '* Adding collection `Pets` to pets.fsl:1:1\n');
    await shot('schema-01-validated');
    await page().click('#push-schema');
    await see('#schema-panel .notice', 'Pushed pets.fsl.');
    assert.deepEqual(await listed(), ['pets.fsl']);
    assert.equal(await text('#schema-file'), PETS);
    assert.equal(await page().isHidden('#schema-edit'), true);
    // Coloured: the keywords as the query editor colours function names.
    assert.deepEqual(await page().locator('#schema-file span.fn').allTextContents(), ['collection', 'index', 'terms']);
  });

  await t.test('the collection in the Collections tab, with its FSL', async () => {
    await openTab('documents');
    await page().click('#collections button.collection:text-is("Pets")');
    await see('#collection-fsl-file', 'In pets.fsl (the Schema tab edits and pushes it).');
    assert.equal(await text('#collection-fsl-text'), PETS.trimEnd());
    await shot('schema-02-collection');
  });

  await t.test("a bad file is refused with the core's message and its caret; a good edit is pushed", async () => {
    await openTab('schema');
    await page().click('#edit-schema-file');
    assert.equal(await page().inputValue('#schema-text'), PETS);
    assert.equal(await page().getAttribute('#schema-file-name', 'readonly'), '');
    await page().fill('#schema-text', PETS + '\ncolection Toys {\n}\n');
    await page().click('#validate-schema');
    await see('#schema-panel pre.error.summary', 'colection');
    assert.equal(
      await text('#schema-panel pre.error.summary'),
      'error: Invalid schema item `colection`\nat pets.fsl:8:1\n  |\n8 | colection Toys {\n  | ^^^^^^^^^\n  |',
    );
    assert.equal(await page().isDisabled('#push-schema'), true);
    await shot('schema-03-error');
    assert.equal(await validate(PETS_WITH_AGE), '* Modifying collection `Pets` at pets.fsl:1:1\n');
    await page().click('#push-schema');
    await see('#schema-panel .notice', 'Pushed pets.fsl.');
    assert.equal(await text('#schema-file'), PETS_WITH_AGE);
  });

  await t.test('a file loaded from disk is pushed beside the others', async () => {
    await page().click('#new-schema-file');
    await page().setInputFiles('#schema-upload', { name: 'funcs.fsl', mimeType: 'text/plain', buffer: Buffer.from(DOUBLE) });
    await page().waitForFunction(() => (document.querySelector('#schema-file-name') as HTMLInputElement).value === 'funcs.fsl', null, STEP);
    assert.equal(await page().inputValue('#schema-text'), DOUBLE);
    await page().click('#validate-schema');
    await see('#schema-diff', 'Adding');
    assert.equal(await text('#schema-diff'), '* Adding function `double` to funcs.fsl:1:1\n');
    await page().click('#push-schema');
    await see('#schema-panel .notice', 'Pushed funcs.fsl.');
    assert.deepEqual(await listed(), ['pets.fsl', 'funcs.fsl']);
    assert.equal(await text('#schema-file'), DOUBLE);
    assert.match((await v10('double(21)')).body, /^\{"data":42,/);
  });

  await t.test('a collection made with FQL v4 shows as FSL', async () => {
    await runQuery('CreateCollection({ name: "old4" })');
    await see('#result-fql', 'old4');
    await openTab('schema');
    await page().locator('#schema-files button.schema-file', { hasText: 'main.fsl' }).waitFor(STEP);
    assert.deepEqual(await listed(), ['pets.fsl', 'funcs.fsl', 'main.fsl']);
    await page().click('#schema-files button.schema-file:text-is("main.fsl")');
    assert.equal(
      await text('#schema-file'),
      '// The following schema is auto-generated.\n// This file contains FSL for FQL10-compatible schema items.\n\ncollection old4 {\n  history_days 30\n}\n',
    );
    await openTab('documents');
    await page().click('#collections button.collection:text-is("old4")');
    await see('#collection-fsl-file', 'In main.fsl');
    assert.equal(await text('#collection-fsl-text'), 'collection old4 {\n  history_days 30\n}');
  });

  await t.test('a push is refused when the schema changed since the tab read it', async () => {
    await openTab('schema');
    await page().click('#schema-files button.schema-file:text-is("pets.fsl")');
    await page().click('#edit-schema-file');
    const made = await v10('Collection.create({ name: "Later" })');
    assert.equal(made.status, 200, made.body);
    assert.equal(await validate(PETS), '* Removing collection `Later` from main.fsl:8:1\n* Modifying collection `Pets` at pets.fsl:1:1\n');
    await page().click('#push-schema');
    await see('#schema-panel .error', 'Stale');
    assert.equal(
      await text('#schema-panel .error'),
      'Could not push the schema: Stale schema version provided. The schema changed since this tab read it: copy your text, reopen the tab and edit again.',
    );
    // The failed validation and push answered 400 and 409, which the console reports; nothing else went wrong.
    assert.deepEqual(ui.unexpectedErrors([400, 409]), []);
  });
});
