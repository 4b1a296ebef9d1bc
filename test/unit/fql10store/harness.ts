// A real temporary store for the storage-backed v10 stdlib: each query runs in its own
// transaction with fresh hooks (nothing carried between queries but the store), as the endpoint
// runs them; `reopen()` closes the store and opens it again (a cursor must survive that).

import fs from 'node:fs';
import { Budget, DEFAULT_LIMITS } from '../../../src/model/budget';
import { Catalog } from '../../../src/model/catalog';
import { TxnContext } from '../../../src/model/context';
import type { Scope } from '../../../src/model/auth';
import { openLmdbEngine } from '../../../src/storage/lmdbEngine';
import { openStore } from '../../../src/storage/store';
import type { Store } from '../../../src/storage/types';
import { evaluate, summary } from '../../../src/fql10/eval/evaluate';
import { parseQuery } from '../../../src/fql10/parser';
import { storeCursors } from '../../../src/fql10/store/cursors';
import { installSchemaLanguage } from '../../../src/fql10/store/schemaLanguage';
import { BareTxnHooks } from '../../../src/fql10/store/txnHooks';
import { encodeValue } from '../../../src/wire/v10/encode';
import { tempDir } from '../../helpers/store';

export const ADMIN: Scope = { db: 0n, path: [], role: 'admin', root: true };

export type Outcome = { ok: true; simple: string; tagged: string } | { ok: false; code: string; message: string; summary: string; failures?: string };

export class TestStore {
  private constructor(
    readonly dir: string,
    public store: Store,
    public catalog: Catalog,
  ) {}

  static async open(): Promise<TestStore> {
    const dir = tempDir();
    return new TestStore(dir, await openStore(await openLmdbEngine(dir)), new Catalog());
  }

  /** Closes the store and opens it again from disk, with a fresh catalog (another process). */
  async reopen(): Promise<void> {
    await this.store.close();
    this.store = await openStore(await openLmdbEngine(this.dir));
    this.catalog = new Catalog();
  }

  async close(): Promise<void> {
    await this.store.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs `fn` in a transaction of its own, as one request would. */
  async txn<T>(fn: (tx: TxnContext) => Promise<T>, readOnly = false): Promise<T> {
    const budget = new Budget(DEFAULT_LIMITS, Date.now() + 600_000);
    const run = await this.store.run(async (txn) => {
      budget.startAttempt();
      const tx = new TxnContext(txn, ADMIN, this.catalog, budget, readOnly);
      installSchemaLanguage(tx);
      return { value: await fn(tx), tx };
    });
    // What the executor's commit listener does: schema changes are seen by later transactions.
    if (run.result.tx.schemaWrites.size) this.catalog.changed(run.result.tx.schemaWrites, run.ts);
    return run.result.value;
  }

  async query(text: string): Promise<Outcome> {
    const parsed = parseQuery(text);
    if (!parsed.ok) throw new Error(`does not parse: ${text}`);
    return this.txn(async (tx) => {
      const out = await evaluate(parsed.value, new Map(), new BareTxnHooks(tx, storeCursors));
      if (out.ok) return { ok: true as const, simple: encodeValue(out.value, 'simple', 0n), tagged: encodeValue(out.value, 'tagged', 0n) };
      const f = out.failure;
      const r: Outcome = { ok: false, code: f.code, message: f.message, summary: summary(out) };
      if ('constraintFailures' in f && f.constraintFailures !== undefined) r.failures = JSON.stringify(f.constraintFailures);
      return r;
    });
  }

  /** The simple JSON of a query that must succeed. */
  async ok(text: string): Promise<string> {
    const r = await this.query(text);
    if (!r.ok) throw new Error(`${text}\n${r.code}: ${r.message}\n${r.summary}`);
    return r.simple;
  }

  async json(text: string): Promise<any> {
    return JSON.parse(await this.ok(text));
  }

  async err(text: string): Promise<Exclude<Outcome, { ok: true }>> {
    const r = await this.query(text);
    if (r.ok) throw new Error(`${text}: expected a failure, got ${r.simple}`);
    return r;
  }
}
