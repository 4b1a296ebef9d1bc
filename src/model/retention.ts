// History retention (fql-v4.md §4.4, DECISIONS #1): a collection keeps every version for its
// `history_days`; reads below its minimum valid time (MVT) are refused, and the collector may
// drop what lies below it. An index's MVT is the highest of its source collections' MVTs.

import type { TxnContext } from './context';
import { errors } from '../values/errors';
import type { SchemaEntry } from './catalog';
import type { IndexDef } from './indexDef';
import { schemaOf } from './resolve';
import { formatTime } from '../wire/time';

const DAY_MICROS = 86_400_000_000n;

export const retention = {
  /** Added below now − history_days so cursors stay stable (15 minutes; configurable for tests). */
  graceMicros: 15n * 60_000_000n,
};

/** MVT of a collection (its stored fields) at time `now`: undefined = history kept forever. */
export function collectionMvt(fields: SchemaEntry['fields'], now: bigint): bigint | undefined {
  const days = fields.get('history_days');
  if (typeof days !== 'bigint') return undefined;
  return now - days * DAY_MICROS - retention.graceMicros;
}

/** Minimum valid time of a collection at the snapshot; undefined = forever. */
export function minValidTime(ctx: TxnContext, coll: SchemaEntry): bigint | undefined {
  return collectionMvt(coll.fields, ctx.snapshotTs);
}

/** 400 bad request when `at` lies below the collection's MVT. */
export function checkMinValidTime(ctx: TxnContext, coll: SchemaEntry, at: bigint): void {
  const mvt = minValidTime(ctx, coll);
  if (mvt !== undefined && at < mvt)
    throw errors.badRequest(
      `Requested timestamp ${formatTime(at * 1000n)} less than minimum allowed timestamp ${formatTime(mvt * 1000n)}.`,
    );
}

/** The user collections an index reads (all of them for the `_` wildcard). */
export function indexSourceCollections(all: SchemaEntry[], def: IndexDef): SchemaEntry[] {
  const wildcard = def.sources.some((s) => s.collection === '_');
  return all.filter((c) => wildcard || def.sources.some((s) => s.collection === c.name));
}

/** Reading an index set at `at`: refused below the MVT of any of its source collections. */
export async function checkIndexMinValidTime(ctx: TxnContext, def: IndexDef, at: bigint): Promise<void> {
  const schema = await schemaOf(ctx, def.db);
  for (const coll of indexSourceCollections(schema.all('collections'), def)) checkMinValidTime(ctx, coll, at);
}

/** The MVT below which an index's history may be collected: undefined while any source keeps history forever. */
export function indexMvt(all: SchemaEntry[], def: IndexDef, now: bigint): bigint | undefined {
  let floor: bigint | undefined;
  for (const coll of indexSourceCollections(all, def)) {
    const mvt = collectionMvt(coll.fields, now);
    if (mvt === undefined) return undefined;
    if (floor === undefined || mvt < floor) floor = mvt;
  }
  return floor;
}

/** Meta key set once a collection has held a document with a `ttl`: the collector scans only those. */
export function ttlCollectionKey(db: bigint, coll: number): Uint8Array {
  const b = Buffer.alloc(20);
  b.write('ttlcoll:', 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, db), 8);
  b.writeUInt32BE(coll, 16);
  return b;
}

const MARK = Uint8Array.of(1);

/** Records that collection `coll` may hold documents that expire. */
export function noteTtl(ctx: TxnContext, db: bigint, coll: number, fields: Map<string, unknown>): void {
  if (fields.has('ttl')) ctx.txn.putMeta(ttlCollectionKey(db, coll), MARK);
}
