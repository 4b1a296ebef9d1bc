// Physical key layout. The first byte names the keyspace; fixed-width big-endian integers keep
// memcmp order equal to numeric order, so a document's versions are contiguous and sorted by ts,
// and a collection's documents are contiguous and sorted by id.
//
//   V | db u64 | coll u32 | id u64 | ts u64     document version (ts in µs)
//   L | db u64 | coll u32 | id u64                 latest version of a document: ts u64 + version
//                                                  (format 4 on: of a live one; see D)
//   D | db u64 | coll u32 | ts u64 | id u64        the deletion of a document at ts (format 4 on) → empty
//   I | db u64 | index u32 | entryKey             an index entry present now (format 3 on; before,
//                                                  removed entries stayed here too, action 1)
//                                                  → ts u64 | action byte (0 add) | payload
//   X | db u64 | index u32 | ts u64 | entryKey    the removal of an index entry at ts (format 3 on) → empty
//   H | db u64 | index u32 | entryKey | ts u64    one add/remove event of an index entry
//                                                  → action byte | payload
//   M | bytes                                     unversioned metadata (Txn.getMeta/putMeta)
//   S | name                                      the store's own state (e.g. issued ts)
//
// Index entry keys are opaque to the store (model/indexKeys.ts builds them) but must be
// prefix-free: no entry key is a proper prefix of another entry key of the same index. Then the
// events of one entry are contiguous in H and ordered by ts, and the entries' events are ordered
// by entry key; an H key's entry key is key[13 : length − 8]. The I record answers reads at or
// after its ts; older reads take the entry's newest H event at or before the read time (the same
// pattern as L and V for documents). A removed entry leaves I, so that a read walks only what is
// present; a read at time T also takes the entries removed after T from X (ordered by time, so
// that is a short range for a read of the present) and asks H what they were at T. Every
// putIndexEntry writes the I record (or deletes it and writes X) and the H event; putIndexHistory
// (index builds) writes H events at past times only. X records at or below the collection's MVT
// are never needed again (older reads are refused) and the collector drops them.
//
// Documents follow the same pattern: a deleted document leaves L for a deletion record (D, ordered
// by time), so a collection's scan walks only live documents and merges in those deleted after its
// read time, whose versions (V) say what they were. A read of one document that finds no L record
// asks V (it may have been deleted after the read's time). The schema collections (databases,
// collections, indexes, functions, roles, access providers) keep their deleted documents' L records
// instead: the catalog reads their deletions, and they are small.

import type { DocKey } from './types';
import { prefixEnd } from './tuple';

export const KeyTag = {
  Version: 0x56, // 'V'
  IndexEntry: 0x49, // 'I'
  IndexHistory: 0x48, // 'H'
  IndexRemoval: 0x58, // 'X'
  Latest: 0x4c, // 'L'
  Deletion: 0x44, // 'D'
  Meta: 0x4d, // 'M'
  System: 0x53, // 'S'
} as const;

const COLL_PREFIX_LEN = 1 + 8 + 4;
/** Length of `tag | db | index`, the prefix of every I and H key of one index. */
export const INDEX_PREFIX_LEN = 1 + 8 + 4;
const DOC_PREFIX_LEN = COLL_PREFIX_LEN + 8;
export const VERSION_KEY_LEN = DOC_PREFIX_LEN + 8;

function writeU64(buf: Uint8Array, off: number, n: bigint): void {
  if (n < 0n || n > 0xffffffffffffffffn) throw new RangeError(`u64 out of range: ${n}`);
  const hi = Number(n >> 32n);
  const lo = Number(n & 0xffffffffn);
  buf[off] = hi >>> 24;
  buf[off + 1] = (hi >>> 16) & 0xff;
  buf[off + 2] = (hi >>> 8) & 0xff;
  buf[off + 3] = hi & 0xff;
  buf[off + 4] = lo >>> 24;
  buf[off + 5] = (lo >>> 16) & 0xff;
  buf[off + 6] = (lo >>> 8) & 0xff;
  buf[off + 7] = lo & 0xff;
}

