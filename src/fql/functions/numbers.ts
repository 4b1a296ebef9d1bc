// Math functions of FQL v4 beyond the arithmetic folds of math.ts (fql-v4.md §3.9): abs, sign,
// ceil, floor, sqrt, round, trunc, pow, exp, ln, log, hypot, the trigonometric and hyperbolic
// functions, degrees, radians and the bit operations.
//
// Integer = signed 64-bit (bigint, wrapped like the JVM's long); Double = IEEE number. Every type
// error is `invalid argument` "Number expected, <T> provided." (the precision of round/trunc is an
// Integer) at the argument's position; domain errors are BoundsErrors "<n> must be <predicate>"
// where <n> prints the argument as Fauna renders it (Long as an integer, Double like Java).

import { errors, type Position } from '../../values/errors';
import { wrapLong, type Value } from '../../values/types';
import { formatDouble } from '../../wire/encode';
import { argPos, asLong, asNumber, elemPos, evalArg, evalList, evalOptional } from '../args';
import type { EvalContext } from '../context';
import type { Env } from '../env';
import { define } from '../registry';
import type { CallExpr } from '../../wire/expr';

type Num = bigint | number;

const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);
const TWO_63 = 2 ** 63;
const INT_MAX = 2 ** 31 - 1;

/** A number as Fauna prints it inside a message. */
function show(n: Num): string {
  return typeof n === 'bigint' ? n.toString() : formatDouble(n);
}

function bounds(n: Num, predicate: string, pos: Position): never {
  throw errors.invalidArgument(`${show(n)} must be ${predicate}`, pos);
}

/** Java's `(long) d`: truncates toward zero, NaN → 0, saturates at the Long range. */
function javaToLong(d: number): bigint {
  if (d !== d) return 0n;
  if (d >= TWO_63) return LONG_MAX;
  if (d <= -TWO_63) return LONG_MIN;
  return BigInt(Math.trunc(d));
}

