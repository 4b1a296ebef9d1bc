// Date (stdlib/Date.scala) and the `Date` companion: days since the epoch; only day units.

import { Failures } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { DateV, long } from '../runtime/values';
import { civilFromDays, daysFromCivil, dayOfWeekOfDays, parseDate } from '../../wire/time';
import { companion, prototype } from './base';

type Num = bigint | number;

function days(ctx: CallCtx, amount: Num, unit: string): number {
  // ChronoUnit.isDateBased holds for DAYS and HALF_DAYS is time-based; MidstUnit has no larger ones.
  const u = unit.trim();
  if (u !== 'day' && u !== 'days') throw Failures.invalidDateUnit(unit, ctx.trace);
  return typeof amount === 'bigint' ? Number(amount) : Math.round(amount);
}

function parse(ctx: CallCtx, s: string): DateV {
  const d = parseDate(s);
  if (d === undefined) throw Failures.invalidDate(s, ctx.trace);
  return new DateV(d);
}

const t = prototype('Date');
export const DatePrototype = t;
t.field('dayOfMonth', (_c, d: DateV) => BigInt(civilFromDays(d.days).day));
t.field('dayOfWeek', (_c, d: DateV) => BigInt(dayOfWeekOfDays(d.days)));
t.field('dayOfYear', (_c, d: DateV) => BigInt(d.days - daysFromCivil(civilFromDays(d.days).year, 1, 1) + 1));
t.field('month', (_c, d: DateV) => BigInt(civilFromDays(d.days).month));
t.field('year', (_c, d: DateV) => BigInt(civilFromDays(d.days).year));
const amountUnit = [p('amount', tt.Number), p('unit', tt.Str)];
t.method('add', amountUnit, (ctx, d: DateV, [a, u]: [Num, string]) => new DateV(d.days + days(ctx, a, u)));
t.method('subtract', amountUnit, (ctx, d: DateV, [a, u]: [Num, string]) => new DateV(d.days - days(ctx, a, u)));
t.method('difference', [p('start', tt.Date)], (_c, d: DateV, [s]: DateV[]) => long(BigInt(d.days - s.days)));

export const DateCompanion = companion('Date', (v) => v instanceof DateV);
const c = DateCompanion.table;
c.apply([p('date', tt.Str)], (ctx, _m, [s]: string[]) => parse(ctx, s));
c.method('fromString', [p('date', tt.Str)], (ctx, _m, [s]: string[]) => parse(ctx, s));
c.method('today', [], (ctx) => {
  const n = ctx.hooks.snapshotTime().nanos;
  const day = 86_400_000_000_000n;
  return new DateV(Number(n >= 0n ? n / day : -((-n + day - 1n) / day)));
});
