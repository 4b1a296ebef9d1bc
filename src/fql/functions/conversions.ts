// Conversion functions of FQL v4 (fql-v4.md §3.11, §3.2): to_string, to_number, to_double,
// to_integer, to_time, to_date, to_object, to_array. Registered with define() at module load.
// (to_seconds / to_millis / to_micros live with the time functions.)
//
// Every failed cast is `invalid argument` "Cannot cast <T> to <Type>." at the argument's position.

import type { CallExpr } from '../../wire/expr';
import { define } from '../registry';
import { argPos, evalArg } from '../args';
import type { Env } from '../env';
import type { EvalContext } from '../context';
import { errors, type Position } from '../../values/errors';
import { DateV, Time, TxnTime, typeName, type Obj, type Value } from '../../values/types';
import { formatDouble } from '../../wire/encode';
import { NANOS_PER_DAY, formatDate, formatTime, parseDate, parseIsoTime } from '../../wire/time';

function cannotCast(v: Value, to: string, pos: Position): never {
  throw errors.invalidArgument(`Cannot cast ${typeName(v)} to ${to}.`, pos);
}

/** Registers a one-argument conversion `{head: value}`. */
function conversion(head: string, convert: (v: Value, pos: Position, ctx: EvalContext) => Value | Promise<Value>): void {
  define(head, async (call: CallExpr, env: Env, ctx: EvalContext) => {
    const v = await evalArg(call, head, env, ctx);
    return convert(v, argPos(call, head), ctx);
  });
}

// --- Java NumberFormat.getInstance().parse (DecimalFormat, en-US symbols, JDK ≥ 9 / CLDR) ---

const LONG_MIN_DIGITS = '9223372036854775808';
const ND = /\p{Nd}/u;

/** Java Character.digit(ch, 10) for one UTF-16 code unit: 0–9, or -1. */
function javaDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code < 0x80 || (code >= 0xd800 && code < 0xe000)) return -1;
  if (!ND.test(String.fromCharCode(code))) return -1;
  // Every decimal-digit run of the BMP is exactly ten code points, zero first.
  let zero = code;
  while (zero > code - 9 && ND.test(String.fromCharCode(zero - 1))) zero--;
  return code - zero;
}

/**
 * DecimalFormat.parse(text) from position 0: an optional `-`, digits with `,` grouping
 * (a trailing grouping separator is not consumed), an optional `.` fraction and an optional
 * `E[-]digits` exponent; `NaN` and `∞` are recognised. Only a prefix has to be numeric.
 * Returns a Long when the value is integral and fits (−0 stays a Double), else a Double;
 * undefined when nothing numeric starts the text.
 */
export function parseJavaNumber(text: string): bigint | number | undefined {
  if (text.startsWith('NaN')) return NaN;
  let pos = 0;
  let negative = false;
  if (text.charCodeAt(0) === 45 /* - */) {
    negative = true;
    pos = 1;
  }
  if (text.startsWith('∞', pos)) return negative ? -Infinity : Infinity;

  let digits = ''; // significant digits (no leading zeros)
  let decimalAt = 0;
  let sawDecimal = false;
  let sawDigit = false;
  let digitCount = 0;
  let exponent = 0;
  for (; pos < text.length; pos++) {
    const ch = text.charCodeAt(pos);
    const d = javaDigit(ch);
    if (d === 0) {
      sawDigit = true;
      if (digits.length === 0) {
        if (!sawDecimal) continue; // leading zero of the integer part
        decimalAt--;
      } else {
        digitCount++;
        digits += '0';
      }
    } else if (d > 0) {
      sawDigit = true;
      digitCount++;
      digits += String(d);
    } else if (ch === 46 /* . */) {
      if (sawDecimal) break;
      decimalAt = digitCount;
      sawDecimal = true;
    } else if (ch === 44 /* , */) {
      if (sawDecimal) break;
      // grouping separators are skipped (DecimalFormat does not check group sizes when parsing)
    } else if (ch === 69 /* E */) {
      // The exponent: an optional '-' and at least one digit; otherwise it is not consumed.
      let p = pos + 1;
      let expNeg = false;
      if (text.charCodeAt(p) === 45) {
        expNeg = true;
        p++;
      }
      let expDigits = '';
      for (; p < text.length; p++) {
        const ed = javaDigit(text.charCodeAt(p));
        if (ed < 0) break;
        expDigits += String(ed);
      }
      if (expDigits.length > 0) {
        const e = BigInt(expDigits);
        // DigitList.fitsIntoLong on the exponent; Java then narrows it to an int.
        if (expNeg ? e <= 2n ** 63n : e < 2n ** 63n) exponent = Number(BigInt.asIntN(32, expNeg ? -e : e));
      }
      break;
    } else {
      break;
    }
  }
  if (!sawDecimal) decimalAt = digitCount;
  decimalAt += exponent;
  if (!sawDigit && digitCount === 0) return undefined;

  // DigitList.fitsIntoLong(isPositive, ignoreNegativeZero = false)
  digits = digits.replace(/0+$/, '');
  let fits: boolean;
  if (digits.length === 0) fits = !negative;
  else if (decimalAt < digits.length || decimalAt > 19) fits = false;
  else if (decimalAt < 19) fits = true;
  else {
    const padded = digits.padEnd(19, '0');
    fits = padded < LONG_MIN_DIGITS || (padded === LONG_MIN_DIGITS && negative);
  }
  if (fits) {
    if (digits.length === 0) return 0n;
    const n = BigInt(digits.padEnd(decimalAt, '0'));
    return BigInt.asIntN(64, negative ? -n : n);
  }
  const d = digits.length === 0 ? 0 : Number(`0.${digits}e${decimalAt}`);
  return negative ? -d : d;
}

