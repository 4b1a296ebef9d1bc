// Time and date functions of FQL v4 (fql-v4.md §3.10, plus ToSeconds/ToMillis/ToMicros of
// §3.11). Registered with define() at module load.
//
// Times are bigint nanoseconds since the epoch; every calendar computation is UTC with floor
// division, so instants before 1970 behave like Java's Instant/ZonedDateTime.

import type { CallExpr } from '../../wire/expr';
import { define } from '../registry';
import { argPos, asLong, asString, evalArg, mismatch } from '../args';
import { errors, type Position } from '../../values/errors';
import { DateV, Time, type Value } from '../../values/types';
import type { EvalContext } from '../context';
import type { Env } from '../env';
import {
  NANOS_PER_DAY,
  NANOS_PER_MICRO,
  NANOS_PER_MILLI,
  NANOS_PER_SECOND,
  TIME_MAX_NANOS,
  TIME_MIN_NANOS,
  floorDiv,
  formatTime,
  parseDate,
  parseIsoTime,
  timeFields,
  timeInRange,
  type TimeFields,
} from '../../wire/time';

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

// --- units -----------------------------------------------------------------------------------

interface TimeUnit {
  nanos: bigint;
  /** Date-based (Java ChronoUnit.isDateBased): the only units a Date accepts. */
  dateBased: boolean;
}

const UNITS = new Map<string, TimeUnit>();
function unit(names: string[], nanos: bigint, dateBased = false): void {
  for (const n of names) UNITS.set(n, { nanos, dateBased });
}
unit(['day', 'days'], NANOS_PER_DAY, true);
unit(['half day', 'half days'], NANOS_PER_DAY / 2n);
unit(['hour', 'hours'], 3600n * NANOS_PER_SECOND);
unit(['minute', 'minutes'], 60n * NANOS_PER_SECOND);
unit(['second', 'seconds'], NANOS_PER_SECOND);
unit(['millisecond', 'milliseconds'], NANOS_PER_MILLI);
unit(['microsecond', 'microseconds'], NANOS_PER_MICRO);
unit(['nanosecond', 'nanoseconds'], 1n);

/** A time unit argument: a String naming a unit (surrounding whitespace ignored). */
function asUnit(v: Value, pos: Position): { name: string; unit: TimeUnit } {
  if (typeof v !== 'string') mismatch('Time Unit', v, pos);
  const u = UNITS.get(v.trim());
  if (!u) throw invalidUnit(v, pos);
  return { name: v, unit: u };
}

function invalidUnit(name: string, pos: Position) {
  return errors.invalidArgument(`Invalid time unit '${name}'.`, pos);
}

// --- casts -----------------------------------------------------------------------------------

/** Time or Date (Fauna's "Temporal"). */
function asTemporal(v: Value, pos: Position): Time | DateV {
  if (v instanceof Time || v instanceof DateV) return v;
  mismatch('Temporal', v, pos);
}

/** A Time, or an Integer of microseconds since the epoch; returns nanoseconds. */
function asTimeOrMicros(v: Value, pos: Position): bigint {
  if (v instanceof Time) return v.nanos;
  if (typeof v === 'bigint') return v * NANOS_PER_MICRO;
  mismatch('Time or Integer', v, pos);
}

const RANGE = `between ${formatTime(TIME_MIN_NANOS)} and ${formatTime(TIME_MAX_NANOS)}`;

/** BoundsError (`<arg> must be <predicate>`) for results outside the supported Time range. */
function checkTime(nanos: bigint, pos: Position): Time {
  if (!timeInRange(nanos)) throw errors.invalidArgument(`Resulting time must be ${RANGE}`, pos);
  return new Time(nanos);
}

function checkLong(n: bigint, pos: Position): bigint {
  if (n < LONG_MIN || n > LONG_MAX)
    throw errors.invalidArgument(`Resulting difference must be between ${LONG_MIN} and ${LONG_MAX}`, pos);
  return n;
}

/** Truncating division (toward zero), the rounding of Java's `until` for whole units. */
function truncDiv(a: bigint, b: bigint): bigint {
  return a / b; // bigint division truncates
}

// --- constructors ----------------------------------------------------------------------------

/** Now() and Time("now") are the transaction's snapshot time, not its commit time. */
define('now', async (_call, _env, ctx) => Time.fromMicros(ctx.snapshotTs));

define('time', async (call, env, ctx) => {
  const pos = argPos(call, 'time');
  const s = asString(await evalArg(call, 'time', env, ctx), pos);
  if (s === 'now') return Time.fromMicros(ctx.snapshotTs);
  const nanos = parseIsoTime(s);
  if (nanos === undefined || !timeInRange(nanos)) throw errors.invalidArgument(`Cannot cast '${s}' to a time.`, pos);
  return new Time(nanos);
});

