// Type names (ValueType.displayString of a value's dynamic type) and the parameter types native
// functions declare (TypeTag.scala: each casts an argument or refuses it).

import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { ValueSet } from './sets';
import type { TypeTag } from './table';
import { ExtValue, IdV, isFunc, isInt32, Lambda, ModuleV, NativeFn, NullV, SetCursorV, SmallLong, type RtValue } from './values';

export function typeName(v: RtValue): string {
  switch (typeof v) {
    case 'boolean':
      return 'Boolean';
    case 'string':
      return 'String';
    case 'bigint':
      return isInt32(v) ? 'Int' : 'Long';
    case 'number':
      return 'Double';
  }
  if (v instanceof NullV) return 'Null';
  if (v instanceof SmallLong) return 'Long';
  if (Array.isArray(v)) return 'Array<Any>';
  if (v instanceof Map) return '{ *: Any }';
  if (v instanceof ValueSet) return 'Set<Any>';
  if (v instanceof Lambda) return 'Lambda';
  if (v instanceof NativeFn) return 'Function';
  if (v instanceof ModuleV) return v.name;
  if (v instanceof Time) return 'Time';
  if (v instanceof DateV) return 'Date';
  if (v instanceof Bytes) return 'Bytes';
  if (v instanceof IdV) return 'ID';
  if (v instanceof TxnTime) return 'TransactionTime';
  if (v instanceof SetCursorV) return 'SetCursor';
  if (v instanceof ExtValue) return v.typeName;
  return 'Any';
}

function tag(display: string, test: (v: RtValue) => boolean): TypeTag {
  return { display, cast: (v) => (test(v) ? v : undefined) };
}

const isWhole = (d: number) => Number.isFinite(d) && Math.trunc(d) === d;

export const tt = {
  Any: tag('Any', () => true),
  /** A number, a SmallLong as its bigint (`Math.abs` and friends that keep a Long use tt.NumberAsIs). */
  Number: {
    display: 'Number',
    cast: (v: RtValue): RtValue | undefined => (typeof v === 'bigint' || typeof v === 'number' ? v : v instanceof SmallLong ? v.value : undefined),
  } as TypeTag,
  NumberAsIs: tag('Number', (v) => typeof v === 'bigint' || typeof v === 'number' || v instanceof SmallLong),
  /** TypeTag.Int: an Int, or a Long or Double holding one. */
  Int: {
    display: 'Int',
    cast(v: RtValue): RtValue | undefined {
      if (v instanceof SmallLong) return v.value;
      if (typeof v === 'bigint') return isInt32(v) ? v : undefined;
      if (typeof v === 'number' && isWhole(v) && v >= -2147483648 && v <= 2147483647) return BigInt(v);
      return undefined;
    },
  } as TypeTag,
  Long: {
    display: 'Long',
    cast(v: RtValue): RtValue | undefined {
      if (v instanceof SmallLong) return v.value;
      if (typeof v === 'bigint') return v;
      // Scala's Double.longValue saturates.
      if (typeof v === 'number' && isWhole(v)) return BigInt.asIntN(64, BigInt(Math.max(Math.min(v, 9223372036854775807), -9223372036854775808)));
      return undefined;
    },
  } as TypeTag,
  Double: {
    display: 'Double',
    cast(v: RtValue): RtValue | undefined {
      if (v instanceof SmallLong) return Number(v.value);
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      return undefined;
    },
  } as TypeTag,
  Str: tag('String', (v) => typeof v === 'string'),
  Boolean: tag('Boolean', (v) => typeof v === 'boolean'),
  Null: tag('Null', (v) => v instanceof NullV),
  Bytes: tag('Bytes', (v) => v instanceof Bytes),
  Time: tag('Time', (v) => v instanceof Time),
  Date: tag('Date', (v) => v instanceof DateV),
  Array: tag('Array<Any>', (v) => Array.isArray(v)),
  Struct: tag('{ *: Any }', (v) => v instanceof Map),
  Object: tag('{ *: Any }', (v) => v instanceof Map || v instanceof ExtValue),
  Set: tag('Set<Any>', (v) => v instanceof ValueSet),
  Function: tag('Function', isFunc),
  /** TypeTag.ID: an ID, an integer, or a string of one. */
  ID: {
    display: 'ID',
    cast(v: RtValue): RtValue | undefined {
      if (v instanceof IdV) return v;
      if (typeof v === 'bigint') return new IdV(v);
      if (v instanceof SmallLong) return new IdV(v.value);
      if (typeof v === 'string') {
        const n = parseJavaLong(v);
        return n === undefined ? undefined : new IdV(n);
      }
      return undefined;
    },
  } as TypeTag,
};

/** Java's Long.parseLong (toLongOption): optional sign, decimal digits, 64 bits. */
export function parseJavaLong(s: string, radix = 10): bigint | undefined {
  // Every document id passes here: up to 18 decimal digits fit in 64 bits whatever they are.
  if (radix === 10 && s.length <= 18 && SHORT_DECIMAL.test(s)) return BigInt(s);
  const m = /^[+-]?[0-9a-zA-Z]+$/.exec(s);
  if (m === null) return undefined;
  const neg = s[0] === '-';
  const digits = s[0] === '-' || s[0] === '+' ? s.slice(1) : s;
  let n = 0n;
  const r = BigInt(radix);
  for (const ch of digits) {
    const d = parseInt(ch, 36);
    if (Number.isNaN(d) || d >= radix) return undefined;
    n = n * r + BigInt(d);
  }
  if (neg) n = -n;
  return n < LONG_MIN || n > LONG_MAX ? undefined : n;
}

const SHORT_DECIMAL = /^[+-]?[0-9]+$/;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** A parameter: `p('name', tt.Int)`. */
export function p(name: string, t: TypeTag = tt.Any): { name: string; tag: TypeTag } {
  return { name, tag: t };
}
