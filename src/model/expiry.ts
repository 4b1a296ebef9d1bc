// Document expiry (fql-v4.md §4.2): a document whose `ttl` has passed already reads as absent;
// the collector then deletes it for real, so that its index entries go too.

import type { TxnContext } from './context';
import type { SchemaEntry } from './catalog';
import { isExpired, removeUserDocument } from './documents';
import { ttlCollectionKey } from './retention';
import type { Target } from './resolve';

/** Whether collection `coll` ever held a document with a ttl (only those are scanned). */
export async function mayHoldExpiring(ctx: TxnContext, db: bigint, coll: number): Promise<boolean> {
  return (await ctx.txn.getMeta(ttlCollectionKey(db, coll))) !== undefined;
}

/** Ids of up to `limit` live documents of `coll` whose ttl has passed at the snapshot. */
export async function expiredIds(ctx: TxnContext, db: bigint, coll: number, limit: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for await (const doc of ctx.txn.scan(db, coll)) {
    if (!isExpired(doc.version, ctx.snapshotTs)) continue;
    out.push(doc.id);
    if (out.length >= limit) break;
  }
  return out;
}

/** Deletes those of `ids` that are still expired (a write may have moved a ttl meanwhile). */
export async function expireDocuments(ctx: TxnContext, db: bigint, coll: SchemaEntry, ids: bigint[]): Promise<number> {
  const t: Target & { kind: 'doc' } = { kind: 'doc', db, coll, id: 0n, scoped: false };
  let n = 0;
  for (const id of ids) {
    const key = { db, coll: Number(coll.id), id };
    const version = await ctx.txn.getVersion(key);
    if (!version || version.action === 'delete' || !isExpired(version, ctx.snapshotTs)) continue;
    await removeUserDocument(ctx, { ...t, id }, { key, version }, []);
    n++;
  }
  return n;
}
