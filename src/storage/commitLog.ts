// The commit log of a shared store (store.ts, shared mode): one record per commit, keyed by its ts,
// written in the same atomic write as the commit. A process reads the records of the commits other
// processes made to validate its own transactions against them (what they wrote), to feed its
// streams (the versions and index entries they wrote) and to drop its caches of what they changed.
// Records are trimmed once older than LOG_RETENTION_US; a process that falls further behind than
// that (`C|floor` passes its horizon) treats every older snapshot as conflicting and drops all caches.
// A record names what was written, not the data: a process whose streams need a version's data
// reads it from the store (the version key is in the record), so processes without streams never
// pay for other processes' data.
//
//   C | ts u64    → record (below)
//   S | logFloor  → u64: the newest ts trimmed from the log

import type { DocKey, CommitEvent, CommittedIndexEntry, CommittedVersion, IndexAction, VersionAction } from './types';
import { writeSetOf, type IndexWriteSet } from './indexTxn';
import { decodeU64Value, systemKey } from './keys';

export const LOG_TAG = 0x43; // 'C'
export const LOG_FLOOR_KEY = systemKey('logFloor');
/** How long commit records are kept: longer than any transaction can run (its snapshot's age). */
export const LOG_RETENTION_US = 10n * 60n * 1_000_000n;

const FORMAT = 1;

export function logKey(ts: bigint): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = LOG_TAG;
  new DataView(out.buffer).setBigUint64(1, ts);
  return out;
}

export function logKeyTs(key: Uint8Array): bigint {
  return new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(1);
}

/** Records with ts in (after, ∞). */
export function logRange(after: bigint): { start: Uint8Array; end: Uint8Array } {
  return { start: logKey(after + 1n), end: Uint8Array.of(LOG_TAG + 1) };
}

export function decodeFloor(v: Uint8Array | undefined): bigint {
  return v ? decodeU64Value(v) : 0n;
}

/** A version as the log carries it: which one, not its data (store.ts reads that for the feed). */
export interface LoggedVersion {
  key: DocKey;
  ts: bigint;
  /** Null for a removed past version. */
  action: VersionAction | null;
  rewrite: boolean;
}

/** What a commit's record says. */
export interface LoggedCommit {
  ts: bigint;
  /** Point conflict keys written. */
  keys: string[];
  /** The versions written (new ones and history edits). */
  versions: LoggedVersion[];
  /** The index entries written with putIndexEntry. */
  entries: CommittedIndexEntry[];
  /** Maintenance (history collection) that streams do not report. */
  unreported: boolean;
}

/** A decoded record, with what validation reads of it. */
export interface LogRecord extends LoggedCommit {
  /** Documents written: those of `versions`. */
  docs: DocKey[];
  /** Index entry keys written, per index, sorted: those of `entries`. */
  indexes: IndexWriteSet | undefined;
}

const ACTIONS: (VersionAction | null)[] = ['create', 'update', 'delete', null];
const INDEX_ACTIONS: IndexAction[] = ['add', 'remove'];

class Writer {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(n: number): void {
    this.room(1);
    this.buf[this.len++] = n;
  }

  u32(n: number): void {
    this.room(4);
    this.view.setUint32(this.len, n);
    this.len += 4;
  }

  u64(n: bigint): void {
    this.room(8);
    this.view.setBigUint64(this.len, n);
    this.len += 8;
  }

  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  str(s: string): void {
    this.bytes(Buffer.from(s, 'utf8'));
  }

  doc(k: DocKey): void {
    this.u64(k.db);
    this.u32(k.coll);
    this.u64(k.id);
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

class Reader {
  private off = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  u8(): number {
    return this.buf[this.off++];
  }

  u32(): number {
    const n = this.view.getUint32(this.off);
    this.off += 4;
    return n;
  }

  u64(): bigint {
    const n = this.view.getBigUint64(this.off);
    this.off += 8;
    return n;
  }

  bytes(): Uint8Array {
    const n = this.u32();
    const out = this.buf.slice(this.off, this.off + n);
    this.off += n;
    return out;
  }

  str(): string {
    return Buffer.from(this.bytes()).toString('utf8');
  }

  doc(): DocKey {
    return { db: this.u64(), coll: this.u32(), id: this.u64() };
  }
}

export function encodeLogRecord(r: LoggedCommit): Uint8Array {
  const w = new Writer();
  w.u8(FORMAT);
  w.u8(r.unreported ? 1 : 0);
  w.u32(r.keys.length);
  for (const k of r.keys) w.str(k);
  w.u32(r.versions.length);
  for (const v of r.versions) {
    w.doc(v.key);
    w.u64(v.ts);
    w.u8(ACTIONS.indexOf(v.action));
    w.u8(v.rewrite ? 1 : 0);
  }
  w.u32(r.entries.length);
  for (const e of r.entries) {
    w.u64(e.db);
    w.u32(e.index);
    w.bytes(e.key);
    w.u8(INDEX_ACTIONS.indexOf(e.action));
    w.bytes(e.payload);
  }
  return w.done();
}

export function decodeLogRecord(ts: bigint, value: Uint8Array): LogRecord {
  const r = new Reader(value);
  const format = r.u8();
  if (format !== FORMAT) throw new Error(`commit log record at ${ts} has format ${format}; this release reads format ${FORMAT}`);
  const unreported = r.u8() === 1;
  const keys: string[] = [];
  for (let n = r.u32(); n > 0; n--) keys.push(r.str());
  const versions: LoggedVersion[] = [];
  for (let n = r.u32(); n > 0; n--) {
    const key = r.doc();
    const vts = r.u64();
    const action = ACTIONS[r.u8()] ?? null;
    const rewrite = r.u8() === 1;
    versions.push({ key, ts: vts, action, rewrite });
  }
  const entries: CommittedIndexEntry[] = [];
  for (let n = r.u32(); n > 0; n--) {
    const db = r.u64();
    const index = r.u32();
    const key = r.bytes();
    const action = INDEX_ACTIONS[r.u8()];
    const payload = r.bytes();
    entries.push({ db, index, key, action, payload });
  }
  return { ts, keys, versions, entries, unreported, docs: versions.map((v) => v.key), indexes: writeSetOf(entries) };
}

/**
 * The commit feed's view of a logged commit, given each version's stored record (store.ts
 * encodeVersion; undefined when gone or a delete) and how to decode it.
 */
export function feedEvent(
  r: LogRecord,
  stored: (Uint8Array | undefined)[],
  decode: (stored: Uint8Array) => CommittedVersion['data'],
): CommitEvent {
  const versions: CommittedVersion[] = r.versions.map((v, i) => {
    const bytes = stored[i];
    return {
      key: v.key,
      ts: v.ts,
      action: v.action,
      data: bytes && v.action !== 'delete' ? decode(bytes) : null,
      rewrite: v.rewrite,
      anonymous: true,
    };
  });
  return { ts: r.ts, versions, indexes: r.entries };
}
