// The embedded engine: lmdb-js with raw binary keys and values (memcmp key order).

import { mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lockDirectory } from './dirLock';
import { open, type RootDatabase } from 'lmdb';
import type { Engine, EngineSnapshot, Head, HeadQuery, KV, RangeOptions, WriteOp } from './engine';

/** LMDB's compiled-in key size limit as lmdb-js ships it. Longer keys are rejected up front. */
export const MAX_KEY_SIZE = 1978;
/** Entries a snapshot scan reads at once: one synchronous cursor pass per chunk. */
const SNAPSHOT_CHUNK = 1024;

function checkKey(key: Uint8Array): void {
  if (key.length > MAX_KEY_SIZE) {
    throw new Error(`storage key of ${key.length} bytes exceeds the maximum of ${MAX_KEY_SIZE} bytes`);
  }
  if (key.length === 0) throw new Error('empty storage key');
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

class LmdbEngine implements Engine {
  readonly maxKeySize = MAX_KEY_SIZE;
  private closed = false;

  constructor(
    private readonly db: RootDatabase<Buffer, Buffer>,
    /** Gives the data directory's lock back (dirLock.ts). */
    private readonly release: () => void,
    readonly shared: boolean,
    /** The environment's data file (its size is the store's). */
    private readonly dataFile: string,
  ) {}

  async sizeBytes(): Promise<number> {
    return (await stat(this.dataFile)).size;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  getSync(key: Uint8Array): Uint8Array | undefined {
    if (key.length > MAX_KEY_SIZE) return undefined; // cannot have been stored
    return this.db.get(asBuffer(key));
  }

  range(opts: RangeOptions): AsyncIterable<KV> {
    const iterate = opts.reverse ? this.reverseRange(opts) : this.forwardRange(opts);
    return {
      [Symbol.asyncIterator]() {
        const it = iterate[Symbol.iterator]();
        return {
          next: async () => it.next(),
          return: async () => it.return?.(undefined) ?? { done: true, value: undefined },
        };
      },
    };
  }

  rangeSync(opts: RangeOptions): Iterable<KV> {
    return opts.reverse ? this.reverseRange(opts) : this.forwardRange(opts);
  }

  private *forwardRange(opts: RangeOptions): Generator<KV> {
    if (Buffer.compare(asBuffer(opts.start), asBuffer(opts.end)) >= 0) return;
    yield* this.db.getRange({ start: asBuffer(opts.start), end: asBuffer(opts.end), limit: opts.limit }) as Iterable<KV>;
  }

  // lmdb-js reverse ranges include `start` (the high key) and exclude `end` (the low key); ours are
  // [start, end) in both directions, so start from `end`, skip it, and stop below `start` ourselves.
  private *reverseRange(opts: RangeOptions): Generator<KV> {
    const low = asBuffer(opts.start);
    const high = asBuffer(opts.end);
    if (Buffer.compare(low, high) >= 0) return;
    let left = opts.limit ?? Infinity;
    if (left <= 0) return;
    for (const kv of this.db.getRange({ start: high, reverse: true }) as Iterable<KV>) {
      const key = kv.key as Buffer;
      if (Buffer.compare(key, high) >= 0) continue;
      if (Buffer.compare(key, low) < 0) return;
      yield kv;
      if (--left <= 0) return;
    }
  }

  /** Synchronous reads of `query` through whichever transaction lmdb-js reads with now. */
  private read(query: HeadQuery): Head {
    return {
      values: query.keys.map((k) => (k.length > MAX_KEY_SIZE ? undefined : this.db.get(asBuffer(k)))),
      ranges: query.ranges.map((r) => [...(r.reverse ? this.reverseRange(r) : this.forwardRange(r))]),
    };
  }

  async readHead(query: HeadQuery): Promise<Head> {
    return this.readHeadSync(query);
  }

  readHeadSync(query: HeadQuery): Head {
    // lmdb-js keeps one read transaction per event turn; a fresh one sees every process's commits,
    // and later reads renew from here on, never from an older state.
    this.db.resetReadTxn();
    return this.read(query);
  }

  async exclusive(query: HeadQuery, build: (head: Head) => WriteOp[]): Promise<void> {
    if (this.closed) throw new Error('engine is closed');
    let failure: { error: unknown } | undefined;
    const db = this.db;
    // The callback runs in lmdb-js's write transaction, which holds LMDB's writer lock (shared by
    // every process on the environment): reads inside it see the latest commit of any process.
    await db.transaction(() => {
      let ops: WriteOp[];
      try {
        const head = this.read(query);
        // The store moves its snapshots up to what it read here before this write commits. A read
        // transaction lmdb-js renewed earlier in this event turn (it keeps one until a timer resets
        // it) may predate other processes' commits read here: reads from then on start a new one.
        db.resetReadTxn();
        ops = build(head);
        for (const op of ops) checkKey(op.key);
      } catch (error) {
        failure = { error };
        return;
      }
      for (const op of ops) {
        if (op.value === null) db.remove(op.key as Buffer);
        else db.put(op.key as Buffer, op.value as Buffer); // lmdb-js takes any Uint8Array: no Buffer view per key
      }
    });
    if (failure) throw failure.error;
    await db.flushed;
  }

  async snapshot(): Promise<EngineSnapshot> {
    if (this.closed) throw new Error('engine is closed');
    const db = this.db;
    // A fresh read transaction, marked in use: lmdb-js moves this process's other reads to a newer
    // one at its next reset, and writers go on (LMDB only keeps this state's pages from reuse).
    db.resetReadTxn();
    const txn = db.useReadTransaction();
    let open = true;
    const scan = async function* (): AsyncGenerator<KV[]> {
      let after: Buffer | undefined;
      for (;;) {
        if (!open) throw new Error('snapshot is closed');
        // Each chunk is read in one synchronous pass: no cursor stays open across event turns.
        const chunk = [
          ...(db.getRange({ transaction: txn, limit: SNAPSHOT_CHUNK, ...(after ? { start: after, exclusiveStart: true } : {}) }) as Iterable<KV>),
        ];
        if (chunk.length === 0) return;
        after = chunk[chunk.length - 1].key as Buffer;
        yield chunk;
        if (chunk.length < SNAPSHOT_CHUNK) return;
      }
    };
    return {
      get: async (key) => (key.length > MAX_KEY_SIZE || !open ? undefined : db.get(asBuffer(key), { transaction: txn })),
      scan,
      close: async () => {
        if (!open) return;
        open = false;
        txn.done();
      },
    };
  }

  /** One opener at a time already: the directory's lock, or the supervisor of its workers (tier/). */
  startup<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  checkReaders(): void {
    if (!this.closed) this.db.readerCheck();
  }

  async write(ops: WriteOp[]): Promise<void> {
    if (this.closed) throw new Error('engine is closed');
    for (const op of ops) checkKey(op.key);
    if (ops.length === 0) return;
    const db = this.db;
    await db.batch(() => {
      for (const op of ops) {
        if (op.value === null) db.remove(op.key as Buffer);
        else db.put(op.key as Buffer, op.value as Buffer); // lmdb-js takes any Uint8Array: no Buffer view per key
      }
    });
    // With overlappingSync (the default off Windows) the batch resolves at commit; durability
    // comes with the flush.
    await db.flushed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.flushed;
    await this.db.close();
    this.release();
  }
}

export interface LmdbOptions {
  /**
   * One of several processes of one `--workers` tier on this directory (the tier's supervisor holds
   * its lock): commits go through the shared protocol, and a commit is visible only once durable
   * (no overlapping sync), since another process may read it at once.
   */
  shared?: boolean;
}

export async function openLmdbEngine(dir: string, opts: LmdbOptions = {}): Promise<Engine> {
  mkdirSync(dir, { recursive: true });
  const shared = opts.shared === true;
  const release = shared ? () => undefined : (await lockDirectory(dir)).release;
  try {
    // lmdb-js takes a path with an extension for a file name, so a data folder like `/tmp/tmp.AbC`
    // would break: the environment lives in a fixed, extension-free subfolder instead.
    const db = open<Buffer, Buffer>({
      path: join(dir, 'lmdb'),
      keyEncoding: 'binary',
      encoding: 'binary',
      ...(shared ? { overlappingSync: false } : {}),
    });
    return new LmdbEngine(db, release, shared, join(dir, 'lmdb', 'data.mdb'));
  } catch (e) {
    release();
    throw e;
  }
}
