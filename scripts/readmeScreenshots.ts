// Takes the README's pictures: `flora shell` in a terminal and the dashboard's screens, from a
// real server with a little data, into docs/images/. Run by hand after the shell or the dashboard
// changes (`node scripts/build.js && node dist/scripts/readmeScreenshots.js`); needs Chromium and
// util-linux's `script` (a pseudo-terminal, so the shell prints as it does for a user).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { FLORA_BIN, ROOT, startFlora, type FloraProcess } from '../test/helpers/server';
import { terminalHtml } from './terminalHtml';
import { CHROMIUM, SKIP } from '../test/helpers/browser';

const OUT = path.join(ROOT, 'docs', 'images');

async function query(flora: FloraProcess, body: unknown, scope = ''): Promise<void> {
  const secret = scope ? `${flora.secret}:${scope}:admin` : flora.secret;
  const res = await fetch(flora.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`seed query failed: ${res.status} ${await res.text()}`);
}

async function seed(flora: FloraProcess): Promise<void> {
  await query(flora, { create_database: { object: { name: 'shop' } } });
  await query(flora, { create_collection: { object: { name: 'orders' } } }, 'shop');
  await query(flora, { create_collection: { object: { name: 'customers' } } }, 'shop');
  const items: [string, number, string][] = [['tea', 3, 'ada'], ['coffee', 1, 'grace'], ['cocoa', 2, 'ada'], ['matcha', 5, 'alan']];
  for (const [item, qty, customer] of items) {
    await query(flora, { create: { collection: 'orders' }, params: { object: { data: { object: { item, qty, customer } } } } }, 'shop');
  }
  await query(flora, { create_index: { object: { name: 'orders_by_customer', source: { collection: 'orders' }, terms: [{ object: { field: ['data', 'customer'] } }] } } }, 'shop');
  // A GraphQL API in its own database, with a few products made through it.
  await query(flora, { create_database: { object: { name: 'app' } } });
  const auth = { authorization: `Bearer ${flora.secret}:app:admin` };
  const schema = 'type Product {\n  name: String! @unique\n  price: Float!\n}\n\ntype Query {\n  allProducts: [Product!]\n}\n';
  const imported = await fetch(`${flora.url}/import`, { method: 'POST', headers: auth, body: schema });
  if (!imported.ok) throw new Error(`schema import failed: ${imported.status} ${await imported.text()}`);
  for (const [name, price] of [['cup', 4.5], ['teapot', 29], ['kettle', 35]] as const) {
    const made = await fetch(`${flora.url}/graphql`, { method: 'POST', headers: auth, body: JSON.stringify({ query: `mutation { createProduct(data: {name: "${name}", price: ${price}}) { _id } }` }) });
    if (!made.ok) throw new Error(`graphql mutation failed: ${made.status} ${await made.text()}`);
  }
}

/** What the shell shows for these inputs, typed one line at a time into a pseudo-terminal. */
async function shellSession(flora: FloraProcess, inputs: string[]): Promise<string> {
  const home = mkdtempSync(path.join(tmpdir(), 'flora-shot-'));
  const command = `stty cols 96 rows 40; exec ${process.execPath} ${FLORA_BIN} shell --url ${flora.url} --secret ${flora.secret}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...process.env, HOME: home, TERM: 'xterm-256color', FLORA_NO_BUILD_CHECK: '1' } });
  let output = '';
  let waiting: { seen: number; resolve: () => void } | undefined;
  const promptAfter = (seen: number) => /(> |\.\.\. )(\x1b\[[0-9;]*[A-Za-z])*$/.test(output.slice(seen));
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString('utf8');
    if (waiting && promptAfter(waiting.seen)) waiting.resolve();
  });
  const prompt = (seen: number) =>
    new Promise<void>((resolve, reject) => {
      if (promptAfter(seen)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no prompt; the shell wrote:\n${output}`)), 15_000);
      waiting = { seen, resolve: () => (clearTimeout(timer), resolve()) };
    });
  try {
    await prompt(0);
    for (const line of inputs) {
      const seen = output.length;
      child.stdin.write(`${line}\r`);
      await prompt(seen + line.length);
    }
    child.stdin.write('\x04'); // Ctrl-D
    await new Promise((r) => child.once('exit', r));
  } finally {
    child.kill();
    rmSync(home, { recursive: true, force: true });
  }
  return output;
}

