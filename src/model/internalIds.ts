// Internal ids of collections and indexes come from a per-database counter that never goes back,
// so a deleted collection's or index's id (whose data may not be purged yet) is never reused.

import type { TxnContext } from './context';
import { errors } from '../values/errors';
import { encodeDbId } from './auth';
import type { NamedNative } from './catalog';

export async function nextInternalId(ctx: TxnContext, db: bigint, native: NamedNative, first: number, last = 0xffffffff): Promise<bigint> {
  const key = Buffer.alloc(13 + native.length);
  key.write('seq:', 0, 'latin1');
  key.writeBigUInt64BE(db, 4);
  key.write(`:${native}`, 12, 'latin1');
  const stored = await ctx.txn.getMeta(key);
  const id = stored ? Buffer.from(stored).readBigUInt64BE(0) : BigInt(first);
  if (id > BigInt(last)) throw errors.badRequest('Maximum sequential ID reached.');
  ctx.txn.putMeta(key, encodeDbId(id + 1n));
  return id;
}
