// The Query log and Jobs tabs in a real browser (headless Chromium through playwright-core): requests
// made over HTTP (ok, failing, one heavy query, a refused secret) show up in the query log, each
// filter narrows the list as it says, the request path among them (and each mistake in a filter gets its message), the chart has
// points, refreshing is live and pauses while the page is hidden; a log export is requested, watched
// to Complete and downloaded; an export job runs to completion and a file of it is downloaded; an
// import job of that file plus one bad record shows its report; a backup runs with the root secret
// and is refused, with the reason, to an admin key of a child database, which sees only its own log.
// Screenshots: dist/test-artifacts/dashboard/logs-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Download } from 'playwright-core';
import { dashboardSession, SKIP, STEP } from '../helpers/browser';
import { httpRequest, serverForFile } from '../helpers/server';

const file = serverForFile({ env: { FLORA_LOG_FLUSH_MS: '50' } });
const ui = dashboardSession(() => file.flora, { clock: true });
const { see, shot, signIn, openTab } = ui;
const page = () => ui.page;

/** A query as `secret`; its status and x-query-time. */
async function query(secret: string, body: unknown): Promise<{ status: number; timeMs: number; body: string }> {
  const res = await httpRequest(file.flora.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify(body) });
  return { status: res.status, timeMs: Number(res.headers['x-query-time']), body: res.body };
}

/** The data-* attributes of the query log's rows as they are now. */
const logRows = () =>
  page().$$eval('#log-table tbody tr', (trs) =>
    trs.map((tr) => ({
      status: Number(tr.getAttribute('data-status')),
      database: tr.getAttribute('data-database') ?? '',
      time: Number(tr.getAttribute('data-time')),
      method: tr.getAttribute('data-method') ?? '',
      path: tr.getAttribute('data-path') ?? '',
      pathCell: tr.querySelector('td.path')?.textContent ?? '',
      shape: tr.querySelector('td.shape')?.textContent ?? '',
    })));

/** The file a click on `selector` downloads. */
async function downloaded(selector: string): Promise<Buffer> {
  const [download] = (await Promise.all([page().waitForEvent('download', STEP), page().click(selector)])) as [Download, void];
  const path = await download.path();
  assert.ok(path, 'the download was saved');
  return readFile(path);
}

let heavyMs = 0;
let shopAdmin = '';
let serverKey = '';
const ORDERS = 12;

