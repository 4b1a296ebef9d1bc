// `order(...)` arguments (SetCompanion.collectOrderings): an accessor, `asc(accessor)` or
// `desc(accessor)`, each taking one parameter.

import { Failures } from '../runtime/failure';
import type { Ordering } from '../runtime/sets';
import type { CallCtx } from '../runtime/table';
import { p, typeName } from '../runtime/types';
import { arityAccepts, isFunc, type Func, type RtValue } from '../runtime/values';

/** The declared type is a union, which casts anything; collectOrderings checks. */
export const orderingParam = p('ordering');

export function collectOrderings(ctx: CallCtx, ords: readonly RtValue[]): Ordering[] {
  return ords.map((v, i) => {
    const checked = (f: Func, ascending: boolean): Ordering => {
      if (!arityAccepts(f.arity, 1)) throw Failures.invalidFuncParamArity(`ordering${i}`, 1, f.arity, ctx.trace);
      return { accessor: f, ascending };
    };
    if (isFunc(v)) return checked(v, true);
    if (v instanceof Map && v.size === 1) {
      const asc = v.get('asc');
      if (asc !== undefined && isFunc(asc)) return checked(asc, true);
      const desc = v.get('desc');
      if (desc !== undefined && isFunc(desc)) return checked(desc, false);
    }
    throw Failures.invalidArgumentType(`ordering${i}`, 'Function', typeName(v), ctx.trace);
  });
}
