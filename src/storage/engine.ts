// The storage engine interface: an ordered, durable byte-key/byte-value map.
// Everything above this interface (MVCC, versions, transactions) is engine independent, so the
// embedded LMDB engine and a later PostgreSQL engine share all of it. Keys compare bytewise
// (memcmp in LMDB, bytea ordering in PostgreSQL).

export interface RangeOptions {
  /** Inclusive lower bound. */
  start: Uint8Array;
  /** Exclusive upper bound. */
  end: Uint8Array;
  /** Iterate from `end` (exclusive) down to `start` (inclusive). */
  reverse?: boolean;
  limit?: number;
}

export interface KV {
  key: Uint8Array;
  value: Uint8Array;
}

export interface WriteOp {
  key: Uint8Array;
  /** `null` deletes the key. */
  value: Uint8Array | null;
}

/** The engine cannot reach its storage (a database server is down); the message says why. */
export class StorageUnavailable extends Error {}

/**
 * The engine's critical section lost a race it can only settle by running again (a serialization
 * failure of the database under it): nothing was written; the store retries the transactions.
 */
export class EngineConflict extends Error {
  constructor() {
    super('the commit section must be run again');
  }
}

/** Another Flora process already serves this store, and the store cannot be shared with it. */
export class StoreInUse extends Error {}

/** Keys and ranges read together, from one consistent state of the store. */
export interface HeadQuery {
  keys: Uint8Array[];
  ranges: RangeOptions[];
}

export interface Head {
  /** Per key of the query, its value (undefined = absent). */
  values: (Uint8Array | undefined)[];
  /** Per range of the query, its entries. */
  ranges: KV[][];
}

/**
 * One consistent state of the whole map, held open for as long as a reader needs it (a backup),
 * without blocking writers: they go on committing, and none of their commits is seen here.
 */
export interface EngineSnapshot {
  /** A key's value in this state (undefined = absent). */
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * Every entry of the map in key order, in chunks of bounded size (so memory stays bounded however
   * large the store is). Iterate once.
   */
  scan(): AsyncIterable<KV[]>;
  /** Lets the state go (LMDB may reuse its pages again; PostgreSQL ends the transaction). */
  close(): Promise<void>;
}

export interface Engine {
  /** Longest key the engine can store, so commits can be refused before they are accepted. */
  readonly maxKeySize: number;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** The same read synchronously, for an engine that reads without waiting (LMDB). Optional. */
  getSync?(key: Uint8Array): Uint8Array | undefined;
  range(opts: RangeOptions): AsyncIterable<KV>;
  /**
   * The same range read synchronously, for an engine that reads without waiting (LMDB): an index
   * page then costs no promise per entry in the layers below the evaluator. Optional.
   */
  rangeSync?(opts: RangeOptions): Iterable<KV>;
  /**
   * Applies all ops atomically; resolves only once they are durable. Writes issued one after another
   * (without awaiting) are applied in that order.
   */
  write(ops: WriteOp[]): Promise<void>;
  close(): Promise<void>;
  /**
   * True when other processes may write to this store at the same time (PostgreSQL, LMDB with
   * workers): the store then sequences commits through `exclusive` (store.ts, shared mode).
   */
  readonly shared: boolean;
  /**
   * Reads `query` from one consistent, current state, no older than any commit that completed
   * before the call. Every later read of this engine sees at least that state.
   */
  readHead(query: HeadQuery): Promise<Head>;
  /**
   * The same read synchronously, for an engine whose head is in this machine's shared memory (LMDB):
   * a transaction then learns the head for the cost of one read, without waiting. Optional.
   */
  readHeadSync?(query: HeadQuery): Head;
  /**
   * The cross-process critical section: takes the store's commit lock (one holder among every
   * process), reads `query` under it, calls `build` once with what it read, writes the ops it returns
   * atomically, and resolves once they are durable (and visible to every process). `build` must be
   * synchronous; when it throws, nothing is written and the call rejects with its error. Every read
   * of this engine that starts after `build` was called sees at least the state it was given.
   */
  exclusive(query: HeadQuery, build: (head: Head) => WriteOp[]): Promise<void>;
  /**
   * Runs `fn` (opening work: the format upgrade) while no other process starting on this store runs
   * its own, so processes started together upgrade a store once.
   */
  startup<T>(fn: () => Promise<T>): Promise<T>;
  /** Opens a consistent snapshot of the whole map (a backup's source); close it when done. */
  snapshot(): Promise<EngineSnapshot>;
  /** Frees what processes that died left registered in the store (LMDB's reader slots). */
  checkReaders(): void;
  /** Bytes the store takes (LMDB: its data file; PostgreSQL: the database), for /metrics. */
  sizeBytes(): Promise<number>;
}