test('the query log, log exports and jobs, end to end', { skip: SKIP, timeout: 180_000 }, async (t) => {
  const root = file.flora.secret;
  const shop = `${root}:shop:admin`;

  await t.test('traffic: queries that succeed, fail, run long, and a refused secret', async () => {
    for (const name of ['shop', 'other', 'copy']) assert.equal((await query(root, { create_database: { object: { name } } })).status, 201);
    assert.equal((await query(shop, { create_collection: { object: { name: 'orders' } } })).status, 201);
    const items = Array.from({ length: ORDERS }, (_, i) => i);
    const made = await query(shop, { map: { lambda: 'i', expr: { create: { collection: 'orders' }, params: { object: { data: { object: { i: { var: 'i' } } } } } } }, collection: items });
    assert.equal(made.status, 200, made.body);
    assert.equal((await query(`${root}:other:admin`, { add: [1, 2] })).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await query(shop, { get: { collection: 'nope' } })).status, 400);
    // A heavy query (22,500 string concatenations): the slowest request of the test by far.
    const range = Array.from({ length: 150 }, (_, i) => i);
    const heavy = await query(shop, { map: { lambda: 'i', expr: { map: { lambda: 'j', expr: { concat: [{ to_string: { var: 'i' } }, { to_string: { var: 'j' } }] } }, collection: range } }, collection: range });
    assert.equal(heavy.status, 200);
    heavyMs = heavy.timeMs;
    assert.equal((await query('not-a-secret', { add: [1, 1] })).status, 401);
    // An FQL v10 query, to be told from the v4 ones by its path.
    const v10 = await httpRequest(file.flora.url, { method: 'POST', path: '/query/1', headers: { authorization: `Bearer ${shop}` }, body: JSON.stringify({ query: 'orders.all().count()' }) });
    assert.equal(v10.status, 200, v10.body);
    shopAdmin = JSON.parse((await query(root, { select: 'secret', from: { create_key: { object: { role: 'admin', database: { database: 'shop' } } } } })).body).resource;
    serverKey = JSON.parse((await query(root, { select: 'secret', from: { create_key: { object: { role: 'server' } } } })).body).resource;
  });

  await t.test('the query log lists them, newest first, with a chart that has points', async () => {
    await signIn(root);
    await see('#db-tree button.db', '(root)');
    await openTab('logs');
    await see('#log-table tbody td.shape', 'to_string'); // the heavy query
    await see('#log-table tbody td', 'other');
    await see('#log-table thead th', 'path');
    const rows = await logRows();
    assert.ok(rows.some((r) => r.status === 401 && r.database === ''), 'the refused secret is there (root sees requests of no database)');
    assert.ok(rows.some((r) => r.path === '/query/1' && r.pathCell === '/query/1' && r.database === 'shop'), 'the v10 query, with its path');
    assert.ok(rows.every((r) => r.path !== '' && r.pathCell === r.path), JSON.stringify(rows));
    assert.ok(rows.filter((r) => r.status === 400 && r.database === 'shop').length >= 2);
    const times = await page().$$eval('#log-table tbody td:first-child', (tds) => tds.map((td) => td.getAttribute('title') ?? ''));
    assert.deepEqual([...times].sort().reverse(), times, 'newest first');
    assert.ok((await page().locator('#log-rate-chart circle.point').count()) > 0, 'requests/s has points');
    for (const p of ['s-p50', 's-p95', 's-p99']) assert.ok((await page().locator(`#log-latency-chart circle.${p}`).count()) > 0, `${p} has points`);
    await see('#log-summary', 'matching request(s)');
    // A row opens the whole record (the shape in full, headers, tags).
    await page().locator('#log-table tbody tr', { hasText: 'to_string' }).click();
    await see('#log-record', '"QUERY_TIME_MS": ');
    await see('#log-record', '"TRACEPARENT": "00-');
    await shot('logs-01-query-log');
  });

  await t.test('each filter narrows the list as it says', async () => {
    const all = (await logRows()).length;
    await page().fill('#log-database', 'other');
    let rows = await logRows();
    assert.ok(rows.length >= 1 && rows.every((r) => r.database === 'other'), JSON.stringify(rows));
    await page().fill('#log-database', 'shop');
    rows = await logRows();
    assert.ok(rows.length >= 1 && rows.every((r) => r.database === 'shop' || r.database.startsWith('shop/')));
    await page().fill('#log-database', '');
    await page().fill('#log-status', 'errors');
    rows = await logRows();
    assert.ok(rows.some((r) => r.status === 401) && rows.every((r) => r.status >= 400));
    await page().fill('#log-status', '400');
    rows = await logRows();
    assert.ok(rows.length >= 2 && rows.every((r) => r.status === 400));
    await page().fill('#log-status', 'ok');
    rows = await logRows();
    assert.ok(rows.length >= 1 && rows.every((r) => r.status >= 200 && r.status < 300));
    await page().fill('#log-status', '');
    await page().fill('#log-slow', String(heavyMs));
    rows = await logRows();
    assert.ok(rows.length >= 1 && rows.length < all && rows.every((r) => r.time >= heavyMs), `≥ ${heavyMs} ms: ${JSON.stringify(rows)}`);
    await see('#log-table tbody td.shape', 'to_string');
    await shot('logs-02-slow-filter');
    await page().fill('#log-slow', '');
    assert.ok((await logRows()).length >= all, 'cleared, the filters show everything again');
    // The dashboard's own page files (GET, no query) are left out unless asked for; a method narrows.
    assert.ok((await logRows()).every((r) => r.shape !== '' || r.status >= 400), 'only requests that ran a query, and errors');
    await page().uncheck('#log-queries-only');
    rows = await logRows();
    assert.ok(rows.some((r) => r.method === 'GET' && r.shape === '' && r.status === 200), 'the page files are there when asked for');
    await page().selectOption('#log-method', 'GET');
    rows = await logRows();
    assert.ok(rows.length >= 1 && rows.every((r) => r.method === 'GET'), JSON.stringify(rows));
    await shot('logs-02b-method-filter');
    await page().selectOption('#log-method', '');
    // The path: anywhere in it, so a prefix works too; beside the method.
    // (The dashboard's own FQL v10 queries are on /query/1 too.)
    await page().fill('#log-path', '/query');
    rows = await logRows();
    assert.ok(rows.every((r) => r.path === '/query/1'), JSON.stringify(rows));
    assert.ok(rows.some((r) => r.method === 'POST' && r.database === 'shop'), 'the v10 query');
    await page().selectOption('#log-method', 'GET');
    await see('#log-table caption', 'No request matches the filters.');
    await page().fill('#log-path', '/admin');
    rows = await logRows();
    assert.ok(rows.length >= 1 && rows.every((r) => r.method === 'GET' && r.path.startsWith('/admin')), JSON.stringify(rows));
    await page().selectOption('#log-method', '');
    await page().fill('#log-path', '/');
    rows = await logRows();
    assert.ok(rows.some((r) => r.path === '/') && rows.some((r) => r.path === '/query/1'));
    await shot('logs-02c-path-filter');
    await page().fill('#log-path', '');
    await page().selectOption('#log-method', '');
    await page().check('#log-queries-only');
  });

  await t.test('a mistake in a filter gets a message saying what to type', async () => {
    // Bad inputs: a status that is neither ok, errors nor a code; a threshold that is not a number; a path with an empty name.
    await page().fill('#log-status', 'broken');
    await see('#log-filter-message .error', "The status filter 'broken' is not one of: ok, errors, or an HTTP code such as 404.");
    await page().fill('#log-status', '');
    await page().fill('#log-slow', 'fast');
    await see('#log-filter-message .error', "The slow-query threshold 'fast' is not a number of milliseconds, e.g. 100.");
    await shot('logs-03-filter-mistake');
    await page().fill('#log-slow', '');
    await page().fill('#log-database', 'shop//x');
    await see('#log-filter-message .error', "The database filter 'shop//x' has an empty name in it");
    await page().fill('#log-database', '');
    assert.equal(await page().locator('#log-filter-message .error').count(), 0, 'corrected, the message goes');
  });

  await t.test('live: a new request shows up by itself; nothing is read while the page is hidden', async () => {
    assert.equal((await query(`${root}:other:admin`, { concat: ['live', 'one'] })).status, 200);
    await see('#log-table tbody td.shape', 'concat'); // no click: the next refresh brings it
    let reads = 0;
    const count = (req: { url(): string }) => void (req.url().includes('/api/v1/logs/_recent') && reads++);
    page().on('request', count);
    await page().evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    // Two refresh periods (3 s each) pass in the page, its timers run, and nothing is read.
    await page().clock.pauseAt(Date.now() + 1000);
    await page().clock.runFor(6500);
    assert.equal(reads, 0, 'no reads while hidden');
    await page().clock.resume();
    await page().evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page().waitForRequest((req) => req.url().includes('/api/v1/logs/_recent'), STEP);
    page().off('request', count);
  });

  await t.test('a log export: refused ranges explained, then requested, watched to Complete, downloaded', async () => {
    // Bad inputs: a range that ends before it starts (checked here); one longer than 90 days (the server's message).
    await page().fill('#log-export-start', '2030-01-02T00:00:00');
    await page().fill('#log-export-end', '2030-01-01T00:00:00');
    await page().click('#log-export-form button[type=submit]');
    await see('#log-exports-panel .error', 'The start must be before the end.');
    await page().fill('#log-export-start', '2029-01-01T00:00:00');
    await page().fill('#log-export-end', '2030-01-01T00:00:00');
    await page().click('#log-export-form button[type=submit]');
    await see('#log-exports-panel .error', 'must not exceed 90 days');
    // The last hour of shop (From and Until left empty).
    await page().fill('#log-export-start', '');
    await page().fill('#log-export-end', '');
    await page().fill('#log-export-database', 'shop');
    await page().click('#log-export-form button[type=submit]');
    // "Requested log export …" is shown until the watch replaces it: a quick export may skip it.
    await page().locator('#log-exports tr[data-state="Complete"] a.download').waitFor({ timeout: 30_000 });
    await see('#log-exports-panel .notice', 'is Complete');
    await shot('logs-04-log-export');
    const lines = gunzipSync(await downloaded('#log-exports tr[data-state="Complete"] a.download')).toString('utf8').trim().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { DATABASE: string[]; RESPONSE_CODE: string });
    assert.ok(records.length >= 5);
    assert.ok(records.every((r) => r.DATABASE[1] === 'shop'), 'only shop');
    assert.ok(records.some((r) => r.RESPONSE_CODE === '400'));
  });

  let importFile = Buffer.alloc(0);
  await t.test('an export job of shop runs to completion and a file of it is downloaded', async () => {
    await page().click('#db-tree button[data-path="shop"]');
    await openTab('jobs');
    await see('#jobs-database', 'in shop');
    await page().check('#export-history');
    await page().click('#export-form button[type=submit]');
    const card = page().locator('#jobs-list li.job[data-kind="export"]');
    await card.locator('.job-progress').waitFor(STEP);
    await page().locator('#jobs-list li.job[data-kind="export"][data-state="Complete"]').waitFor({ timeout: 30_000 });
    await see('#jobs-list li.job[data-kind="export"] .job-counts', 'record(s) written');
    await shot('logs-05-export-job');
    const orders = gunzipSync(await downloaded('#jobs-list li.job[data-kind="export"] button.download[data-path="db/collections/orders.ndjson.gz"]')).toString('utf8');
    assert.equal(orders.trim().split('\n').length, ORDERS);
    await see('#jobs-panel .notice', 'Downloaded db/collections/orders.ndjson.gz');
    // The import below takes this file, plus one line that is not a record.
    importFile = Buffer.from(`${orders.trim()}\nnot a record\n`);
  });

  await t.test('the Jobs tab lists the database\'s jobs wherever they were started, newest first', async () => {
    // An export of shop started over HTTP, not in this page.
    const auth = { authorization: `Bearer ${root}:shop:admin` };
    const started = await fetch(`${file.flora.url}/api/v1/exports`, { method: 'POST', headers: auth, body: '{"format":"fauna-simple"}' });
    assert.equal(started.status, 202);
    const { id } = (await started.json()) as { id: string };
    await openTab('logs');
    await openTab('jobs'); // shown again: listed afresh
    const listed = page().locator(`#jobs-list li.job[data-id="${id}"]`);
    await listed.waitFor(STEP);
    assert.match((await listed.locator('strong').textContent()) ?? '', /^Export of shop \(fauna-simple; \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/);
    await page().locator(`#jobs-list li.job[data-id="${id}"][data-state="Complete"]`).waitFor({ timeout: 30_000 }); // polled while it runs
    assert.equal(await page().locator('#jobs-list li.job').first().getAttribute('data-id'), id, 'newest first');
    assert.equal(await page().locator('#jobs-list li.job[data-kind="export"]').count(), 2, 'and the one started in the page before');
  });

  await t.test('an import job: no file chosen is explained; the file with one bad record shows the report', async () => {
    await page().click('#db-tree button[data-path="copy"]');
    await openTab('jobs');
    await see('#jobs-database', 'in copy');
    // Bad input: no file chosen.
    await page().click('#import-form button[type=submit]');
    await see('#jobs-panel .error', 'Choose a file to import first');
    assert.equal(await page().locator('#jobs-list li.job[data-kind="export"]').count(), 0, "shop's exports are not copy's");
    await page().setInputFiles('#import-file', { name: 'orders.ndjson', mimeType: 'application/x-ndjson', buffer: importFile });
    await page().click('#import-form button[type=submit]');
    const done = page().locator('#jobs-list li.job[data-kind="import"][data-state="Complete"]');
    await done.waitFor({ timeout: 30_000 });
    await see('#jobs-list li.job[data-kind="import"] .job-counts', `${ORDERS} written, 0 already there, 1 not imported`);
    await see('#jobs-list li.job[data-kind="import"] .report-collections td', 'orders');
    await see('#jobs-list li.job[data-kind="import"] .problems', '1 record(s) not imported:');
    await see('#jobs-list li.job[data-kind="import"] .problems li', `orders.ndjson, line ${ORDERS + 1}: malformed JSON`);
    await shot('logs-06-import-report');
    const count = await query(`${root}:copy:admin`, { count: { documents: { collection: 'orders' } } });
    assert.equal(JSON.parse(count.body).resource, ORDERS);
  });

  await t.test('a backup with the root secret', async () => {
    await page().click('#backup-start');
    await page().locator('#jobs-list li.job[data-kind="backup"][data-state="Complete"]').waitFor({ timeout: 30_000 });
    await see('#jobs-list li.job[data-kind="backup"] button.download', 'Download');
    await shot('logs-07-backup');
  });

  await t.test("an admin key of shop: its own log only; a backup is refused with the reason; a server key may not read the log", async () => {
    await page().click('#sign-out');
    await signIn(shopAdmin);
    await see('#db-tree button.db', '(root)');
    await openTab('logs');
    await page().locator('#log-table tbody tr').first().waitFor(STEP);
    const rows = await logRows();
    assert.ok(rows.length > 0 && rows.every((r) => r.database === 'shop'), JSON.stringify(rows.slice(0, 5)));
    await openTab('jobs');
    await page().click('#backup-start');
    await see('#jobs-panel .error', "Not allowed: the signed-in key's role cannot start a backup (Permission denied: a backup needs the root secret or an admin key of the top database.)");
    await shot('logs-08-backup-refused');
    await page().click('#sign-out');
    await signIn(serverKey);
    await page().locator('#workspace').waitFor(STEP);
    await openTab('logs');
    await see('#query-log-panel .error', "Not allowed: the signed-in key's role cannot read the query log");
    await see('#log-exports-panel .error', "Not allowed: the signed-in key's role cannot list the log exports");
    await shot('logs-09-log-forbidden');
  });

  await t.test('the page reported no errors and asked no other origin for anything', () => {
    // The browser logs the error answers provoked on purpose as failed requests: the 90-day range's
    // 400, the refused backup's and the server key's 403s. Anything else is a fault of the page.
    const unexpected = ui.unexpectedErrors([400, 403]);
    assert.deepEqual(unexpected, []);
  });
});
