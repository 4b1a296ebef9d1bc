// Which table answers for a value (FieldTable.get).

import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { ValueSet } from '../runtime/sets';
import type { FieldTable } from '../runtime/table';
import { ExtValue, IdV, isInt32, Lambda, ModuleV, NativeFn, NullV, SetCursorV, SmallLong, type RtValue } from '../runtime/values';
import { ArrayPrototype } from './arrays';
import { DatePrototype } from './date';
import { DoublePrototype, IntPrototype, LongPrototype } from './numbers';
import { StructPrototype } from './objects';
import {
  BooleanPrototype,
  BytesPrototype,
  FunctionPrototype,
  IDPrototype,
  NullPrototype,
  SetCursorPrototype,
  TransactionTimePrototype,
} from './scalars';
import { SetPrototype } from './sets';
import { StringPrototype } from './strings';
import { TimePrototype } from './time';

export function tableOf(v: RtValue): FieldTable {
  switch (typeof v) {
    case 'string':
      return StringPrototype;
    case 'bigint':
      return isInt32(v) ? IntPrototype : LongPrototype;
    case 'number':
      return DoublePrototype;
    case 'boolean':
      return BooleanPrototype;
  }
  if (v instanceof NullV) return NullPrototype;
  if (v instanceof SmallLong) return LongPrototype;
  if (Array.isArray(v)) return ArrayPrototype;
  if (v instanceof Map) return StructPrototype;
  if (v instanceof ModuleV) return v.table;
  if (v instanceof ValueSet) return SetPrototype;
  if (v instanceof NativeFn) return v.ownTable ?? FunctionPrototype;
  if (v instanceof Lambda) return FunctionPrototype;
  if (v instanceof ExtValue) return v.table();
  if (v instanceof Time) return TimePrototype;
  if (v instanceof DateV) return DatePrototype;
  if (v instanceof Bytes) return BytesPrototype;
  if (v instanceof IdV) return IDPrototype;
  if (v instanceof TxnTime) return TransactionTimePrototype;
  if (v instanceof SetCursorV) return SetCursorPrototype;
  throw new TypeError(`not an FQL value: ${String(v)}`);
}
