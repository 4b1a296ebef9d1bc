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

/** Another Flora process already serves this store (one process per store, for now). */
export class StoreInUse extends Error {}

export interface Engine {
  /** Longest key the engine can store, so commits can be refused before they are accepted. */
  readonly maxKeySize: number;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  range(opts: RangeOptions): AsyncIterable<KV>;
  /**
   * Applies all ops atomically; resolves only once they are durable. Writes issued one after another
   * (without awaiting) are applied in that order.
   */
  write(ops: WriteOp[]): Promise<void>;
  close(): Promise<void>;
}
