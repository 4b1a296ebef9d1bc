// The transactional, versioned store that the evaluator and the model use.
// Implemented in store.ts on top of any Engine (engine.ts).

import type { Obj, TxnTime } from '../values/types';

/** Internal address of a document: database scope id, collection internal id, document id. */
export interface DocKey {
  db: bigint;
  coll: number;
  id: bigint;
}

export type VersionAction = 'create' | 'update' | 'delete';

export interface Version {
  /** Commit time in µs; TxnTime for a version written by the running transaction. */
  ts: bigint | TxnTime;
  action: VersionAction;
  /** The stored fields object (e.g. {data: …, ttl: …}); null for a delete. */
  data: Obj | null;
}

export interface LiveDoc {
  id: bigint;
  version: Version;
}

export interface ScanOptions {
  /** Inclusive lower bound on the document id. */
  fromId?: bigint;
  /** Exclusive upper bound on the document id. */
  toId?: bigint;
  reverse?: boolean;
  /** Read as of this time (µs); defaults to the snapshot. */
  at?: bigint;
}

export interface HistoryOptions {
  /** Inclusive lower bound on ts. */
  fromTs?: bigint;
  /** Inclusive upper bound on ts; defaults to the snapshot. */
  toTs?: bigint;
  reverse?: boolean;
}

export interface TxnMetrics {
  bytesRead: number;
  bytesWritten: number;
  reads: number;
  writes: number;
}

export interface Txn {
  /** Snapshot (read) time in µs: what Now() returns and what reads see. */
  readonly snapshotTs: bigint;
  readonly metrics: TxnMetrics;
  /** True once the transaction has buffered at least one write. */
  readonly hasWrites: boolean;

  /** The newest version with ts ≤ `at` (default: snapshot, including this txn's own writes). */
  getVersion(key: DocKey, at?: bigint): Promise<Version | null>;
  /** Every version of one document in ts order (for history/events). */
  history(key: DocKey, opts?: HistoryOptions): AsyncIterable<Version>;
  /** Documents of one collection that are live (latest version not a delete) at `opts.at`, by id. */
  scan(db: bigint, coll: number, opts?: ScanOptions): AsyncIterable<LiveDoc>;
  /** Buffers a new version; ts becomes the commit time. Several writes to one doc collapse. */
  putVersion(key: DocKey, action: VersionAction, data: Obj | null): void;

  /** Unversioned metadata (counters, secondary lookups). Reads are tracked for conflicts. */
  getMeta(key: Uint8Array): Promise<Uint8Array | undefined>;
  putMeta(key: Uint8Array, value: Uint8Array | null): void;
  /** Records a read of an abstract conflict key (e.g. "schema of db 7") without storage I/O. */
  readConflictKey(key: string): void;
  /** Records a write of an abstract conflict key. */
  writeConflictKey(key: string): void;
}

export interface RunOptions {
  /** Maximum re-runs on conflict before giving up with 409 contended transaction. */
  maxRetries?: number;
  /** Minimum snapshot time (X-Last-Seen-Txn). */
  minSnapshotTs?: bigint;
}

export interface RunResult<T> {
  result: T;
  /** Commit time for a transaction that wrote, else the snapshot time. */
  ts: bigint;
  retries: number;
  metrics: TxnMetrics;
}

export interface Store {
  /**
   * Runs `fn` in a transaction: snapshot reads, buffered writes, optimistic validation at commit,
   * re-run on conflict. Resolves only when the commit is durable. `fn` may run more than once.
   * Errors thrown by `fn` abort the transaction (nothing is written) and propagate.
   */
  run<T>(fn: (txn: Txn) => Promise<T>, opts?: RunOptions): Promise<RunResult<T>>;
  /** The server clock in µs as the store sees it (never behind the last commit). */
  now(): bigint;
  /**
   * Background maintenance after a deleted database or collection: physically removes its keys in
   * batches, once no running transaction has a snapshot older than `deletedAt`. Nothing can
   * resolve into a deleted scope, so this never changes what a query sees.
   */
  purgeDatabase(db: bigint, deletedAt: bigint): Promise<void>;
  purgeCollection(db: bigint, coll: number, deletedAt: bigint): Promise<void>;
  close(): Promise<void>;
}

export class ConflictError extends Error {
  constructor() {
    super('Transaction was aborted due to detection of concurrent modification.');
  }
}
