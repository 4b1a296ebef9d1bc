// Background schema migrations (the core's MigrationTask): the documents of a collection too large
// to migrate in its schema update are rewritten in batches (model/schema10/migrations.ts
// migrateBatch), resumed after a restart or a kill, and taken over in a tier (batchedWork.ts).
// Meanwhile readers see the documents migrated (model/schema10/migrationView.ts).

import type { Store } from '../storage/types';
import type { Catalog } from '../model/catalog';
import { allMigrations } from '../model/schema10/migrationState';
import { migrateBatch } from '../model/schema10/migrations';
import { backgroundContext } from './backgroundContext';
import type { Leases } from '../tier/leases';
import { BatchedWork } from './batchedWork';

/** Documents per batch (tests make it small, FLORA_TEST_MIGRATE_BATCH, so that a migration takes several). */
const BATCH = Number(process.env.FLORA_TEST_MIGRATE_BATCH) || 256;

interface Migration {
  db: bigint;
  coll: number;
}

export class MigrationRunner {
  private readonly work: BatchedWork<Migration>;

  constructor(
    store: Store,
    catalog: Catalog,
    leases: Leases,
    /** Called once a database has no more migrations of a collection (its cached schema lists them). */
    schemaChanged: (db: bigint, ts: bigint) => void,
  ) {
    this.work = new BatchedWork(store, leases, {
      pending: allMigrations,
      lease: (m) => `migrate:${m.db}:${m.coll}`,
      batch: (txn, m) => migrateBatch(backgroundContext(txn, catalog, m.db), m.db, m.coll, BATCH),
      finished: (m, ts) => schemaChanged(m.db, ts),
      progress: (name, done, rate, finished) => `collection ${name}: ${done} documents migrated (${rate}/s)${finished ? ', done' : ''}`,
      // Tests: a pause between batches, so a migration can be interrupted half-way.
      delayMs: Number(process.env.FLORA_TEST_MIGRATE_DELAY_MS ?? 0) || 0,
    });
  }

  resume(): Promise<void> {
    return this.work.resume();
  }

  start(db: bigint, coll: number): void {
    this.work.start({ db, coll });
  }

  stop(): Promise<void> {
    return this.work.stop();
  }
}
