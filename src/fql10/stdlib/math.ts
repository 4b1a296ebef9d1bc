// The `Math` module (stdlib/Math.scala).

import { Failures } from '../runtime/failure';
import { compareNumbers } from '../runtime/cmp';
import { ValueSet } from '../runtime/sets';
import type { CallCtx } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { isInt32, long, numValue, SmallLong, type RtValue } from '../runtime/values';
import { moduleObject } from './base';
import { add, doubleToLong, pow } from './numbers';

type Num = bigint | number;

export const MathModule = moduleObject('Math');
const m = MathModule.table;
const x = [p('x', tt.Number)];
const dbl = (f: (d: number) => number) => (_c: CallCtx, _m: unknown, [v]: Num[]) => f(Number(v));

m.field('NaN', () => NaN);
m.field('Infinity', () => Infinity);
m.field('E', () => Math.E);
m.field('PI', () => Math.PI);
// An Int stays an Int and a Long a Long, overflowing as the JVM does (abs of the minimum is itself).
const xAsIs = [p('x', tt.NumberAsIs)];
m.method('abs', xAsIs, (_c, _m, [v]: (Num | SmallLong)[]) => {
  if (v instanceof SmallLong) return long(v.value < 0n ? -v.value : v.value);
  return typeof v === 'bigint' ? BigInt.asIntN(isInt32(v) ? 32 : 64, v < 0n ? -v : v) : Math.abs(v);
});
const unit = (name: string, f: (d: number) => number) =>
  m.method(name, x, (ctx, _m, [v]: Num[]) => {
    const d = Number(v);
    if (d < -1 || d > 1) throw Failures.invalidArgument('x', 'argument must lie in [-1, 1]', ctx.trace);
    return f(d);
  });
unit('acos', Math.acos);
unit('asin', Math.asin);
m.method('atan', x, dbl(Math.atan));
m.method('ceil', xAsIs, (_c, _m, [v]: (Num | SmallLong)[]) => (typeof v === 'number' ? Math.ceil(v) : v));
m.method('floor', xAsIs, (_c, _m, [v]: (Num | SmallLong)[]) => (typeof v === 'number' ? Math.floor(v) : v));
m.method('cos', x, dbl(Math.cos));
m.method('cosh', x, dbl(Math.cosh));
m.method('sin', x, dbl(Math.sin));
m.method('sinh', x, dbl(Math.sinh));
m.method('tan', x, dbl(Math.tan));
m.method('tanh', x, dbl(Math.tanh));
m.method('degrees', x, dbl((d) => (d * 180) / Math.PI));
m.method('radians', x, dbl((d) => (d / 180) * Math.PI));
m.method('exp', x, dbl(Math.exp));
m.method('hypot', [p('x', tt.Number), p('y', tt.Number)], (_c, _m, [a, b]: Num[]) => Math.hypot(Number(a), Number(b)));
const positive = (name: string, f: (d: number) => number) =>
  m.method(name, x, (ctx, _m, [v]: Num[]) => {
    if (compareNumbers(v, 0n) <= 0) throw Failures.invalidArgument('x', 'x must be positive', ctx.trace);
    return f(Number(v));
  });
positive('log', Math.log);
positive('log10', Math.log10);
m.method('sqrt', x, (ctx, _m, [v]: Num[]) => {
  if (compareNumbers(v, 0n) < 0) throw Failures.invalidArgument('x', 'x must be nonnegative', ctx.trace);
  return Math.sqrt(Number(v));
});
// The argument chosen, as it is (a Long stays a Long).
const xy = [p('x', tt.NumberAsIs), p('y', tt.NumberAsIs)];
m.method('max', xy, (_c, _m, [a, b]: (Num | SmallLong)[]) => (compareNumbers(numValue(a), numValue(b)) < 0 ? b : a));
m.method('min', xy, (_c, _m, [a, b]: (Num | SmallLong)[]) => (compareNumbers(numValue(a), numValue(b)) <= 0 ? a : b));
m.method('pow', [p('x', tt.Number), p('power', tt.Number)], (_c, _m, [a, b]: Num[]) => pow(Number(a), Number(b)));
m.method('sign', x, (_c, _m, [v]: Num[]) => BigInt(compareNumbers(v, 0n)));

/** RoundFunction.roundOff / TruncFunction.trunc (NumericFunctions.scala), Long and Double forms. */
function roundLong(n: bigint, dp: number, round: boolean): bigint {
  if (dp > 0) return n;
  const tmp = Math.pow(10, dp);
  return doubleToLong(Number(doubleToLong(Number(n) * tmp + (round ? 0.5 : 0))) / tmp);
}
function roundDouble(n: number, dp: number, round: boolean): number {
  if (dp > 0) {
    const tmp = Number(BigInt.asIntN(32, doubleToLong(Math.pow(10, dp))));
    const w = doubleToLong(n);
    const fract = doubleToLong((n - Number(w) + (round ? 0.5 / tmp : 0)) * tmp);
    return Number(w) + Number(fract) / tmp;
  }
  const tmp = Math.pow(10, dp);
  return round ? Number(doubleToLong(Number(doubleToLong(n * tmp + 0.5)) / tmp)) : Number(doubleToLong(n * tmp)) / tmp;
}
const rounder = (name: string, round: boolean) =>
  m.method(name, [p('x', tt.Number), p('precision', tt.Int)], (_c, _m, [v, prec]: [Num, bigint]) =>
    // An integer's result is a Long (Value.Long(RoundFunction.roundOff(v, p))).
    typeof v === 'bigint' ? long(roundLong(v, Number(prec), round)) : roundDouble(v, Number(prec), round),
  );
rounder('round', true);
rounder('trunc', false);

async function numbersOf(ctx: CallCtx, v: RtValue, f: (n: Num) => void): Promise<void> {
  const each = (n: RtValue) => {
    if (typeof n !== 'bigint' && typeof n !== 'number' && !(n instanceof SmallLong)) throw Failures.invalidArgument('numbers', 'all array elements must be numbers', ctx.trace);
    f(numValue(n));
  };
  if (Array.isArray(v)) v.forEach(each);
  else
    await (v as ValueSet).forEachElem(ctx, (n) => {
      each(n);
      return true;
    });
}
const numbers = { display: 'Array<Number> | Set<Number>', cast: (v: RtValue) => (Array.isArray(v) || v instanceof ValueSet ? v : undefined) };
m.method('sum', [p('numbers', numbers)], async (ctx, _m, [v]) => {
  let sum: Num = 0n;
  await numbersOf(ctx, v, (n) => (sum = add(sum, n)));
  return sum;
});
m.method('mean', [p('numbers', numbers)], async (ctx, _m, [v]) => {
  let sum: Num = 0n;
  let count = 0;
  await numbersOf(ctx, v, (n) => {
    sum = add(sum, n);
    count++;
  });
  // Array: sum / Double(size); Set: sum / Int(count), which fails on an empty set.
  if (Array.isArray(v)) return Number(sum) / count;
  if (typeof sum === 'bigint') {
    if (count === 0) throw Failures.divideByZero(ctx.trace);
    return sum / BigInt(count);
  }
  return sum / count;
});
