// Documents of a collection still being migrated in the background are read migrated (the core
// migrates each version lazily on read, from the schema version it was written at): every
// stored version a transaction reads goes through here, and the pending steps above its level
// apply. Index entries keep following the stored data (Version.stored), which the background
// rewrite then moves to the migrated shape with the data.

import type { DocKey, Version, VersionView } from '../../storage/types';
import { FIRST_USER_COLLECTION_ID } from '../../values/types';
import { LAST_USER_COLLECTION_ID } from '../catalog';
import type { TxnContext } from '../context';
import { schemaOf } from '../resolve';
import { migrateData } from './migrations';
import { levelOf, noteWrittenCurrent, pushCommits, readMigration, readProgress, stepsFrom, type MigrationProgress, type MigrationState } from './migrationState';

interface Pending {
  state: MigrationState;
  progress: MigrationProgress;
  commits: bigint[];
}

export class MigrationView implements VersionView {
  /** The schema generation the memos below are of (a schema write in the transaction drops them). */
  private generation = -1;
  private readonly migrating = new Map<bigint, ReadonlySet<number>>();
  private readonly pending = new Map<string, Promise<Pending | undefined>>();

  constructor(private readonly ctx: TxnContext) {}

  view(key: DocKey, v: Version): Version | Promise<Version> {
    if (key.coll < FIRST_USER_COLLECTION_ID || key.coll > LAST_USER_COLLECTION_ID || typeof v.ts !== 'bigint') return v;
    if (this.generation !== this.ctx.schemaGeneration) {
      this.generation = this.ctx.schemaGeneration;
      this.migrating.clear();
      this.pending.clear();
    }
    const colls = this.migrating.get(key.db);
    if (colls === undefined) return this.collections(key.db).then(() => this.view(key, v));
    if (!colls.has(key.coll)) return v;
    const id = `${key.db}:${key.coll}`;
    let p = this.pending.get(id);
    if (p === undefined) this.pending.set(id, (p = this.load(key.db, key.coll)));
    return p.then((pending) => (pending === undefined ? v : migrated(pending, key, v)));
  }

  /** Drops what was read of `coll`'s migration (this transaction changed its progress). */
  forget(db: bigint, coll: number): void {
    this.pending.delete(`${db}:${coll}`);
  }

  private async collections(db: bigint): Promise<void> {
    const schema = await schemaOf(this.ctx, db);
    this.migrating.set(db, schema.migrating);
  }

  private async load(db: bigint, coll: number): Promise<Pending | undefined> {
    const state = await readMigration(this.ctx.txn, db, coll);
    return state && { state, progress: await readProgress(this.ctx.txn, db, coll), commits: await pushCommits(this.ctx.txn, db, coll, state) };
  }
}

/** `v` with the steps above its level applied (the stored fields kept for index maintenance). */
function migrated(p: Pending, key: DocKey, v: Version): Version {
  const level = levelOf(p.progress, p.commits, key.id, v.ts as bigint);
  const data = v.data?.get('data');
  if (level >= p.state.pushes.length || !(data instanceof Map)) return v;
  const after = migrateData(data, stepsFrom(p.state, level), true);
  if (after === data) return v;
  return { ts: v.ts, action: v.action, data: new Map([...v.data!, ['data', after]]), stored: v.stored ?? v.data };
}

/** Runs `fn` on versions as stored (the background rewrite, and what must see the stored data). */
export async function asStored<T>(ctx: TxnContext, fn: () => Promise<T>): Promise<T> {
  const view = ctx.txn.versionView;
  ctx.txn.versionView = undefined;
  try {
    return await fn();
  } finally {
    ctx.txn.versionView = view;
  }
}

/**
 * Before a version of `key` is written at `ts`, a time before the present (v4's Insert): its data
 * is in the collection's current shape, which a background migration must not apply again.
 */
export async function writingCurrentAt(ctx: TxnContext, key: DocKey, ts: bigint): Promise<void> {
  if (key.coll < FIRST_USER_COLLECTION_ID || key.coll > LAST_USER_COLLECTION_ID) return;
  if (!(await schemaOf(ctx, key.db)).migrating.has(key.coll)) return;
  if (!(await noteWrittenCurrent(ctx.txn, key.db, key.coll, key.id, ts))) return;
  const view = ctx.txn.versionView;
  if (view instanceof MigrationView) view.forget(key.db, key.coll);
}