const TERMINAL_PAGE = (body: string) => `<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: #1e2230; }
pre { margin: 0; padding: 16px 20px; color: #d8dce6; font: 14px/1.45 "DejaVu Sans Mono", ui-monospace, monospace; width: max-content; min-width: 780px; }
.red, .bright-red { color: #f07171; } .green, .bright-green { color: #9cd67a; } .yellow, .bright-yellow { color: #e6c07b; }
.blue, .bright-blue { color: #7aa6f0; } .magenta, .bright-magenta { color: #c99cf0; } .cyan, .bright-cyan { color: #6fd0d8; }
.bold { font-weight: bold; } .dim { color: #8a91a3; }
</style><pre id="term">${body}</pre>`;

async function dashboardShots(page: Page, flora: FloraProcess): Promise<void> {
  const shot = (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`) });
  await page.goto(`${flora.url}/admin`);
  await page.fill('#secret', flora.secret);
  await page.click('#sign-in button[type=submit]');
  await page.click('#db-tree button[data-path="shop"]');
  await page.click('#collections button.collection >> text=orders');
  await page.locator('#documents tbody tr', { hasText: 'tea' }).click();
  await page.locator('#document-history li').first().waitFor();
  await shot('dashboard-documents');
  await page.click('#tab-query');
  await page.fill('#query', 'Map(\n  Paginate(Match(Index("orders_by_customer"), "ada")),\n  Lambda("ref", Get(Var("ref")))\n)');
  await page.focus('#query');
  await page.keyboard.press('Control+Enter');
  await page.locator('#result-tree summary').first().waitFor();
  await shot('dashboard-query');
  await page.click('#tab-indexes');
  await page.locator('#indexes tbody tr', { hasText: 'orders_by_customer' }).locator('button', { hasText: 'Browse' }).click();
  await page.locator('#index-browser input').first().fill('"ada"');
  await page.locator('#index-browser button[type=submit]').click();
  await page.locator('#index-entries tbody tr').first().waitFor();
  await shot('dashboard-indexes');
  await page.click('#db-tree button[data-path="app"]');
  await page.click('#tab-graphql');
  await page.locator('#graphiql .graphiql-query-editor .CodeMirror-lines').waitFor();
  await page.click('#graphiql .graphiql-query-editor .CodeMirror-lines', { position: { x: 40, y: 10 } });
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type('{ allProducts { data { name price } } }');
  await page.keyboard.press('Control+Enter');
  await page.locator('#graphiql .graphiql-response .result-window', { hasText: 'teapot' }).waitFor();
  await page.locator('#graphql-panel').screenshot({ path: path.join(OUT, 'dashboard-graphql.png') });
  await page.click('#tab-logs');
  await page.locator('#log-table tbody tr').first().waitFor();
  await shot('dashboard-query-log');
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const flora = await startFlora();
  if (!CHROMIUM) throw new Error(String(SKIP));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    await seed(flora);
    const transcript = await shellSession(flora, [
      '.use shop',
      'Paginate(Collections())',
      'Map(',
      '  Paginate(Match(Index("orders_by_customer"), "ada")),',
      '  ref => Select(["data", "item"], Get(ref))',
      ')',
      'Create(Collection("orders"), {data: {item: "chai", qty: 2, customer: "ada"}})',
      'Get(Ref(Collection("orders"), "42"))',
    ]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.setContent(TERMINAL_PAGE(terminalHtml(transcript)));
    await page.locator('#term').screenshot({ path: path.join(OUT, 'shell.png') });
    await dashboardShots(page, flora);
    console.log(`wrote shell.png and dashboard-*.png into ${OUT}`);
  } finally {
    await browser.close();
    await flora.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
