// The transactional, versioned store that the evaluator and the model use.
// Implemented in store.ts on top of any Engine (engine.ts).

import type { Obj, TxnTime } from '../values/types';
import type { RefNamer } from './valueCodec';
import type { EngineSnapshot } from './engine';
import type { Timings } from './timings';

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
  /** The fields as stored, when a view (VersionView) showed `data` changed: what index entries were derived from. */
  stored?: Obj | null;
}

/**
 * How a transaction's reader sees stored versions (model/schema10/migrationView.ts: a schema
 * migration still being applied in the background shows documents in their migrated shape).
 */
export interface VersionView {
  /** `v`, a stored version of `key`, as readers see it: `v` itself when nothing applies. */
  view(key: DocKey, v: Version): Version | Promise<Version>;
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
  /** Also yield documents whose latest version at `at` is a delete (for set events). */
  withDeleted?: boolean;
  /** Leave stored refs anonymous (Ref.anonymous) rather than naming them through `Txn.names`. */
  anonymousRefs?: boolean;
}

export interface HistoryOptions {
  /** Inclusive lower bound on ts. */
  fromTs?: bigint;
  /** Inclusive upper bound on ts; defaults to the snapshot. */
  toTs?: bigint;
  reverse?: boolean;
}

export type IndexAction = 'add' | 'remove';

/**
 * One index entry change. `key` orders the entry inside its index (built by model/indexKeys.ts:
 * terms, values with their reverse flags, then the ref); `payload` is what a read returns
 * (the encoded terms, values and ref), so keys never need decoding.
 */
export interface IndexEntryWrite {
  key: Uint8Array;
  action: IndexAction;
  payload: Uint8Array;
}

export interface IndexEntry {
  key: Uint8Array;
  payload: Uint8Array;
  /** Time of the add that made the entry present (TxnTime for one added by this transaction). */
  ts: bigint | TxnTime;
}

export interface IndexEvent extends IndexEntry {
  action: IndexAction;
}

export interface IndexScanOptions {
  /** Inclusive lower bound on the entry key (a key prefix works as a bound). */
  from?: Uint8Array;
  /** Exclusive upper bound on the entry key. */
  to?: Uint8Array;
  reverse?: boolean;
  /** Read as of this time (µs); defaults to the snapshot (including this transaction's writes). */
  at?: bigint;
}

export interface TxnMetrics {
  bytesRead: number;
  bytesWritten: number;
  reads: number;
  writes: number;
  /** Told of every read's size as it happens (the query's memory budget); may throw to stop the read. */
  reader: ReadObserver | undefined;
}

/** What TxnMetrics.reader is told: an object with a method (no closure per transaction on the read path). */
export interface ReadObserver {
  read(bytes: number): void;
}

/**
 * Names the refs a transaction reads (model/refNames.ts). `name` may throw when it lacks names;
 * the store then awaits `load(error)` and decodes again (`load` rethrows any other error).
 */
export interface TxnNames extends RefNamer {
  load(error: unknown): Promise<void>;
}

export interface Txn {
  /** Names stored refs on reads; without it they come back anonymous (Ref.anonymous). */
  names: TxnNames | undefined;
  /** Applied to every stored version read (not this transaction's own writes); none: versions as stored. */
  versionView: VersionView | undefined;
  /** Snapshot (read) time in µs: what Now() returns and what reads see. */
  readonly snapshotTs: bigint;
  readonly metrics: TxnMetrics;
  /** True once the transaction has buffered at least one write. */
  readonly hasWrites: boolean;
  /**
   * Marks a transaction that set out to write (Create, Update, Delete…): if it ends with nothing to
   * write, the store still validates its reads as it would a commit's, since "found nothing to
   * change" is an answer that must hold at a serialization point.
   */
  intendsWrite(): void;

