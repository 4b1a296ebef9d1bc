// Runtime values to the values a response carries (FQL2ValueMaterializer): nulls lose their cause,
// IDs become strings, sets their first page, functions their names.

import { FunctionValue, Module, SetPage, SetToken, type MValue } from '../../wire/v10/model';
import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { structMaterialized } from '../runtime/hints';
import { ValueSet } from '../runtime/sets';
import type { CallCtx } from '../runtime/table';
import { ExtValue, IdV, Lambda, ModuleV, NativeFn, NullV, SetCursorV, SmallLong, type RtValue } from '../runtime/values';

function moduleOf(m: ModuleV): Module {
  return new Module(m.name, m.parent === undefined ? undefined : moduleOf(m.parent));
}

/** `v` for the response; a set becomes its first page, and a set inside a page its cursor. */
export async function materialize(ctx: CallCtx, v: RtValue, inPage = false): Promise<MValue> {
  switch (typeof v) {
    case 'string':
    case 'bigint':
    case 'number':
    case 'boolean':
      return v;
  }
  if (v instanceof NullV) return null;
  if (Array.isArray(v)) {
    const out: MValue[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = await materialize(ctx, v[i], inPage);
    return out;
  }
  if (v instanceof Map) {
    structMaterialized(ctx, v);
    const out = new Map<string, MValue>();
    for (const [k, x] of v) out.set(k, await materialize(ctx, x, inPage));
    return out;
  }
  if (v instanceof Time || v instanceof DateV || v instanceof Bytes || v instanceof TxnTime || v instanceof SmallLong) return v;
  if (v instanceof IdV) return v.value.toString();
  if (v instanceof ModuleV) return moduleOf(v);
  if (v instanceof ValueSet) {
    if (inPage) return new SetToken(ctx.hooks.cursors.encode({ set: v, cont: null }, v.initialPageSize()));
    const page = await v.paginate(ctx, v.initialPageSize());
    const data: MValue[] = [];
    for (const e of page.elems) data.push(await materialize(ctx, e.value, true));
    return page.after === undefined ? new SetPage(data) : new SetPage(data, ctx.hooks.cursors.encode(page.after, page.elems.length));
  }
  if (v instanceof SetCursorV) return v.token;
  if (v instanceof Lambda) return new FunctionValue();
  if (v instanceof NativeFn) return new FunctionValue(v.name);
  if (v instanceof ExtValue) return v.materialize(ctx);
  throw new TypeError(`not an FQL value: ${String(v)}`);
}
