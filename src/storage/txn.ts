// One transaction of the store (store.ts): snapshot reads straight from the engine (bounded by the
// snapshot's ts), buffered writes merged into its own reads, the record of what it read for
// validation at commit, and the writes of its commit (versions, latest records, meta, index entries).

import { ProtocolError } from '../values/errors';
import { TxnTime, type Obj } from '../values/types';
import type { Engine, KV, WriteOp } from './engine';
import type { LoggedCommit, LoggedVersion } from './commitLog';
import {
  abstractConflictKey,
  collectionPrefix,
  deletionKey,
  docConflictKey,
  docPrefix,
  docRangeEnd,
  inKeyspace,
  KeyTag,
  latestKey,
  metaConflictKey,
  metaKey,
  versionKey,
  versionKeyId,
  versionKeyTs,
} from './keys';
import type {
  DocKey,
  HistoryOptions,
  IndexEntry,
  IndexEntryWrite,
  IndexEvent,
  IndexScanOptions,
  LiveDoc,
  ScanOptions,
  Txn,
  TxnMetrics,
  TxnNames,
  Version,
  VersionAction,
  VersionView,
  CommitEvent,
} from './types';
import { decodeValue, encodeValue, type RefNamer } from './valueCodec';
import { DeletedIds, deletionsAfter, keepsDeleted } from './deletions';
import { jointRanges } from './jointRanges';
import { TxnIndexes, type IndexWriteSet } from './indexTxn';
import { decodeAgain } from './naming';

/** What a transaction needs of its store. */
export interface TxnHost {
  readonly engine: Engine;
  /** Whether commits must record their changes for the commit feed (streams). */
  readonly feedActive: boolean;
}

const U64_LIMIT = 1n << 64n;
/** fql-v4.md §9: one document version, encoded. */
export const VERSION_BYTES_LIMIT = 8_388_608;
/** fql-v4.md §9: everything one transaction writes (`transaction_max_size_bytes`). */
export const TXN_BYTES_LIMIT = 16 * 1024 * 1024;

// Stored version = action byte + encodeValue(data) (no data for a delete).
const ACTIONS: VersionAction[] = ['create', 'update', 'delete'];
const ACTION_BYTE: Record<VersionAction, number> = { create: 0, update: 1, delete: 2 };

/** Whether a stored version (a V record's value) is a deletion. */
export function isDeletion(version: Uint8Array): boolean {
  return version[0] === ACTION_BYTE.delete;
}

function encodeVersion(action: VersionAction, data: Obj | null, ts: bigint): Uint8Array {
  if (action === 'delete' || data === null) return Uint8Array.of(ACTION_BYTE[action]);
  const body = encodeValue(data, ts);
  const out = new Uint8Array(body.length + 1);
  out[0] = ACTION_BYTE[action];
  out.set(body, 1);
  return out;
}

// Latest record = ts (u64 BE) + the version record.
function encodeLatest(ts: bigint, version: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + version.length);
  new DataView(out.buffer).setBigUint64(0, ts);
  out.set(version, 8);
  return out;
}

/**
 * The writes that make `version` (at `ts`) a document's newest: its L record, or for a deletion
 * (outside the schema collections) no L record and a D record (keys.ts).
 */
function latestOps(key: DocKey, ts: bigint, version: Uint8Array): WriteOp[] {
  if (!isDeletion(version) || keepsDeleted(key.coll)) return [{ key: latestKey(key), value: encodeLatest(ts, version) }];
  return [
    { key: latestKey(key), value: null },
    { key: deletionKey(key.db, key.coll, ts, key.id), value: new Uint8Array(0) },
  ];
}

function latestTs(value: Uint8Array): bigint {
  return new DataView(value.buffer, value.byteOffset, value.byteLength).getBigUint64(0);
}

function decodeLatest(value: Uint8Array, names: RefNamer | undefined, at: bigint): Version {
  const action = ACTIONS[value[8]];
  if (action === undefined) throw new Error(`corrupt latest-version record (action ${value[8]})`);
  const data = value.length > 9 ? (decodeValue(value, 9, names, at) as Obj) : null;
  return { ts: latestTs(value), action, data };
}

