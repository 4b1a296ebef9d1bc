// Structs (stdlib/Structs.scala: fields are the keys, `[key]` reads one) and the `Object` module
// (stdlib/Objects.scala).

import { Failures, nullCauseFailure } from '../runtime/failure';
import { structFieldRead } from '../runtime/hints';
import { frameSpan, type CallCtx } from '../runtime/table';
import { p, tt, typeName } from '../runtime/types';
import { toDisplayStringIn } from '../runtime/toString';
import { ExtValue, NullV, type RtValue, type Struct } from '../runtime/values';
import { companion, prototype } from './base';
import type { Name } from '../ast';

const t = prototype('{ *: Any }', false);
export const StructPrototype = t;
/** Field `name` of a struct (read at `name.span`), or the null of a missing field. */
function fieldOf(ctx: CallCtx, self: Struct, name: Name): RtValue {
  const v = self.get(name.str);
  structFieldRead(ctx, self, name.str, name.span, v);
  return v ?? NullV.missingField(self, name);
}
t.dynGet = (c, self: Struct, name: Name) => fieldOf(c, self, name);
t.access(p('key', tt.Str), (c, self: Struct, key: string, span) => fieldOf(c, self, { str: key, span }));

export const StructCompanion = companion('Struct', (v) => v instanceof Map);

async function structOf(ctx: CallCtx, v: RtValue, arg: string): Promise<Struct> {
  if (v instanceof Map) return v;
  if (v instanceof ExtValue) {
    const s = await v.toStruct(ctx);
    if (!(s instanceof NullV)) return s;
    const err = nullCauseFailure(s.cause, ctx.trace!);
    const msg = err.failureMessage;
    let out = Failures.invalidArgument(arg, msg.charAt(0).toLowerCase() + msg.slice(1), err.trace);
    for (const h of err.errorHints) out = out.withHint(h);
    throw out;
  }
  throw Failures.invalidArgument(arg, 'expected either an object or a document', ctx.trace);
}

export const ObjectModule = companion('Object', (v) => v instanceof Map || v instanceof ExtValue);
const o = ObjectModule.table;
o.method('keys', [p('object', tt.Object)], async (ctx, _m, [v]) => [...(await structOf(ctx, v, 'object')).keys()]);
o.method('values', [p('object', tt.Object)], async (ctx, _m, [v]) => [...(await structOf(ctx, v, 'object')).values()]);
o.method('entries', [p('object', tt.Object)], async (ctx, _m, [v]) => [...(await structOf(ctx, v, 'object'))].map(([k, x]) => [k, x]));
o.method('fromEntries', [p('entries', tt.Array)], (ctx, _m, [es]: RtValue[][]) => {
  const out = new Map<string, RtValue>();
  es.forEach((e, i) => {
    if (!Array.isArray(e))
      throw Failures.invalidArgument('entries', `expected an array for each element of the outer array, but saw type ${typeName(e)} at index ${i}`, ctx.trace);
    if (e.length !== 2) throw Failures.invalidArgument('entries', `expected inner array of length 2 but saw length ${e.length} at index ${i}`, ctx.trace);
    const k = e[0];
    if (typeof k !== 'string')
      throw Failures.invalidArgument('entries', `expected a string for the first element of each inner array, but saw type ${typeName(k)} at index ${i}`, ctx.trace);
    out.set(k, e[1]);
  });
  return out;
});
o.method('assign', [p('destination', tt.Object), p('source', tt.Object)], async (ctx, _m, [d, s]) => {
  const dst = await structOf(ctx, d, 'destination');
  const src = await structOf(ctx, s, 'source');
  return new Map([...dst, ...src]);
});
function select(ctx: CallCtx, obj: Struct, path: RtValue[]): RtValue | undefined {
  let cur: RtValue = obj;
  for (const k of path) {
    if (typeof k !== 'string') throw Failures.invalidArgument('path', 'expected an array of strings', ctx.trace);
    if (!(cur instanceof Map)) return undefined;
    const next: RtValue | undefined = cur.get(k);
    if (next === undefined) return undefined;
    cur = next;
  }
  return cur;
}
o.method('select', [p('object', tt.Struct), p('path', tt.Array)], (ctx, _m, [obj, path]: [Struct, RtValue[]]) =>
  select(ctx, obj, path) ?? NullV.noSuchElement('no value in object found at path', frameSpan(ctx)),
);
o.method('hasPath', [p('object', tt.Struct), p('path', tt.Array)], (ctx, _m, [obj, path]: [Struct, RtValue[]]) => select(ctx, obj, path) !== undefined);
o.method('toString', [p('object')], (c, _m, [v]) => toDisplayStringIn(c, v));

