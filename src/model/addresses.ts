// Storage keeps refs by address (see refNames.ts for the way back): before a value is stored or
// becomes part of an index key, every ref in it that came by name is resolved to its address.

import type { TxnContext } from './context';
import type { Position } from '../values/errors';
import { mapRefs, refsIn } from '../values/refWalk';
import { Ref, type Value } from '../values/types';
import { addrOfTarget, assertResolved, resolveRef } from './resolve';

/** `ref` carrying its address; a ref to a schema document or database that does not exist is `invalid ref`. */
export async function addressedRef(ctx: TxnContext, ref: Ref, pos: Position): Promise<Ref> {
  if (ref.addr) return ref;
  const t = await resolveRef(ctx, ref, pos);
  assertResolved(t, pos);
  return ref.at(addrOfTarget(t)!); // only a schema document that does not exist has none
}

/** `v` with every ref in it carrying its address (the value itself when all already do). */
export async function addressed<T extends Value>(ctx: TxnContext, v: T, pos: Position): Promise<T> {
  if (v === null || typeof v !== 'object') return v;
  const missing = refsIn(v).filter((r) => !r.addr);
  if (missing.length === 0) return v;
  const found = new Map<Ref, Ref>();
  for (const r of missing) if (!found.has(r)) found.set(r, await addressedRef(ctx, r, pos));
  return mapRefs(v, (r) => found.get(r) ?? r) as T;
}

/** Each of `vs` addressed (Match terms, cursors, range bounds). */
export async function addressedAll(ctx: TxnContext, vs: readonly Value[], pos: Position): Promise<Value[]> {
  const out: Value[] = [];
  for (const v of vs) out.push(await addressed(ctx, v, pos));
  return out;
}