function decodeVersion(kv: KV, names: RefNamer | undefined, at: bigint): Version {
  const action = ACTIONS[kv.value[0]];
  if (action === undefined) throw new Error(`corrupt version record (action ${kv.value[0]})`);
  const data = kv.value.length > 1 ? (decodeValue(kv.value, 1, names, at) as Obj) : null;
  return { ts: versionKeyTs(kv.key), action, data };
}


/** What a collection scan reads: ids in [from, to) of `coll`, as of `at`, in id order or reversed. */
interface ScanSpan {
  db: bigint;
  coll: number;
  from: bigint;
  to: bigint;
  at: bigint;
  reverse: boolean;
  names: TxnNames | undefined;
}

interface BufferedVersion {
  key: DocKey;
  action: VersionAction;
  data: Obj | null;
}

/** Insert/Remove edits of one document's past versions (ts → new version, or null = removed). */
interface HistoryEdits {
  key: DocKey;
  edits: Map<bigint, { action: VersionAction; data: Obj | null } | null>;
  /** The newest version once the edits apply (ignoring putVersion), or null when none remains. */
  latest: Version | null;
}

/** A scanned id range [from, to) of one collection, recorded for conflict checks. */
interface ScanRead {
  db: bigint;
  coll: number;
  from: bigint;
  to: bigint;
}

export interface CommitRecord {
  ts: bigint;
  /** Point conflict keys written (documents, meta keys, abstract keys). */
  keys: Set<string>;
  /** Documents written, for checks against scanned ranges. */
  docs: DocKey[];
  /** Index entry keys written, for checks against scanned entry ranges. */
  indexes: IndexWriteSet | undefined;
  ops: WriteOp[];
  durable: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
  isDurable: boolean;
  /** What the commit changed, for the commit feed; only recorded while it has listeners. */
  changes?: CommitEvent;
  /** Shared mode: what the commit log record carries for other processes' feeds. */
  logged?: Omit<LoggedCommit, 'ts' | 'keys'>;
  /** Another process's commit whose versions are being read for the feed: delivery waits for it. */
  loading?: boolean;
  /** Shared mode: another process's commit (read from the commit log). */
  foreign?: boolean;
}


export class TxnImpl implements Txn {
  readonly metrics: TxnMetrics = { bytesRead: 0, bytesWritten: 0, reads: 0, writes: 0, reader: undefined };
  /** Point conflict keys read at the snapshot. */
  private readonly reads = new Set<string>();
  private readonly scans: ScanRead[] = [];
  private readonly versions = new Map<string, BufferedVersion>();
  private readonly meta = new Map<string, { key: Uint8Array; value: Uint8Array | null; equivalent?: boolean }>();
  private readonly writeKeys = new Set<string>();
  private readonly historyEdits = new Map<string, HistoryEdits>();
  private readonly indexes: TxnIndexes;
  private finished = false;
  /** Set for internal maintenance (history collection) that the commit feed must not report. */
  unreported = false;
  names: TxnNames | undefined = undefined;
  versionView: VersionView | undefined = undefined;

  constructor(
    private readonly store: TxnHost,
    readonly snapshotTs: bigint,
  ) {
    this.indexes = new TxnIndexes(store.engine, snapshotTs, this.metrics);
  }

  get hasWrites(): boolean {
    return (
      this.versions.size > 0 ||
      this.meta.size > 0 ||
      this.writeKeys.size > 0 ||
      this.historyEdits.size > 0 ||
      this.indexes.hasWrites
    );
  }

  /** The transaction called a write function (whether or not it ended up writing). */
  writeIntended = false;
  /**
   * Meta keys read from the engine. They have one value, not versions: a read sees the newest,
   * which a commit after the snapshot may have written, so a read-only transaction that read one is
   * checked against the commits after its snapshot (storage/store.ts).
   */
  metaReads: Set<string> | undefined = undefined;

  /** Whether `rec` wrote a meta key this transaction read from the engine. */
  metaConflictsWith(rec: CommitRecord): boolean {
    if (!this.metaReads) return false;
    for (const k of this.metaReads) if (rec.keys.has(k)) return true;
    return false;
  }

  intendsWrite(): void {
    this.writeIntended = true;
  }

  finish(): void {
    this.finished = true;
  }

  private check(): void {
    if (this.finished) throw new Error('transaction is finished');
  }

  private countedKv(kv: KV): KV {
    this.count(kv);
    return kv;
  }

