// The index part of a transaction (layout in keys.ts): it
//  - buffers putIndexEntry changes (written at commit as the entry's I record plus an H event at
//    the commit ts) and putIndexHistory events (H only, at explicit past times);
//  - reads the entries present at a time (scan) and their add/remove events (history), merging
//    the transaction's own putIndexEntry changes into reads at the snapshot;
//  - records the entry-key ranges read at the snapshot and tests them against the entry keys that
//    later commits wrote (so a unique check or a scan conflicts with a concurrent add/remove);
//  - turns the buffered changes into engine writes at commit.
//
// A scan walks the I records of the range (one per entry, whatever its history): an I record with
// ts ≤ the read time answers directly; a newer one sends the read to the entry's newest H event at
// or before the read time.

import { TxnTime } from '../values/types';
import type { Engine, KV, WriteOp } from './engine';
import {
  decodeU64Value,
  encodeU64Value,
  historyKeyEntry,
  historyKeyTs,
  INDEX_PREFIX_LEN,
  indexHistoryKey,
  indexKey,
  indexKeyEntry,
  indexRemovalKey,
  KeyTag,
  removalKeyEntry,
} from './keys';
import { jointRanges } from './jointRanges';
import { keySuccessor, prefixEnd } from './tuple';
import type { CommittedIndexEntry, IndexAction, IndexEntry, IndexEntryWrite, IndexEvent, IndexScanOptions, TxnMetrics } from './types';

const U64_LIMIT = 1n << 64n;
/** storedEntry: the entry changed after the read time, so its history says what it was then. */
const CHANGED_SINCE = Symbol('changed since');
const EMPTY = new Uint8Array(0);
const ACTIONS: IndexAction[] = ['add', 'remove'];
const ACTION_BYTE: Record<IndexAction, number> = { add: 0, remove: 1 };

/**
 * The entry keys a commit wrote with putIndexEntry, per index (`indexId`), sorted: tested against
 * the ranges that transactions validating after it scanned.
 */
export type IndexWriteSet = Map<string, Uint8Array[]>;

const indexId = (db: bigint, index: number) => `${db}.${index}`;

/** The write set of committed entries: what `build` returned for the commit that wrote them. */
export function writeSetOf(entries: readonly Pick<CommittedIndexEntry, 'db' | 'index' | 'key'>[]): IndexWriteSet | undefined {
  let set: IndexWriteSet | undefined;
  for (const e of entries) {
    const id = indexId(e.db, e.index);
    const list = (set ??= new Map()).get(id);
    if (list) list.push(e.key);
    else set.set(id, [e.key]);
  }
  for (const list of set?.values() ?? []) list.sort(compare);
  return set;
}
const compare = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b);
const reversed = (a: Uint8Array, b: Uint8Array) => Buffer.compare(b, a);
const binary = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');

/** A copy as a plain Uint8Array (Buffer.slice would share memory, e.g. with engine buffers). */
/**
 * A copy of bytes the engine may reuse. Allocated from Node's pooled slab: small copies share one
 * ArrayBuffer instead of each getting a backing store of its own, which V8 must allocate, track and
 * sweep (two per index entry read made that the largest cost of a page).
 */
const copy = (b: Uint8Array): Uint8Array => {
  const out = Buffer.allocUnsafe(b.length);
  out.set(b);
  return out;
};

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Event value (H) = action byte + payload; current-state value (I) = ts u64 + the event value. */
function encodeEvent(action: IndexAction, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + payload.length);
  out[0] = ACTION_BYTE[action];
  out.set(payload, 1);
  return out;
}

/** Whether a stored H value records a remove (the collector drops removes below the MVT). */
export function isRemoveEvent(value: Uint8Array): boolean {
  return decodeAction(value[0]) === 'remove';
}

function decodeAction(byte: number): IndexAction {
  const action = ACTIONS[byte];
  if (action === undefined) throw new Error(`corrupt index record (action ${byte})`);
  return action;
}

interface Buffered {
  key: Uint8Array;
  action: IndexAction;
  payload: Uint8Array;
  /** putIndexCurrent: the state's valid time (no H event is written); else the commit time. */
  validTs?: bigint;
  /** The action of this transaction's first change of the key (tells the state before it). */
  first: IndexAction;
}

/** A buffered H change at an explicit time: an event, or the removal of one (`drop`). */
interface BufferedEvent {
  key: Uint8Array;
  action: IndexAction | 'drop';
  payload: Uint8Array;
  ts: bigint;
}

