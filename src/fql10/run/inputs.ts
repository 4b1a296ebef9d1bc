// Decoded arguments and template values (wire/v10/args.ts InputValue) as runtime values.
//
// Scalars are the same classes on both sides; a null becomes a literal null at no position (the core's
// Value.Null(Src.Null span)); arrays and objects convert element by element. What names storage
// defines goes through two plugs: `@mod` names and `@doc`/`@ref` references. Decoding already refused
// a name its ArgResolver does not know (the core's "no such module", "no such collection"), so a
// module here is the standard library's or one `resolveGlobal` answers, and a reference reaches the
// document hook.

import type { ArgResolver, InputValue, ModuleKind } from '../../wire/v10/args';
import { Module } from '../../wire/v10/model';
import { Ref } from '../../values/types';
import { NULL_SPAN } from '../span';
import type { CallCtx } from '../runtime/table';
import { ModuleV, NullV, type RtValue } from '../runtime/values';
import { STDLIB_GLOBALS } from '../stdlib/globals';
import type { GlobalResolver } from './hooks';

/** A document reference as the value the query sees (a document, or a null document with its cause). */
export type DocumentResolver = (ctx: CallCtx, ref: Ref) => Promise<RtValue> | RtValue;

export interface InputPlugs {
  readonly resolveGlobal?: GlobalResolver;
  readonly resolveDocument?: DocumentResolver;
}

/** The runtime value of one decoded input. */
export async function toRuntime(v: InputValue, ctx: CallCtx, plugs: InputPlugs): Promise<RtValue> {
  if (v === null) return NullV.lit(NULL_SPAN);
  if (Array.isArray(v)) {
    const out = new Array<RtValue>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = await toRuntime(v[i], ctx, plugs);
    return out;
  }
  if (v instanceof Map) {
    const out = new Map<string, RtValue>();
    for (const [k, x] of v) out.set(k, await toRuntime(x, ctx, plugs));
    return out;
  }
  if (v instanceof Module) return module(v.name, ctx, plugs);
  if (v instanceof Ref) {
    if (plugs.resolveDocument === undefined) throw new Error(`no document resolver for the reference argument ${v.id}`);
    return plugs.resolveDocument(ctx, v);
  }
  return v;
}

async function module(name: string, ctx: CallCtx, plugs: InputPlugs): Promise<RtValue> {
  const m = STDLIB_GLOBALS.get(name) ?? (await plugs.resolveGlobal?.(ctx, name));
  // The ArgResolver let it through, so something defines it: a mismatch between the two is a fault.
  if (m === undefined) throw new Error(`the module argument ${name} resolves to nothing`);
  return m;
}

/** The standard library's module names: what arguments may name while no storage is plugged in. */
export const STDLIB_ARG_RESOLVER: ArgResolver = {
  module(name: string): ModuleKind | undefined {
    return STDLIB_GLOBALS.get(name) instanceof ModuleV ? { kind: 'other' } : undefined;
  },
  hasSchemaDoc: () => false,
};
