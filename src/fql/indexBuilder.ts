// Background index builds: batches of documents, each in its own transaction, with the progress
// stored next to the data so a build resumes after a restart. Document writes during a build
// maintain the index too, and a batch that races a write is re-run (optimistic concurrency), so
// nothing written meanwhile is missed. The index is marked active when the last batch commits.
//
// In a tier of processes (store.shared), one process builds an index at a time: it holds the
// build's lease (tier/leases.ts), and each batch commits only while the lease is still its own.
// Every process looks at the pending builds every ADOPT_MS and takes over a build whose builder
// died (its lease ran out): the build resumes from the progress the last batch committed.

import type { Store, Txn } from '../storage/types';
import { ProtocolError } from '../values/errors';
import type { Catalog } from '../model/catalog';
import { NATIVE_IDS, schemaConflictKey } from '../model/catalog';
import { indexDefOf } from '../model/indexSchema';
import {
  buildStateKey,
  decodeBuildList,
  decodeBuildState,
  encodeBuildList,
  encodeBuildState,
  indexDocument,
  PENDING_BUILDS_KEY,
  docsAhead,
} from '../model/indexBuild';
import { schemaOf } from '../model/resolve';
import type { EvalContext } from './context';
import { backgroundContext } from './backgroundContext';
import { LeaseLost, type Leases } from '../tier/leases';
import { log } from '../diag/log';

const BATCH = 256;
const LOG_EVERY = 10_000;
/** Shared store: how often pending builds are looked at, to take over those whose builder died. */
const ADOPT_MS = 2_000;

/** Tests: a pause between batches, so a build can be interrupted half-way (FLORA_TEST_BUILD_DELAY_MS). */
const BATCH_DELAY_MS = Number(process.env.FLORA_TEST_BUILD_DELAY_MS ?? 0) || 0;

const leaseOf = (db: bigint, index: number) => `build:${db}:${index}`;

export class IndexBuilder {
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;
  private adopter: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly leases: Leases,
    /** Called after a commit that changed a database's schema (the index became active). */
    private readonly schemaChanged: (db: bigint, ts: bigint) => void,
  ) {}

  /** Resumes the builds a previous run left unfinished, and (shared store) watches for orphaned ones. */
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

  /** Starts the pending builds this process is not running (another process's lease keeps them there). */
  private async adopt(): Promise<void> {
    const { result } = await this.store.run(async (txn) => decodeBuildList(await txn.getMeta(PENDING_BUILDS_KEY)));
    for (const b of result) this.start(b.db, b.index);
  }

  start(db: bigint, index: number): void {
    const key = `${db}:${index}`;
    if (this.running.has(key) || this.stopped) return;
    const run = this.leases
      .holding(leaseOf(db, index), (lost) => this.build(db, index, lost))
      .then(() => undefined)
      .catch((e) => {
        if (!(e instanceof LeaseLost)) log.error(`index build ${key} failed`, { err: e });
      })
      .finally(() => this.running.delete(key));
    this.running.set(key, run);
  }

  /** Stops after the batches in progress; unfinished builds resume on the next start (or elsewhere). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.adopter) clearTimeout(this.adopter);
    await Promise.all(this.running.values());
  }

  private context(txn: Txn, db: bigint): EvalContext {
    return backgroundContext(txn, this.catalog, db);
  }

  private async build(db: bigint, index: number, lost: AbortSignal): Promise<void> {
    const started = Date.now();
    let lastLogged = 0;
    const lease = leaseOf(db, index);
    for (;;) {
      if (this.stopped || lost.aborted) return;
      let run;
      try {
        run = await this.store.run(async (txn) => {
          await this.leases.check(txn, lease);
          return this.batch(this.context(txn, db), db, index);
        });
      } catch (e) {
        // A batch that keeps losing races with writers is simply tried again.
        if (e instanceof ProtocolError && e.status === 409) continue;
        throw e;
      }
      const { result, ts } = run;
      if (result.done >= lastLogged + LOG_EVERY || (result.finished && result.done >= LOG_EVERY)) {
        lastLogged = result.done;
        const rate = Math.round(result.done / Math.max(0.001, (Date.now() - started) / 1000));
        log.info(`index ${result.name}: ${result.done} documents indexed (${rate}/s)${result.finished ? ', done' : ''}`, { index: result.name, documents: result.done, perSecond: rate, done: result.finished });
      }
      if (result.finished) {
        this.schemaChanged(db, ts);
        return;
      }
      if (BATCH_DELAY_MS > 0) await new Promise((r) => setTimeout(r, BATCH_DELAY_MS));
    }
  }

  /** Indexes the next batch of documents; on the last one, activates the index. */
  private async batch(ctx: EvalContext, db: bigint, index: number): Promise<{ done: number; finished: boolean; name: string }> {
    const stateKey = buildStateKey(db, index);
    const stored = await ctx.txn.getMeta(stateKey);
    const entry = (await schemaOf(ctx, db)).getById('indexes', BigInt(index));
    if (!stored || !entry) {
      // Deleted meanwhile (or already finished): forget it.
      await this.forget(ctx, db, index);
      return { done: 0, finished: true, name: entry?.name ?? String(index) };
    }
    const def = indexDefOf(db, entry);
    const state = decodeBuildState(stored);
    let budget = BATCH;
    for await (const { coll, id } of docsAhead(ctx, def, state)) {
      if (budget === 0) {
        ctx.txn.putMeta(stateKey, encodeBuildState({ coll: coll.id, nextId: id, done: state.done }));
        return { done: state.done, finished: false, name: def.name };
      }
      await indexDocument(ctx, def, coll, id);
      state.done++;
      budget--;
    }
    // Every source scanned: the index is complete.
    const fields = new Map(entry.fields);
    fields.set('active', true);
    ctx.txn.putVersion({ db, coll: NATIVE_IDS.indexes, id: BigInt(index) }, 'update', fields);
    ctx.txn.writeConflictKey(schemaConflictKey(db));
    await this.forget(ctx, db, index);
    return { done: state.done, finished: true, name: def.name };
  }

  private async forget(ctx: EvalContext, db: bigint, index: number): Promise<void> {
    ctx.txn.putMeta(buildStateKey(db, index), null);
    const list = decodeBuildList(await ctx.txn.getMeta(PENDING_BUILDS_KEY)).filter((b) => b.db !== db || b.index !== index);
    ctx.txn.putMeta(PENDING_BUILDS_KEY, encodeBuildList(list));
  }
}