interface BufferedIndex {
  db: bigint;
  index: number;
  /** putIndexEntry changes by entry key (last one wins). */
  entries: Map<string, Buffered>;
  /** putIndexHistory events and removeIndexHistory drops by entry key and ts (last one wins). */
  events: Map<string, BufferedEvent>;
}

/** An entry-key range [from, to) of one index read at the snapshot (to null: unbounded). */
interface IndexRead {
  id: string;
  from: Uint8Array;
  to: Uint8Array | null;
}

export class TxnIndexes {
  private readonly buffered = new Map<string, BufferedIndex>();
  private readonly reads: IndexRead[] = [];
  private writeCount = 0;

  constructor(
    private readonly engine: Engine,
    private readonly snapshotTs: bigint,
    private readonly metrics: TxnMetrics,
  ) {}

  get hasWrites(): boolean {
    return this.writeCount > 0;
  }

  private count(kv: KV): void {
    const bytes = kv.key.length + kv.value.length;
    this.metrics.reads++;
    this.metrics.bytesRead += bytes;
    this.metrics.reader?.read(bytes);
  }

  // ---- writes --------------------------------------------------------------------------

  private bufferFor(db: bigint, index: number, entry: IndexEntryWrite): BufferedIndex {
    if (entry.key.length === 0) throw new RangeError('empty index entry key');
    const size = INDEX_PREFIX_LEN + entry.key.length + 8;
    if (size > this.engine.maxKeySize)
      throw new Error(`storage key of ${size} bytes exceeds the engine's maximum of ${this.engine.maxKeySize}`);
    const id = indexId(db, index);
    let b = this.buffered.get(id);
    if (!b) {
      indexKey(KeyTag.IndexEntry, db, index); // validates the index id
      b = { db, index, entries: new Map(), events: new Map() };
      this.buffered.set(id, b);
    }
    return b;
  }

  /** putIndexEntry (at the commit time), or putIndexCurrent with an explicit valid time. */
  put(db: bigint, index: number, entry: IndexEntryWrite, validTs?: bigint): void {
    if (validTs !== undefined) this.checkPast(validTs);
    const b = this.bufferFor(db, index, entry);
    const id = binary(entry.key);
    const earlier = b.entries.get(id);
    // Index maintenance removes only entries that exist and adds only entries that do not: a
    // change that undoes this transaction's first change of a key (a document deleted and created
    // again, or created and deleted) leaves the entry as it was, with no event.
    if (validTs === undefined && earlier && earlier.validTs === undefined && earlier.first !== entry.action) {
      b.entries.delete(id);
      return;
    }
    const first = earlier?.first ?? entry.action;
    b.entries.set(id, { key: copy(entry.key), action: entry.action, payload: copy(entry.payload), validTs, first });
    this.writeCount++;
  }

  putHistory(db: bigint, index: number, entry: IndexEntryWrite, ts: bigint): void {
    this.checkPast(ts);
    const b = this.bufferFor(db, index, entry);
    b.events.set(`${binary(entry.key)}@${ts}`, { key: copy(entry.key), action: entry.action, payload: copy(entry.payload), ts });
    this.writeCount++;
  }

  dropHistory(db: bigint, index: number, key: Uint8Array, ts: bigint): void {
    this.checkPast(ts);
    const b = this.bufferFor(db, index, { key, action: 'remove', payload: EMPTY });
    b.events.set(`${binary(key)}@${ts}`, { key: copy(key), action: 'drop', payload: EMPTY, ts });
    this.writeCount++;
  }

  private checkPast(ts: bigint): void {
    if (ts < 0n || ts > this.snapshotTs) throw new RangeError(`index history time ${ts} is not in [0, snapshot ${this.snapshotTs}]`);
  }

  /** Every putIndexEntry change of this transaction (for the commit feed). */
  committedEntries(): CommittedIndexEntry[] {
    const out: CommittedIndexEntry[] = [];
    for (const b of this.buffered.values()) {
      for (const e of b.entries.values()) out.push({ db: b.db, index: b.index, key: e.key, action: e.action, payload: e.payload });
    }
    return out;
  }

  /** This transaction's putIndexEntry changes with keys in [from, to), in `order`. */
  private own(id: string, from: Uint8Array, to: Uint8Array | null, order: typeof compare): Buffered[] {
    const out: Buffered[] = [];
    for (const e of this.buffered.get(id)?.entries.values() ?? []) {
      if (compare(e.key, from) >= 0 && (to === null || compare(e.key, to) < 0)) out.push(e);
    }
    return out.sort((x, y) => order(x.key, y.key));
  }

