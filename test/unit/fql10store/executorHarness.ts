// Both languages over one real temporary store, as the server runs them: v10 queries and v4
// requests authenticated by a secret through the v4 Executor's transactions (its Authenticator,
// its v4 lambda evaluator, the v10 languages installed), so keys, tokens and roles made by one
// language are used by the other.

import fs from 'node:fs';
import { Executor } from '../../../src/fql/executor';
import { evaluate, summary } from '../../../src/fql10/eval/evaluate';
import { parseQuery } from '../../../src/fql10/parser';
import { storeCursors } from '../../../src/fql10/store/cursors';
import { BareTxnHooks } from '../../../src/fql10/store/txnHooks';
import { openLmdbEngine } from '../../../src/storage/lmdbEngine';
import { openStore } from '../../../src/storage/store';
import type { Store } from '../../../src/storage/types';
import { encodeValue } from '../../../src/wire/v10/encode';
import { tempDir } from '../../helpers/store';
import type { Outcome } from './harness';

export const ROOT = 'root-secret';

export class ExecStore {
  private constructor(
    readonly dir: string,
    readonly store: Store,
    readonly executor: Executor,
  ) {}

  static async open(): Promise<ExecStore> {
    const dir = tempDir();
    const store = await openStore(await openLmdbEngine(dir));
    return new ExecStore(dir, store, new Executor(store, ROOT));
  }

  async close(): Promise<void> {
    await this.executor.close();
    await this.store.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** A v10 query authenticated by `secret`. */
  async query(text: string, secret = ROOT): Promise<Outcome> {
    const parsed = parseQuery(text);
    if (!parsed.ok) throw new Error(`does not parse: ${text}`);
    const run = await this.executor.transact(`Bearer ${secret}`, async (tx) => {
      const out = await evaluate(parsed.value, new Map(), new BareTxnHooks(tx, storeCursors));
      if (out.ok) return { ok: true as const, simple: encodeValue(out.value, 'simple', 0n), tagged: encodeValue(out.value, 'tagged', 0n) };
      const f = out.failure;
      const r: Outcome = { ok: false, code: f.code, message: f.message, summary: summary(out) };
      if ('constraintFailures' in f && f.constraintFailures !== undefined) r.failures = JSON.stringify(f.constraintFailures);
      return r;
    });
    return run.result;
  }

  async ok(text: string, secret = ROOT): Promise<string> {
    const r = await this.query(text, secret);
    if (!r.ok) throw new Error(`${text}\n${r.code}: ${r.message}\n${r.summary}`);
    return r.simple;
  }

  async json(text: string, secret = ROOT): Promise<any> {
    return JSON.parse(await this.ok(text, secret));
  }

  async err(text: string, secret = ROOT): Promise<Exclude<Outcome, { ok: true }>> {
    const r = await this.query(text, secret);
    if (r.ok) throw new Error(`${text}: expected a failure, got ${r.simple}`);
    return r;
  }

  /** A v4 request (its wire JSON) authenticated by `secret`: the status and parsed body. */
  async v4(body: unknown, secret = ROOT): Promise<{ status: number; body: any }> {
    const r = await this.executor.query({ body: JSON.stringify(body), authorization: `Bearer ${secret}`, timeoutMs: 60_000 });
    return { status: r.status, body: JSON.parse(r.body.toString()) };
  }
}
