// The dashboard in a real browser: headless Chromium (Debian's `chromium`) driven by playwright-core
// through sign-in, a refused secret, creating a database (selected once made), a collection (its
// dialog; then edited and deleted), documents (a dialog, with a JSON mistake first) as a grid sorted
// by a header click, paged with its place and count, filtered through an index, running queries
// with Ctrl+Enter, and a key whose role may not list databases. Screenshots go to dist/test-artifacts/dashboard/.
// Without Chromium the test is skipped with the line that says how to get it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardSession, SKIP, STEP } from '../helpers/browser';
import { httpRequest, serverForFile } from '../helpers/server';

const file = serverForFile();
const ui = dashboardSession(() => file.flora);
const { see, shot, signIn, signInWithRole, openTab, runQuery, confirmNext, choose, createDatabase } = ui;
const page = () => ui.page;

test('the dashboard, signed in with the root secret, end to end', { skip: SKIP, timeout: 120_000 }, async (t) => {
  await t.test('the first screen: the sign-in form, its time marked for bench/dashboard.ts', async () => {
    await page().goto(`${file.flora.url}/admin`);
    await page().locator('#sign-in').waitFor(STEP);
    const marked = await page().evaluate(() => performance.getEntriesByName('flora-first-screen').length);
    assert.equal(marked, 1, 'main.ts marks the first screen once');
    await shot('01-sign-in');
  });

  await t.test('a wrong secret is refused with a clear message', async () => {
    await signIn('not-the-secret');
    await see('#sign-in-message .error', 'The secret was refused');
    await signIn(`${file.flora.secret}:shop:admin`);
    await see('#sign-in-message .error', "This secret is scoped already (it has a ':'): sign in with the key's own secret, then pick the database in the tree.");
    await shot('02-wrong-secret');
    assert.equal(await page().locator('#workspace').count(), 0);
  });

  await t.test('the right secret shows the databases', async () => {
    await signIn(file.flora.secret);
    await see('#db-tree button.db', '(root)');
    await shot('03-signed-in');
  });

  await t.test('create a database: it is selected, and its empty Collections tab says what to do', async () => {
    await createDatabase('shop');
    await see('#databases .notice', 'Created database shop: it is selected; create a collection in it next.');
    await page().locator('#db-tree button.db.selected[data-path="shop"]').waitFor(STEP);
    await see('#selected-db', 'shop');
    await see('#collections', 'No collections yet: create one with New collection.');
    await openTab('query');
    await see('#query-scope', 'in shop');
    await openTab('documents');
  });

  await t.test('create a collection in its dialog: a bad setting is refused in the dialog, then created and opened', async () => {
    await page().click('#new-collection');
    await see('#create-collection-dialog h2', 'New collection in shop');
    assert.equal(await page().inputValue('#collection-history-days'), '30');
    await page().fill('#collection-name', 'orders');
    await page().fill('#collection-ttl-days', 'a week');
    await page().click('#create-collection button[type=submit]');
    await see('#create-collection-dialog .error', "ttl_days must be a whole number of days (0 or more), or empty for documents that never expire; 'a week' is not.");
    await page().fill('#collection-ttl-days', '');
    await page().fill('#collection-data', '{"team": "sales"}');
    await shot('03b-new-collection');
    await page().click('#create-collection button[type=submit]');
    await see('#documents-panel .notice', 'Created collection orders: add its first document with New document.');
    await see('#documents-panel h2', 'Collection orders');
    await see('#documents caption', 'No documents yet: add one with New document.');
    await see('#document-count', '0 documents');
  });

  await t.test("a collection's settings edited in its dialog (history_days, ttl_days, data, permissions); another deleted", async () => {
    await choose('collection-actions', 'edit-collection-open');
    assert.equal(await page().inputValue('#collection-data'), '{\n  "team": "sales"\n}');
    await page().fill('#collection-history-days', '5');
    await page().fill('#collection-ttl-days', '7');
    await page().fill('#collection-data', '{"team": "ops"}');
    await page().fill('#collection-permissions', '{read: Role(');
    await page().click('#edit-collection button[type=submit]');
    await see('#collection-permissions-mistake', 'Syntax:');
    await page().fill('#collection-permissions', '{create: Query(Lambda("doc", true))}');
    await page().click('#edit-collection button[type=submit]');
    await see('#documents-panel .notice', 'Saved collection orders.');
    const scoped = `${file.flora.secret}:shop:admin`;
    const got = await httpRequest(file.flora.url, { method: 'POST', headers: { authorization: `Bearer ${scoped}` }, body: '{"get":{"collection":"orders"}}' });
    const coll = (JSON.parse(got.body) as { resource: Record<string, unknown> }).resource;
    assert.equal(coll.history_days, 5);
    assert.equal(coll.ttl_days, 7);
    assert.deepEqual(coll.data, { team: 'ops' });
    assert.ok(coll.permissions, 'the permissions were saved');
    // A second collection, deleted from its menu after a confirmation.
    await page().click('#new-collection');
    await page().fill('#collection-name', 'scratchpad');
    await page().click('#create-collection button[type=submit]');
    await see('#documents-panel h2', 'Collection scratchpad');
    const asked = confirmNext();
    await choose('collection-actions', 'delete-collection');
    await see('#documents-panel .notice', 'Deleted collection scratchpad.');
    assert.equal(asked(), 'Delete collection scratchpad and every document in it? It cannot be undone.');
    assert.equal(await page().locator('#collections button.collection', { hasText: 'scratchpad' }).count(), 0);
  });

  await t.test('the query editor runs a query with Ctrl+Enter, with its metrics', async () => {
    await runQuery('CreateCollection({name: "notes"})');
    await see('#query-highlight .fn', 'CreateCollection');
    await see('#query-highlight .string', '"notes"');
    await see('#result-fql', 'Collection("notes")');
    await see('#result-json', '"@ref"');
    await see('#metrics', 'compute-ops');
    await shot('04-query');
    await openTab('documents'); // re-reads the collections: the database's screens were opened before
    await see('#collections button.collection', 'notes');
    await page().click('#collections button.collection >> text=orders');
    await see('#documents-panel h2', 'Collection orders');
  });

  await t.test('a document: bad JSON is refused in its dialog with the reason, good JSON is created and shown in the grid', async () => {
    await page().click('#add-document');
    await page().fill('#new-document', '{"item": }');
    await page().click('#create-document button[type=submit]');
    await see('#create-document-dialog .error', 'The data is not valid JSON');
    await page().fill('#new-document', '{"item": "tea", "qty": 9007199254740993, "get": {"var": "x"}}');
    await page().click('#create-document button[type=submit]');
    await see('#documents-panel .notice', 'Created document');
    // The grid: id, last write, then a column per field.
    const headers = await page().locator('#documents thead th').allTextContents();
    assert.deepEqual(headers, ['id', 'last write', 'item', 'qty', 'get']);
    await see('#documents tbody td', 'tea');
    await see('#documents tbody td.number', '9007199254740993');
    const time = page().locator('#documents tbody td.time time').first();
    assert.match((await time.getAttribute('title')) ?? '', /^ts \d{16} \(\d{4}-\d\d-\d\dT/, 'the raw ts on hover');
    assert.doesNotMatch((await time.textContent()) ?? '', /^\d{16}$/, 'a time people read, not microseconds');
    await page().click('#documents tbody tr');
    await see('#document-json', '9007199254740993'); // exact: no rounding through a JS number
    await see('#document-view .leaf', "var: 'x'"); // data, not evaluated as Var("x")
    assert.match((await page().locator('#document-view .leaf', { hasText: /^ts: / }).textContent()) ?? '', /^ts: \d{16} \(.*\d:\d\d:\d\d.*\)$/, 'the ts with the time it is');
    await shot('05-document');
  });

  await t.test("a document's history: each version listed and restorable; the document deleted after a confirmation", async () => {
    const id = (await page().locator('#documents tbody tr', { hasText: 'tea' }).getAttribute('data-id')) ?? '';
    await runQuery(`Update(Ref(Collection("orders"), "${id}"), {data: {item: "coffee"}})`);
    await see('#result-fql', 'coffee');
    await openTab('documents');
    await page().click('#collections button.collection >> text=orders');
    await page().locator('#documents tbody tr', { hasText: 'coffee' }).click();
    await page().locator('#document-history li:nth-child(2)').waitFor(STEP);
    const versions = await page().locator('#document-history li').allTextContents();
    assert.equal(versions.length, 2);
    assert.match(versions[0], /create .*item: 'tea'/);
    assert.match(versions[1], /update .*item: 'coffee'/);
    await page().locator('#document-history li:nth-child(1) button.restore').click();
    await see('#documents-panel .notice', 'as the current one');
    assert.match((await page().locator('#document-history li:nth-child(1) time').getAttribute('title')) ?? '', /^ts \d+ /);
    await see('#documents tbody td', 'tea');
    assert.equal(await page().locator('#document-history li').count(), 3, 'the restore is a version of its own');
    await shot('05b-history');
    await page().fill('#edit-document', '{"item": }');
    await page().click('#save-document button[type=submit]');
    await see('#documents-panel .error', 'The data is not valid JSON');
    await page().fill('#edit-document', '{"item": "juice", "qty": 2}');
    await page().click('#save-document button[type=submit]');
    await see('#documents-panel .notice', `Saved document ${id}.`);
    await see('#documents tbody td', 'juice');
    assert.equal(await page().locator('#document-history li').count(), 4);
    const asked = confirmNext();
    await page().click('#delete-document');
    await see('#documents-panel .notice', `Deleted document ${id}.`);
    assert.match(asked(), new RegExp(`^Delete document ${id} of orders\\?`));
    assert.equal(await page().locator(`#documents tbody tr[data-id="${id}"]`).count(), 0);
  });

  await t.test('the document grid pages with its cursors, says where it is, counts when asked, and sorts a page by a header click', async () => {
    // 25 documents (the one made above was deleted): a page of 20, then 5.
    const numbers = Array.from({ length: 25 }, (_, i) => i);
    await runQuery(`Map(${JSON.stringify(numbers)}, Lambda("i", Create(Collection("orders"), {data: {i: Var("i"), even: Equals(Modulo(Var("i"), 2), 0)}})))`);
    await see('#result-fql', 'ref');
    await openTab('documents');
    await page().click('#collections button.collection >> text=orders');
    await page().locator('#next-page:enabled').waitFor(STEP);
    assert.equal(await page().locator('#documents tbody tr').count(), 20);
    assert.ok(await page().locator('#previous-page').isDisabled());
    await see('#page-range', '1–20');
    await page().click('#count-documents');
    await see('#document-count', '25 documents');
    const column = async (key: string) => {
      const columns = await page().locator('#documents thead th').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column')));
      return page().locator(`#documents tbody td:nth-child(${columns.indexOf(`data.${key}`) + 1})`).allTextContents();
    };
    await page().click('#documents th[data-column="data.i"] button');
    await page().locator('#documents th[data-column="data.i"][aria-sort=ascending]').waitFor(STEP);
    const up = (await column('i')).map(Number);
    assert.deepEqual(up, [...up].sort((a, b) => a - b), 'ascending');
    await page().click('#documents th[data-column="data.i"] button');
    await page().locator('#documents th[data-column="data.i"][aria-sort=descending]').waitFor(STEP);
    const down = (await column('i')).map(Number);
    assert.deepEqual(down, [...up].reverse(), 'descending');
    await shot('05c-grid-sorted');
    await page().click('#next-page');
    await page().locator('#previous-page:enabled').waitFor(STEP);
    assert.equal(await page().locator('#documents tbody tr').count(), 5); // 25: the first document was deleted above
    await see('#page-range', '21–25');
    await shot('06-next-page');
    await page().click('#previous-page');
    await page().locator('#documents tbody tr:nth-child(20)').waitFor(STEP);
    assert.equal(await page().locator('#documents tbody tr').count(), 20);
    await see('#page-range', '1–20');
  });

  await t.test("the grid filtered through one of the collection's indexes", async () => {
    await runQuery('CreateIndex({name: "orders_by_even", source: Collection("orders"), terms: [{field: ["data", "even"]}]})');
    await see('#result-fql', 'orders_by_even');
    await openTab('documents');
    await page().click('#collections button.collection >> text=orders');
    await page().selectOption('#filter-index', 'orders_by_even');
    await page().fill('#filter-term-0', 'yes');
    await page().click('#document-filter button[type=submit]');
    await see('#documents caption', 'No documents match these terms: try other values, or All documents.');
    await page().fill('#filter-term-0', 'false');
    await page().click('#document-filter button[type=submit]');
    await see('#document-count', '12 matching documents');
    const evens = await page().locator('#documents tbody td', { hasText: /^true$/ }).count();
    assert.equal(evens, 0);
    assert.equal(await page().locator('#documents tbody tr').count(), 12);
    await shot('06b-filtered');
    await page().selectOption('#filter-index', '');
    await page().locator('#next-page:enabled').waitFor(STEP);
    assert.equal(await page().locator('#documents tbody tr').count(), 20);
  });

  await t.test("a collection's page that answers after another collection was picked is not drawn", async () => {
    await runQuery('Do(CreateCollection({name: "late"}), Create(Collection("late"), {data: {from: "late"}}))');
    await see('#result-fql', 'late');
    await openTab('documents');
    // Hold the first read of late's documents until orders' page has been drawn.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page().route(`${file.flora.url}/`, async (route) => {
      if ((route.request().postData() ?? '').includes('"late"')) await held;
      await route.continue();
    });
    await page().click('#collections button.collection >> text=late');
    await page().click('#collections button.collection >> text=orders');
    await page().locator('#documents tbody tr:nth-child(20)').waitFor(STEP);
    const lateAnswered = page().waitForResponse((r) => (r.request().postData() ?? '').includes('"late"'));
    release();
    await lateAnswered;
    await page().unroute(`${file.flora.url}/`);
    // late's answer came last; a page read after it is drawn over orders' table, which late's never replaced.
    await page().click('#next-page');
    await page().locator('#previous-page:enabled').waitFor(STEP);
    await see('#documents-panel h2', 'Collection orders');
    assert.equal(await page().locator('#documents tbody td', { hasText: 'late' }).count(), 0);
    assert.equal(await page().locator('#documents tbody tr').count(), 5);
  });

  await t.test('keys: one created shows its secret once, is listed, and is revoked after a confirmation', async () => {
    await openTab('keys');
    await page().selectOption('#new-key-role', 'server');
    await page().fill('#new-key-name', 'ci');
    await page().click('#create-key button[type=submit]');
    await page().locator('#new-key-secret-value').waitFor(STEP);
    const secret = (await page().locator('#new-key-secret-value').textContent()) ?? '';
    assert.match(secret, /^\S{10,}$/);
    await see('#keys tbody tr', 'ci');
    const works = await httpRequest(file.flora.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: '{"now":null}' });
    assert.equal(works.status, 200, 'the secret shown works');
    await shot('08-key-created');
    const row = page().locator('#keys tbody tr', { hasText: 'ci' });
    const id = (await row.getAttribute('data-id')) ?? '';
    const asked = confirmNext();
    await row.locator('button.revoke').click();
    await see('#keys-panel .notice', `Key ${id} revoked.`);
    assert.match(asked(), new RegExp(`^Revoke key ${id} \\(server\\)\\? Every application using its secret loses access`));
    assert.equal(await page().locator('#keys tbody tr', { hasText: 'ci' }).count(), 0);
    const refused = await httpRequest(file.flora.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: '{"now":null}' });
    assert.equal(refused.status, 401, 'a revoked secret is refused');
  });

  await t.test("a key with one of the database's own roles: offered, created, and limited by it", async () => {
    await runQuery('CreateRole({name: "reader", privileges: [{resource: Collection("orders"), actions: {read: true}}]})');
    await see('#result-fql', 'reader');
    await openTab('keys');
    await page().selectOption('#new-key-role', { label: 'reader' });
    await page().fill('#new-key-name', 'reports');
    await page().click('#create-key button[type=submit]');
    await page().locator('#new-key-secret-value').waitFor(STEP);
    const secret = (await page().locator('#new-key-secret-value').textContent()) ?? '';
    await see('#keys tbody tr', 'reports');
    assert.match((await page().locator('#keys tbody tr', { hasText: 'reports' }).textContent()) ?? '', /reader/);
    // A database created is selected: the Keys tab shows its keys (none) instead.
    await createDatabase('reports');
    await see('#databases .notice', 'Created database shop/reports: it is selected');
    await page().locator('#db-tree button.db.selected[data-path="shop/reports"]').waitFor(STEP);
    assert.equal(await page().locator('#keys tbody tr', { hasText: 'reports' }).count(), 0);
    const ask = (body: string) => httpRequest(file.flora.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body });
    assert.equal((await ask('{"count":{"documents":{"collection":"orders"}}}')).status, 200, 'the role reads orders');
    assert.equal((await ask('{"create":{"collection":"orders"},"params":{"object":{}}}')).status, 403, 'and may not write them');
  });

  await t.test('a database deleted after a confirmation naming what is lost', async () => {
    await page().click('#db-tree button[data-path="shop"]');
    await createDatabase('scratch');
    await page().locator('#db-tree button.db.selected[data-path="shop/scratch"]').waitFor(STEP);
    await runQuery('CreateCollection({name: "tmp"})');
    await see('#result-fql', 'tmp');
    const asked = confirmNext();
    await choose('db-actions', 'delete-db');
    await see('#databases .notice', 'Deleted database shop/scratch.');
    assert.equal(asked(), 'Delete database shop/scratch? This deletes its 1 collection(s) with every document and index in them, its 0 child database(s) with everything in them, and its 0 key(s). It cannot be undone.');
    assert.equal(await page().locator('#db-tree button[data-path="shop/scratch"]').count(), 0);
    await shot('09-database-deleted');
    // Dismissed, nothing is deleted; the secret's own database has no delete.
    confirmNext(false);
    await page().click('#db-tree button[data-path="shop"]');
    await choose('db-actions', 'delete-db');
    await page().locator('#db-tree button[data-path="shop"]').waitFor(STEP);
    await page().click('#db-tree button[data-path=""]');
    assert.ok(await page().locator('#delete-db').isDisabled());
    await page().click('#db-tree button[data-path="shop"]');
  });

  await t.test('the answer as a tree: three levels open, deeper ones folded until clicked, a ref one leaf', async () => {
    await runQuery('{list: [1, {deep: {deeper: "x"}}], coll: Collection("orders"), "@odd": true}');
    await see('#result-tree summary', '{3 fields}');
    await see('#result-tree .leaf', 'coll: Collection("orders")');
    await see('#result-tree summary', 'list: [2 items]');
    const folded = (summary: string) => page().locator('#result-tree details', { has: page().locator(':scope > summary', { hasText: summary }) });
    assert.equal(await folded('deep: {1 field}').getAttribute('open'), null, 'the fourth level starts folded');
    assert.ok(!(await page().locator('#result-tree .leaf', { hasText: "deeper: 'x'" }).isVisible()));
    await folded('deep: {1 field}').locator(':scope > summary').click();
    await see('#result-tree .leaf', "deeper: 'x'");
    await see('#result-tree .leaf', '@odd: true'); // an object with an @ key is data, not a special value
    await shot('04b-result-tree');
  });

  await t.test('a query error and a syntax error are shown, not swallowed', async () => {
    await runQuery('Get(Collection("nope"))');
    await see('#query-panel .error', 'invalid ref');
    await runQuery('Add(1,\n  2,,\n)');
    await see('#query-panel pre.error', 'Syntax:');
    // The excerpt keeps its lines, the caret under the mistake; the mistake is marked in the editor.
    const lines = ((await page().locator('#query-panel pre.error').textContent()) ?? '').split('\n');
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.match(lines[2], /^\s*\^$/);
    const marked = await page().evaluate(() => {
      const mark = document.querySelector('#query-highlight .mistake');
      const before = [...document.querySelectorAll('#query-highlight span')].slice(0, [...document.querySelectorAll('#query-highlight span')].indexOf(mark!));
      return { at: before.map((s) => s.textContent).join('').length, text: mark?.textContent };
    });
    assert.deepEqual(marked, { at: 11, text: ',' }, 'the second comma of line 2');
    assert.equal(await page().evaluate(() => (document.getElementById('query') as HTMLTextAreaElement).selectionStart), 11, 'the cursor put there');
    await shot('04c-syntax-error');
    await page().type('#query', ' ');
    assert.equal(await page().locator('#query-highlight .mistake').count(), 0, 'unmarked once the text changes');
    await runQuery('Count(Documents(Collection("orders")))');
    await see('#result-fql', '25');
  });

  await t.test('an answer that is not JSON, and no answer at all, are shown as such', async () => {
    const root = `${file.flora.url}/`;
    await page().route(root, (route) => route.fulfill({ status: 502, contentType: 'text/plain', body: 'Bad Gateway' }));
    await runQuery('Now()');
    await see('#query-panel .error', 'Could not run the query: bad answer: The server answered 502 with a body that is not JSON.');
    await page().unroute(root);
    await page().route(root, (route) => route.abort('connectionrefused'));
    await runQuery('Now()');
    await see('#query-panel .error', 'Could not run the query: network error: The server did not answer');
    await page().unroute(root);
    await runQuery('Add(1, 1)');
    await see('#result-fql', '2');
  });

  await t.test('a narrow window (a phone, 390 px wide): one column, nothing wider than the window, every tab reachable', async () => {
    await page().setViewportSize({ width: 390, height: 844 });
    const overflow = () => page().evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await openTab('documents');
    await page().click('#collections button.collection >> text=orders');
    await page().locator('#documents tbody tr:nth-child(20)').waitFor(STEP);
    assert.ok((await overflow()) <= 0, `the Collections tab is ${await overflow()} px wider than the window`);
    await shot('10-narrow-collections');
    await choose('collection-actions', 'edit-collection-open');
    const box = await page().locator('#edit-collection-dialog').boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, 'the dialog fits the window');
    await page().keyboard.press('Escape');
    for (const tab of ['keys', 'query', 'logs', 'indexes']) {
      await openTab(tab);
      assert.ok((await overflow()) <= 0, `the ${tab} tab is ${await overflow()} px wider than the window`);
    }
    await shot('10-narrow-logs');
    await page().setViewportSize({ width: 1280, height: 900 });
  });

  await t.test("a key whose role may not list databases: the UI says so", async () => {
    await signInWithRole('client');
    await see('#databases .error', "Not allowed: the signed-in key's role cannot list databases");
    await shot('07-permission-denied');
  });

  await t.test('the page reported no errors and asked no other origin for anything', () => {
    // The browser logs the error answers this test provoked as failed requests: the refused secret's
    // 401, the invalid ref's 400, the client key's 403s, and the 502 and refused connection made up
    // above. Anything else is a fault of the page.
    const unexpected = ui.unexpectedErrors([400, 401, 403, 502]).filter((e) => !e.startsWith('console: Failed to load resource: net::ERR_CONNECTION_REFUSED'));
    assert.deepEqual(unexpected, []);
  });
});
