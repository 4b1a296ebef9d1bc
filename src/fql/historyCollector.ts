// The background collector (fql-v4.md §4.4, §4.2): on a timer, for every database, removes the
// document versions and index events that fell below their minimum valid time, and deletes the
// documents whose ttl has passed (with their index entries). Work goes in small batches, each its
// own transaction or engine write, so queries are never blocked behind it. In a tier of
// processes, only the holder of the collector's role (tier/leases.ts) makes passes.

import type { Store, Txn } from '../storage/types';
import type { Catalog, SchemaEntry } from '../model/catalog';
import { indexDefOf } from '../model/indexSchema';
import type { IndexDef } from '../model/indexDef';
import { collectionMvt, indexMvt } from '../model/retention';
import { expiredIds, expireDocuments, mayHoldExpiring } from '../model/expiry';
import { schemaOf } from '../model/resolve';
import { backgroundContext } from './backgroundContext';
import type { Leases, Role } from '../tier/leases';
import { log } from '../diag/log';

const EXPIRY_BATCH = 256;

export interface CollectionStats {
  versions: number;
  indexEvents: number;
  expired: number;
}

interface DatabaseSchema {
  db: bigint;
  collections: SchemaEntry[];
  indexes: IndexDef[];
}

export class HistoryCollector {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private role: Role | undefined;

  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly leases: Leases,
    /** Time between the end of one pass and the start of the next. */
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.stopped || this.timer) return;
    this.role ??= this.leases.role('collector');
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const pass = this.role!.held() ? this.pass() : Promise.resolve();
      this.running = pass
        .then(() => undefined)
        .catch((e: unknown) => log.error('history collection failed', { err: e }))
        .finally(() => {
          this.running = undefined;
          this.start();
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in progress (it stops between batches). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    await this.role?.stop();
  }

  /** One pass over every database. */
  async pass(): Promise<CollectionStats> {
    const stats: CollectionStats = { versions: 0, indexEvents: 0, expired: 0 };
    for (const schema of await this.databases()) {
      const now = this.store.now();
      for (const coll of schema.collections) {
        if (this.stopped) return stats;
        const mvt = collectionMvt(coll.fields, now);
        if (mvt !== undefined) stats.versions += await this.store.collectHistory(schema.db, Number(coll.id), mvt);
        stats.expired += await this.expire(schema.db, coll);
      }
      for (const def of schema.indexes) {
        if (this.stopped) return stats;
        const mvt = indexMvt(schema.collections, def, now);
        if (mvt !== undefined) stats.indexEvents += await this.store.collectIndexHistory(schema.db, def.id, mvt);
      }
    }
    return stats;
  }

  /** Every database (depth first from the top) with its collections and indexes. */
  private async databases(): Promise<DatabaseSchema[]> {
    const { result } = await this.store.run(async (txn: Txn) => {
      const out: DatabaseSchema[] = [];
      const visit = async (db: bigint): Promise<void> => {
        const schema = await schemaOf(backgroundContext(txn, this.catalog, db), db);
        out.push({ db, collections: schema.all('collections'), indexes: schema.all('indexes').map((e) => indexDefOf(db, e)) });
        for (const child of schema.all('databases')) await visit(child.id);
      };
      await visit(0n);
      return out;
    });
    return result;
  }

  private async expire(db: bigint, coll: SchemaEntry): Promise<number> {
    let total = 0;
    for (;;) {
      if (this.stopped) return total;
      const { result: ids } = await this.store.run(async (txn) => {
        const ctx = backgroundContext(txn, this.catalog, db);
        return (await mayHoldExpiring(ctx, db, Number(coll.id))) ? expiredIds(ctx, db, Number(coll.id), EXPIRY_BATCH) : [];
      });
      if (ids.length === 0) return total;
      const { result: n } = await this.store.run((txn) => expireDocuments(backgroundContext(txn, this.catalog, db), db, coll, ids));
      total += n;
      if (ids.length < EXPIRY_BATCH) return total;
    }
  }
}