  private count(kv: KV): void {
    const bytes = kv.key.length + kv.value.length;
    this.metrics.reads++;
    this.metrics.bytesRead += bytes;
    this.metrics.reader?.read(bytes);
  }

  // ---- reads ---------------------------------------------------------------------------

  async getVersion(key: DocKey, at?: bigint, opts?: { forWrite?: boolean }): Promise<Version | null> {
    this.check();
    const atSnapshot = at === undefined || at >= this.snapshotTs;
    const t = atSnapshot ? this.snapshotTs : at;
    const ck = docConflictKey(key);
    if (atSnapshot) {
      this.reads.add(ck);
      const b = this.versions.get(ck);
      if (b) return { ts: TxnTime.instance, action: b.action, data: b.data };
    }
    if (t < 0n) return null;
    const edited = this.historyEdits.size > 0 ? this.historyEdits.get(ck) : undefined;
    if (edited) return this.editedVersionAt(edited, t);
    // Almost every read wants the newest version: one point lookup, no cursor (and no promise
    // where the engine reads synchronously).
    const lk = latestKey(key);
    const engine = this.store.engine;
    const latest = engine.getSync ? engine.getSync(lk) : await engine.get(lk);
    if (latest === undefined) {
      // No L record: never written, or deleted (keys.ts), perhaps after `t`, which V then tells. A
      // transaction that writes the document needs no look: a deletion after its snapshot fails
      // its commit's validation.
      if (keepsDeleted(key.coll) || (atSnapshot && opts?.forWrite === true)) {
        this.metrics.reads++;
        return null;
      }
      return this.versionAt(key, t, this.names);
    }
    this.count({ key: lk, value: latest });
    if (latestTs(latest) <= t) {
      const names = this.names;
      try {
        return this.viewed(key, decodeLatest(latest, names, t));
      } catch (e) {
        return decodeAgain(e, names, () => decodeLatest(latest, names, t)).then((v) => this.viewed(key, v));
      }
    }
    return this.versionAt(key, t, this.names);
  }

  /** The newest stored version with ts ≤ t (a reverse range read of the document's versions). */
  private async versionAt(key: DocKey, t: bigint, names: TxnNames | undefined): Promise<Version | null> {
    const range = { start: versionKey(key, 0n), end: versionBound(key, t), reverse: true, limit: 1 };
    for await (const kv of this.store.engine.range(range)) {
      this.count(kv);
      return this.version(key, kv, names, t);
    }
    this.metrics.reads++;
    return null;
  }

  /** A stored version of `key`, its refs named as of `at`, as the view shows it. */
  private version(key: DocKey, kv: KV, names: TxnNames | undefined, at: bigint): Version | Promise<Version> {
    try {
      return this.viewed(key, decodeVersion(kv, names, at));
    } catch (e) {
      return decodeAgain(e, names, () => decodeVersion(kv, names, at)).then((v) => this.viewed(key, v));
    }
  }

  private viewed(key: DocKey, v: Version): Version | Promise<Version> {
    return this.versionView === undefined || v.data === null ? v : this.versionView.view(key, v);
  }

  /** The newest version with ts ≤ t once this transaction's history edits apply. */
  private async editedVersionAt(h: HistoryEdits, t: bigint): Promise<Version | null> {
    let best: Version | null = null;
    for (const [ts, e] of h.edits) {
      if (e && ts <= t && (best === null || ts > (best.ts as bigint))) best = { ts, action: e.action, data: e.data };
    }
    const range = { start: versionKey(h.key, 0n), end: versionBound(h.key, t), reverse: true };
    for await (const kv of this.store.engine.range(range)) {
      this.count(kv);
      const ts = versionKeyTs(kv.key);
      if (best !== null && ts <= (best.ts as bigint)) break;
      if (h.edits.has(ts)) continue; // replaced or removed
      return this.version(h.key, kv, this.names, t);
    }
    return best && this.viewed(h.key, best);
  }

