// The dashboard's query editor with FQL v10 (issue 32), in headless Chromium: the language switch
// (v4 by default, remembered in localStorage across a reload), v10 queries on /query/1 with their
// result in FQL syntax and their metrics, a runtime and a parse error shown with their summaries
// (the query with carets), log() lines as a notice, and v4 unchanged beside it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardSession, SKIP, STEP } from '../helpers/browser';
import { serverForFile } from '../helpers/server';

const file = serverForFile();
const ui = dashboardSession(() => file.flora);
const { see, shot, signIn, openTab, runQuery } = ui;
const page = () => ui.page;

/** The text of an element, once one matching `selector` contains `text`. */
async function textOf(selector: string, text: string): Promise<string> {
  await see(selector, text);
  return (await page().locator(selector, { hasText: text }).first().textContent()) ?? '';
}

/** Reloads the page (the sign-in is kept for the tab) and opens the query editor. */
async function reopen(): Promise<void> {
  await page().reload();
  await page().locator('#workspace').waitFor(STEP);
  await openTab('query');
}

test('the query editor runs FQL v10', { skip: SKIP, timeout: 120_000 }, async (t) => {
  await t.test('v4 by default; switching to v10', async () => {
    await signIn(file.flora.secret);
    await page().locator('#workspace').waitFor(STEP);
    await openTab('query');
    assert.equal(await page().inputValue('#query-language'), 'v4');
    assert.equal(await page().getAttribute('#query', 'placeholder'), 'Paginate(Collections())   — Ctrl+Enter runs');
    await page().selectOption('#query-language', 'v10');
    assert.equal(await page().getAttribute('#query', 'placeholder'), 'Collection.all()   — Ctrl+Enter runs');
  });

  await t.test('a v10 query: the result in FQL syntax, the metrics', async () => {
    await runQuery('Collection.create({ name: "pets" })');
    await see('#result-fql', 'name: "pets"'); // its answer first: the editor runs one query at a time
    await runQuery('pets.create({ id: "1", name: "Rex" })\npets.all().map(.name)');
    assert.equal(await textOf('#result-fql', 'Rex'), '{\n  data: [\n    "Rex"\n  ]\n}');
    await see('#metrics th', 'compute_ops');
    await see('#metrics th', 'txn_ts');
    assert.equal(await page().locator('#result-tree').textContent(), '');
    await runQuery('[1, 2.0, Time.epoch(0, "second")]');
    assert.equal(await textOf('#result-fql', 'Time('), '[\n  1,\n  2.0,\n  Time("1970-01-01T00:00:00Z")\n]');
    await shot('fql10-01-result');
  });

  await t.test('errors with their summary: a runtime error, a parse error', async () => {
    await runQuery('abort("no")');
    assert.equal(
      await textOf('#query-panel pre.error.summary', 'abort'),
      'abort: Query aborted.\n\nerror: Query aborted.\nat *query*:1:6\n  |\n1 | abort("no")\n  |      ^^^^^^\n  |\n\nAbort value:\n"no"',
    );
    // Marked in the editor where the summary points: abort's argument list.
    assert.equal((await page().locator('#query-highlight .mistake').allTextContents()).join(''), '("no")');
    await shot('fql10-02-error');
    await runQuery('1 +');
    assert.equal(
      await textOf('#query-panel pre.error.summary', 'invalid_query'),
      'invalid_query: The query failed 1 validation check\n\nerror: Expected expression\nat *query*:1:4\n  |\n1 | 1 +\n  |    ^\n  |',
    );
    // At the end of the text: a marked space after it.
    assert.equal(await page().evaluate(() => document.querySelector('#query-highlight .mistake')?.previousSibling?.textContent), '+');
    assert.equal(await page().locator('#result-fql').textContent(), '');
  });

  await t.test('log() lines are shown as a notice with the result', async () => {
    await runQuery('log("hello")\n42');
    await see('#result-fql', '42');
    assert.match(await textOf('#query-panel pre.notice.summary', 'hello'), /hello/);
    assert.equal(await page().locator('#query-panel .error').count(), 0);
  });

  await t.test('the choice is remembered across a reload; v4 runs as before', async () => {
    await reopen();
    assert.equal(await page().inputValue('#query-language'), 'v10');
    await page().selectOption('#query-language', 'v4');
    await runQuery('Add(1, 2)');
    await see('#result-fql', '3');
    await see('#result-json', '3');
    await runQuery('Add(1,');
    await see('#query-panel .error', 'Syntax:');
    await reopen();
    assert.equal(await page().inputValue('#query-language'), 'v4');
    // The failed v10 queries answered 400, which the console reports; nothing else went wrong.
    assert.deepEqual(ui.unexpectedErrors([400]), []);
  });
});
