// Background work done in batches, each in its own transaction, with the progress stored next to
// the data so that the work resumes after a restart (index builds, migrations). A batch that
// races a write is re-run (optimistic concurrency), so nothing written meanwhile is missed.
//
// In a tier of processes (store.shared), one process does a piece of work at a time: it holds the
// work's lease (tier/leases.ts), and each batch commits only while the lease is still its own.
// Every process looks at the pending work every ADOPT_MS and takes over work whose owner died
// (its lease ran out): the work resumes from the progress the last batch committed.

import type { Store, Txn } from '../storage/types';
import { ProtocolError } from '../values/errors';
import { LeaseLost, type Leases } from '../tier/leases';
import { log } from '../diag/log';

const LOG_EVERY = 10_000;
/** Shared store: how often pending work is looked at, to take over work whose owner died. */
const ADOPT_MS = 2_000;

/** What one batch did. */
export interface BatchResult {
  /** Documents done so far (for the log). */
  readonly done: number;
  readonly finished: boolean;
  /** Said in the server log once the batch committed. */
  readonly warnings?: ReadonlyArray<string>;
}

/** One kind of batched work, `K` naming one piece of it. */
export interface BatchedKind<K> {
  /** The pieces of work the store holds as pending. */
  pending(txn: Txn): Promise<K[]>;
  /** The piece's lease name (unique across kinds). */
  lease(k: K): string;
  /** Does the next batch of `k` in `txn`. */
  batch(txn: Txn, k: K): Promise<BatchResult & { readonly name: string }>;
  /** Called once the last batch committed at `ts`. */
  finished(k: K, ts: bigint): void;
  /** A log line of progress: `flora: <progress>`. */
  progress(name: string, done: number, rate: number, finished: boolean): string;
  /** Tests: a pause between batches, so that work can be interrupted half-way. */
  readonly delayMs: number;
}

export class BatchedWork<K> {
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;
  private adopter: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly leases: Leases,
    private readonly kind: BatchedKind<K>,
  ) {}

  /** Resumes the work a previous run left unfinished, and (shared store) watches for orphaned work. */
  async resume(): Promise<void> {
    await this.adopt();
    if (!this.store.shared || this.stopped) return;
    const next = () => {
      this.adopter = setTimeout(() => {
        void this.adopt()
          .catch(() => undefined) // the store is unavailable: look again next time
          .finally(() => !this.stopped && next());
      }, ADOPT_MS);
      this.adopter.unref();
    };
    next();
  }

  /** Starts the pending work this process is not doing (another process's lease keeps it there). */
  private async adopt(): Promise<void> {
    const { result } = await this.store.run((txn) => this.kind.pending(txn));
    for (const k of result) this.start(k);
  }

  start(k: K): void {
    const lease = this.kind.lease(k);
    if (this.running.has(lease) || this.stopped) return;
    const run = this.leases
      .holding(lease, (lost) => this.work(k, lease, lost))
      .then(() => undefined)
      .catch((e) => {
        if (!(e instanceof LeaseLost)) log.error(`${lease} failed`, { err: e });
      })
      .finally(() => this.running.delete(lease));
    this.running.set(lease, run);
  }

  /** Stops after the batches in progress; unfinished work resumes on the next start (or elsewhere). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.adopter) clearTimeout(this.adopter);
    await Promise.all(this.running.values());
  }

  private async work(k: K, lease: string, lost: AbortSignal): Promise<void> {
    const started = Date.now();
    let lastLogged = 0;
    for (;;) {
      if (this.stopped || lost.aborted) return;
      let run;
      try {
        run = await this.store.run(async (txn) => {
          await this.leases.check(txn, lease);
          return this.kind.batch(txn, k);
        });
      } catch (e) {
        // A batch that keeps losing races with writers is simply tried again.
        if (e instanceof ProtocolError && e.status === 409) continue;
        throw e;
      }
      const { result, ts } = run;
      for (const w of result.warnings ?? []) log.warn(w, { work: lease });
      if (result.done >= lastLogged + LOG_EVERY || (result.finished && result.done >= LOG_EVERY)) {
        lastLogged = result.done;
        const rate = Math.round(result.done / Math.max(0.001, (Date.now() - started) / 1000));
        log.info(this.kind.progress(result.name, result.done, rate, result.finished), { work: lease, done: result.done, perSecond: rate, finished: result.finished });
      }
      if (result.finished) {
        this.kind.finished(k, ts);
        return;
      }
      if (this.kind.delayMs > 0) await new Promise((r) => setTimeout(r, this.kind.delayMs));
    }
  }
}