  /** Stored versions in [fromTs, toTs] with this transaction's history edits applied, in ts order. */
  private async editedHistory(h: HistoryEdits, fromTs: bigint, toTs: bigint): Promise<Version[]> {
    const out: Version[] = [];
    const range = { start: versionKey(h.key, fromTs), end: versionBound(h.key, toTs) };
    for await (const kv of this.store.engine.range(range)) {
      this.count(kv);
      if (!h.edits.has(versionKeyTs(kv.key))) out.push(await this.version(h.key, kv, this.names, toTs));
    }
    for (const [ts, e] of h.edits) if (e && ts >= fromTs && ts <= toTs) out.push(await this.viewed(h.key, { ts, action: e.action, data: e.data }));
    return out.sort((a, b) => ((a.ts as bigint) < (b.ts as bigint) ? -1 : 1));
  }

  async *history(key: DocKey, opts: HistoryOptions = {}): AsyncIterable<Version> {
    this.check();
    const atSnapshot = opts.toTs === undefined || opts.toTs >= this.snapshotTs;
    const toTs = atSnapshot ? this.snapshotTs : opts.toTs!;
    const fromTs = opts.fromTs !== undefined && opts.fromTs > 0n ? opts.fromTs : 0n;
    const ck = docConflictKey(key);
    if (atSnapshot) this.reads.add(ck);
    const b = atSnapshot ? this.versions.get(ck) : undefined;
    const own: Version | undefined = b && { ts: TxnTime.instance, action: b.action, data: b.data };
    if (own && opts.reverse) yield own;
    const edited = this.historyEdits.get(ck);
    if (edited && fromTs <= toTs) {
      const list = await this.editedHistory(edited, fromTs, toTs);
      if (opts.reverse) list.reverse();
      yield* list;
    } else if (fromTs <= toTs) {
      const range = { start: versionKey(key, fromTs), end: versionBound(key, toTs), reverse: opts.reverse };
      for await (const kv of this.store.engine.range(range)) {
        this.count(kv);
        yield await this.version(key, kv, this.names, toTs);
      }
    }
    if (own && !opts.reverse) yield own;
  }

  async *scan(db: bigint, coll: number, opts: ScanOptions = {}): AsyncIterable<LiveDoc> {
    this.check();
    const atSnapshot = opts.at === undefined || opts.at >= this.snapshotTs;
    const at = atSnapshot ? this.snapshotTs : opts.at!;
    const from = opts.fromId !== undefined && opts.fromId > 0n ? opts.fromId : 0n;
    const to = opts.toId !== undefined && opts.toId < U64_LIMIT ? opts.toId : U64_LIMIT;
    if (from >= to) return;
    const reverse = opts.reverse === true;
    const withDeleted = opts.withDeleted === true;
    const before = reverse ? (x: bigint, y: bigint) => x > y : (x: bigint, y: bigint) => x < y;

    // Own writes to this range, in scan order.
    const own: BufferedVersion[] = [];
    let read: ScanRead | undefined;
    if (atSnapshot) {
      read = { db, coll, from, to };
      this.scans.push(read);
      for (const b of this.versions.values()) {
        if (b.key.db === db && b.key.coll === coll && b.key.id >= from && b.key.id < to) own.push(b);
      }
      own.sort((x, y) => (before(x.key.id, y.key.id) ? -1 : 1));
    }

    let last: bigint | undefined; // id of the last doc handed out
    let complete = false;
    try {
      let oi = 0;
      const names = opts.anonymousRefs ? undefined : this.names;
      const span: ScanSpan = { db, coll, from, to, at, reverse, names };
      for await (const doc of withDeleted && !keepsDeleted(coll) ? this.everyVersioned(span) : this.latestVersions(span)) {
        for (; oi < own.length && before(own[oi].key.id, doc.id); oi++) {
          if (own[oi].action === 'delete' && !withDeleted) continue;
          last = own[oi].key.id;
          yield ownLive(own[oi]);
        }
        if (oi < own.length && own[oi].key.id === doc.id) {
          const b = own[oi++];
          if (b.action === 'delete' && !withDeleted) continue;
          last = doc.id;
          yield ownLive(b);
          continue;
        }
        if (doc.version.action === 'delete' && !withDeleted) continue;
        last = doc.id;
        yield { id: doc.id, version: doc.version };
      }
      for (; oi < own.length; oi++) {
        if (own[oi].action === 'delete' && !withDeleted) continue;
        last = own[oi].key.id;
        yield ownLive(own[oi]);
      }
      complete = true;
    } finally {
      // Stopped early (a page): only the part handed out was observed.
      if (read && !complete) {
        if (last === undefined) read.to = read.from;
        else if (reverse) read.from = last;
        else read.to = last + 1n;
      }
    }
  }

