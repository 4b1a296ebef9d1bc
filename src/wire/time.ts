// ISO-8601 parsing and formatting for Time (bigint nanoseconds since the epoch) and Date (days
// since the epoch), matching Java's Instant/LocalDate text forms that Fauna rendered.

export const NANOS_PER_SECOND = 1_000_000_000n;
export const NANOS_PER_DAY = 86_400n * NANOS_PER_SECOND;

// Java's Instant range is ±1,000,000,000 years; LocalDate's is ±999,999,999.
const MAX_YEAR = 999_999_999;

export interface Civil {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The proleptic Gregorian date of a day number (H. Hinnant's civil_from_days). */
export function civilFromDays(days: number): Civil {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

// --- parsing -------------------------------------------------------------------------------

/** Reads exactly `n` digits at `i`; -1 if they are not all digits. */
function digits(s: string, i: number, n: number): number {
  if (i + n > s.length) return -1;
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Parses `[±]YYYY-MM-DD` at the start of s; returns the date and the index after it. */
function parseDatePart(s: string): { civil: Civil; end: number } | undefined {
  let i = 0;
  let sign = 1;
  const c0 = s.charCodeAt(0);
  if (c0 === 43 || c0 === 45) {
    sign = c0 === 45 ? -1 : 1;
    i = 1;
  }
  let n = 0;
  while (i + n < s.length && s.charCodeAt(i + n) >= 48 && s.charCodeAt(i + n) <= 57) n++;
  // Unsigned years have exactly 4 digits; signed ones at least 4 (ISO expanded years).
  if (n < 4 || (i === 0 && n !== 4) || n > 9) return undefined;
  const year = sign * digits(s, i, n);
  i += n;
  if (s.charCodeAt(i) !== 45) return undefined;
  const month = digits(s, i + 1, 2);
  if (s.charCodeAt(i + 3) !== 45) return undefined;
  const day = digits(s, i + 4, 2);
  if (month < 1 || month > 12 || day < 1 || Math.abs(year) > MAX_YEAR) return undefined;
  if (day > daysInMonth(year, month)) return undefined;
  return { civil: { year, month, day }, end: i + 6 };
}

/** Parses `YYYY-MM-DD` (Java LocalDate form) into days since the epoch. */
export function parseDate(s: string): number | undefined {
  const d = parseDatePart(s);
  if (!d || d.end !== s.length) return undefined;
  return daysFromCivil(d.civil.year, d.civil.month, d.civil.day);
}

/**
 * Parses an ISO-8601 instant: `<date>THH:MM[:SS[.fffffffff]]` followed by `Z` or an offset
 * `±HH`, `±HHMM`, `±HH:MM`, `±HH:MM:SS`. Returns nanoseconds since the epoch.
 */
export function parseIsoTime(s: string): bigint | undefined {
  const d = parseDatePart(s);
  if (!d) return undefined;
  let i = d.end;
  if (s.charCodeAt(i) !== 84 /* T */) return undefined;
  const hour = digits(s, i + 1, 2);
  if (s.charCodeAt(i + 3) !== 58) return undefined;
  const minute = digits(s, i + 4, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return undefined;
  i += 6;
  let second = 0;
  let frac = 0;
  if (s.charCodeAt(i) === 58 /* : */) {
    second = digits(s, i + 1, 2);
    if (second < 0 || second > 59) return undefined;
    i += 3;
    if (s.charCodeAt(i) === 46 /* . */) {
      i++;
      let n = 0;
      while (n < 9 && i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
        frac = frac * 10 + (s.charCodeAt(i) - 48);
        i++;
        n++;
      }
      if (n === 0) return undefined;
      frac *= 10 ** (9 - n);
    }
  }
  const offset = parseOffset(s, i);
  if (offset === undefined) return undefined;
  const days = daysFromCivil(d.civil.year, d.civil.month, d.civil.day);
  const secs = BigInt(days) * 86_400n + BigInt(hour * 3600 + minute * 60 + second - offset);
  return secs * NANOS_PER_SECOND + BigInt(frac);
}

// HH, HHMM, HHMMSS, HH:MM or HH:MM:SS (one separator style throughout).
const OFFSET = /^(\d\d)(?:(\d\d)(\d\d)?|:(\d\d)(?::(\d\d))?)?$/;

/** Offset in seconds of `Z` / `±HH[[:]MM[[:]SS]]` that must end the string. */
function parseOffset(s: string, i: number): number | undefined {
  const c = s.charCodeAt(i);
  if (c === 90 /* Z */) return i + 1 === s.length ? 0 : undefined;
  if (c !== 43 && c !== 45) return undefined;
  const sign = c === 45 ? -1 : 1;
  const m = OFFSET.exec(s.slice(i + 1));
  if (!m) return undefined;
  const h = +m[1];
  const mm = +(m[2] ?? m[4] ?? 0);
  const ss = +(m[3] ?? m[5] ?? 0);
  if (mm > 59 || ss > 59) return undefined;
  const total = h * 3600 + mm * 60 + ss;
  if (total > 18 * 3600) return undefined;
  return sign * total;
}

// --- formatting ----------------------------------------------------------------------------

function pad(n: number, width: number): string {
  const s = String(n);
  return s.length >= width ? s : '0'.repeat(width - s.length) + s;
}

/** Java's year rendering: 4 digits in 0000–9999, else a sign (and at least 4 digits). */
function formatYear(y: number): string {
  if (y >= 0 && y <= 9999) return pad(y, 4);
  return (y < 0 ? '-' : '+') + pad(Math.abs(y), 4);
}

/** `YYYY-MM-DD` of a day number (Java LocalDate.toString). */
export function formatDate(days: number): string {
  const c = civilFromDays(days);
  return `${formatYear(c.year)}-${pad(c.month, 2)}-${pad(c.day, 2)}`;
}

/**
 * Java Instant.toString: seconds always printed, the fraction omitted when zero and otherwise
 * written as 3, 6 or 9 digits, always UTC `Z`.
 */
export function formatTime(nanos: bigint): string {
  let days = nanos / NANOS_PER_DAY;
  let rem = nanos % NANOS_PER_DAY;
  if (rem < 0n) {
    rem += NANOS_PER_DAY;
    days -= 1n;
  }
  const nod = Number(rem); // < 8.64e13, exact
  const secOfDay = Math.floor(nod / 1e9);
  const frac = nod - secOfDay * 1e9;
  const h = Math.floor(secOfDay / 3600);
  const m = Math.floor(secOfDay / 60) % 60;
  const sec = secOfDay % 60;
  let out = `${formatDate(Number(days))}T${pad(h, 2)}:${pad(m, 2)}:${pad(sec, 2)}`;
  if (frac !== 0) {
    if (frac % 1e6 === 0) out += '.' + pad(frac / 1e6, 3);
    else if (frac % 1e3 === 0) out += '.' + pad(frac / 1e3, 6);
    else out += '.' + pad(frac, 9);
  }
  return out + 'Z';
}

// --- arithmetic helpers (time functions, fql-v4.md §3.10) -----------------------------------

export const NANOS_PER_MICRO = 1_000n;
export const NANOS_PER_MILLI = 1_000_000n;

const LONG_MIN_BIG = -(2n ** 63n);
const LONG_MAX_BIG = 2n ** 63n - 1n;

/**
 * The supported Time range: every instant whose microsecond count fits a signed 64-bit Long
 * (-290308-12-21T19:59:05.224192Z … +294247-01-10T04:00:54.775807999Z), so `ts`/ToMicros of any
 * Time is a valid Integer and any Integer is a valid µs timestamp.
 */
export const TIME_MIN_NANOS = LONG_MIN_BIG * NANOS_PER_MICRO;
export const TIME_MAX_NANOS = LONG_MAX_BIG * NANOS_PER_MICRO + (NANOS_PER_MICRO - 1n);

export function timeInRange(nanos: bigint): boolean {
  return nanos >= TIME_MIN_NANOS && nanos <= TIME_MAX_NANOS;
}

/** Floor division of bigints (rounds toward -infinity, like Java's Math.floorDiv). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** Floor modulus of bigints (result has the divisor's sign, like Java's Math.floorMod). */
export function floorMod(a: bigint, b: bigint): bigint {
  return a - floorDiv(a, b) * b;
}

/** UTC calendar and clock fields of an instant (Java's ZonedDateTime at UTC). */
export interface TimeFields extends Civil {
  hour: number; // 0..23
  minute: number; // 0..59
  second: number; // 0..59
  nano: number; // 0..999_999_999
  /** ISO day of week: 1 = Monday … 7 = Sunday. */
  dayOfWeek: number;
  /** 1..366 */
  dayOfYear: number;
}

/** The ISO day of week (1 = Monday … 7 = Sunday) of a day number. */
export function dayOfWeekOfDays(days: number): number {
  // 1970-01-01 was a Thursday (4).
  return ((((days + 3) % 7) + 7) % 7) + 1;
}

export function timeFields(nanos: bigint): TimeFields {
  const days = Number(floorDiv(nanos, NANOS_PER_DAY));
  const nod = Number(floorMod(nanos, NANOS_PER_DAY)); // < 8.64e13, exact
  const secOfDay = Math.floor(nod / 1e9);
  const civil = civilFromDays(days);
  return {
    ...civil,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor(secOfDay / 60) % 60,
    second: secOfDay % 60,
    nano: nod - secOfDay * 1e9,
    dayOfWeek: dayOfWeekOfDays(days),
    dayOfYear: days - daysFromCivil(civil.year, 1, 1) + 1,
  };
}
