// Background index builds (batchedWork.ts): batches of documents, the progress stored next to the
// data. Document writes during a build maintain the index too, and the index is marked active
// when the last batch commits.

import type { Store, Txn } from '../storage/types';
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
import type { Leases } from '../tier/leases';
import { BatchedWork, type BatchedKind } from './batchedWork';

const BATCH = 256;

interface Build {
  db: bigint;
  index: number;
}

export class IndexBuilder {
  private readonly work: BatchedWork<Build>;

  constructor(
    store: Store,
    private readonly catalog: Catalog,
    leases: Leases,
    /** Called after a commit that changed a database's schema (the index became active). */
    schemaChanged: (db: bigint, ts: bigint) => void,
  ) {
    const kind: BatchedKind<Build> = {
      pending: async (txn) => decodeBuildList(await txn.getMeta(PENDING_BUILDS_KEY)),
      lease: (b) => `build:${b.db}:${b.index}`,
      batch: (txn, b) => this.batch(this.context(txn, b.db), b.db, b.index),
      finished: (b, ts) => schemaChanged(b.db, ts),
      progress: (name, done, rate, finished) => `index ${name}: ${done} documents indexed (${rate}/s)${finished ? ', done' : ''}`,
      // Tests: a pause between batches, so a build can be interrupted half-way (FLORA_TEST_BUILD_DELAY_MS).
      delayMs: Number(process.env.FLORA_TEST_BUILD_DELAY_MS ?? 0) || 0,
    };
    this.work = new BatchedWork(store, leases, kind);
  }

  /** Resumes the builds a previous run left unfinished, and (shared store) watches for orphaned ones. */
  resume(): Promise<void> {
    return this.work.resume();
  }

  start(db: bigint, index: number): void {
    this.work.start({ db, index });
  }

  /** Stops after the batches in progress; unfinished builds resume on the next start (or elsewhere). */
  stop(): Promise<void> {
    return this.work.stop();
  }

  private context(txn: Txn, db: bigint): EvalContext {
    return backgroundContext(txn, this.catalog, db);
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
