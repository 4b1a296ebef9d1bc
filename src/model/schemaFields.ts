// Helpers shared by the native document types: name uniqueness and field order.

import type { TxnContext } from './context';
import { errors, type Position } from '../values/errors';
import type { Obj, Value } from '../values/types';
import { deepMerge, stripNulls, validateName, type Failures } from './data';
import type { NamedNative } from './catalog';
import { schemaOf } from './resolve';

/** A schema name is unique within its database's native collection (`self` may keep its own). */
export async function uniqueName(ctx: TxnContext, db: bigint, native: NamedNative, name: string, label: string, pos: Position, self?: bigint): Promise<void> {
  const existing = (await schemaOf(ctx, db)).get(native, name);
  if (existing && existing.id !== self) throw errors.alreadyExists(`${label} already exists.`, pos);
}

/** A name given to an existing schema document (rename): valid, and not another document's. */
export async function checkRename(ctx: TxnContext, db: bigint, native: NamedNative, name: Value | undefined, label: string, f: Failures, pos: Position, self: bigint): Promise<void> {
  const valid = validateName(name, f);
  if (valid) await uniqueName(ctx, db, native, valid, label, pos, self);
}

/** The fields of `o` in `order` (Fauna's rendering order); other fields follow only if `keepOthers`. */
export function inOrder(o: Obj, order: readonly string[], keepOthers = false): Obj {
  const out: Obj = new Map();
  for (const k of order) if (o.has(k)) out.set(k, o.get(k) as Value);
  if (keepOthers) for (const [k, v] of o) if (!out.has(k)) out.set(k, v);
  return out;
}

export interface PatchRules {
  /** Fields a user may write. */
  writable: readonly string[];
  /** Fields Replace keeps when they are not given (the name, a key's hash, …). */
  keep?: readonly string[];
  /** Fields Update cannot remove with null (required ones). */
  required?: readonly string[];
  /** Object fields Update merges recursively (default: `data`). */
  merged?: readonly string[];
}

/** Update (recursive merge, null removes) or Replace (writable fields overwritten, `keep` kept). */
export function applyPatch(old: Obj, params: Obj, rules: PatchRules, replace: boolean): Obj {
  const keep = rules.keep ?? [];
  if (replace) {
    const out: Obj = new Map();
    for (const k of keep) if (old.has(k)) out.set(k, old.get(k) as Value);
    for (const k of rules.writable) {
      const v = params.get(k);
      if (v !== undefined && v !== null) out.set(k, stripNulls(v));
    }
    return inOrder(out, [...keep, ...rules.writable], true);
  }
  const merged = rules.merged ?? ['data'];
  const out: Obj = new Map(old);
  for (const k of rules.writable) {
    if (!params.has(k)) continue;
    const v = params.get(k) as Value;
    if (v === null) {
      if (!rules.required?.includes(k)) out.delete(k);
    } else out.set(k, merged.includes(k) ? deepMerge(old.get(k) ?? null, v) : stripNulls(v));
  }
  return out;
}