  /** Per document id in [from, to), the newest stored version with ts ≤ at (deletes included). */
  private async *latestVersions(span: ScanSpan): AsyncGenerator<{ id: bigint; version: Version }> {
    const { db, coll, from, to, at, reverse, names } = span;
    if (at < 0n) return;
    // Walk the latest-version keyspace (one entry per live document, whatever its history) merged
    // with the documents deleted after `at` (D); only those and the documents written after `at`
    // need a look into their versions.
    const range = {
      start: inKeyspace(KeyTag.Latest, from === 0n ? collectionPrefix(db, coll) : docPrefix(db, coll, from)),
      end: inKeyspace(KeyTag.Latest, docRangeEnd(db, coll, to)),
      reverse,
    };
    const deletions = keepsDeleted(coll) ? undefined : deletionsAfter(db, coll, at);
    const deleted = new DeletedIds(from, to, reverse);
    const engine = this.store.engine;
    let live: AsyncIterable<KV> = engine.range(range);
    if (deletions && engine.rangeSync) for (const kv of engine.rangeSync(deletions)) deleted.add(this.countedKv(kv));
    else if (deletions) {
      const [d, l] = jointRanges(engine, [deletions, range]);
      for await (const kv of d) deleted.add(this.countedKv(kv));
      live = l;
    }
    const gone = deleted.sorted();
    const before = reverse ? (x: bigint, y: bigint) => x > y : (x: bigint, y: bigint) => x < y;
    // A document deleted after `at`, or written after it: its newest version at `at`, if any.
    const older = async (id: bigint) => {
      const version = await this.versionAt({ db, coll, id }, at, names);
      return version ? { id, version } : undefined;
    };
    let gi = 0;
    for await (const kv of live) {
      this.count(kv);
      const id = versionKeyId(kv.key);
      for (; gi < gone.length && before(gone[gi], id); gi++) {
        const doc = await older(gone[gi]);
        if (doc) yield doc;
      }
      if (gi < gone.length && gone[gi] === id) gi++; // created again since: its L record decides
      if (latestTs(kv.value) <= at) {
        let version: Version;
        try {
          version = decodeLatest(kv.value, names, at);
        } catch (e) {
          version = await decodeAgain(e, names, () => decodeLatest(kv.value, names, at));
        }
        yield { id, version: await this.viewed({ db, coll, id }, version) };
        continue;
      }
      const doc = await older(id);
      if (doc) yield doc;
    }
    for (; gi < gone.length; gi++) {
      const doc = await older(gone[gi]);
      if (doc) yield doc;
    }
  }

  /**
   * Per document id in [from, to) that has versions, the newest with ts ≤ at, deleted ones
   * included: from the versions themselves, as deleted documents have no L record (keys.ts).
   */
  private async *everyVersioned(span: ScanSpan): AsyncGenerator<{ id: bigint; version: Version }> {
    const { db, coll, from, to, at, reverse, names } = span;
    if (at < 0n) return;
    const range = { start: from === 0n ? collectionPrefix(db, coll) : docPrefix(db, coll, from), end: docRangeEnd(db, coll, to), reverse };
    // Forward, a document's versions come oldest first: its newest ≤ at is known when the id
    // changes. Reverse, newest first: the first ≤ at is it.
    let current: bigint | undefined;
    let best: KV | undefined;
    for await (const kv of this.store.engine.range(range)) {
      this.count(kv);
      const id = versionKeyId(kv.key);
      if (id !== current) {
        if (best && !reverse) yield { id: current!, version: await this.version({ db, coll, id: current! }, best, names, at) };
        current = id;
        best = undefined;
      }
      if (versionKeyTs(kv.key) > at || (reverse && best)) continue;
      best = kv;
      if (reverse) yield { id, version: await this.version({ db, coll, id }, kv, names, at) };
    }
    if (best && !reverse) yield { id: current!, version: await this.version({ db, coll, id: current! }, best, names, at) };
  }