  /**
   * The newest version with ts ≤ `at` (default: snapshot, including this txn's own writes). `forWrite`: the transaction writes the
   * document, so a deletion after its snapshot need not be looked for (its commit would fail).
   */
  getVersion(key: DocKey, at?: bigint, opts?: { forWrite?: boolean }): Promise<Version | null>;
  /** Every version of one document in ts order (for history/events). */
  history(key: DocKey, opts?: HistoryOptions): AsyncIterable<Version>;
  /** Documents of one collection that are live (latest version not a delete) at `opts.at`, by id; `withDeleted` adds the deleted ones. */
  scan(db: bigint, coll: number, opts?: ScanOptions): AsyncIterable<LiveDoc>;
  /** Buffers a new version; ts becomes the commit time. Several writes to one doc collapse. */
  putVersion(key: DocKey, action: VersionAction, data: Obj | null): void;
  /**
   * Buffers a version at an explicit past time `ts` ≤ the snapshot (Insert), replacing any version
   * at that ts. Records a read of the document for conflicts; the document's latest record is
   * recomputed at commit. getVersion/history in this transaction see the change.
   */
  putVersionAt(key: DocKey, ts: bigint, action: VersionAction, data: Obj | null): Promise<void>;
  /** Buffers the removal of the version at exactly `ts` ≤ the snapshot (Remove); like putVersionAt. */
  removeVersionAt(key: DocKey, ts: bigint): Promise<void>;

  /**
   * Buffers an index entry change at the commit time: the entry's current state and an event in
   * its history. Several changes of one key in a transaction collapse to the last.
   */
  putIndexEntry(db: bigint, index: number, entry: IndexEntryWrite): void;
  /**
   * Buffers a history event at an explicit past time (≤ the snapshot) without touching the
   * entry's current state: index builds replay the history of the documents they index.
   */
  putIndexHistory(db: bigint, index: number, entry: IndexEntryWrite, ts: bigint): void;
  /**
   * Sets an entry's current state as of an explicit past valid time `ts` (≤ the snapshot) without a
   * history event (history rewrites by Insert/Remove write their events with putIndexHistory).
   * Conflict-tracked like putIndexEntry. A `remove` at ts 0 leaves an entry that never existed.
   */
  putIndexCurrent(db: bigint, index: number, entry: IndexEntryWrite, ts: bigint): void;
  /** Buffers the removal of the history event of entry `key` at exactly `ts` (history rewrites). */
  removeIndexHistory(db: bigint, index: number, key: Uint8Array, ts: bigint): void;
  /**
   * Entries present at `opts.at` whose key lies in [from, to), in key order. Lazy: stopping early
   * reads (and records for conflicts) only the part handed out. At the snapshot the scanned range
   * is recorded, so a concurrent commit that adds or removes an entry in it conflicts.
   */
  scanIndex(db: bigint, index: number, opts?: IndexScanOptions): Iterable<IndexEntry> | AsyncIterable<IndexEntry>;
  /** Every add/remove event of the entries in [from, to), ordered by key then ts (issue: history). */
  indexHistory(db: bigint, index: number, opts?: IndexScanOptions & { fromTs?: bigint }): AsyncIterable<IndexEvent>;

