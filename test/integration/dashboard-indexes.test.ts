// The dashboard's databases tree (rename, move) and Indexes tab in headless Chromium: each bad input
// gets its clear message (named in each step), indexes are created from the form (terms, reversed
// values, a binding), listed, browsed with Match terms and cursors, their documents read with Get,
// deleted after a confirmation; a background build shows live progress until the index is active
// (builds slowed with FLORA_TEST_BUILD_DELAY_MS, so the part-way state is there to be seen); keys
// whose role may not write indexes, or not read them, are told so. Screenshots:
// dist/test-artifacts/dashboard/indexes-*.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardSession, SKIP, STEP } from '../helpers/browser';
import { fqlResource, serverForFile } from '../helpers/server';

/** Documents of the collection whose index is built in the background: four batches of 256. */
const BIG = 1000;
/** Each batch waits this long after it commits: every part-way state lasts longer than a poll (700 ms). */
const file = serverForFile({ env: { FLORA_TEST_BUILD_DELAY_MS: '1000' } });
const ui = dashboardSession(() => file.flora);
const { see, shot, signIn, openTab, confirmNext } = ui;
const page = () => ui.page;

/** Runs FQL wire JSON with `secret` (the root secret by default), returning the resource. */
const fql = (body: unknown, secret = file.flora.secret): Promise<unknown> => fqlResource(file.flora.url, secret, body);
const createDocs = (collection: string, docs: unknown[], secret: string) =>
  fql({ foreach: { lambda: 'd', expr: { create: { collection }, params: { object: { data: { var: 'd' } } } } }, collection: docs }, secret);

const dbButton = (path: string) => `#db-tree button.db[data-path="${path}"]`;
const selected = (path: string) => page().locator(`#db-tree button.db.selected[data-path="${path}"]`).waitFor(STEP);

/** Opens the selected database's dialog `id` from its menu, unless it is open (showing the last refusal). */
async function dialog(id: 'rename-db' | 'move-db'): Promise<void> {
  if (!(await page().locator(`#${id}`).isVisible())) await ui.choose('db-actions', `${id}-open`);
}
async function rename(to: string): Promise<void> {
  await dialog('rename-db');
  await page().fill('#rename-db-name', to);
  await page().click('#rename-db button[type=submit]');
}
async function move(to: string): Promise<void> {
  await dialog('move-db');
  await page().selectOption('#move-db-to', to);
  await page().click('#move-db button[type=submit]');
}

interface IndexSpec {
  name?: string;
  source?: string;
  terms?: string[];
  values?: { field: string; reverse?: boolean }[];
  bindings?: { name: string; body: string }[];
  unique?: boolean;
}

/** Fills the create-index form from scratch (rows removed first) and submits it. */
async function createIndex(spec: IndexSpec): Promise<void> {
  const p = page();
  while (await p.locator('#create-index .row button.remove').count()) await p.locator('#create-index .row button.remove').first().click();
  await p.fill('#index-name', spec.name ?? '');
  await p.selectOption('#index-source', spec.source ?? '');
  for (const [i, t] of (spec.terms ?? []).entries()) {
    await p.click('#add-term');
    await p.locator('#index-terms .row input.field').nth(i).fill(t);
  }
  for (const [i, v] of (spec.values ?? []).entries()) {
    await p.click('#add-value');
    await p.locator('#index-values .row input.field').nth(i).fill(v.field);
    if (v.reverse) await p.locator('#index-values .row input.reverse').nth(i).check();
  }
  for (const [i, b] of (spec.bindings ?? []).entries()) {
    await p.click('#add-binding');
    await p.locator('#index-bindings .row input.binding-name').nth(i).fill(b.name);
    await p.locator('#index-bindings .row textarea.binding-body').nth(i).fill(b.body);
  }
  await p.locator('#index-unique').setChecked(spec.unique ?? false);
  await p.click('#create-index button[type=submit]');
}

/** Opens the browser of index `name` and shows the entries for `term` (typed into the first input). */
async function browse(name: string, term: string): Promise<void> {
  await indexRow(name).locator('button.browse:enabled').click();
  await page().fill('#browse-term-0', term);
  await page().click('#browse-index button[type=submit]');
}

/** Signs out, then in with a new key of `role` made with `secret`, and opens the Indexes tab. */
const indexRow = (name: string) => page().locator(`#indexes tr[data-index="${name}"]`);
const cells = async (name: string) => (await indexRow(name).locator('td').allTextContents()).map((t) => t.trim());

