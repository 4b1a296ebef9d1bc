// Time and date functions through a real server and the official driver, over HTTP/2 and
// HTTP/1.1 (fql-v4.md §2.5, §3.10, §3.11 ToSeconds/ToMillis/ToMicros; wire.md §2.4).
// The driver turns `@ts` into FaunaTime and `@date` into FaunaDate; both keep the server's text
// in `.value`, so rendered strings are compared exactly.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, values, type ExprArg } from 'faunadb';
import { httpRequest, serverForFile } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

const server = serverForFile();

const T = (s: string) => ({ '@ts': s });
const D = (s: string) => ({ '@date': s });

/** Driver values → plain data: FaunaTime/FaunaDate become `{@ts}` / `{@date}` with the exact text. */
function plain(v: unknown): unknown {
  if (v instanceof values.FaunaTime) return T((v as unknown as { value: string }).value);
  if (v instanceof values.FaunaDate) return D((v as unknown as { value: string }).value);
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

const ep = (n: number, unit: string) => q.Epoch(n, unit);
const sec = (n: number) => q.Epoch(n, 'second');
const tm = (s: string) => q.Time(s);
const dt = (s: string) => q.Date(s);
const FIELDS = (t: ExprArg) => [
  q.Year(t), q.Month(t), q.DayOfMonth(t), q.Hour(t), q.Minute(t), q.Second(t), q.DayOfWeek(t), q.DayOfYear(t),
];

/** [label, expression, expected plain value] */
const VALUES: [string, ExprArg, unknown][] = [
  // wire.md §2.4
  ['Epoch seconds', sec(12), T('1970-01-01T00:00:12Z')],
  ['Epoch nanoseconds', ep(123456789, 'nanosecond'), T('1970-01-01T00:00:00.123456789Z')],
  ['TimeAdd an hour', q.TimeAdd(sec(0), 1, 'hour'), T('1970-01-01T01:00:00Z')],

  // fraction rendering: omitted when zero, else 3/6/9 digits
  ['3-digit fraction', ep(1500, 'millisecond'), T('1970-01-01T00:00:01.500Z')],
  ['6-digit fraction', ep(1000001, 'microsecond'), T('1970-01-01T00:00:01.000001Z')],
  ['6-digit fraction with trailing zero', ep(123450, 'microsecond'), T('1970-01-01T00:00:00.123450Z')],
  ['9-digit fraction', ep(120, 'nanosecond'), T('1970-01-01T00:00:00.000000120Z')],
  ['1000 ns is 6 digits', ep(1000, 'nanosecond'), T('1970-01-01T00:00:00.000001Z')],
  ['10^6 ns is 3 digits', ep(1000000, 'nanosecond'), T('1970-01-01T00:00:00.001Z')],
  ['whole seconds have no fraction', ep(3000, 'millisecond'), T('1970-01-01T00:00:03Z')],

  // every unit, singular and plural, trimmed
  ['Epoch day', ep(1, 'day'), T('1970-01-02T00:00:00Z')],
  ['Epoch days', ep(2, 'days'), T('1970-01-03T00:00:00Z')],
  ['Epoch half day', ep(1, 'half day'), T('1970-01-01T12:00:00Z')],
  ['Epoch half days', ep(3, 'half days'), T('1970-01-02T12:00:00Z')],
  ['Epoch hour', ep(1, 'hour'), T('1970-01-01T01:00:00Z')],
  ['Epoch hours', ep(25, 'hours'), T('1970-01-02T01:00:00Z')],
  ['Epoch minute', ep(1, 'minute'), T('1970-01-01T00:01:00Z')],
  ['Epoch minutes', ep(90, 'minutes'), T('1970-01-01T01:30:00Z')],
  ['Epoch second', ep(1, 'second'), T('1970-01-01T00:00:01Z')],
  ['Epoch seconds plural', ep(61, 'seconds'), T('1970-01-01T00:01:01Z')],
  ['Epoch millisecond', ep(1, 'millisecond'), T('1970-01-01T00:00:00.001Z')],
  ['Epoch milliseconds', ep(86400000, 'milliseconds'), T('1970-01-02T00:00:00Z')],
  ['Epoch microsecond', ep(1, 'microsecond'), T('1970-01-01T00:00:00.000001Z')],
  ['Epoch microseconds', ep(1500000, 'microseconds'), T('1970-01-01T00:00:01.500Z')],
  ['Epoch nanosecond', ep(1, 'nanosecond'), T('1970-01-01T00:00:00.000000001Z')],
  ['Epoch nanoseconds plural', ep(1000000000, 'nanoseconds'), T('1970-01-01T00:00:01Z')],
  ['unit is trimmed', ep(1, '  second '), T('1970-01-01T00:00:01Z')],
  ['unit with inner space is trimmed', ep(1, ' half day\t'), T('1970-01-01T12:00:00Z')],

  // negative epochs (before 1970) and the year range
  ['Epoch -1 s', sec(-1), T('1969-12-31T23:59:59Z')],
  ['Epoch -1 ns', ep(-1, 'nanosecond'), T('1969-12-31T23:59:59.999999999Z')],
  ['Epoch -1500 ms', ep(-1500, 'millisecond'), T('1969-12-31T23:59:58.500Z')],
  ['Epoch -1 µs', ep(-1, 'microsecond'), T('1969-12-31T23:59:59.999999Z')],
  ['Epoch 1969-01-01', sec(-365 * 86400), T('1969-01-01T00:00:00Z')],
  ['Epoch year 1', sec(-62135596800), T('0001-01-01T00:00:00Z')],
  ['Epoch year 0 (leap)', sec(-62167219200), T('0000-01-01T00:00:00Z')],
  ['Epoch 9999-12-31', sec(253402300799), T('9999-12-31T23:59:59Z')],
  ['Epoch 0', sec(0), T('1970-01-01T00:00:00Z')],

  // Time parsing: offsets, fractions, re-rendering in UTC
  ['Time Z', tm('1970-01-01T00:00:00Z'), T('1970-01-01T00:00:00Z')],
  ['Time leap day with millis', tm('2020-02-29T12:34:56.789Z'), T('2020-02-29T12:34:56.789Z')],
  ['Time zero fraction dropped', tm('2020-02-29T12:34:56.000Z'), T('2020-02-29T12:34:56Z')],
  ['Time 1-digit fraction', tm('2020-02-29T12:34:56.1Z'), T('2020-02-29T12:34:56.100Z')],
  ['Time 4-digit fraction', tm('2020-02-29T12:34:56.1234Z'), T('2020-02-29T12:34:56.123400Z')],
  ['Time 9-digit fraction', tm('2020-02-29T12:34:56.123456789Z'), T('2020-02-29T12:34:56.123456789Z')],
  ['Time 000000001', tm('2020-02-29T12:34:56.000000001Z'), T('2020-02-29T12:34:56.000000001Z')],
  ['Time +HH:MM', tm('2020-01-01T00:00:00+01:00'), T('2019-12-31T23:00:00Z')],
  ['Time -HHMM', tm('2020-01-01T00:00:00-0530'), T('2020-01-01T05:30:00Z')],
  ['Time +HH:MM:ss', tm('2020-01-01T00:00:00+01:00:30'), T('2019-12-31T22:59:30Z')],
  ['Time +00:00', tm('2020-06-15T08:09:10.5+00:00'), T('2020-06-15T08:09:10.500Z')],
  ['Time without seconds', tm('2020-01-01T10:15Z'), T('2020-01-01T10:15:00Z')],
  ['Time before 1970', tm('1969-07-20T20:17:40Z'), T('1969-07-20T20:17:40Z')],
  ['Time before 1970 with fraction', tm('1969-12-31T23:59:59.999999999Z'), T('1969-12-31T23:59:59.999999999Z')],
  ['Time year 0', tm('0000-03-01T00:00:00Z'), T('0000-03-01T00:00:00Z')],
  ['Time year 9999', tm('9999-12-31T23:59:59.999999999Z'), T('9999-12-31T23:59:59.999999999Z')],
  ['Time equals Epoch', q.Equals(tm('1970-01-01T00:00:12Z'), sec(12)), true],

  // Date
  ['Date leap day', dt('2020-02-29'), D('2020-02-29')],
  ['Date before 1970', dt('1969-12-31'), D('1969-12-31')],
  ['Date year 0', dt('0000-01-01'), D('0000-01-01')],
  ['Date year 9999', dt('9999-12-31'), D('9999-12-31')],

  // TimeAdd / TimeSubtract on Dates: month ends and leap years
  ['Date +1 day into Feb 29', q.TimeAdd(dt('2020-02-28'), 1, 'day'), D('2020-02-29')],
  ['Date +1 day non-leap', q.TimeAdd(dt('2019-02-28'), 1, 'day'), D('2019-03-01')],
  ['Date +1 day Jan 31', q.TimeAdd(dt('2020-01-31'), 1, 'days'), D('2020-02-01')],
  ['Date +1 day Apr 30', q.TimeAdd(dt('2021-04-30'), 1, 'day'), D('2021-05-01')],
  ['Date +1 day year end', q.TimeAdd(dt('2020-12-31'), 1, 'day'), D('2021-01-01')],
  ['Date 2000 is leap', q.TimeAdd(dt('2000-02-28'), 1, 'day'), D('2000-02-29')],
  ['Date 1900 is not leap', q.TimeAdd(dt('1900-02-28'), 1, 'day'), D('1900-03-01')],
  ['Date -1 day', q.TimeAdd(dt('2020-03-01'), -1, 'day'), D('2020-02-29')],
  ['Date subtract', q.TimeSubtract(dt('2020-03-01'), 1, 'day'), D('2020-02-29')],
  ['Date subtract across 1970', q.TimeSubtract(dt('1970-01-01'), 1, 'days'), D('1969-12-31')],
  ['Date +366 days', q.TimeAdd(dt('2020-01-01'), 366, 'days'), D('2021-01-01')],
  ['Date unit trimmed', q.TimeAdd(dt('2020-01-01'), 1, ' day '), D('2020-01-02')],

  // TimeAdd / TimeSubtract on Times, every unit
  ['Time +1 hour to leap day', q.TimeAdd(tm('2020-02-28T23:00:00Z'), 1, 'hour'), T('2020-02-29T00:00:00Z')],
  ['Time +1 day', q.TimeAdd(tm('2020-02-28T12:00:00Z'), 1, 'day'), T('2020-02-29T12:00:00Z')],
  ['Time +2 days', q.TimeAdd(tm('2019-02-28T12:00:00Z'), 2, 'days'), T('2019-03-02T12:00:00Z')],
  ['Time +half day', q.TimeAdd(tm('2019-12-31T12:00:00Z'), 1, 'half day'), T('2020-01-01T00:00:00Z')],
  ['Time +half days', q.TimeAdd(tm('2019-12-31T12:00:00Z'), 2, 'half days'), T('2020-01-01T12:00:00Z')],
  ['Time +minutes', q.TimeAdd(tm('2020-01-01T00:00:00Z'), 61, 'minutes'), T('2020-01-01T01:01:00Z')],
  ['Time +seconds', q.TimeAdd(tm('2020-01-01T00:00:59Z'), 1, 'second'), T('2020-01-01T00:01:00Z')],
  ['Time +ms', q.TimeAdd(tm('1970-01-01T00:00:00.999Z'), 1, 'millisecond'), T('1970-01-01T00:00:01Z')],
  ['Time +µs', q.TimeAdd(sec(0), 1500, 'microseconds'), T('1970-01-01T00:00:00.001500Z')],
  ['Time +ns', q.TimeAdd(sec(0), 5, 'nanoseconds'), T('1970-01-01T00:00:00.000000005Z')],
  ['Time -1 ns', q.TimeSubtract(sec(0), 1, 'nanosecond'), T('1969-12-31T23:59:59.999999999Z')],
  ['Time subtract minutes', q.TimeSubtract(tm('2020-01-01T00:00:00Z'), 30, 'minutes'), T('2019-12-31T23:30:00Z')],
  ['Time subtract negative', q.TimeSubtract(sec(0), -2, 'hours'), T('1970-01-01T02:00:00Z')],
  ['Time add negative', q.TimeAdd(tm('2020-03-01T00:00:00Z'), -1, 'day'), T('2020-02-29T00:00:00Z')],
  ['Time subtract days keeps ns', q.TimeSubtract(ep(7, 'nanoseconds'), 1, 'day'), T('1969-12-31T00:00:00.000000007Z')],

  // TimeDiff: whole units from the first to the second, truncated toward zero
  ['TimeDiff seconds', q.TimeDiff(sec(0), sec(1), 'second'), 1],
  ['TimeDiff negative day', q.TimeDiff(ep(24, 'hour'), ep(0, 'hour'), 'day'), -1],
  ['TimeDiff dates', q.TimeDiff(dt('1970-01-01'), dt('1970-01-02'), 'day'), 1],
  ['TimeDiff dates negative', q.TimeDiff(dt('2020-03-01'), dt('2020-02-01'), 'days'), -29],
  ['TimeDiff leap year days', q.TimeDiff(tm('2020-01-01T00:00:00Z'), tm('2021-01-01T00:00:00Z'), 'days'), 366],
  ['TimeDiff truncates', q.TimeDiff(sec(0), sec(119), 'minute'), 1],
  ['TimeDiff truncates toward zero', q.TimeDiff(sec(119), sec(0), 'minutes'), -1],
  ['TimeDiff below a second', q.TimeDiff(sec(0), ep(-1, 'nanosecond'), 'second'), 0],
  ['TimeDiff half days', q.TimeDiff(ep(0, 'hour'), ep(35, 'hour'), 'half days'), 2],
  ['TimeDiff hours', q.TimeDiff(tm('2020-01-01T00:00:00Z'), tm('2020-01-01T05:59:59Z'), 'hours'), 5],
  ['TimeDiff ms', q.TimeDiff(sec(0), ep(1999999, 'microseconds'), 'milliseconds'), 1999],
  ['TimeDiff µs', q.TimeDiff(sec(0), ep(-1999, 'nanoseconds'), 'microsecond'), -1],
  ['TimeDiff ns', q.TimeDiff(ep(1, 'nanosecond'), sec(1), 'nanoseconds'), 999999999],
  ['TimeDiff same', q.TimeDiff(sec(5), sec(5), 'day'), 0],

  // ToSeconds / ToMillis / ToMicros (floor), also from µs Integers
  ['ToSeconds', q.ToSeconds(ep(1500, 'millisecond')), 1],
  ['ToMillis', q.ToMillis(ep(1500, 'millisecond')), 1500],
  ['ToMicros', q.ToMicros(sec(1)), 1000000],
  ['ToMicros drops ns', q.ToMicros(ep(1999, 'nanosecond')), 1],
  ['ToSeconds floors negatives', q.ToSeconds(ep(-1, 'millisecond')), -1],
  ['ToMillis floors negatives', q.ToMillis(ep(-1, 'nanosecond')), -1],
  ['ToMicros of a date-time', q.ToMicros(tm('2020-01-01T00:00:00Z')), 1577836800000000],
  ['ToSeconds of µs Integer', q.ToSeconds(1500000), 1],
  ['ToMillis of µs Integer', q.ToMillis(1500000), 1500],
  ['ToMicros of µs Integer', q.ToMicros(42), 42],
  ['ToSeconds of negative µs', q.ToSeconds(-1), -1],
  ['ToSeconds is an Integer', q.IsInteger(q.ToSeconds(sec(3))), true],

  // UTC fields: [Year, Month, DayOfMonth, Hour, Minute, Second, DayOfWeek, DayOfYear]
  ['fields of a leap Saturday', FIELDS(tm('2020-02-29T13:14:15.123Z')), [2020, 2, 29, 13, 14, 15, 6, 60]],
  ['fields of a Sunday', FIELDS(tm('2023-01-01T23:59:59Z')), [2023, 1, 1, 23, 59, 59, 7, 1]],
  ['fields of a Monday', FIELDS(tm('1970-01-05T00:00:00Z')), [1970, 1, 5, 0, 0, 0, 1, 5]],
  ['fields of the epoch (Thursday)', FIELDS(sec(0)), [1970, 1, 1, 0, 0, 0, 4, 1]],
  ['fields of a leap year end', FIELDS(tm('2024-12-31T12:00:00Z')), [2024, 12, 31, 12, 0, 0, 2, 366]],
  ['fields of a year end', FIELDS(tm('2023-12-31T00:00:00Z')), [2023, 12, 31, 0, 0, 0, 7, 365]],
  ['fields before 1970', FIELDS(ep(-1, 'nanosecond')), [1969, 12, 31, 23, 59, 59, 3, 365]],
  ['fields of an offset time', FIELDS(tm('2020-01-01T00:30:00+01:00')), [2019, 12, 31, 23, 30, 0, 2, 365]],
  ['fields of year 0', FIELDS(tm('0000-12-31T00:00:00Z')), [0, 12, 31, 0, 0, 0, 7, 366]],
  ['fields of µs 0', FIELDS(0), [1970, 1, 1, 0, 0, 0, 4, 1]],
  ['fields of µs -1', FIELDS(-1), [1969, 12, 31, 23, 59, 59, 3, 365]],
  ['Hour of µs Integer', q.Hour(3600000000), 1],
  ['Year of µs Integer', q.Year(1577836800000000), 2020],
  ['Month of µs Integer', q.Month(1577836799999999), 12],
  ['DayOfWeek of µs Integer (Sunday)', q.DayOfWeek(1672531200000000), 7],
  ['Second of µs Integer', q.Second(61999999), 1],
  ['fields are Integers', q.IsInteger(q.Hour(0)), true],
];

interface Expected {
  code: string;
  description: string | RegExp;
  position: (string | number)[];
}
const invalid = (description: string | RegExp, position: (string | number)[]): Expected => ({
  code: 'invalid argument',
  description,
  position,
});

/** [label, expression, expected error (all 400)] */
const ERRORS: [string, ExprArg, Expected][] = [
  ['Time of junk', tm('not a time'), invalid("Cannot cast 'not a time' to a time.", ['time'])],
  ['Time of Feb 30', tm('2020-02-30T00:00:00Z'), invalid("Cannot cast '2020-02-30T00:00:00Z' to a time.", ['time'])],
  ['Time without offset', tm('2020-01-01T00:00:00'), invalid("Cannot cast '2020-01-01T00:00:00' to a time.", ['time'])],
  ['Time of a date', tm('2020-01-01'), invalid("Cannot cast '2020-01-01' to a time.", ['time'])],
  ['Time hour 24', tm('2020-01-01T24:00:00Z'), invalid("Cannot cast '2020-01-01T24:00:00Z' to a time.", ['time'])],
  ['Time 10 fraction digits', tm('2020-01-01T00:00:00.1234567891Z'), invalid("Cannot cast '2020-01-01T00:00:00.1234567891Z' to a time.", ['time'])],
  ['Time with trailing junk', tm('2020-01-01T00:00:00Zx'), invalid("Cannot cast '2020-01-01T00:00:00Zx' to a time.", ['time'])],
  ['Time empty', tm(''), invalid("Cannot cast '' to a time.", ['time'])],
  ['Time of Integer', q.Time(1 as unknown as string), invalid('String expected, Integer provided.', ['time'])],
  ['Date month 13', dt('2020-13-01'), invalid("Cannot cast '2020-13-01' to a date.", ['date'])],
  ['Date Feb 29 non-leap', dt('2021-02-29'), invalid("Cannot cast '2021-02-29' to a date.", ['date'])],
  ['Date of a time', dt('2020-01-01T00:00:00Z'), invalid("Cannot cast '2020-01-01T00:00:00Z' to a date.", ['date'])],
  ['Date short year', dt('20-01-01'), invalid("Cannot cast '20-01-01' to a date.", ['date'])],
  ['Date of Integer', q.Date(1 as unknown as string), invalid('String expected, Integer provided.', ['date'])],
  ['Epoch bad unit', ep(1, 'week'), invalid("Invalid time unit 'week'.", ['unit'])],
  ['Epoch empty unit', ep(1, ''), invalid("Invalid time unit ''.", ['unit'])],
  ['Epoch Double', ep(1.5, 'second'), invalid('Integer expected, Double provided.', ['epoch'])],
  ['Epoch String', q.Epoch('1' as unknown as number, 'second'), invalid('Integer expected, String provided.', ['epoch'])],
  ['Epoch unit not a String', q.Epoch(1, 5 as unknown as string), invalid('Time Unit expected, Integer provided.', ['unit'])],
  ['Epoch out of range', ep(1e15, 'day'), invalid(/must be/, ['epoch'])],
  ['Date with hour unit', q.TimeAdd(dt('2020-01-01'), 1, 'hour'), invalid("Invalid time unit 'hour'.", ['unit'])],
  ['Date with half day unit', q.TimeAdd(dt('2020-01-01'), 1, 'half day'), invalid("Invalid time unit 'half day'.", ['unit'])],
  ['Date subtract nanoseconds', q.TimeSubtract(dt('2020-01-01'), 1, 'nanoseconds'), invalid("Invalid time unit 'nanoseconds'.", ['unit'])],
  ['TimeAdd bad unit', q.TimeAdd(sec(0), 1, 'fortnight'), invalid("Invalid time unit 'fortnight'.", ['unit'])],
  ['TimeAdd String time', q.TimeAdd('2020-01-01', 1, 'day'), invalid('Temporal expected, String provided.', ['time_add'])],
  ['TimeSubtract Integer time', q.TimeSubtract(0, 1, 'day'), invalid('Temporal expected, Integer provided.', ['time_subtract'])],
  ['TimeAdd Double offset', q.TimeAdd(sec(0), 1.5, 'second'), invalid('Integer expected, Double provided.', ['offset'])],
  ['TimeAdd out of range', q.TimeAdd(sec(0), 1e15, 'days'), invalid(/must be/, ['offset'])],
  ['TimeDiff Date and Time', q.TimeDiff(dt('2020-01-01'), tm('2020-01-01T00:00:00Z'), 'day'), invalid('Incompatible time arguments.', ['other'])],
  ['TimeDiff Time and Date', q.TimeDiff(tm('2020-01-01T00:00:00Z'), dt('2020-01-02'), 'days'), invalid('Incompatible time arguments.', ['other'])],
  ['TimeDiff Dates in hours', q.TimeDiff(dt('2020-01-01'), dt('2020-01-02'), 'hours'), invalid("Invalid time unit 'hours'.", ['unit'])],
  ['TimeDiff bad unit', q.TimeDiff(sec(0), sec(1), 'years'), invalid("Invalid time unit 'years'.", ['unit'])],
  ['TimeDiff String', q.TimeDiff(sec(0), 'x', 'second'), invalid('Temporal expected, String provided.', ['other'])],
  ['Hour of a String', q.Hour('x'), invalid('Time or Integer expected, String provided.', ['hour'])],
  ['Year of a Double', q.Year(1.5), invalid('Time or Integer expected, Double provided.', ['year'])],
  ['DayOfWeek of a Date', q.DayOfWeek(dt('2020-01-01')), invalid('Time or Integer expected, Date provided.', ['day_of_week'])],
  ['ToSeconds of a Date', q.ToSeconds(dt('2020-01-01')), invalid('Time or Integer expected, Date provided.', ['to_seconds'])],
  ['ToMicros of a String', q.ToMicros('2020-01-01T00:00:00Z'), invalid('Time or Integer expected, String provided.', ['to_micros'])],
];

for (const proto of ['h2', 'h1'] as const) {
  describe(`time functions over ${proto === 'h2' ? 'HTTP/2' : 'HTTP/1.1'}`, () => {
    test('values', async () => {
      const results = await Promise.all(VALUES.map(([, expr]) => server.drivers[proto].query(expr)));
      VALUES.forEach(([label, , expected], i) => assert.deepEqual(plain(results[i]), expected, label));
    });

    test('errors', async () => {
      const results = await Promise.all(ERRORS.map(([, expr]) => failure(server.drivers[proto], expr)));
      ERRORS.forEach(([label, , expected], i) => {
        const got = results[i];
        assert.equal(got.status, 400, label);
        assert.equal(got.code, expected.code, label);
        if (typeof expected.description === 'string') assert.equal(got.description, expected.description, label);
        else assert.match(got.description, expected.description, label);
        assert.deepEqual(got.position, expected.position, label);
      });
    });

    test('Now() is the wall clock and equals Time("now") in one query', async () => {
      const before = Date.now() * 1000;
      const [now, same, micros] = (await server.drivers[proto].query([
        q.Now(),
        q.Equals(q.Now(), q.Time('now')),
        q.ToMicros(q.Now()),
      ])) as [values.FaunaTime, boolean, number];
      const after = Date.now() * 1000;
      assert.ok(now instanceof values.FaunaTime);
      assert.equal(same, true);
      assert.ok(micros >= before - 1_000_000 && micros <= after + 1_000_000, `${micros} not within a second of ${before}..${after}`);
      assert.match((now as unknown as { value: string }).value, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z$/);
    });
  });
}

test('raw @ts and @date rendering', async () => {
  const res = await httpRequest(server.flora.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.flora.secret}`, 'x-faunadb-api-version': '4', 'content-type': 'application/json' },
    body: JSON.stringify([
      { epoch: 123456789, unit: 'nanosecond' },
      { time_add: { date: '2020-02-28' }, offset: 1, unit: 'day' },
      { to_seconds: { epoch: 1, unit: 'second' } },
    ]),
  });
  assert.equal(res.status, 200);
  assert.equal(res.body, '{"resource":[{"@ts":"1970-01-01T00:00:00.123456789Z"},{"@date":"2020-02-29"},1]}');
});