  // ---- reads ---------------------------------------------------------------------------

  /**
   * What every index read starts with: its time, bounds and order; at the snapshot, the range
   * recorded for conflicts and this transaction's own changes in it. Undefined for an empty range.
   */
  private begin(db: bigint, index: number, opts: IndexScanOptions) {
    const atSnapshot = opts.at === undefined || opts.at >= this.snapshotTs;
    const at = atSnapshot ? this.snapshotTs : opts.at!;
    const from = opts.from ?? EMPTY;
    const to = opts.to ?? null;
    if (to !== null && compare(from, to) >= 0) return undefined;
    const reverse = opts.reverse === true;
    const order = reverse ? reversed : compare;
    const id = indexId(db, index);
    let read: IndexRead | undefined;
    let own: Buffered[] = [];
    if (atSnapshot) {
      read = { id, from, to };
      this.reads.push(read);
      own = this.own(id, from, to, order);
    }
    return { at, from, to, reverse, order, id, read, own };
  }

  /**
   * The index's entries in [from, to) at the read time, this transaction's own changes merged in. A
   * plain iterable when the engine reads synchronously (LMDB): a page then costs no promise per entry
   * below the evaluator. Consumers use `for await`, which takes either.
   */
  scan(db: bigint, index: number, opts: IndexScanOptions = {}): Iterable<IndexEntry> | AsyncIterable<IndexEntry> {
    const start = this.begin(db, index, opts);
    if (!start) return [];
    const { at, from, to, reverse, order, read, own } = start;
    const stored = this.storedEntries(db, index, from, to, at, reverse);
    const merge = new OwnMerge(own, order);
    return Symbol.asyncIterator in stored ? mergedAsync(stored, merge, read, reverse) : mergedSync(stored, merge, read, reverse);
  }

  /**
   * Entries with keys in [from, to) present at `at` in the stored data: a plain iterable when the
   * engine reads synchronously (the caller's `for await` then costs one step per entry, not three).
   * The present entries (I) are walked, and merged in order with the entries removed since `at` (X;
   * none, or the few of concurrent commits, for a read of the present), whose H says what they were.
   */
  private storedEntries(
    db: bigint,
    index: number,
    from: Uint8Array,
    to: Uint8Array | null,
    at: bigint,
    reverse: boolean,
  ): Iterable<IndexEntry> | AsyncIterable<IndexEntry> {
    if (at < 0n) return [];
    const present = {
      start: indexKey(KeyTag.IndexEntry, db, index, from),
      end: to === null ? prefixEnd(indexKey(KeyTag.IndexEntry, db, index)) : indexKey(KeyTag.IndexEntry, db, index, to),
      reverse,
    };
    // Removals after `at`: none can be after the last representable time.
    const removals = at + 1n < U64_LIMIT ? { start: indexRemovalKey(db, index, at + 1n), end: prefixEnd(indexKey(KeyTag.IndexRemoval, db, index)) } : undefined;
    const removed = new RemovedSince(from, to, reverse);
    const engine = this.engine;
    if (engine.rangeSync) {
      if (removals) for (const kv of engine.rangeSync(removals)) removed.add(this.counted(kv));
      return this.storedSync(engine.rangeSync(present), removed.sorted(), db, index, at, reverse);
    }
    if (!removals) return this.storedAsync(engine.range(present), [], removed, db, index, at, reverse);
    const [removedKvs, presentKvs] = jointRanges(engine, [removals, present]);
    return this.storedAsync(presentKvs, removedKvs, removed, db, index, at, reverse);
  }

  private *storedSync(kvs: Iterable<KV>, removed: Uint8Array[], db: bigint, index: number, at: bigint, reverse: boolean): Generator<IndexEntry> {
    const order = reverse ? reversed : compare;
    let ri = 0;
    for (const kv of kvs) {
      const key = indexKeyEntry(kv.key);
      for (; ri < removed.length && order(removed[ri], key) < 0; ri++) {
        const ev = this.eventAtFrom(this.engine.rangeSync!(this.historyRange(db, index, removed[ri], at)), removed[ri]);
        if (ev?.action === 'add') yield ev;
      }
      if (ri < removed.length && compare(removed[ri], key) === 0) ri++; // re-added since: its I record decides
      const e = this.storedEntry(kv, at);
      if (e === CHANGED_SINCE) {
        const ev = this.eventAtFrom(this.engine.rangeSync!(this.historyRange(db, index, key, at)), key);
        if (ev?.action === 'add') yield ev;
      } else if (e) yield e;
    }
    for (; ri < removed.length; ri++) {
      const ev = this.eventAtFrom(this.engine.rangeSync!(this.historyRange(db, index, removed[ri], at)), removed[ri]);
      if (ev?.action === 'add') yield ev;
    }
  }

