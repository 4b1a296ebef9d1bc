// Int, Long, Double: arithmetic as stdlib/Numbers.scala has it. Integers stay integers while they
// fit 64 bits (Int within 32) and fall back to Double on overflow; `/` and `%` of integers by zero
// fail; bitwise operators work on Longs (a Double truncated).

import { Failures } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { isInt32, long, LONG_MAX, LONG_MIN, numValue, SmallLong } from '../runtime/values';
import { prototype } from './base';

type Num = bigint | number;

const inLong = (v: bigint) => v >= LONG_MIN && v <= LONG_MAX;

/** An exact integer result, or the Doubles' result when it overflows 64 bits (addExact…). */
function exactOr(r: bigint, dbl: () => number): Num {
  return inLong(r) ? r : dbl();
}

export function add(a: Num, b: Num): Num {
  if (typeof a === 'bigint' && typeof b === 'bigint') return exactOr(a + b, () => Number(a) + Number(b));
  return Number(a) + Number(b);
}

export function subtract(a: Num, b: Num): Num {
  if (typeof a === 'bigint' && typeof b === 'bigint') return exactOr(a - b, () => Number(a) - Number(b));
  return Number(a) - Number(b);
}

export function multiply(a: Num, b: Num): Num {
  if (typeof a === 'bigint' && typeof b === 'bigint') return exactOr(a * b, () => Number(a) * Number(b));
  return Number(a) * Number(b);
}

function divide(ctx: CallCtx, a: Num, b: Num): Num {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) throw Failures.divideByZero(ctx.trace);
    return BigInt.asIntN(64, a / b); // Long.MinValue / -1 wraps, as on the JVM
  }
  return Number(a) / Number(b);
}

function modulus(ctx: CallCtx, a: Num, b: Num): Num {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) throw Failures.divideByZero(ctx.trace);
    return a % b;
  }
  return Number(a) % Number(b);
}

/** Math.pow of Doubles; Java's pow(1, NaN) is NaN where JS answers 1. */
export function pow(x: number, y: number): number {
  if (y !== y) return NaN;
  if ((x === 1 || x === -1) && !Number.isFinite(y)) return NaN;
  return Math.pow(x, y);
}

function exponent(a: Num, b: Num): Num {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n || a === 1n) return 1n;
    if (a === -1n) return b % 2n === 0n ? 1n : -1n;
    if (a === 0n && b > 0n) return 0n;
    if (b > 0n && b <= 2147483646n) {
      // BigInt(x).pow(y), then Value.Number: Int, Long, else Double. Past 2^63 only the Double
      // matters, so stop multiplying once the magnitude is beyond any Double.
      const r = bigPow(a, b);
      return typeof r === 'bigint' && inLong(r) ? r : Number(r);
    }
    return pow(Number(a), Number(b));
  }
  return pow(Number(a), Number(b));
}

function bigPow(a: bigint, b: bigint): bigint | number {
  const bits = BigInt(a < 0n ? -a : a).toString(2).length;
  if (BigInt(bits - 1) * b > 1100n) return Math.pow(Number(a), Number(b));
  return a ** b;
}

/** Scala's Double.toLong: truncates, NaN is 0, saturates. */
export function doubleToLong(d: number): bigint {
  if (d !== d) return 0n;
  if (d >= 9223372036854775807) return LONG_MAX;
  if (d <= -9223372036854775808) return LONG_MIN;
  return BigInt(Math.trunc(d));
}

const toLong = (v: Num) => (typeof v === 'bigint' ? v : doubleToLong(v));

/** A receiver: a Long the core did not narrow is still a number. */
type Self = Num | SmallLong;

/** Unary minus keeps the type: an Int wraps at its minimum (Value.Int(-x)), a Long stays a Long. */
function negate(a: Self): Self {
  if (a instanceof SmallLong) return long(-a.value);
  if (typeof a === 'number') return -a;
  return isInt32(a) ? BigInt.asIntN(32, -a) : long(BigInt.asIntN(64, -a));
}

function numberPrototype(name: string) {
  const t = prototype(name);
  const other = [p('other', tt.Number)];
  const n = numValue;
  t.op('+', other, (_c, a: Self, [b]: Num[]) => add(n(a), b));
  t.op('-', other, (_c, a: Self, [b]: Num[]) => subtract(n(a), b));
  t.op('-', [], (_c, a: Self) => negate(a));
  t.op('*', other, (_c, a: Self, [b]: Num[]) => multiply(n(a), b));
  t.op('/', other, (c, a: Self, [b]: Num[]) => divide(c, n(a), b));
  t.op('%', other, (c, a: Self, [b]: Num[]) => modulus(c, n(a), b));
  t.op('**', [p('exponent', tt.Number)], (_c, a: Self, [b]: Num[]) => exponent(n(a), b));
  t.op('&', other, (_c, a: Self, [b]: Num[]) => toLong(n(a)) & toLong(b));
  t.op('|', other, (_c, a: Self, [b]: Num[]) => toLong(n(a)) | toLong(b));
  t.op('^', other, (_c, a: Self, [b]: Num[]) => toLong(n(a)) ^ toLong(b));
  t.op('~', [], (_c, a: Self) => ~toLong(n(a)));
  return t;
}

export const IntPrototype = numberPrototype('Int');
export const LongPrototype = numberPrototype('Long');
export const DoublePrototype = numberPrototype('Double');

