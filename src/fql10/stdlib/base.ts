// The parts every type's table has (BaseFieldTable, Prototype, SingletonObject): the comparison
// operators, `toString()`, and how modules and companions are made.

import { cmp, isEqualIn } from '../runtime/cmp';
import { FieldTable } from '../runtime/table';
import { p } from '../runtime/types';
import { toDisplayStringIn } from '../runtime/toString';
import { ModuleV, type RtValue } from '../runtime/values';

function comparisons(t: FieldTable): FieldTable {
  const other = [p('other')];
  t.op('==', other, (c, self: RtValue, [o]) => isEqualIn(c, self, o));
  t.op('!=', other, (c, self: RtValue, [o]) => {
    const eq = isEqualIn(c, self, o);
    return typeof eq === 'boolean' ? !eq : eq.then((e) => !e);
  });
  // Values of unrelated types compare false (BaseFieldTable.unrelatedTypesComparison).
  t.op('<', other, (_c, self: RtValue, [o]) => { const c = cmp(self, o); return c !== undefined && c < 0; });
  t.op('<=', other, (_c, self: RtValue, [o]) => { const c = cmp(self, o); return c !== undefined && c <= 0; });
  t.op('>', other, (_c, self: RtValue, [o]) => { const c = cmp(self, o); return c !== undefined && c > 0; });
  t.op('>=', other, (_c, self: RtValue, [o]) => { const c = cmp(self, o); return c !== undefined && c >= 0; });
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