  async getMeta(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.check();
    const ck = metaConflictKey(key);
    this.reads.add(ck);
    const b = this.meta.get(ck);
    if (b) return b.value ?? undefined;
    (this.metaReads ??= new Set()).add(ck);
    const mk = metaKey(key);
    const engine = this.store.engine;
    const v = engine.getSync ? engine.getSync(mk) : await engine.get(mk);
    this.metrics.reads++;
    if (v) {
      this.metrics.bytesRead += mk.length + v.length;
      this.metrics.reader?.read(mk.length + v.length);
    }
    return v;
  }

  readConflictKey(key: string): void {
    this.check();
    this.reads.add(abstractConflictKey(key));
  }

  scanIndex(db: bigint, index: number, opts?: IndexScanOptions): Iterable<IndexEntry> | AsyncIterable<IndexEntry> {
    this.check();
    return this.indexes.scan(db, index, opts);
  }

  indexHistory(db: bigint, index: number, opts?: IndexScanOptions & { fromTs?: bigint }): AsyncIterable<IndexEvent> {
    this.check();
    return this.indexes.history(db, index, opts);
  }

  // ---- writes --------------------------------------------------------------------------

  putVersion(key: DocKey, action: VersionAction, data: Obj | null): void {
    this.check();
    const ck = docConflictKey(key);
    const prev = this.versions.get(ck);
    // A document created in this txn stays a create when updated again.
    const a = prev?.action === 'create' && action === 'update' ? 'create' : action;
    this.versions.set(ck, { key: { db: key.db, coll: key.coll, id: key.id }, action: a, data: a === 'delete' ? null : data });
  }

  putVersionAt(key: DocKey, ts: bigint, action: VersionAction, data: Obj | null): Promise<void> {
    return this.editHistory(key, ts, { action, data: action === 'delete' ? null : data });
  }

  removeVersionAt(key: DocKey, ts: bigint): Promise<void> {
    return this.editHistory(key, ts, null);
  }

  private async editHistory(key: DocKey, ts: bigint, edit: { action: VersionAction; data: Obj | null } | null): Promise<void> {
    this.check();
    if (ts > this.snapshotTs || ts < 0n) throw new Error(`history edit at ${ts} outside [0, snapshot ${this.snapshotTs}]`);
    const ck = docConflictKey(key);
    this.reads.add(ck);
    let h = this.historyEdits.get(ck);
    if (!h) {
      h = { key: { db: key.db, coll: key.coll, id: key.id }, edits: new Map(), latest: null };
      this.historyEdits.set(ck, h);
    }
    h.edits.set(ts, edit);
    h.latest = await this.editedVersionAt(h, this.snapshotTs);
  }

  putMeta(key: Uint8Array, value: Uint8Array | null, opts?: { equivalent?: boolean }): void {
    this.check();
    this.meta.set(metaConflictKey(key), { key: metaKey(key), value: value && value.slice(), equivalent: opts?.equivalent });
  }

  writeConflictKey(key: string): void {
    this.check();
    this.writeKeys.add(abstractConflictKey(key));
  }

  putIndexEntry(db: bigint, index: number, entry: IndexEntryWrite): void {
    this.check();
    this.indexes.put(db, index, entry);
  }

  putIndexHistory(db: bigint, index: number, entry: IndexEntryWrite, ts: bigint): void {
    this.check();
    this.indexes.putHistory(db, index, entry, ts);
  }

  putIndexCurrent(db: bigint, index: number, entry: IndexEntryWrite, ts: bigint): void {
    this.check();
    this.indexes.put(db, index, entry, ts);
  }

  removeIndexHistory(db: bigint, index: number, key: Uint8Array, ts: bigint): void {
    this.check();
    this.indexes.dropHistory(db, index, key, ts);
  }

  // ---- commit support ------------------------------------------------------------------

  conflictsWith(rec: CommitRecord): boolean {
    if (this.reads.size <= rec.keys.size) {
      for (const k of this.reads) if (rec.keys.has(k)) return true;
    } else {
      for (const k of rec.keys) if (this.reads.has(k)) return true;
    }
    for (const s of this.scans) {
      for (const d of rec.docs) {
        if (d.coll === s.coll && d.db === s.db && d.id >= s.from && d.id < s.to) return true;
      }
    }
    return rec.indexes !== undefined && this.indexes.conflictsWith(rec.indexes);
  }

