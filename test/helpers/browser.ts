// Driving the dashboard in headless Chromium (Debian's `chromium`, through playwright-core), shared
// by the browser test files: the browser and page for a file, screenshots into
// dist/test-artifacts/dashboard/, and the few steps every test repeats (sign in, open a tab, run a
// query). Without Chromium, SKIP is the line that says how to run the browser tests.

import { after, before } from 'node:test';
import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { httpRequest, ROOT, type FloraProcess } from './server';

// FLORA_CHROMIUM, when set, is the only browser tried.
const CANDIDATES = process.env.FLORA_CHROMIUM ? [process.env.FLORA_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
/** The Chromium the browser tests (and the dashboard benchmark and README pictures) drive, if any. */
export const CHROMIUM = CANDIDATES.find((p): p is string => !!p && existsSync(p));
export const SKIP: string | false = CHROMIUM
  ? false
  : `no Chromium${process.env.FLORA_CHROMIUM ? ` at ${process.env.FLORA_CHROMIUM}` : ''}: install it with \`apt-get install -y chromium\` (or set FLORA_CHROMIUM=/path/to/chrome) to run the browser tests`;

export const ARTIFACTS = path.join(ROOT, 'dist', 'test-artifacts', 'dashboard');
/** How long one step may wait for the page. */
export const STEP = { timeout: 10_000 };

export interface DashboardSession {
  readonly page: Page;
  /** Everything the page reported as an error (a script error, a console error, a request to another origin). */
  readonly pageErrors: string[];
  /** A full-page screenshot as ARTIFACTS/<name>.png. */
  shot(name: string): Promise<void>;
  /** Waits for an element matching `selector` that contains `text`. */
  see(selector: string, text: string): Promise<void>;
  /** Opens /admin and signs in with `secret` (the workspace not awaited: a refused secret stays on the form). */
  signIn(secret: string): Promise<void>;
  /** Shows the workspace tab `id` (documents, keys, query, …). */
  openTab(id: string): Promise<void>;
  /**
   * Signs out and in again with a new key of `role`, made with `creator` (default the root secret;
   * a scoped one makes the key in that database); waits for the workspace; returns its secret.
   */
  signInWithRole(role: string, creator?: string): Promise<string>;
  /** The page's errors but the failed loads of answers with these statuses, which a test provoked on purpose. */
  unexpectedErrors(statuses: readonly number[]): string[];
  /** Types a query in the editor (its tab opened) and runs it with Ctrl+Enter. */
  runQuery(source: string): Promise<void>;
  /** Picks `item` (its id) from the menu `menu` (its id): opens the menu, clicks the item. */
  choose(menu: string, item: string): Promise<void>;
  /** Creates database `name` inside the selected one with New database (it is then selected). */
  createDatabase(name: string): Promise<void>;
  /** Answers the next confirmation dialog (accepted unless `accept` is false) and returns its message once it came. */
  confirmNext(accept?: boolean): () => string;
}

export interface SessionOptions {
  /**
   * Install Playwright's clock in the page before it loads: time flows as usual until a test
   * pauses it and runs the page's timers ahead (`page.clock.runFor`), to show what a timer does,
   * or does not do, over seconds without waiting them out.
   */
  clock?: boolean;
}

/** A browser and page for the test file (opened in `before`, closed in `after`); nothing when SKIP. */
export function dashboardSession(flora: () => FloraProcess, options: SessionOptions = {}): DashboardSession {
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];
  before(async () => {
    if (!CHROMIUM) return;
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP.timeout);
    if (options.clock) await page.clock.install();
    page.on('pageerror', (err) => pageErrors.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
    });
    // The page must ask nothing of any other origin (the offline rule).
    page.on('request', (req) => {
      if (!req.url().startsWith(flora().url)) pageErrors.push(`request to another origin: ${req.url()}`);
    });
  });
  after(async () => {
    await browser?.close();
  });
  const session: DashboardSession = {
    get page() {
      if (!page) throw new Error('no browser page (Chromium missing?)');
      return page;
    },
    pageErrors,
    async shot(name) {
      await session.page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async see(selector, text) {
      await session.page.locator(selector, { hasText: text }).first().waitFor(STEP);
    },
    async signIn(secret) {
      const p = session.page;
      if (!(await p.locator('#sign-in').count())) {
        await p.goto(`${flora().url}/admin`);
        await p.locator('#sign-in').waitFor(STEP);
      }
      await p.fill('#secret', secret);
      await p.click('#sign-in button[type=submit]');
    },
    async signInWithRole(role, creator = flora().secret) {
      const created = await httpRequest(flora().url, {
        method: 'POST',
        headers: { authorization: `Bearer ${creator}` },
        body: JSON.stringify({ select: 'secret', from: { create_key: { object: { role } } } }),
      });
      const secret = (JSON.parse(created.body) as { resource: string }).resource;
      await session.page.click('#sign-out');
      await session.signIn(secret);
      await session.page.locator('#workspace').waitFor(STEP);
      return secret;
    },
    unexpectedErrors(statuses) {
      const provoked = new RegExp(`^console: Failed to load resource: the server responded with a status of (${statuses.join('|')}) `);
      return pageErrors.filter((e) => !provoked.test(e));
    },
    async openTab(id) {
      await session.page.click(`#tab-${id}`);
      await session.page.locator(`[data-panel="${id}"]`).waitFor(STEP);
    },
    async runQuery(source) {
      const p = session.page;
      if (!(await p.locator('#query').isVisible())) await session.openTab('query');
      await p.fill('#query', source);
      await p.focus('#query');
      await p.keyboard.press('Control+Enter');
    },
    async choose(menu, item) {
      await session.page.click(`#${menu} > summary`);
      await session.page.click(`#${item}`);
    },
    async createDatabase(name) {
      await session.page.click('#new-db');
      await session.page.fill('#new-db-name', name);
      await session.page.click('#create-db button[type=submit]');
      await session.page.locator('#create-db-dialog').waitFor({ ...STEP, state: 'detached' });
    },
    confirmNext(accept = true) {
      let asked = '';
      session.page.once('dialog', (d) => {
        asked = d.message();
        void (accept ? d.accept() : d.dismiss());
      });
      return () => asked;
    },
  };
  return session;
}