  /** Unversioned metadata (counters, secondary lookups). Reads are tracked for conflicts. */
  getMeta(key: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * `equivalent`: the new value means what the old one did (a cached check added to a record), so
   * the write does not invalidate transactions that read the key (they need not run again).
   */
  putMeta(key: Uint8Array, value: Uint8Array | null, opts?: { equivalent?: boolean }): void;
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
  /** The snapshot holds every commit acknowledged before the call even under a `maxStalenessMs`
   *  (FQL v10's x-linearized: a read-only query strictly serializable). */
  linearized?: boolean;
}

export interface RunResult<T> {
  result: T;
  /** Commit time for a transaction that wrote, else the snapshot time. */
  ts: bigint;
  retries: number;
  metrics: TxnMetrics;
}

// ---- commit feed (streams) ------------------------------------------------------------------

/** A document version a commit wrote, as the commit feed reports it. */
export interface CommittedVersion {
  key: DocKey;
  /** The version's time: the commit ts, or the explicit past time of an Insert/Remove. */
  ts: bigint;
  /** Null when a past version was removed (Remove). */
  action: VersionAction | null;
  /** The stored fields (as the transaction wrote them); null for a delete or a removal. */
  data: Obj | null;
  /** True for Insert/Remove of a past version (a history rewrite), false for a new version. */
  rewrite: boolean;
  /**
   * True for a commit another process made (read from the commit log): refs in `data` carry their
   * address only and must be named (model/refNames.ts `named`) before they are shown.
   */
  anonymous?: boolean;
}

/** An index entry change a commit wrote with putIndexEntry (index history replays are not reported). */
export interface CommittedIndexEntry {
  db: bigint;
  index: number;
  key: Uint8Array;
  action: IndexAction;
  payload: Uint8Array;
}

/** What one durable commit changed. Values are shared with the store: listeners must not mutate them. */
export interface CommitEvent {
  ts: bigint;
  versions: CommittedVersion[];
  indexes: CommittedIndexEntry[];
}

/** Called synchronously once a commit is durable, in commit-ts order. Must not throw (errors are logged). */
export type CommitListener = (commit: CommitEvent) => void;

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
   * A consistent snapshot of the whole engine map, taken now (every commit that completed before
   * the call is in it) and held without blocking writers: the source of a backup.
   */
  openSnapshot(): Promise<EngineSnapshot>;
  /** True when other processes commit to the same store (the shared mode of store.ts). */
  readonly shared: boolean;
  /** How long this process's durable commit writes took (for /metrics). */
  readonly commitTimes: Timings;
  /** Bytes the store takes (Engine.sizeBytes). */
  sizeBytes(): Promise<number>;
  /**
   * Background maintenance after a deleted database or collection: physically removes its keys in
   * batches, once no running transaction has a snapshot older than `deletedAt`. Nothing can
   * resolve into a deleted scope, so this never changes what a query sees.
   */
  purgeDatabase(db: bigint, deletedAt: bigint): Promise<void>;
  /**
   * A shutdown: purges waiting for other processes' snapshots (up to minutes on a tier) or still
   * deleting end now. What they had not removed stays, unreachable (nothing resolves into it).
   */
  stopPurges(): void;
  purgeCollection(db: bigint, coll: number, deletedAt: bigint): Promise<void>;
  purgeIndex(db: bigint, index: number, deletedAt: bigint): Promise<void>;
  /**
   * History retention (one forced pass): removes the versions of collection `coll` that no read at
   * or after `mvt` can see — every version older than a document's newest version with ts ≤ mvt.
   * Removals go through transactions of at most `batchSize` versions (conflict-checked like
   * Remove). Returns the number of versions removed. Index history: collectIndexHistory.
   */
  collectHistory(db: bigint, coll: number, mvt: bigint, batchSize?: number): Promise<number>;
  /**
   * Index history retention (one pass over index `index`): removes the add/remove events that no
   * read at or after `mvt` needs — per entry, every event ≤ mvt but the newest, and that one too
   * when it is a remove. Returns the number of events removed.
   */
  collectIndexHistory(db: bigint, index: number, mvt: bigint, batchSize?: number): Promise<number>;
  /**
   * Commit feed: `listener` sees every commit that becomes durable from now on, in ts order.
   * Commits validated before the call may be missed; a snapshot taken afterwards with
   * minSnapshotTs ≥ now() includes all of them. History collection (retention) is not reported.
   * Costs nothing while no listener is registered. Returns the unsubscribe function.
   */
  onCommit(listener: CommitListener): () => void;
  /**
   * `listener` hears, for every commit of any process that wrote documents of native collections
   * (schema, keys, tokens, credentials), those documents and the commit's ts — before any snapshot
   * at or after that ts is handed out — so caches of them are dropped in commit order. `all` (no
   * documents) means this process lost track of other processes' commits: drop every cache.
   */
  onNativeWrites(listener: (ts: bigint, docs: DocKey[] | 'all') => void): void;
  close(): Promise<void>;
}

export class ConflictError extends Error {
  constructor() {
    super('Transaction was aborted due to detection of concurrent modification.');
  }
}
