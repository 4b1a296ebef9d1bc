// The parts every type's table has (BaseFieldTable, Prototype, SingletonObject): the comparison
// operators, `toString()`, and how modules and companions are made.

import { cmp, isEqualIn, prepareCompare } from '../runtime/cmp';
import { FieldTable, type CallCtx } from '../runtime/table';
import { p } from '../runtime/types';
import { toDisplayStringIn } from '../runtime/toString';
import { ModuleV, type RtValue } from '../runtime/values';

/** `a` and `b` compared by `cmp` (documents learning their ids first), tested by `test`. */
function ordered(ctx: CallCtx, a: RtValue, b: RtValue, test: (n: number) => boolean): boolean | Promise<boolean> {
  const answer = (): boolean => {
    const c = cmp(a, b);
    return c !== undefined && test(c);
  };
  const ready = prepareCompare(ctx, [a, b]);
  return ready === undefined ? answer() : ready.then(answer);
}

function comparisons(t: FieldTable): FieldTable {
  const other = [p('other')];
  t.op('==', other, (c, self: RtValue, [o]) => isEqualIn(c, self, o));
  t.op('!=', other, (c, self: RtValue, [o]) => {
    const eq = isEqualIn(c, self, o);
    return typeof eq === 'boolean' ? !eq : eq.then((e) => !e);
  });
  // Values of unrelated types compare false (BaseFieldTable.unrelatedTypesComparison).
  t.op('<', other, (c, self: RtValue, [o]) => ordered(c, self, o, (n) => n < 0));
  t.op('<=', other, (c, self: RtValue, [o]) => ordered(c, self, o, (n) => n <= 0));
  t.op('>', other, (c, self: RtValue, [o]) => ordered(c, self, o, (n) => n > 0));
  t.op('>=', other, (c, self: RtValue, [o]) => ordered(c, self, o, (n) => n >= 0));
  return t;
}

/** A type's table (Prototype): comparisons, and `toString()` unless `withToString` is false
 *  (structs and documents, whose fields may be called `toString`). */
export function prototype(selfName: string, withToString = true): FieldTable {
  const t = comparisons(new FieldTable(selfName));
  if (withToString) t.method('toString', [], (c, self: RtValue) => toDisplayStringIn(c, self));
  return t;
}

/** A table for something else with the comparisons (documents, user functions). */
export function baseTable(selfName: string): FieldTable {
  return comparisons(new FieldTable(selfName));
}

/** A module: a named singleton whose `isa` holds only for itself (ModuleObject). */
export function moduleObject(name: string, parent?: ModuleV): { module: ModuleV; table: FieldTable } {
  const table = comparisons(new FieldTable(name));
  const module: ModuleV = new ModuleV(name, table, (v) => v === module, parent);
  return { module, table };
}

/** A type's companion (`String`, `Int`…): `x isa String` holds for strings (CompanionObject). */
export function companion(name: string, contains: (v: RtValue) => boolean): { module: ModuleV; table: FieldTable } {
  const table = comparisons(new FieldTable(name));
  return { module: new ModuleV(name, table, contains), table };
}