  private async *storedAsync(
    kvs: AsyncIterable<KV>,
    removals: AsyncIterable<KV> | KV[],
    into: RemovedSince,
    db: bigint,
    index: number,
    at: bigint,
    reverse: boolean,
  ): AsyncGenerator<IndexEntry> {
    for await (const kv of removals) into.add(this.counted(kv));
    const removed = into.sorted();
    const order = reverse ? reversed : compare;
    let ri = 0;
    for await (const kv of kvs) {
      const key = indexKeyEntry(kv.key);
      for (; ri < removed.length && order(removed[ri], key) < 0; ri++) {
        const ev = await this.eventAtFromAsync(this.engine.range(this.historyRange(db, index, removed[ri], at)), removed[ri]);
        if (ev?.action === 'add') yield ev;
      }
      if (ri < removed.length && compare(removed[ri], key) === 0) ri++; // re-added since: its I record decides
      const e = this.storedEntry(kv, at);
      if (e === CHANGED_SINCE) {
        const ev = await this.eventAtFromAsync(this.engine.range(this.historyRange(db, index, key, at)), key);
        if (ev?.action === 'add') yield ev;
      } else if (e) yield e;
    }
    for (; ri < removed.length; ri++) {
      const ev = await this.eventAtFromAsync(this.engine.range(this.historyRange(db, index, removed[ri], at)), removed[ri]);
      if (ev?.action === 'add') yield ev;
    }
  }

  /** A stored current entry as of `at`: the entry, null when removed, CHANGED_SINCE when its history decides. */
  private storedEntry(kv: KV, at: bigint): IndexEntry | null | typeof CHANGED_SINCE {
    this.count(kv);
    const ts = decodeU64Value(kv.value);
    if (ts > at) return CHANGED_SINCE;
    // Format 2 kept removed entries in I (until the upgrade moves them): they read as absent.
    return decodeAction(kv.value[8]) === 'add' ? { key: copy(indexKeyEntry(kv.key)), payload: copy(kv.value.subarray(9)), ts } : null;
  }

  /** `kv`, counted as read (metrics and the query's budget). */
  private counted(kv: KV): KV {
    this.count(kv);
    return kv;
  }

  /** The history of entry `key`, newest first from `at` down, one event at most. */
  private historyRange(db: bigint, index: number, key: Uint8Array, at: bigint) {
    return {
      start: indexHistoryKey(db, index, key, 0n),
      end:
        at + 1n < U64_LIMIT
          ? indexHistoryKey(db, index, key, at + 1n)
          : prefixEnd(indexKey(KeyTag.IndexHistory, db, index, key)),
      reverse: true,
      limit: 1,
    };
  }

  /** The newest stored event of entry `key` with ts ≤ at (historyRange read). */
  private eventAtFrom(history: Iterable<KV>, key: Uint8Array): IndexEvent | null {
    for (const kv of history) return this.historyEvent(kv, key);
    this.metrics.reads++;
    return null;
  }

  private async eventAtFromAsync(history: AsyncIterable<KV>, key: Uint8Array): Promise<IndexEvent | null> {
    for await (const kv of history) return this.historyEvent(kv, key);
    this.metrics.reads++;
    return null;
  }

  private historyEvent(kv: KV, entryKey: Uint8Array): IndexEvent {
    this.count(kv);
    const key = copy(entryKey);
    if (kv.key.length !== INDEX_PREFIX_LEN + key.length + 8) throw new Error('index entry keys are not prefix-free');
    return { key, action: decodeAction(kv.value[0]), payload: copy(kv.value.subarray(1)), ts: historyKeyTs(kv.key) };
  }