test('the databases tree renames and moves; the Indexes tab lists, creates, builds, browses and deletes', { skip: SKIP, timeout: 180_000 }, async (t) => {
  await fql({ create_database: { object: { name: 'shop' } } });
  await fql({ create_database: { object: { name: 'blog' } } });
  await fql({ create_database: { object: { name: 'archive' } } });

  await t.test('sign in: the tree shows the databases', async () => {
    await signIn(file.flora.secret);
    await page().locator(dbButton('shop')).waitFor(STEP);
    assert.ok(await page().locator('#rename-db-open').isDisabled(), 'the top database is not renamed from here');
  });

  await t.test('rename: empty, taken, invalid and reserved names are refused, each with its reason; then renamed and kept selected', async () => {
    await page().click(dbButton('shop'));
    await rename('');
    await see('#databases .error', 'Type the new name of the database.');
    await rename('shop');
    await see('#databases .error', 'Database shop is already called shop.');
    await rename('blog');
    await see('#databases .error', '(root) already has a database named blog.');
    await rename('my shop'); // the server's validation failure, with its reason
    await see('#databases .error', 'The name my shop uses invalid characters.');
    await rename('events');
    await see('#databases .error', 'Reserved names: _, self, events.');
    await shot('indexes-01-rename-refused');
    await rename('store');
    await see('#databases .notice', 'Renamed database shop to store.');
    await selected('store');
    assert.equal(await page().locator(dbButton('shop')).count(), 0);
  });

  await t.test('move: into itself, a child, a taken name, or nowhere is refused, each explained; then moved two levels down and one up, kept selected', async () => {
    await ui.createDatabase('archive'); // store/archive: a child of the selected store, selected once made
    await see('#databases .notice', 'Created database store/archive: it is selected');
    await selected('store/archive');
    await page().click(dbButton('store'));
    await dialog('move-db');
    await page().click('#move-db button[type=submit]');
    await see('#databases .error', 'Choose the database to move it into.');
    await move('store');
    await see('#databases .error', 'Cannot move database store into itself or one of its own children.');
    await move('store/archive');
    await see('#databases .error', 'Cannot move database store into itself or one of its own children.');
    await page().keyboard.press('Escape'); // the dialog, still open with the refusal, closed
    await page().click(dbButton('archive'));
    await move('store');
    await see('#databases .error', 'store already has a database named archive.');
    await page().keyboard.press('Escape'); // the dialog, still open with the refusal, closed
    await page().click(dbButton('blog'));
    await move('store/archive');
    await see('#databases .notice', 'Moved database blog into store/archive: it is now store/archive/blog.');
    await selected('store/archive/blog');
    await shot('indexes-02-moved');
    await move('store'); // up a level: MoveDatabase takes nested refs on both sides
    await see('#databases .notice', 'Moved database store/archive/blog into store: it is now store/blog.');
    await selected('store/blog');
    assert.equal(await page().locator(dbButton('store/archive/blog')).count(), 0);
  });

  const store = `${file.flora.secret}:store:admin`;
  await t.test('the Indexes tab of a database without indexes says so', async () => {
    await fql({ create_collection: { object: { name: 'orders' } } }, store);
    await fql({ create_collection: { object: { name: 'big' } } }, store);
    const customers = ['alice', 'bob', 'Alice', 'carol', 'dave'];
    await createDocs('orders', Array.from({ length: 25 }, (_, i) => ({ object: { customer: customers[i % 5], total: i, tags: ['t', `n${i}`] } })), store);
    await page().click(dbButton('store'));
    await openTab('indexes');
    await see('#indexes caption', 'No indexes in this database.');
    assert.deepEqual(await page().locator('#index-source option').allTextContents(), ['choose a collection…', 'orders', 'big']);
  });

  await t.test('create: each mistake in the form is named before anything is sent, and the server\'s refusals are shown', async () => {
    await createIndex({});
    await see('#indexes-panel .error', 'Type a name for the index, e.g. orders_by_customer.');
    await createIndex({ name: 'x' });
    await see('#indexes-panel .error', 'Choose the source collection.');
    await createIndex({ name: 'x', source: 'orders', terms: [''] });
    await see('#indexes-panel .error', 'Term 1 is empty: type a field path such as data.customer, or remove the row.');
    await createIndex({ name: 'x', source: 'orders', terms: ['customer'] });
    await see('#indexes-panel .error', 'Term 1: "customer" is neither a field path (data.customer, ref, ts) nor the name of a binding.');
    await createIndex({ name: 'x', source: 'orders', values: [{ field: 'data..total' }] });
    await see('#indexes-panel .error', 'Value 1: "data..total" has an empty part between dots.');
    await createIndex({ name: 'x', source: 'orders', terms: ['low'], bindings: [{ name: 'low', body: 'Query(Lambda("doc", Casefold(Select(["data" "customer"], Var("doc")))))' }] });
    await see('#indexes-panel .error', 'Binding low: syntax error: Unexpected token (line 1, column 45)');
    await shot('indexes-03-binding-syntax');
    await createIndex({ name: 'x', source: 'orders', terms: ['low'], bindings: [{ name: 'low', body: 'Lambda("doc", 1)' }] });
    await see('#indexes-panel .error', 'Binding low: the body must be a Query(Lambda(…))');
    // Refused by the server: a binding no term or value uses.
    await createIndex({ name: 'x', source: 'orders', terms: ['data.customer'], bindings: [{ name: 'low', body: 'Query(Lambda("doc", 1))' }] });
    await see('#indexes-panel .error', 'Could not create index x');
    await see('#indexes-panel .error', 'Source binding is not used');
    assert.equal(await page().locator('#indexes tbody tr').count(), 0, 'nothing was created');
  });

  await t.test('create an index with a term and reversed values: listed, active, built at once', async () => {
    await createIndex({ name: 'orders_by_customer', source: 'orders', terms: ['data.customer'], values: [{ field: 'data.total', reverse: true }, { field: 'ref' }] });
    await see('#indexes-panel .notice', 'Created index orders_by_customer.');
    assert.deepEqual(await cells('orders_by_customer'), ['orders_by_customer', 'orders', 'data.customer', 'data.total (reverse), ref', 'no', 'yes', 'active', 'BrowseDelete']);
    assert.equal(await page().locator('#index-terms .row').count(), 0, 'the form is emptied for the next index');
    await createIndex({ name: 'orders_by_customer', source: 'orders', terms: ['data.customer'] });
    await see('#indexes-panel .error', 'instance already exists');
  });

  await t.test('create with a binding and unique: the binding is a term', async () => {
    await createIndex({
      name: 'orders_by_name_lower', source: 'orders', terms: ['low'], unique: true,
      bindings: [{ name: 'low', body: 'Query(Lambda("doc", Casefold(Select(["data", "customer"], Var("doc")))))' }],
    });
    await see('#indexes-panel .notice', 'Created index orders_by_name_lower.');
    assert.deepEqual((await cells('orders_by_name_lower')).slice(2, 7), ['binding low', '', 'yes', 'yes', 'active']);
    await createIndex({ name: 'all_orders', source: 'orders' });
    await see('#indexes-panel .notice', 'Created index all_orders.');
    await shot('indexes-04-list');
  });

  await t.test('browse a Match: a bad term is explained; values, then a document read with Get', async () => {
    await indexRow('orders_by_customer').locator('button.browse').click();
    await see('#index-browser h3', 'Browse orders_by_customer');
    await see('#index-browser label', 'term 1 (data.customer)');
    await page().fill('#browse-term-0', 'alice');
    await page().click('#browse-index button[type=submit]');
    await see('#indexes-panel .error', 'term 1 (data.customer): not JSON (a string needs its quotes: "tea") nor an FQL expression: unknown name alice');
    await page().fill('#browse-term-0', '"alice"');
    await page().click('#browse-index button[type=submit]');
    await page().locator('#index-entries tbody tr:nth-child(5)').waitFor(STEP);
    const entries = await page().locator('#index-entries tbody td:first-child').allTextContents();
    assert.equal(entries.length, 5);
    assert.match(entries[0], /^\[ 20, Ref\(Collection\("orders"\), "\d+"\) \]$/, 'values: total (reversed: highest first), ref');
    assert.match(entries[4], /^\[ 0, /);
    await page().locator('#index-entries tbody tr:first-child button.get').click();
    await see('#index-entry-document .leaf', "customer: 'alice'");
    await see('#index-entry-document .leaf', 'total: 20');
    await page().fill('#browse-term-0', '"nobody"');
    await page().click('#browse-index button[type=submit]');
    await see('#index-entries caption', 'No entries match these terms.');
    // The binding's term: casefolded, so "alice" finds alice and Alice.
    await browse('orders_by_name_lower', '"alice"');
    await see('#index-browser label', 'term 1 (binding low)');
    await page().locator('#index-entries tbody tr:nth-child(10)').waitFor(STEP);
    assert.equal(await page().locator('#index-entries tbody tr').count(), 10);
    await shot('indexes-05-browse');
  });

  await t.test('an index without terms browses all its entries, paged with its cursors', async () => {
    await indexRow('all_orders').locator('button.browse').click();
    await see('#index-browser .hint', 'This index has no terms: it lists all its entries.');
    await page().locator('#entries-next:enabled').waitFor(STEP);
    assert.equal(await page().locator('#index-entries tbody tr').count(), 20);
    assert.ok(await page().locator('#entries-previous').isDisabled());
    await page().click('#entries-next');
    await page().locator('#entries-previous:enabled').waitFor(STEP);
    assert.equal(await page().locator('#index-entries tbody tr').count(), 5);
    await page().locator('#index-entries tbody tr:first-child button.get').click();
    await see('#index-entry-document summary', 'tags:');
    await page().click('#entries-previous');
    await page().locator('#index-entries tbody tr:nth-child(20)').waitFor(STEP);
  });

  await t.test('a background build shows live progress until the index is active, then browses', async () => {
    await createDocs('big', Array.from({ length: BIG }, (_, i) => ({ object: { i } })), store);
    await createIndex({ name: 'big_by_i', source: 'big', terms: ['data.i'] });
    await see('#indexes-panel .notice', 'Created index big_by_i: it is being built in the background (progress below).');
    assert.ok(await indexRow('big_by_i').locator('button.browse').isDisabled(), 'not browsable while building');
    const seen = new Set<number>();
    let shotTaken = false;
    const deadline = Date.now() + 60_000;
    while (!(await cells('big_by_i'))[6]?.startsWith('active')) {
      assert.ok(Date.now() < deadline, 'the build did not finish within a minute');
      // The row's text and bar read at once: the build may end, and the row be redrawn, between two reads.
      const { text, max } = await indexRow('big_by_i').evaluate((row) => ({
        text: row.querySelector('.build-text')?.textContent ?? '',
        max: row.querySelector('progress.build')?.getAttribute('max') ?? null,
      }));
      const m = /^building: (\d+) of (\d+) documents/.exec(text);
      if (m) {
        assert.equal(Number(m[2]), BIG);
        const done = Number(m[1]);
        seen.add(done);
        assert.equal(max, String(BIG));
        if (done > 0 && !shotTaken) {
          await shot('indexes-06-building');
          shotTaken = true;
          assert.match(text, /\(scanning big\)$/);
        }
      }
      await new Promise((r) => setTimeout(r, 100)); // polling the page for a background job: a condition, not luck
    }
    const partWay = [...seen].filter((d) => d > 0 && d < BIG);
    assert.ok(partWay.length > 0, `a part-way count was shown (seen: ${[...seen].join(', ')})`);
    await browse('big_by_i', '7');
    await page().locator('#index-entries tbody tr').waitFor(STEP);
    assert.equal(await page().locator('#index-entries tbody tr').count(), 1);
    await shot('indexes-07-built');
  });

  await t.test('delete an index after a confirmation naming what is lost; dismissed, nothing is deleted', async () => {
    confirmNext(false);
    await indexRow('all_orders').locator('button.delete').click();
    await indexRow('all_orders').waitFor(STEP);
    const asked = confirmNext();
    await indexRow('all_orders').locator('button.delete').click();
    await see('#indexes-panel .notice', 'Deleted index all_orders.');
    assert.equal(asked(), 'Delete index all_orders? Its entries are lost, and queries using Index("all_orders") fail from now on. The documents stay.');
    assert.equal(await indexRow('all_orders').count(), 0);
  });

  await t.test('a server-readonly key lists and browses, and is told it may not create or delete', async () => {
    await ui.signInWithRole('server-readonly', store);
    await openTab('indexes');
    await indexRow('orders_by_customer').waitFor(STEP);
    await browse('orders_by_customer', '"bob"');
    await page().locator('#index-entries tbody tr:nth-child(5)').waitFor(STEP);
    await createIndex({ name: 'nope', source: 'orders' });
    await see('#indexes-panel .error', "Not allowed: the signed-in key's role cannot create index nope");
    confirmNext();
    await indexRow('orders_by_customer').locator('button.delete').click();
    await see('#indexes-panel .error', "Not allowed: the signed-in key's role cannot delete index orders_by_customer");
    await indexRow('orders_by_customer').waitFor(STEP);
    await shot('indexes-08-readonly');
  });

  await t.test('a client key is told it may not list indexes', async () => {
    await ui.signInWithRole('client', store);
    await openTab('indexes');
    await see('#indexes-panel .error', "Not allowed: the signed-in key's role cannot list indexes");
  });

  await t.test('the page reported no errors and asked no other origin for anything', () => {
    // The error answers this test provoked (400 validation and instance errors, the keys' 403s)
    // are logged by the browser as failed requests; anything else is a fault of the page.
    const unexpected = ui.unexpectedErrors([400, 403]);
    assert.deepEqual(unexpected, []);
  });
});
