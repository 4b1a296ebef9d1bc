// A collection migrated in the background (the core's MigrationTask with its schema versions):
// what the schema updates asked for (unversioned metadata, changed only by schema updates), and
// how far the rewrite has come (a versioned record, so that a reader sees the progress as of its
// snapshot, with the documents it rewrote). Both are in the store: every process of a tier sees
// them, and a restart resumes the work.
//
// A stored version's level is how many of the pending pushes its data already went through:
// a version written at or after push k's commit was written in its shape (writes see documents
// migrated), and the rewrite takes documents in id order, so `floors` say which ids it has done.
// Readers apply the steps of the pushes above a version's level (migrationView.ts).

import { decodeValue, encodeValue } from '../../storage/valueCodec';
import type { Txn } from '../../storage/types';
import { NATIVE_IDS, TxnTime, type Obj, type Value } from '../../values/types';
import type { DocKey } from '../../storage/types';
import type { Migration } from './migrations';

export interface PendingPush {
  /** Snapshot time of the schema update: its commit is the collection document's next version. */
  readonly after: bigint;
  readonly steps: ReadonlyArray<Migration>;
}

/** Documents with an id below `upTo` have every version at `level` or above. */
export interface Floor {
  upTo: bigint;
  readonly level: number;
}

export interface MigrationState {
  readonly pushes: PendingPush[];
}

export interface MigrationProgress {
  /** The last one is the rewrite in progress, to the level of every push. */
  readonly floors: Floor[];
  /** Documents rewritten so far. */
  done: number;
  /**
   * Versions written in the last push's shape at a time before its commit (v4's Insert into the
   * past): their time does not tell their level. The core writes the schema version beside each.
   */
  readonly current: { readonly id: bigint; readonly ts: bigint; readonly level: number }[];
}

/**
 * The internal collection id of the progress records (one per migrating collection, its id the
 * collection's): above every user collection's, so that nothing takes it for a collection.
 */
const PROGRESS_COLL = 0xffff_fff0;

const progressKey = (db: bigint, coll: number): DocKey => ({ db, coll: PROGRESS_COLL, id: BigInt(coll) });

/** The rewrite's progress as of the snapshot. */
export async function readProgress(txn: Txn, db: bigint, coll: number): Promise<MigrationProgress> {
  const v = await txn.getVersion(progressKey(db, coll));
  const o = v?.data;
  if (!o) return { floors: [], done: 0, current: [] };
  return {
    floors: ((o.get('floors') as Obj[]) ?? []).map((f) => ({ upTo: f.get('upTo') as bigint, level: Number(f.get('level')) })),
    done: Number(o.get('done')),
    current: ((o.get('current') as Obj[]) ?? []).map((c) => ({ id: c.get('id') as bigint, ts: c.get('ts') as bigint, level: Number(c.get('level')) })),
  };
}

/** Stores the rewrite's progress (null: the migration is done). */
export function writeProgress(txn: Txn, db: bigint, coll: number, p: MigrationProgress | null): void {
  const fields: Obj | null =
    p &&
    new Map<string, Value>([
      ['floors', p.floors.map((f) => new Map<string, Value>([['upTo', f.upTo], ['level', BigInt(f.level)]]))],
      ['done', BigInt(p.done)],
      ...(p.current.length ? [['current', p.current.map((c) => new Map<string, Value>([['id', c.id], ['ts', c.ts], ['level', BigInt(c.level)]]))] as [string, Value]] : []),
    ]);
  txn.putVersion(progressKey(db, coll), fields === null ? 'delete' : 'update', fields);
}

function key(prefix: string, db: bigint, coll?: number): Uint8Array {
  const b = Buffer.alloc(prefix.length + 8 + (coll === undefined ? 0 : 4));
  b.write(prefix, 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, db), prefix.length);
  if (coll !== undefined) b.writeUInt32BE(coll, prefix.length + 8);
  return b;
}

const stateKey = (db: bigint, coll: number) => key('migr:', db, coll);
const listKey = (db: bigint) => key('migrs:', db);
/** Every database with a collection migrating, so that a start resumes them. */
const DATABASES_KEY = Buffer.from('migrations', 'latin1');

export async function readMigration(txn: Txn, db: bigint, coll: number): Promise<MigrationState | undefined> {
  const raw = await txn.getMeta(stateKey(db, coll));
  if (raw === undefined) return undefined;
  const o = decodeValue(raw) as Obj;
  const list = (v: Value | undefined) => (v as Obj[]) ?? [];
  return { pushes: list(o.get('pushes')).map((p) => ({ after: p.get('after') as bigint, steps: list(p.get('steps')).map((s) => Object.fromEntries(s) as unknown as Migration) })) };
}

/** Stores `state` (null: the migration is done). */
function writeMigration(txn: Txn, db: bigint, coll: number, state: MigrationState | null): void {
  if (state === null) return txn.putMeta(stateKey(db, coll), null);
  const o: Obj = new Map<string, Value>([
    ['pushes', state.pushes.map((p) => new Map<string, Value>([['after', p.after], ['steps', p.steps.map((s) => new Map(Object.entries(s) as [string, Value][]))]]))],
  ]);
  txn.putMeta(stateKey(db, coll), encodeValue(o));
}

