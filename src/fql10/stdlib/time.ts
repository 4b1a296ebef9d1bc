// Time (stdlib/Time.scala) and the `Time` companion. Times are nanoseconds since the epoch; the
// range is Flora's (Time's µs fit 64 bits), narrower than the core's ±999999999 years.

import { Failures } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { Time } from '../runtime/values';
import { parseIsoTime, timeFields, timeInRange } from '../../wire/time';
import { companion, prototype } from './base';
import { doubleToLong } from './numbers';

type Num = bigint | number;

/** MidstUnit: the units `add`, `subtract`, `difference` and `epoch` take, in nanoseconds. */
const UNITS = new Map<string, bigint>([
  ['day', 86_400_000_000_000n],
  ['days', 86_400_000_000_000n],
  ['half day', 43_200_000_000_000n],
  ['half days', 43_200_000_000_000n],
  ['hour', 3_600_000_000_000n],
  ['hours', 3_600_000_000_000n],
  ['minute', 60_000_000_000n],
  ['minutes', 60_000_000_000n],
  ['second', 1_000_000_000n],
  ['seconds', 1_000_000_000n],
  ['millisecond', 1_000_000n],
  ['milliseconds', 1_000_000n],
  ['microsecond', 1_000n],
  ['microseconds', 1_000n],
  ['nanosecond', 1n],
  ['nanoseconds', 1n],
]);

function unitNanos(unit: string): bigint | undefined {
  return UNITS.get(unit.trim());
}

/** `amount` units in nanoseconds: integers exactly, a Double through its duration. */
function offset(amount: Num, unit: bigint): bigint {
  return typeof amount === 'bigint' ? amount * unit : doubleToLong(Number(unit) * amount);
}

function checked(ctx: CallCtx, nanos: bigint, overflow: 'min' | 'max'): Time {
  if (timeInRange(nanos)) return new Time(nanos);
  throw nanos < 0n || overflow === 'min' ? Failures.minimumTimeOverflow(ctx.trace) : Failures.maximumTimeOverflow(ctx.trace);
}

function parse(ctx: CallCtx, s: string): Time {
  const n = parseIsoTime(s);
  if (n === undefined || !timeInRange(n)) throw Failures.invalidTime(s, ctx.trace);
  return new Time(n);
}

const t = prototype('Time');
export const TimePrototype = t;
t.field('dayOfMonth', (_c, s: Time) => BigInt(timeFields(s.nanos).day));
t.field('dayOfWeek', (_c, s: Time) => BigInt(timeFields(s.nanos).dayOfWeek));
t.field('dayOfYear', (_c, s: Time) => BigInt(timeFields(s.nanos).dayOfYear));
t.field('hour', (_c, s: Time) => BigInt(timeFields(s.nanos).hour));
t.field('minute', (_c, s: Time) => BigInt(timeFields(s.nanos).minute));
t.field('second', (_c, s: Time) => BigInt(timeFields(s.nanos).second));
t.field('month', (_c, s: Time) => BigInt(timeFields(s.nanos).month));
t.field('year', (_c, s: Time) => BigInt(timeFields(s.nanos).year));
const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
t.method('toMicros', [], (_c, s: Time) => floorDiv(s.nanos, 1000n));
t.method('toMillis', [], (_c, s: Time) => floorDiv(s.nanos, 1_000_000n));
t.method('toSeconds', [], (_c, s: Time) => floorDiv(s.nanos, 1_000_000_000n));
const amountUnit = [p('amount', tt.Number), p('unit', tt.Str)];
t.method('add', amountUnit, (ctx, s: Time, [a, u]: [Num, string]) => {
  const unit = unitNanos(u);
  if (unit === undefined) throw Failures.invalidTimeUnit(u, ctx.trace);
  return checked(ctx, s.nanos + offset(a, unit), 'max');
});
t.method('subtract', amountUnit, (ctx, s: Time, [a, u]: [Num, string]) => {
  const unit = unitNanos(u);
  if (unit === undefined) throw Failures.invalidTimeUnit(u, ctx.trace);
  return checked(ctx, s.nanos - offset(a, unit), 'min');
});
t.method('difference', [p('start', tt.Time), p('unit', tt.Str)], (ctx, s: Time, [start, u]: [Time, string]) => {
  const unit = unitNanos(u);
  if (unit === undefined) throw Failures.invalidTimeUnit(u, ctx.trace);
  // ChronoUnit.between truncates toward zero.
  return (s.nanos - start.nanos) / unit;
});

export const TimeCompanion = companion('Time', (v) => v instanceof Time);
const c = TimeCompanion.table;
c.apply([p('time', tt.Str)], (ctx, _m, [s]: string[]) => parse(ctx, s));
c.method('fromString', [p('time', tt.Str)], (ctx, _m, [s]: string[]) => parse(ctx, s));
c.method('now', [], (ctx) => ctx.hooks.snapshotTime());
c.method('epoch', [p('offset', tt.Number), p('unit', tt.Str)], (ctx, _m, [a, u]: [Num, string]) => {
  const unit = unitNanos(u);
  if (unit === undefined) throw Failures.invalidTimeUnit(u, ctx.trace);
  return checked(ctx, offset(a, unit), 'max');
});