  async *history(
    db: bigint,
    index: number,
    opts: IndexScanOptions & { fromTs?: bigint } = {},
  ): AsyncGenerator<IndexEvent> {
    const fromTs = opts.fromTs !== undefined && opts.fromTs > 0n ? opts.fromTs : 0n;
    const start = this.begin(db, index, opts);
    if (!start) return;
    const { at, from, to, reverse, order, read, own } = start;

    // An own change is the newest event of its entry: after the entry's stored events, or before
    // them in reverse.
    const ownFirst = (o: Buffered, e: IndexEvent) => (reverse ? order(o.key, e.key) <= 0 : order(o.key, e.key) < 0);
    let last: Uint8Array | undefined;
    let complete = false;
    try {
      let oi = 0;
      if (at >= 0n && fromTs <= at) {
        for await (const e of this.storedEvents(db, index, from, to, fromTs, at, reverse)) {
          for (; oi < own.length && ownFirst(own[oi], e); oi++) {
            last = own[oi].key;
            yield { ...ownEntry(own[oi]), action: own[oi].action };
          }
          last = e.key;
          yield e;
        }
      }
      for (; oi < own.length; oi++) {
        last = own[oi].key;
        yield { ...ownEntry(own[oi]), action: own[oi].action };
      }
      complete = true;
    } finally {
      if (read && !complete) narrow(read, last, reverse);
    }
  }

  /** Stored events of the entries in [from, to) with fromTs ≤ ts ≤ at, by (entry key, ts). */
  private async *storedEvents(
    db: bigint,
    index: number,
    from: Uint8Array,
    to: Uint8Array | null,
    fromTs: bigint,
    at: bigint,
    reverse: boolean,
  ): AsyncGenerator<IndexEvent> {
    const prefix = indexKey(KeyTag.IndexHistory, db, index);
    const indexEnd = prefixEnd(prefix);
    // Entry e's events are e|ts. e ≥ from puts them at or after prefix|from; e < to puts them
    // before prefix|to, except for an entry that is a proper prefix of `to` (e.g. to =
    // keySuccessor(e)), whose events may straddle prefix|to: then the range ends after them.
    // Keys in the range with an entry key outside [from, to) are skipped.
    let end = indexEnd;
    if (to !== null) {
      end = indexKey(KeyTag.IndexHistory, db, index, to);
      let found = false;
      for await (const kv of this.engine.range({ start: end, end: indexEnd, limit: 1 })) {
        this.count(kv);
        found = true;
        if (compare(historyKeyEntry(kv.key), to) < 0) end = prefixEnd(copy(kv.key.subarray(0, kv.key.length - 8)));
      }
      if (!found) this.metrics.reads++;
    }
    const range = { start: indexKey(KeyTag.IndexHistory, db, index, from), end, reverse };
    for await (const kv of this.engine.range(range)) {
      this.count(kv);
      const ts = historyKeyTs(kv.key);
      if (ts < fromTs || ts > at) continue;
      const key = historyKeyEntry(kv.key);
      if (compare(key, from) < 0 || (to !== null && compare(key, to) >= 0)) continue;
      yield { key: copy(key), action: decodeAction(kv.value[0]), payload: copy(kv.value.subarray(1)), ts };
    }
  }

  // ---- commit support ------------------------------------------------------------------

  /** True if a commit that wrote `writes` changed a range this transaction read at its snapshot. */
  conflictsWith(writes: IndexWriteSet): boolean {
    for (const r of this.reads) {
      const keys = writes.get(r.id);
      if (!keys) continue;
      // The first written key ≥ r.from.
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compare(keys[mid], r.from) < 0) lo = mid + 1;
        else hi = mid;
      }
      if (lo < keys.length && (r.to === null || compare(keys[lo], r.to) < 0)) return true;
    }
    return false;
  }

  /**
   * Appends the engine writes for a commit at `ts`. Returns the written entry keys (undefined if
   * none), the logical write count (one per buffered change) and the bytes written.
   */
  build(ts: bigint, ops: WriteOp[]): { writes: IndexWriteSet | undefined; count: number; bytes: number } {
    let writes: IndexWriteSet | undefined;
    let count = 0;
    let bytes = 0;
    const push = (op: WriteOp & { value: Uint8Array }) => {
      ops.push(op);
      bytes += op.key.length + op.value.length;
    };
    for (const [id, b] of this.buffered) {
      const keys: Uint8Array[] = [];
      for (const e of b.entries.values()) {
        const event = encodeEvent(e.action, e.payload);
        const at = e.validTs ?? ts;
        const current = indexKey(KeyTag.IndexEntry, b.db, b.index, e.key);
        // A removed entry leaves I (reads walk only what is present) for a removal record in X.
        if (e.action === 'add') push({ key: current, value: concat(encodeU64Value(at), event) });
        else {
          ops.push({ key: current, value: null });
          push({ key: indexRemovalKey(b.db, b.index, at, e.key), value: EMPTY });
        }
        if (e.validTs === undefined) push({ key: indexHistoryKey(b.db, b.index, e.key, ts), value: event });
        keys.push(e.key);
        count++;
      }
      for (const e of b.events.values()) {
        const key = indexHistoryKey(b.db, b.index, e.key, e.ts);
        if (e.action === 'drop') ops.push({ key, value: null });
        else push({ key, value: encodeEvent(e.action, e.payload) });
        count++;
      }
      if (keys.length > 0) (writes ??= new Map()).set(id, keys.sort(compare));
    }
    return { writes, count, bytes };
  }
}

