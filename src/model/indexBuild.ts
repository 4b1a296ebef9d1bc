// Building an index from the documents already in its sources. Each document's history is
// replayed, so the index's past (reads at a time, set events) is right, not only its present.

import type { TxnContext } from './context';
import type { IndexDef, IndexEntryValue } from './indexDef';
import { deriveEntries, entryKey, entryPayload, nativeOfSource } from './indexer';
import { NATIVE_IDS } from './catalog';
import type { NativeName } from '../values/types';
import { schemaOf } from './resolve';
import { Ref } from '../values/types';

/** Index builds within the creating transaction are limited to this many document versions. */
export const SYNC_BUILD_EVENTS = 128;

export interface SourceCollection {
  /** The source name: a user collection's name, or a native source's (`@tokens`). */
  name: string;
  id: number;
  /** Set for a native collection (`tokens`). */
  native?: string;
}

/** The collections an index covers, in internal-id order (a wildcard covers every collection). */
export async function sourceCollections(ctx: TxnContext, def: IndexDef): Promise<SourceCollection[]> {
  const schema = await schemaOf(ctx, def.db);
  const wildcard = def.sources.some((s) => s.collection === '_');
  const natives: SourceCollection[] = [];
  for (const s of def.sources) {
    const native = nativeOfSource(s.collection);
    if (native !== undefined) natives.push({ name: s.collection, id: NATIVE_IDS[native as NativeName], native });
  }
  return schema
    .all('collections')
    .filter((c) => wildcard || def.sources.some((s) => s.collection === c.name))
    .map((c): SourceCollection => ({ name: c.name, id: Number(c.id) }))
    .concat(natives)
    .sort((a, b) => a.id - b.id);
}

/** Counts document versions in the sources, stopping once the count passes `limit`. */
export async function countEvents(ctx: TxnContext, db: bigint, colls: SourceCollection[], limit: number): Promise<number> {
  let n = 0;
  for (const c of colls) {
    for await (const doc of ctx.txn.scan(db, c.id)) {
      for await (const _ of ctx.txn.history({ db, coll: c.id, id: doc.id })) if (++n > limit) return n;
    }
  }
  return n;
}

/** Indexes one document: its past as history events, its present as current entries. */
export async function indexDocument(ctx: TxnContext, def: IndexDef, coll: SourceCollection, id: bigint): Promise<void> {
  const addr = { db: def.db, coll: coll.id, id };
  const ref = coll.native !== undefined
    ? new Ref(String(id), Ref.native(coll.native), undefined, addr)
    : new Ref(String(id), new Ref(coll.name, new Ref('collections'), undefined, { db: def.db, coll: NATIVE_IDS.collections, id: BigInt(coll.id) }), undefined, addr);
  let previous = new Map<string, { key: Uint8Array; entry: IndexEntryValue }>();
  // Every key the document ever produced: past reads find an entry through its current record.
  const everSeen = new Map<string, { key: Uint8Array; entry: IndexEntryValue }>();
  for await (const version of ctx.txn.history({ db: def.db, coll: coll.id, id })) {
    const ts = typeof version.ts === 'bigint' ? version.ts : ctx.snapshotTs;
    const entries = version.action === 'delete' || !version.data ? [] : await deriveEntries(def, { ref, ts, fields: version.data }, ctx.evalBinding);
    const current = new Map(entries.map((entry) => {
      const key = entryKey(def, entry);
      return [Buffer.from(key).toString('latin1'), { key, entry }] as const;
    }));
    if (typeof version.ts === 'bigint') {
      for (const [k, { key, entry }] of previous)
        if (!current.has(k)) ctx.txn.putIndexHistory(def.db, def.id, { key, action: 'remove', payload: entryPayload(entry) }, ts);
      for (const [k, { key, entry }] of current)
        if (!previous.has(k)) ctx.txn.putIndexHistory(def.db, def.id, { key, action: 'add', payload: entryPayload(entry) }, ts);
    }
    previous = current;
    for (const [k, v] of current) everSeen.set(k, v);
  }
  // Unique is not enforced here: turning it on does not remove existing duplicates.
  for (const { key, entry } of previous.values()) ctx.txn.putIndexEntry(def.db, def.id, { key, action: 'add', payload: entryPayload(entry) });
  for (const [k, { key, entry }] of everSeen)
    if (!previous.has(k)) ctx.txn.putIndexEntry(def.db, def.id, { key, action: 'remove', payload: entryPayload(entry) });
}

/** Builds the whole index inside the current transaction (small sources only). */
export async function buildNow(ctx: TxnContext, def: IndexDef, colls: SourceCollection[]): Promise<void> {
  for (const c of colls) {
    for await (const doc of ctx.txn.scan(def.db, c.id)) await indexDocument(ctx, def, c, doc.id);
  }
}