  /** The commit's writes at `ts`; `forLog` also keeps what its commit log record carries (shared mode). */
  buildCommit(ts: bigint, forLog = false): CommitRecord {
    const ops: WriteOp[] = [];
    const logged: LoggedVersion[] | undefined = forLog ? [] : undefined;
    const keys = new Set<string>(this.writeKeys);
    const docs: DocKey[] = [];
    let bytes = 0;
    for (const [ck, b] of this.versions) {
      const value = encodeVersion(b.action, b.data, ts);
      if (value.length > VERSION_BYTES_LIMIT)
        throw new ProtocolError(400, 'bad request', `Version bytes (${value.length}) exceeds threshold (${VERSION_BYTES_LIMIT})`);
      const op = { key: versionKey(b.key, ts), value };
      ops.push(op, ...latestOps(b.key, ts, value));
      logged?.push({ key: b.key, ts, action: b.action, rewrite: false });
      keys.add(ck);
      docs.push(b.key);
      bytes += op.key.length + op.value.length;
    }
    let historyWrites = 0;
    for (const [ck, h] of this.historyEdits) {
      for (const [vts, e] of h.edits) {
        const op = { key: versionKey(h.key, vts), value: e ? encodeVersion(e.action, e.data, ts) : null };
        ops.push(op);
        logged?.push({ key: h.key, ts: vts, action: e ? e.action : null, rewrite: true });
        historyWrites++;
        bytes += op.key.length + (op.value?.length ?? 0);
      }
      // A version written by putVersion at the commit ts is newer and writes the latest record itself.
      if (!this.versions.has(ck)) {
        const l = h.latest;
        if (l) ops.push(...latestOps(h.key, l.ts as bigint, encodeVersion(l.action, l.data, ts)));
        else ops.push({ key: latestKey(h.key), value: null });
      }
      keys.add(ck);
      docs.push(h.key);
    }
    for (const [ck, m] of this.meta) {
      if (m.key.length > this.store.engine.maxKeySize)
        throw new Error(`storage key of ${m.key.length} bytes exceeds the engine's maximum of ${this.store.engine.maxKeySize}`);
      ops.push({ key: m.key, value: m.value });
      if (!m.equivalent) keys.add(ck);
      bytes += m.key.length + (m.value?.length ?? 0);
    }
    const ix = this.indexes.build(ts, ops);
    // Logical writes (a version's latest-record copy is bookkeeping, not another write; an index
    // change is one write for its I record and H event).
    this.metrics.writes = this.versions.size + historyWrites + this.meta.size + ix.count;
    this.metrics.bytesWritten = bytes + ix.bytes;
    if (this.metrics.bytesWritten > TXN_BYTES_LIMIT)
      throw new ProtocolError(400, 'bad request', `Transaction exceeded limit: got ${this.metrics.bytesWritten} bytes, limit ${TXN_BYTES_LIMIT} bytes`);
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const durable = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    durable.catch(() => {}); // observed by run(); avoid unhandled rejections from waiters' copies
    const changes = this.store.feedActive && !this.unreported ? this.feedChanges(ts) : undefined;
    return {
      ts,
      keys,
      docs,
      indexes: ix.writes,
      ops,
      durable,
      resolve,
      reject,
      isDurable: false,
      changes,
      logged: logged ? { versions: logged, entries: this.indexes.committedEntries(), unreported: this.unreported } : undefined,
    };
  }

  /** The versions and index entries this transaction writes, as the commit feed reports them. */
  private feedChanges(ts: bigint): CommitEvent {
    const versions: CommitEvent['versions'] = [];
    for (const b of this.versions.values()) versions.push({ key: b.key, ts, action: b.action, data: b.data, rewrite: false });
    for (const h of this.historyEdits.values()) {
      for (const [vts, e] of h.edits) {
        versions.push({ key: h.key, ts: vts, action: e ? e.action : null, data: e ? e.data : null, rewrite: true });
      }
    }
    return { ts, versions, indexes: this.indexes.committedEntries() };
  }
}

/** Exclusive end of a document's versions with ts ≤ t. */
function versionBound(key: DocKey, t: bigint): Uint8Array {
  return t + 1n < U64_LIMIT ? versionKey(key, t + 1n) : docRangeEnd(key.db, key.coll, key.id + 1n);
}

function ownLive(b: BufferedVersion): LiveDoc {
  return { id: b.key.id, version: { ts: TxnTime.instance, action: b.action, data: b.data } };
}