/** The keys of the entries in [from, to) removed since a read's time (X records), once each, in scan order. */
class RemovedSince {
  private readonly keys = new Map<string, Uint8Array>();

  constructor(
    private readonly from: Uint8Array,
    private readonly to: Uint8Array | null,
    private readonly reverse: boolean,
  ) {}

  add(kv: KV): void {
    const key = removalKeyEntry(kv.key);
    if (compare(key, this.from) < 0 || (this.to !== null && compare(key, this.to) >= 0)) return;
    const id = Buffer.from(key.buffer, key.byteOffset, key.length).toString('latin1');
    if (!this.keys.has(id)) this.keys.set(id, copy(key));
  }

  sorted(): Uint8Array[] {
    return [...this.keys.values()].sort(this.reverse ? reversed : compare);
  }
}

/**
 * Merges a transaction's own entry changes into the stored entries of a scan, in scan order, and
 * keeps the last key handed out (a scan stopped early has read only up to there).
 */
class OwnMerge {
  private at = 0;
  last: Uint8Array | undefined;

  constructor(
    private readonly own: Buffered[],
    private readonly order: (a: Uint8Array, b: Uint8Array) => number,
  ) {}

  /** False once every own change is handed out: then a stored entry is handed out as it is. */
  get pending(): boolean {
    return this.at < this.own.length;
  }

  /** The own changes ordered before stored entry `e`, then `e` or the own change of the same key. */
  step(e: IndexEntry): IndexEntry[] {
    const out: IndexEntry[] = [];
    const own = this.own;
    for (; this.at < own.length && this.order(own[this.at].key, e.key) < 0; this.at++) this.hand(out, own[this.at]);
    if (this.at < own.length && compare(own[this.at].key, e.key) === 0) this.hand(out, own[this.at++]);
    else {
      this.last = e.key;
      out.push(e);
    }
    return out;
  }

  /** The own changes after the last stored entry. */
  rest(): IndexEntry[] {
    const out: IndexEntry[] = [];
    for (; this.at < this.own.length; this.at++) this.hand(out, this.own[this.at]);
    return out;
  }

  private hand(out: IndexEntry[], b: Buffered): void {
    if (b.action === 'remove') return;
    this.last = b.key;
    out.push(ownEntry(b));
  }
}

// mergedSync and mergedAsync are one loop, twice: a generator is either sync or async.
function* mergedSync(stored: Iterable<IndexEntry>, m: OwnMerge, read: IndexRead | undefined, reverse: boolean): Generator<IndexEntry> {
  let complete = false;
  try {
    for (const e of stored) {
      if (m.pending) yield* m.step(e);
      else {
        m.last = e.key;
        yield e;
      }
    }
    yield* m.rest();
    complete = true;
  } finally {
    if (read && !complete) narrow(read, m.last, reverse);
  }
}

async function* mergedAsync(stored: AsyncIterable<IndexEntry>, m: OwnMerge, read: IndexRead | undefined, reverse: boolean): AsyncGenerator<IndexEntry> {
  let complete = false;
  try {
    for await (const e of stored) {
      if (m.pending) yield* m.step(e);
      else {
        m.last = e.key;
        yield e;
      }
    }
    yield* m.rest();
    complete = true;
  } finally {
    if (read && !complete) narrow(read, m.last, reverse);
  }
}

function ownEntry(b: Buffered): IndexEntry {
  return { key: b.key, payload: b.payload, ts: b.validTs ?? TxnTime.instance };
}

/** A read stopped early observed only the part of its range up to the last entry handed out. */
function narrow(read: IndexRead, last: Uint8Array | undefined, reverse: boolean): void {
  if (last === undefined) read.to = read.from;
  else if (reverse) read.from = last;
  else read.to = keySuccessor(last);
}