/** Meta key of a background build's progress, and its encoding. */
export function buildStateKey(db: bigint, index: number): Uint8Array {
  const b = Buffer.alloc(6 + 8 + 4);
  b.write('build:', 0, 'latin1');
  b.writeBigUInt64BE(db, 6);
  b.writeUInt32BE(index, 14);
  return b;
}

export interface BuildState {
  /** Internal id of the collection being scanned. */
  coll: number;
  /** Next document id to index in it. */
  nextId: bigint;
  done: number;
}

export function encodeBuildState(s: BuildState): Uint8Array {
  const b = Buffer.alloc(4 + 8 + 8);
  b.writeUInt32BE(s.coll, 0);
  b.writeBigUInt64BE(s.nextId, 4);
  b.writeBigUInt64BE(BigInt(s.done), 12);
  return b;
}

export function decodeBuildState(bytes: Uint8Array): BuildState {
  const b = Buffer.from(bytes);
  return { coll: b.readUInt32BE(0), nextId: b.readBigUInt64BE(4), done: Number(b.readBigUInt64BE(12)) };
}

/** The list of pending background builds, so they resume after a restart. */
export const PENDING_BUILDS_KEY = Buffer.from('builds', 'latin1');

export function encodeBuildList(list: { db: bigint; index: number }[]): Uint8Array {
  const b = Buffer.alloc(list.length * 12);
  list.forEach((x, i) => {
    b.writeBigUInt64BE(x.db, i * 12);
    b.writeUInt32BE(x.index, i * 12 + 8);
  });
  return b;
}

export function decodeBuildList(bytes: Uint8Array | undefined): { db: bigint; index: number }[] {
  if (!bytes) return [];
  const b = Buffer.from(bytes);
  const out: { db: bigint; index: number }[] = [];
  for (let i = 0; i + 12 <= b.length; i += 12) out.push({ db: b.readBigUInt64BE(i), index: b.readUInt32BE(i + 8) });
  return out;
}

/** Registers a background build: progress starts at the first source collection. */
export async function scheduleBuild(ctx: TxnContext, def: IndexDef): Promise<void> {
  const list = decodeBuildList(await ctx.txn.getMeta(PENDING_BUILDS_KEY));
  list.push({ db: def.db, index: def.id });
  ctx.txn.putMeta(PENDING_BUILDS_KEY, encodeBuildList(list));
  ctx.txn.putMeta(buildStateKey(def.db, def.id), encodeBuildState({ coll: 0, nextId: 0n, done: 0 }));
  ctx.indexBuilds.push({ db: def.db, index: def.id });
}


/**
 * The source documents a build has still to index, in the builder's order: collections by internal
 * id from the one reached, documents by id from the position reached in it.
 */
export async function* docsAhead(ctx: TxnContext, def: IndexDef, state: BuildState): AsyncGenerator<{ coll: SourceCollection; id: bigint }> {
  for (const coll of (await sourceCollections(ctx, def)).filter((c) => c.id >= state.coll)) {
    const fromId = coll.id === state.coll ? state.nextId : 0n;
    for await (const doc of ctx.txn.scan(def.db, coll.id, { fromId })) yield { coll, id: doc.id };
  }
}

/** How far a background build has got (GET /api/v1/index-builds, docs/index-builds-api.md). */
export interface BuildProgress {
  /** Documents indexed so far. */
  done: number;
  /** `done` plus the documents still to scan; null when more than the counting limit remain. */
  total: number | null;
  /** The source collection being scanned; null before the first batch. */
  collection: string | null;
  /** Every source collection, in the order they are scanned. */
  collections: string[];
}

/**
 * The progress of `def`'s background build, or undefined when none is pending. The documents still
 * to scan are counted from the position reached, at most `countLimit` of them, so that a poll costs
 * a bounded read however large the sources are.
 */
export async function buildProgress(ctx: TxnContext, def: IndexDef, countLimit: number): Promise<BuildProgress | undefined> {
  const stored = await ctx.txn.getMeta(buildStateKey(def.db, def.id));
  if (!stored) return undefined;
  const state = decodeBuildState(stored);
  const colls = await sourceCollections(ctx, def);
  let remaining = 0;
  for await (const _ of docsAhead(ctx, def, state)) if (++remaining > countLimit) break;
  const reached = colls.find((c) => c.id === state.coll); // none before the first batch (coll 0)
  return {
    done: state.done,
    total: remaining > countLimit ? null : state.done + remaining,
    collection: reached?.name ?? null,
    collections: colls.map((c) => c.name),
  };
}