function readU32(buf: Uint8Array, off: number): number {
  return ((buf[off] << 24) | (buf[off + 1] << 16) | (buf[off + 2] << 8) | buf[off + 3]) >>> 0;
}

function readU64(buf: Uint8Array, off: number): bigint {
  return (BigInt(readU32(buf, off)) << 32n) | BigInt(readU32(buf, off + 4));
}

function writeCollPrefix(buf: Uint8Array, db: bigint, coll: number): void {
  if (!Number.isInteger(coll) || coll < 0 || coll > 0xffffffff) throw new RangeError(`collection id out of range: ${coll}`);
  buf[0] = KeyTag.Version;
  writeU64(buf, 1, db);
  buf[9] = coll >>> 24;
  buf[10] = (coll >>> 16) & 0xff;
  buf[11] = (coll >>> 8) & 0xff;
  buf[12] = coll & 0xff;
}

/** All versions of all documents of one collection. */
export function collectionPrefix(db: bigint, coll: number): Uint8Array {
  const buf = new Uint8Array(COLL_PREFIX_LEN);
  writeCollPrefix(buf, db, coll);
  return buf;
}

/** Versions of documents with id ≥ `id` in the collection start here. */
export function docPrefix(db: bigint, coll: number, id: bigint): Uint8Array {
  const buf = new Uint8Array(DOC_PREFIX_LEN);
  writeCollPrefix(buf, db, coll);
  writeU64(buf, COLL_PREFIX_LEN, id);
  return buf;
}

/** The same layout as a version prefix, in another keyspace (e.g. Latest). */
export function inKeyspace(tag: number, key: Uint8Array): Uint8Array {
  const out = key.slice();
  out[0] = tag;
  return out;
}

/** The key holding a document's newest version, so a read at the present is one point lookup. */
export function latestKey(key: DocKey): Uint8Array {
  return inKeyspace(KeyTag.Latest, docPrefix(key.db, key.coll, key.id));
}

export function versionKey(key: DocKey, ts: bigint): Uint8Array {
  const buf = new Uint8Array(VERSION_KEY_LEN);
  writeCollPrefix(buf, key.db, key.coll);
  writeU64(buf, COLL_PREFIX_LEN, key.id);
  writeU64(buf, DOC_PREFIX_LEN, ts);
  return buf;
}

/** End (exclusive) of the versions of documents with ids < `id`; handles id = 2^64. */
export function docRangeEnd(db: bigint, coll: number, id: bigint): Uint8Array {
  return id > 0xffffffffffffffffn ? prefixEnd(collectionPrefix(db, coll)) : docPrefix(db, coll, id);
}

/** The doc id of a version key. */
export function versionKeyId(key: Uint8Array): bigint {
  return readU64(key, COLL_PREFIX_LEN);
}

/** The ts (µs) of a version key. */
export function versionKeyTs(key: Uint8Array): bigint {
  return readU64(key, DOC_PREFIX_LEN);
}

/** The D key of a document's deletion at `ts`; without an id, the bound of the deletions at `ts` on. */
export function deletionKey(db: bigint, coll: number, ts: bigint, id?: bigint): Uint8Array {
  const buf = new Uint8Array(COLL_PREFIX_LEN + 8 + (id === undefined ? 0 : 8));
  writeCollPrefix(buf, db, coll);
  buf[0] = KeyTag.Deletion;
  writeU64(buf, COLL_PREFIX_LEN, ts);
  if (id !== undefined) writeU64(buf, COLL_PREFIX_LEN + 8, id);
  return buf;
}

/** The document id of a D key. */
export function deletionKeyId(key: Uint8Array): bigint {
  return readU64(key, COLL_PREFIX_LEN + 8);
}

/** Every key of one database scope in a keyspace (versions, index entries, index history). */
export function databaseRange(tag: number, db: bigint): { start: Uint8Array; end: Uint8Array } {
  const start = new Uint8Array(9);
  start[0] = tag;
  writeU64(start, 1, db);
  return { start, end: prefixEnd(start) };
}