define('date', async (call, env, ctx) => {
  const pos = argPos(call, 'date');
  const s = asString(await evalArg(call, 'date', env, ctx), pos);
  const days = parseDate(s);
  // Keep dates within the Time range too (years −290308 … 294247).
  if (days === undefined || !timeInRange(BigInt(days) * NANOS_PER_DAY))
    throw errors.invalidArgument(`Cannot cast '${s}' to a date.`, pos);
  return new DateV(days);
});

define('epoch', async (call, env, ctx) => {
  const numV = await evalArg(call, 'epoch', env, ctx);
  const unitV = await evalArg(call, 'unit', env, ctx);
  const num = asLong(numV, argPos(call, 'epoch'));
  const { unit: u } = asUnit(unitV, argPos(call, 'unit'));
  return checkTime(num * u.nanos, argPos(call, 'epoch'));
});

// --- arithmetic ------------------------------------------------------------------------------

async function timeOffset(call: CallExpr, env: Env, ctx: EvalContext, head: string, sign: bigint): Promise<Value> {
  const tV = await evalArg(call, head, env, ctx);
  const offV = await evalArg(call, 'offset', env, ctx);
  const unitV = await evalArg(call, 'unit', env, ctx);
  const t = asTemporal(tV, argPos(call, head));
  const offset = asLong(offV, argPos(call, 'offset'));
  const unitPos = argPos(call, 'unit');
  const { name, unit: u } = asUnit(unitV, unitPos);
  if (t instanceof DateV) {
    if (!u.dateBased) throw invalidUnit(name, unitPos);
    const days = BigInt(t.days) + sign * offset * (u.nanos / NANOS_PER_DAY);
    if (!timeInRange(days * NANOS_PER_DAY))
      throw errors.invalidArgument(`Resulting date must be ${RANGE}`, argPos(call, 'offset'));
    return new DateV(Number(days));
  }
  return checkTime(t.nanos + sign * offset * u.nanos, argPos(call, 'offset'));
}

define('time_add', (call, env, ctx) => timeOffset(call, env, ctx, 'time_add', 1n));
define('time_subtract', (call, env, ctx) => timeOffset(call, env, ctx, 'time_subtract', -1n));

/** Whole units from `time_diff` to `other` (truncated toward zero). */
define('time_diff', async (call, env, ctx) => {
  const aV = await evalArg(call, 'time_diff', env, ctx);
  const bV = await evalArg(call, 'other', env, ctx);
  const unitV = await evalArg(call, 'unit', env, ctx);
  const a = asTemporal(aV, argPos(call, 'time_diff'));
  const b = asTemporal(bV, argPos(call, 'other'));
  const unitPos = argPos(call, 'unit');
  const { name, unit: u } = asUnit(unitV, unitPos);
  if (a instanceof DateV || b instanceof DateV) {
    if (!(a instanceof DateV && b instanceof DateV))
      throw errors.invalidArgument('Incompatible time arguments.', argPos(call, 'other'));
    if (!u.dateBased) throw invalidUnit(name, unitPos);
    return truncDiv(BigInt(b.days - a.days) * NANOS_PER_DAY, u.nanos);
  }
  return checkLong(truncDiv(b.nanos - a.nanos, u.nanos), call.pos);
});

// --- conversions to numbers (fql-v4.md §3.11) -----------------------------------------------

function conversion(head: string, per: bigint): void {
  define(head, async (call, env, ctx) => {
    const nanos = asTimeOrMicros(await evalArg(call, head, env, ctx), argPos(call, head));
    return floorDiv(nanos, per);
  });
}
conversion('to_seconds', NANOS_PER_SECOND);
conversion('to_millis', NANOS_PER_MILLI);
conversion('to_micros', NANOS_PER_MICRO);

// --- UTC fields ------------------------------------------------------------------------------

function field(head: string, get: (f: TimeFields) => number): void {
  define(head, async (call, env, ctx) => {
    const nanos = asTimeOrMicros(await evalArg(call, head, env, ctx), argPos(call, head));
    return BigInt(get(timeFields(nanos)));
  });
}
field('second', (f) => f.second);
field('minute', (f) => f.minute);
field('hour', (f) => f.hour);
field('day_of_month', (f) => f.day);
field('day_of_week', (f) => f.dayOfWeek);
field('day_of_year', (f) => f.dayOfYear);
field('month', (f) => f.month);
field('year', (f) => f.year);
