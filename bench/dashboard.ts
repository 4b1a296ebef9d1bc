// `npm run bench -- --dashboard [--loads 20]`: how fast the dashboard's first screen comes up from a
// local server (issue 19's budget: under 1 s), and what the browser downloads for it. Each load is
// a fresh browser context (an empty cache), timed by the page itself: from navigation start to the
// `flora-first-screen` mark that main.ts sets once the sign-in form (or, with a stored secret, the
// workspace) is in the document. Also: the time to the signed-in workspace with the databases tree
// read, and the bytes of each file, raw and gzipped.

import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { ROOT, startFlora } from '../test/helpers/server';
import { printTable } from './harness';
import { percentile } from './load';
import { CHROMIUM, SKIP } from '../test/helpers/browser';

export async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf('--loads');
  const loads = i >= 0 ? Number(argv[i + 1]) : 20;
  if (!Number.isInteger(loads) || loads < 1) throw new Error('--loads takes a whole number ≥ 1');
  if (!CHROMIUM) throw new Error(String(SKIP));

  const dir = path.join(ROOT, 'dist', 'admin');
  const sizes = readdirSync(dir).map((f) => {
    const body = readFileSync(path.join(dir, f));
    return [f, String(body.length), String(gzipSync(body).length)];
  });
  console.log('dist/admin (bytes):');
  printTable(['file', 'raw', 'gzip'], sizes);

  const flora = await startFlora();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const first: number[] = [];
  const workspace: number[] = [];
  try {
    for (let n = 0; n < loads; n++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${flora.url}/admin`);
      await page.locator('#sign-in').waitFor();
      first.push(await page.evaluate(() => performance.getEntriesByName('flora-first-screen')[0]?.startTime ?? NaN));
      const started = await page.evaluate(() => performance.now());
      await page.fill('#secret', flora.secret);
      await page.click('#sign-in button[type=submit]');
      await page.locator('#db-tree button.db').first().waitFor();
      workspace.push((await page.evaluate(() => performance.now())) - started);
      await context.close();
    }
  } finally {
    await browser.close();
    await flora.stop();
  }
  const row = (label: string, xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return [label, s[0].toFixed(0), percentile(s, 0.5).toFixed(0), percentile(s, 0.95).toFixed(0), s[s.length - 1].toFixed(0)];
  };
  console.log(`\n${loads} cold loads (ms):`);
  printTable(['step', 'min', 'median', 'p95', 'max'], [row('first screen (navigation → sign-in form)', first), row('sign-in → databases tree shown', workspace)]);
}