/** `tag | db | index | suffix` (tag I or H): the prefix of an index's keys, or a bound inside it. */
export function indexKey(tag: number, db: bigint, index: number, suffix?: Uint8Array): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new RangeError(`index id out of range: ${index}`);
  const buf = new Uint8Array(INDEX_PREFIX_LEN + (suffix?.length ?? 0));
  buf[0] = tag;
  writeU64(buf, 1, db);
  buf[9] = index >>> 24;
  buf[10] = (index >>> 16) & 0xff;
  buf[11] = (index >>> 8) & 0xff;
  buf[12] = index & 0xff;
  if (suffix) buf.set(suffix, INDEX_PREFIX_LEN);
  return buf;
}

/** The H key of one event of an entry. */
export function indexHistoryKey(db: bigint, index: number, entryKey: Uint8Array, ts: bigint): Uint8Array {
  const buf = new Uint8Array(INDEX_PREFIX_LEN + entryKey.length + 8);
  buf.set(indexKey(KeyTag.IndexHistory, db, index));
  buf.set(entryKey, INDEX_PREFIX_LEN);
  writeU64(buf, INDEX_PREFIX_LEN + entryKey.length, ts);
  return buf;
}

/** The database scope of a V, L, I or H key. */
export function keyDb(key: Uint8Array): bigint {
  return readU64(key, 1);
}

/** The collection id (V, L) or index id (I, H) of such a key. */
export function keyColl(key: Uint8Array): number {
  return readU32(key, 9);
}

/** The entry key of an I key (a view, not a copy). */
export function indexKeyEntry(key: Uint8Array): Uint8Array {
  return key.subarray(INDEX_PREFIX_LEN);
}

/** The entry key of an H key (a view, not a copy). */
export function historyKeyEntry(key: Uint8Array): Uint8Array {
  return key.subarray(INDEX_PREFIX_LEN, key.length - 8);
}

/** The ts of an H key. */
export function historyKeyTs(key: Uint8Array): bigint {
  return readU64(key, key.length - 8);
}

/** The X key of an entry's removal at `ts`; without an entry key, the bound of the removals at `ts` on. */
export function indexRemovalKey(db: bigint, index: number, ts: bigint, entryKey?: Uint8Array): Uint8Array {
  const buf = new Uint8Array(INDEX_PREFIX_LEN + 8 + (entryKey?.length ?? 0));
  buf.set(indexKey(KeyTag.IndexRemoval, db, index));
  writeU64(buf, INDEX_PREFIX_LEN, ts);
  if (entryKey) buf.set(entryKey, INDEX_PREFIX_LEN + 8);
  return buf;
}

/** The removal time of an X key. */
export function removalKeyTs(key: Uint8Array): bigint {
  return readU64(key, INDEX_PREFIX_LEN);
}

/** The entry key of an X key (a view, not a copy). */
export function removalKeyEntry(key: Uint8Array): Uint8Array {
  return key.subarray(INDEX_PREFIX_LEN + 8);
}

export function metaKey(key: Uint8Array): Uint8Array {
  const buf = new Uint8Array(key.length + 1);
  buf[0] = KeyTag.Meta;
  buf.set(key, 1);
  return buf;
}

export function systemKey(name: string): Uint8Array {
  const bytes = new TextEncoder().encode(name);
  const buf = new Uint8Array(bytes.length + 1);
  buf[0] = KeyTag.System;
  buf.set(bytes, 1);
  return buf;
}

export function encodeU64Value(n: bigint): Uint8Array {
  const buf = new Uint8Array(8);
  writeU64(buf, 0, n);
  return buf;
}

export function decodeU64Value(buf: Uint8Array): bigint {
  return readU64(buf, 0);
}

// Conflict keys: strings compared by equality in the commit log. Distinct prefixes per kind.

export function docConflictKey(key: DocKey): string {
  return `d${key.db}.${key.coll}.${key.id}`;
}

export function metaConflictKey(key: Uint8Array): string {
  return `m${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex')}`;
}

export function abstractConflictKey(key: string): string {
  return `a${key}`;
}