/** Evaluates the (single) head argument and casts it to a Number. */
async function numArg(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<Num> {
  return asNumber(await evalArg(call, key, env, ctx), argPos(call, key));
}

/** A one-argument function of a Number. */
function unary(head: string, f: (n: Num, pos: Position) => Value): void {
  define(head, async (call, env, ctx) => f(await numArg(call, head, env, ctx), argPos(call, head)));
}

/** A one-argument function of a Double (Integers are widened), returning a Double. */
function unaryDouble(head: string, f: (d: number) => number, check?: (n: Num, d: number, pos: Position) => void): void {
  unary(head, (n, pos) => {
    const d = Number(n);
    check?.(n, d, pos);
    return f(d);
  });
}

// ---- abs, sign, ceil, floor ------------------------------------------------------------------

unary('abs', (n) => (typeof n === 'bigint' ? wrapLong(n < 0n ? -n : n) : Math.abs(n)));

// Always an Integer: Long.signum for Integers; a Double gives -1 when < 0, else 1 (0.0 and NaN too).
unary('sign', (n) => (typeof n === 'bigint' ? (n > 0n ? 1n : n < 0n ? -1n : 0n) : n < 0 ? -1n : 1n));

unary('ceil', (n) => (typeof n === 'bigint' ? n : Math.ceil(n)));
unary('floor', (n) => (typeof n === 'bigint' ? n : Math.floor(n)));

// ---- sqrt, exp, ln, log, trigonometry -----------------------------------------------------------

unaryDouble('sqrt', Math.sqrt, (n, d, pos) => {
  if (d < 0) bounds(n, 'positive', pos);
});
unaryDouble('exp', Math.exp);
unaryDouble('ln', Math.log, (n, d, pos) => {
  if (d <= 0) bounds(n, 'greater than 0', pos);
});
unaryDouble('log', Math.log10, (n, d, pos) => {
  if (d <= 0) bounds(n, 'greater than 0', pos);
});

const unitInterval = (n: Num, d: number, pos: Position) => {
  if (d < -1 || d > 1) bounds(n, 'between -1 and 1 inclusive', pos);
};
unaryDouble('acos', Math.acos, unitInterval);
unaryDouble('asin', Math.asin, unitInterval);
unaryDouble('atan', Math.atan);
unaryDouble('cos', Math.cos);
unaryDouble('cosh', Math.cosh);
unaryDouble('sin', Math.sin);
unaryDouble('sinh', Math.sinh);
unaryDouble('tan', Math.tan);
unaryDouble('tanh', Math.tanh);
// Java's Math.toDegrees / Math.toRadians (JDK 9+): one multiplication by a constant.
unaryDouble('degrees', (d) => d * 57.29577951308232);
unaryDouble('radians', (d) => d * 0.017453292519943295);

// ---- pow, hypot -------------------------------------------------------------------------------

/** `{head: a, other?: b}` → Double f(a, b), b defaulting to `dflt(a)`. */
function binaryDouble(head: string, other: string, dflt: (a: Num) => Num, f: (a: number, b: number) => number): void {
  define(head, async (call, env, ctx) => {
    const a = await numArg(call, head, env, ctx);
    const bv = await evalOptional(call, other, env, ctx);
    const b = bv === undefined ? dflt(a) : asNumber(bv, argPos(call, other));
    return f(Number(a), Number(b));
  });
}

/**
 * Java's Math.pow is (all but) correctly rounded; V8's is not for integral exponents, which it
 * computes by repeated multiplication (Math.pow(10, -4) is 9.999999999999999E-5, Java's 1.0E-4).
 * An integral exponent is therefore computed exactly with BigInts and rounded once.
 */
function pow(a: number, b: number): number {
  if (!Number.isInteger(b) || b === 0 || !Number.isFinite(a) || a === 0 || Math.abs(b) > 2000) return Math.pow(a, b);
  // Far outside the Double range the result is 0 or ±Infinity; Math.pow gets those right.
  if (Math.abs(b * Math.log2(Math.abs(a))) > 1200) return Math.pow(a, b);
  const [m, e] = splitDouble(a);
  const n = BigInt(Math.abs(b));
  const mn = m ** n;
  const twos = 1n << (BigInt(e) * n);
  const r = b > 0 ? ratioToDouble(mn, twos) : ratioToDouble(twos, mn);
  return a < 0 && b % 2 !== 0 ? -r : r;
}

/** p / q (both > 0) rounded to the nearest Double: 40 significant digits plus a sticky digit. */
function ratioToDouble(p: bigint, q: bigint): number {
  // ~40 digits in the quotient: its decimal magnitude estimated from the bit lengths.
  const k = 40 - Math.floor((bitLength(p) - bitLength(q)) * Math.LOG10E * Math.LN2);
  const num = k >= 0 ? p * 10n ** BigInt(k) : p;
  const den = k >= 0 ? q : q * 10n ** BigInt(-k);
  const digits = num / den;
  return num % den === 0n ? Number(`${digits}e${-k}`) : Number(`${digits}1e${-k - 1}`);
}

/** |x| = m / 2^e exactly, m an integer, e ≥ 0 (x finite). */
function splitDouble(x: number): [bigint, number] {
  let m = Math.abs(x);
  let e = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  return [BigInt(m), e];
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/**
 * Java's Math.hypot is (all but) correctly rounded; V8's is not (Math.hypot(3, 3) is
 * 4.242640687119286, Java's and sqrt(18)'s 4.242640687119285). Computed exactly and rounded once.
 */
function hypot(a: number, b: number): number {
  if (a === Infinity || a === -Infinity || b === Infinity || b === -Infinity) return Infinity;
  if (a !== a || b !== b) return NaN;
  if (a === 0 || b === 0) return Math.abs(a) + Math.abs(b);
  const [ma, ea] = splitDouble(a);
  const [mb, eb] = splitDouble(b);
  const e = Math.max(ea, eb);
  const x = ma << BigInt(e - ea);
  const y = mb << BigInt(e - eb);
  const sum = x * x + y * y; // hypot = sqrt(sum) / 2^e
  const t = Math.max(0, 64 - Math.floor(bitLength(sum) / 2)); // ≥ 64 bits of root
  const scaled = sum << BigInt(2 * t);
  const r = isqrt(scaled);
  const sticky = r * r === scaled ? 0n : 1n;
  return ratioToDouble(2n * r + sticky, 1n << BigInt(e + t + 1));
}

binaryDouble('pow', 'exp', () => 2n, pow);
binaryDouble('hypot', 'b', (a) => a, hypot);

// ---- round, trunc -----------------------------------------------------------------------------

type Mode = 'half_up' | 'down';

/** Integer division of a non-negative `m` by 10^k with the rounding mode (k > 0). */
function shiftDown(m: bigint, k: number, mode: Mode, digits: number): bigint {
  // m < 10^digits: dropping more digits than it has leaves 0 (HALF_UP needs m ≥ 10^k / 2).
  if (k > digits) return 0n;
  const p = 10n ** BigInt(k);
  const q = m / p;
  return mode === 'half_up' && (m % p) * 2n >= p ? q + 1n : q;
}

/**
 * BigDecimal(n).setScale(scale, mode) converted back, like Fauna: a Double goes through its
 * shortest decimal text (Scala's BigDecimal(d)), so Round(2.675, 2) is 2.68; a Long keeps its
 * value unless the scale is negative (then the low 64 bits, like BigDecimal.longValue).
 */
function setScale(n: Num, scale: number, mode: Mode): Num {
  if (typeof n === 'bigint') {
    if (scale >= 0) return n;
    const neg = n < 0n;
    const m = neg ? -n : n;
    const q = shiftDown(m, -scale, mode, m.toString().length);
    if (q === 0n) return 0n;
    const r = q * 10n ** BigInt(-scale); // only reached for -scale ≤ 19 digits
    return wrapLong(neg ? -r : r);
  }
  // BigDecimal has no NaN/Infinity (the core fails there); keep the value.
  if (!Number.isFinite(n)) return n;
  if (n === 0) return 0; // BigDecimal has no negative zero
  const text = Math.abs(n).toExponential(); // shortest digits: "d.ddde±x"
  const at = text.indexOf('e');
  const digits = text.slice(0, at).replace('.', '');
  const exp = Number(text.slice(at + 1)) - (digits.length - 1); // |n| = digits × 10^exp
  if (exp >= -scale) return n; // no more decimals than the scale keeps
  const q = shiftDown(BigInt(digits), -scale - exp, mode, digits.length);
  if (q === 0n) return 0;
  return Number(`${n < 0 ? '-' : ''}${q}e${-scale}`);
}

function rounding(head: 'round' | 'trunc', mode: Mode): void {
  define(head, async (call, env, ctx) => {
    const n = await numArg(call, head, env, ctx);
    const pv = await evalOptional(call, 'precision', env, ctx);
    const precision = pv === undefined ? 2n : asLong(pv, argPos(call, 'precision'));
    // BigDecimal scales are Ints; beyond that range the result no longer changes anyway.
    const scale = precision > INT_MAX ? INT_MAX : precision < -INT_MAX ? -INT_MAX : Number(precision);
    return setScale(n, scale, mode);
  });
}

rounding('round', 'half_up');
rounding('trunc', 'down');

// ---- bit operations ---------------------------------------------------------------------------

/** OneOrMore Numbers folded as Longs (Doubles truncated); a Double operand makes the result Double. */
function bitwise(head: string, op: (a: bigint, b: bigint) => bigint): void {
  define(head, async (call, env, ctx) => {
    const vs = await evalList(call, head, env, ctx);
    const ns = vs.map((v, i) => asNumber(v, elemPos(call, head, i)));
    let sawDouble = false;
    let acc: bigint | undefined;
    for (const n of ns) {
      if (typeof n === 'number') sawDouble = true;
      const l = typeof n === 'bigint' ? n : javaToLong(n);
      acc = acc === undefined ? l : wrapLong(op(acc, l));
    }
    return sawDouble ? Number(acc!) : acc!;
  });
}

bitwise('bitand', (a, b) => a & b);
bitwise('bitor', (a, b) => a | b);
bitwise('bitxor', (a, b) => a ^ b);

unary('bitnot', (n) => wrapLong(~(typeof n === 'bigint' ? n : javaToLong(n))));
