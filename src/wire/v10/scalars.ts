// The text forms of tagged scalars, read as the core's JVM parsers read them: Scala's
// toIntOption / toLongOption / toDoubleOption, fauna.lang.Timestamp.parse and java.util.Base64's
// basic decoder (LocalDate.parse is ../time's parseDate). Each returns undefined for text the core rejects.

import { parseDate } from '../time';

const INTEGER = /^[+-]?\d+$/;

/** Scala's String.toIntOption: an optional sign and digits, within 32 bits. */
export function parseInt32(s: string): bigint | undefined {
  if (!INTEGER.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 31n) && n < 2n ** 31n ? n : undefined;
}

/** Scala's String.toLongOption: an optional sign and digits, within 64 bits. */
export function parseInt64(s: string): bigint | undefined {
  if (!INTEGER.test(s) || s.length > 21) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

// Java's Double.valueOf grammar (which toDoubleOption accepts): blanks around, a sign, NaN,
// Infinity, a decimal with optional exponent, or a hexadecimal with binary exponent; an optional
// f/F/d/D suffix on numbers.
const DECIMAL = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)[fFdD]?$/;

export function parseDouble(s: string): number | undefined {
  const t = s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  if (DECIMAL.test(t)) return Number(t.replace(/[fFdD]$/, ''));
  const m = HEX.exec(t);
  if (!m || m[2] + (m[3] ?? '') === '') return undefined;
  const digits = m[2] + (m[3] ?? '');
  const mantissa = Number(BigInt('0x' + digits));
  const v = mantissa * 2 ** (Number(m[4]) - 4 * (m[3] ?? '').length);
  return m[1] === '-' ? -v : v;
}

const TIME_OF_DAY = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{0,9}))?)?/;
const OFFSET = /^(?:[Zz]|([+-])(\d\d)(?::(\d\d)(?::(\d\d))?|(\d\d))?)$/;

/**
 * fauna.lang.Timestamp.parse: ISO_LOCAL_DATE_TIME (`T` in either case, seconds and a fraction of up
 * to 9 digits optional) followed by an offset, `Z`, `±HH:MM`, `±HH:MM:SS` or `±HHMM`; without one
 * there is no instant. Nanoseconds since the epoch.
 */
export function parseTimestamp(s: string): bigint | undefined {
  const t = s.search(/[Tt]/);
  if (t < 0) return undefined;
  const days = parseDate(s.slice(0, t));
  if (days === undefined) return undefined;
  const rest = s.slice(t + 1);
  const m = TIME_OF_DAY.exec(rest);
  if (!m) return undefined;
  const [h, min, sec] = [+m[1], +m[2], +(m[3] ?? 0)];
  if (h > 23 || min > 59 || sec > 59) return undefined;
  const frac = m[4] === undefined || m[4] === '' ? 0n : BigInt(m[4].padEnd(9, '0'));
  const o = OFFSET.exec(rest.slice(m[0].length));
  if (!o) return undefined;
  let offset = 0;
  if (o[1] !== undefined) {
    // +HH alone is neither +HH:MM:ss nor +HHMM
    if (o[3] === undefined && o[5] === undefined) return undefined;
    const [oh, om, os] = [+o[2], +(o[3] ?? o[5]), +(o[4] ?? 0)];
    if (oh > 18 || om > 59 || os > 59 || oh * 3600 + om * 60 + os > 18 * 3600) return undefined;
    offset = (o[1] === '-' ? -1 : 1) * (oh * 3600 + om * 60 + os);
  }
  const secs = BigInt(days) * 86_400n + BigInt(h * 3600 + min * 60 + sec - offset);
  return secs * 1_000_000_000n + frac;
}

const BASE64 = /^[A-Za-z0-9+/]*(={0,2})$/;

/** java.util.Base64.getDecoder: the standard alphabet, padding optional but complete when present. */
export function parseBase64(s: string): Uint8Array | undefined {
  const m = BASE64.exec(s);
  if (!m) return undefined;
  const pad = m[1].length;
  const n = s.length - pad;
  if (n % 4 === 1) return undefined;
  if (pad > 0 && pad !== (4 - (n % 4)) % 4) return undefined;
  return new Uint8Array(Buffer.from(s, 'base64'));
}