async function ids(txn: Txn, k: Uint8Array): Promise<bigint[]> {
  const raw = await txn.getMeta(k);
  return raw === undefined ? [] : (decodeValue(raw) as bigint[]);
}

function putIds(txn: Txn, k: Uint8Array, list: bigint[]): void {
  txn.putMeta(k, list.length === 0 ? null : encodeValue(list));
}

/** The collections of `db` migrating in the background (read with its schema: the catalog keeps it). */
export async function migratingCollections(txn: Txn, db: bigint): Promise<Set<number>> {
  return new Set((await ids(txn, listKey(db))).map(Number));
}

/** Every migrating collection, to resume. */
export async function allMigrations(txn: Txn): Promise<{ db: bigint; coll: number }[]> {
  const out: { db: bigint; coll: number }[] = [];
  for (const db of await ids(txn, DATABASES_KEY)) for (const coll of await migratingCollections(txn, db)) out.push({ db, coll });
  return out;
}

/** Starts (or extends) the background migration of `coll` with a push's steps; `after`: the push's snapshot. */
export async function addMigration(txn: Txn, db: bigint, coll: number, steps: ReadonlyArray<Migration>): Promise<void> {
  const state = (await readMigration(txn, db, coll)) ?? { pushes: [] };
  state.pushes.push({ after: txn.snapshotTs, steps });
  writeMigration(txn, db, coll, state);
  // What the rewrite has done keeps its level; it starts again from the first id to the new one.
  const progress = await readProgress(txn, db, coll);
  progress.floors.push({ upTo: 0n, level: state.pushes.length });
  writeProgress(txn, db, coll, progress);
  const colls = await ids(txn, listKey(db));
  if (!colls.includes(BigInt(coll))) putIds(txn, listKey(db), [...colls, BigInt(coll)]);
  const dbs = await ids(txn, DATABASES_KEY);
  if (!dbs.includes(db)) putIds(txn, DATABASES_KEY, [...dbs, db]);
}

/**
 * Forgets the migration of `coll` (done, or its collection gone). Its progress record goes with
 * every version (one per batch): once no migration is pending, nothing reads them, at any snapshot.
 */
export async function endMigration(txn: Txn, db: bigint, coll: number): Promise<void> {
  writeMigration(txn, db, coll, null);
  const key = progressKey(db, coll);
  const stored: bigint[] = [];
  for await (const v of txn.history(key)) if (typeof v.ts === 'bigint') stored.push(v.ts);
  for (const ts of stored) await txn.removeVersionAt(key, ts);
  // One this transaction wrote cannot be removed, only ended.
  if ((await txn.getVersion(key))?.data) writeProgress(txn, db, coll, null);
  const colls = (await ids(txn, listKey(db))).filter((c) => c !== BigInt(coll));
  putIds(txn, listKey(db), colls);
  if (colls.length === 0) putIds(txn, DATABASES_KEY, (await ids(txn, DATABASES_KEY)).filter((d) => d !== db));
}

/**
 * The commit time of each push (its collection document's first version after its snapshot);
 * a push by this transaction has none yet, so no stored version is in its shape.
 */
export async function pushCommits(txn: Txn, db: bigint, coll: number, state: MigrationState): Promise<bigint[]> {
  const out: bigint[] = [];
  for (const p of state.pushes) {
    let ts: bigint | TxnTime | undefined;
    for await (const v of txn.history({ db, coll: NATIVE_IDS.collections, id: BigInt(coll) }, { fromTs: p.after + 1n })) {
      ts = v.ts;
      break;
    }
    out.push(typeof ts === 'bigint' ? ts : MAX_TS);
  }
  return out;
}

const MAX_TS = 2n ** 63n - 1n;

/**
 * Notes that version `ts` of document `id`, written now, is in the shape of the last push though
 * its time is before that push's commit (v4's Insert into the past), so that neither readers nor
 * the rewrite migrate it again. Nothing to do when `coll` is not migrating in the background.
 */
export async function noteWrittenCurrent(txn: Txn, db: bigint, coll: number, id: bigint, ts: bigint): Promise<boolean> {
  const state = await readMigration(txn, db, coll);
  if (state === undefined) return false;
  const progress = await readProgress(txn, db, coll);
  const i = progress.current.findIndex((c) => c.id === id && c.ts === ts);
  if (i >= 0) progress.current.splice(i, 1);
  progress.current.push({ id, ts, level: state.pushes.length });
  writeProgress(txn, db, coll, progress);
  return true;
}

/** How many pushes the data of version `ts` of document `id` went through. */
export function levelOf(progress: MigrationProgress, commits: ReadonlyArray<bigint>, id: bigint, ts: bigint): number {
  let level = 0;
  for (let k = 0; k < commits.length; k++) if (commits[k] <= ts) level = k + 1;
  for (const c of progress.current) if (c.id === id && c.ts === ts && c.level > level) level = c.level;
  for (const f of progress.floors) if (id < f.upTo && f.level > level) level = f.level;
  return level;
}

/** The steps that take data at `level` to the shape of the last push. */
export function stepsFrom(state: MigrationState, level: number): Migration[] {
  return state.pushes.slice(level).flatMap((p) => p.steps);
}
