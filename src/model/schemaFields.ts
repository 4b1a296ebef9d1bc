// Helpers shared by the native document types: name uniqueness and field order.

import type { EvalContext } from '../fql/context';
import { errors, type Position } from '../values/errors';
import type { Obj, Value } from '../values/types';
import type { NamedNative } from './catalog';
import { schemaOf } from './resolve';

/** A schema name is unique within its database's native collection (`self` may keep its own). */
export async function uniqueName(ctx: EvalContext, db: bigint, native: NamedNative, name: string, label: string, pos: Position, self?: bigint): Promise<void> {
  const existing = (await schemaOf(ctx, db)).get(native, name);
  if (existing && existing.id !== self) throw errors.alreadyExists(`${label} already exists.`, pos);
}

/** The fields of `o` in `order` (Fauna's rendering order); other fields follow only if `keepOthers`. */
export function inOrder(o: Obj, order: readonly string[], keepOthers = false): Obj {
  const out: Obj = new Map();
  for (const k of order) if (o.has(k)) out.set(k, o.get(k) as Value);
  if (keepOthers) for (const [k, v] of o) if (!out.has(k)) out.set(k, v);
  return out;
}