/** A Java `(long) d` cast: truncation, saturating at the Long range, NaN → 0. */
function doubleToLong(d: number): bigint {
  if (d !== d) return 0n;
  if (d >= 9223372036854775807) return 2n ** 63n - 1n;
  if (d <= -9223372036854775808) return -(2n ** 63n);
  return BigInt(Math.trunc(d));
}

function toNumber(v: Value, to: string, pos: Position): bigint | number {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = parseJavaNumber(v);
    if (n !== undefined) return n;
  }
  cannotCast(v, to, pos);
}

// --- the functions -------------------------------------------------------------------------

/** ToString's text of a value (also Format's `%s`). */
export function toFqlString(v: Value, pos: Position): string {
  if (typeof v === 'string') return v; // also action names
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (v instanceof Time) return formatTime(v.nanos);
  if (v instanceof DateV) return formatDate(v.days);
  cannotCast(v, 'String', pos);
}

conversion('to_string', toFqlString);
conversion('to_number', (v, pos) => toNumber(v, 'Number', pos));

conversion('to_double', (v, pos) => {
  const n = toNumber(v, 'Double', pos);
  return typeof n === 'bigint' ? Number(n) : n;
});

conversion('to_integer', (v, pos) => {
  const n = toNumber(v, 'Integer', pos);
  return typeof n === 'bigint' ? n : doubleToLong(n);
});

conversion('to_time', (v, pos, ctx) => {
  if (v instanceof Time || v instanceof TxnTime) return v;
  if (typeof v === 'bigint') return new Time(v * 1_000_000n); // milliseconds since the epoch
  if (v instanceof DateV) return new Time(BigInt(v.days) * NANOS_PER_DAY);
  if (typeof v === 'string') {
    if (v === 'now') return Time.fromMicros(ctx.snapshotTs);
    const nanos = parseIsoTime(v);
    if (nanos === undefined) throw errors.invalidArgument(`Cannot cast '${v}' to a time.`, pos);
    return new Time(nanos);
  }
  cannotCast(v, 'Time', pos);
});

conversion('to_date', (v, pos) => {
  if (v instanceof DateV) return v;
  if (v instanceof Time) {
    let days = v.nanos / NANOS_PER_DAY;
    if (v.nanos < 0n && days * NANOS_PER_DAY !== v.nanos) days -= 1n;
    return new DateV(Number(days));
  }
  if (typeof v === 'string') {
    const days = parseDate(v);
    if (days === undefined) throw errors.invalidArgument(`Cannot cast '${v}' to a date.`, pos);
    return new DateV(days);
  }
  cannotCast(v, 'Date', pos);
});

conversion('to_object', async (v, pos, ctx) => {
  if (v instanceof Map) return v; // objects and documents
  if (Array.isArray(v)) {
    ctx.budget.object(v.length);
    const out: Obj = new Map();
    for (let i = 0; i < v.length; i++) {
      const pair = v[i];
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') cannotCast(v, 'Object', pos);
      out.set(pair[0], pair[1]);
      const p = ctx.budget.stride(i);
      if (p) await p;
    }
    return ctx.built(out);
  }
  cannotCast(v, 'Object', pos);
});

conversion('to_array', async (v, pos, ctx) => {
  if (Array.isArray(v)) return v;
  if (v instanceof Map) {
    ctx.budget.array(v.size * 4); // the array and a pair for each field
    const out: Value[] = [];
    for (const [k, x] of v) {
      out.push([k, x]); // objects and documents
      const p = ctx.budget.stride(out.length);
      if (p) await p;
    }
    return ctx.built(out);
  }
  cannotCast(v, 'Array', pos);
});
