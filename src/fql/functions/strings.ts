// String functions of FQL v4 (fql-v4.md §3.8): casefold, containsstr, startswith, endswith,
// findstr, length, lowercase, uppercase, titlecase, ltrim, rtrim, trim, ngram, repeat, replacestr,
// space, substring, format. (`concat` lives in objects.ts; the regex functions in regex.ts.)
//
// Indexes and lengths are in code points, as Fauna's (Java) implementation reports them.

import { errors, type Position } from '../../values/errors';
import { DateV, Time, type Value } from '../../values/types';
import { encodeValue } from '../../wire/encode';
import { NANOS_PER_DAY, civilFromDays, daysFromCivil } from '../../wire/time';
import { argPos, asLong, elemPos, evalArg, evalList, evalOptional, mismatch } from '../args';
import { define } from '../registry';
import { toFqlString } from './conversions';
import { bounds, clampInt, cpLength, optInt, startIndex, strArg, unitIndex, unitWidth } from './text';

// --- casefold ------------------------------------------------------------------------------

const NORMALIZERS = ['NFKCCaseFold', 'NFC', 'NFD', 'NFKC', 'NFKD'] as const;
type Normalizer = (typeof NORMALIZERS)[number];
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** Unicode full case folding (CaseFolding.txt C+F) of one code point, without Turkic rules. */
function foldCodePoint(c: string): string {
  const cp = c.codePointAt(0)!;
  if (cp < 0x80) return c.toLowerCase();
  if (cp === 0x131) return c; // dotless i has no folding
  if (cp >= 0x13a0 && cp <= 0x13f5) return c; // Cherokee folds to its uppercase letters
  if (cp >= 0x13f8 && cp <= 0x13fd) return String.fromCodePoint(cp - 8);
  if (cp >= 0xab70 && cp <= 0xabbf) return String.fromCodePoint(cp - 0xab70 + 0x13a0);
  // lower∘upper∘lower reaches the folded form for everything else (ß→ss, ẞ→ss, ſ→s, ς→σ,
  // ϐ→β, ﬀ→ff, ᾳ→αι, ŉ→ʼn, İ→i̇, …).
  return c.toLowerCase().toUpperCase().toLowerCase();
}

function caseFold(s: string): string {
  if (ASCII_ONLY.test(s)) return s.toLowerCase();
  let out = '';
  for (const c of s) out += foldCodePoint(c);
  return out;
}

/** ICU's NFKC_Casefold: NFKC, full case folding, default ignorables removed (to a fixpoint). */
function nfkcCaseFold(s: string): string {
  let cur = s.normalize('NFKC');
  for (let i = 0; i < 3; i++) {
    const next = caseFold(cur).replace(DEFAULT_IGNORABLE, '').normalize('NFKC');
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

function normalize(s: string, n: Normalizer): string {
  return n === 'NFKCCaseFold' ? nfkcCaseFold(s) : s.normalize(n);
}

define('casefold', async (call, env, ctx) => {
  const inputs = await evalList(call, 'casefold', env, ctx, false);
  const nv = await evalOptional(call, 'normalizer', env, ctx);
  let norm: Normalizer = 'NFKCCaseFold';
  if (nv !== undefined && nv !== null) {
    if (typeof nv !== 'string' || !(NORMALIZERS as readonly string[]).includes(nv))
      mismatch("String 'NFKCCaseFold', 'NFC', 'NFD', 'NFKC', or 'NFKD'", nv, argPos(call, 'normalizer'));
    norm = nv as Normalizer;
  }
  const out = inputs.map((v) => (typeof v === 'string' ? normalize(v, norm) : v));
  // One input gives one output, several give an array (Fauna's CasefoldFunction).
  return out.length === 1 ? out[0] : out;
});

// --- simple predicates and searches ---------------------------------------------------------

function searchFn(head: string, test: (s: string, t: string) => boolean): void {
  define(head, async (call, env, ctx) => {
    const s = await strArg(call, head, env, ctx);
    const t = await strArg(call, 'search', env, ctx);
    return test(s, t);
  });
}

searchFn('containsstr', (s, t) => s.includes(t));
searchFn('startswith', (s, t) => s.startsWith(t));
searchFn('endswith', (s, t) => s.endsWith(t));

define('findstr', async (call, env, ctx) => {
  const s = await strArg(call, 'findstr', env, ctx);
  const find = await strArg(call, 'find', env, ctx);
  const start = startIndex(s, await optInt(call, 'start', env, ctx));
  const at = s.indexOf(find, unitIndex(s, start));
  return at < 0 ? -1n : BigInt(cpLength(s.slice(0, at)));
});

// --- case, length, trimming --------------------------------------------------------------------

define('length', async (call, env, ctx) => BigInt(cpLength(await strArg(call, 'length', env, ctx))));
define('lowercase', async (call, env, ctx) => (await strArg(call, 'lowercase', env, ctx)).toLowerCase());
define('uppercase', async (call, env, ctx) => (await strArg(call, 'uppercase', env, ctx)).toUpperCase());

const WORDS = new Intl.Segmenter('und', { granularity: 'word' });
/** ICU adjusts each word start to the first letter, number, symbol or private-use character. */
const TITLE_START = /[\p{L}\p{N}\p{S}\p{Co}]/u;
/** Titlecase mappings that are not "first char of the uppercase mapping, rest lowercased". */
const TITLE_SPECIAL = new Map<number, string>([
  [0x1c4, '\u01c5'], [0x1c5, '\u01c5'], [0x1c6, '\u01c5'],
  [0x1c7, '\u01c8'], [0x1c8, '\u01c8'], [0x1c9, '\u01c8'],
  [0x1ca, '\u01cb'], [0x1cb, '\u01cb'], [0x1cc, '\u01cb'],
  [0x1f1, '\u01f2'], [0x1f2, '\u01f2'], [0x1f3, '\u01f2'],
  [0x149, '\u02bcN'],
  [0x1fb3, '\u1fbc'], [0x1fc3, '\u1fcc'], [0x1ff3, '\u1ffc'],
  [0x1fb2, '\u1fba\u0345'], [0x1fb4, '\u0386\u0345'], [0x1fc2, '\u1fca\u0345'], [0x1fc4, '\u0389\u0345'],
  [0x1ff2, '\u1ffa\u0345'], [0x1ff4, '\u038f\u0345'], [0x1fb7, '\u0391\u0342\u0345'],
  [0x1fc7, '\u0397\u0342\u0345'], [0x1ff7, '\u03a9\u0342\u0345'],
]);
for (const base of [0x1f80, 0x1f90, 0x1fa0])
  for (let k = 0; k < 16; k++) TITLE_SPECIAL.set(base + k, String.fromCodePoint(base + 8 + (k % 8)));

function titleChar(c: string): string {
  const special = TITLE_SPECIAL.get(c.codePointAt(0)!);
  if (special !== undefined) return special;
  const up = c.toUpperCase();
  const first = String.fromCodePoint(up.codePointAt(0)!);
  return first.length === up.length ? up : first + up.slice(first.length).toLowerCase();
}

function titlecase(s: string): string {
  let out = '';
  for (const { segment } of WORDS.segment(s)) {
    let i = 0;
    while (i < segment.length && !TITLE_START.test(String.fromCodePoint(segment.codePointAt(i)!))) i += unitWidth(segment, i);
    if (i >= segment.length) {
      out += segment.toLowerCase();
      continue;
    }
    const w = unitWidth(segment, i);
    out += segment.slice(0, i) + titleChar(segment.slice(i, i + w)) + segment.slice(i + w).toLowerCase();
  }
  return out;
}

define('titlecase', async (call, env, ctx) => titlecase(await strArg(call, 'titlecase', env, ctx)));

// Unicode White_Space (includes NBSP and U+0085, unlike Java's Character.isWhitespace).
const LEADING_WS = /^\p{White_Space}+/u;
const TRAILING_WS = /\p{White_Space}+$/u;
define('ltrim', async (call, env, ctx) => (await strArg(call, 'ltrim', env, ctx)).replace(LEADING_WS, ''));
define('rtrim', async (call, env, ctx) => (await strArg(call, 'rtrim', env, ctx)).replace(TRAILING_WS, ''));
define('trim', async (call, env, ctx) =>
  (await strArg(call, 'trim', env, ctx)).replace(LEADING_WS, '').replace(TRAILING_WS, ''),
);

// --- ngram, repeat, space, substring ---------------------------------------------------------

/** Lucene NGramTokenizer order: for each start position, grams of increasing length. */
function ngrams(s: string, min: number, max: number, out: Value[]): void {
  const cps = Array.from(s);
  for (let p = 0; p < cps.length; p++)
    for (let n = min; n <= max && p + n <= cps.length; n++) out.push(cps.slice(p, p + n).join(''));
}

define('ngram', async (call, env, ctx) => {
  const terms = await evalList(call, 'ngram', env, ctx, false);
  const min = (await optInt(call, 'min', env, ctx)) ?? 1;
  const max = (await optInt(call, 'max', env, ctx)) ?? 2;
  if (min <= 0) bounds('min', 'greater than 0', argPos(call, 'min'));
  if (min > max) bounds('max', 'greater than or equal to min', argPos(call, 'max'));
  if (max - min > 1) bounds('max - min', 'less than or equal to 1', argPos(call, 'max'));
  const out: Value[] = [];
  for (const t of terms) {
    if (typeof t === 'string') ngrams(t, min, max, out);
    else out.push(t);
  }
  return out;
});

const MAX_REPEAT = 1024;

define('repeat', async (call, env, ctx) => {
  const s = await strArg(call, 'repeat', env, ctx);
  const n = (await optInt(call, 'number', env, ctx)) ?? 2;
  return n <= 0 ? '' : s.repeat(Math.min(n, MAX_REPEAT));
});

define('space', async (call, env, ctx) => {
  const n = clampInt(asLong(await evalArg(call, 'space', env, ctx), argPos(call, 'space')));
  return n <= 0 ? '' : ' '.repeat(Math.min(n, MAX_REPEAT));
});

define('substring', async (call, env, ctx) => {
  const s = await strArg(call, 'substring', env, ctx);
  const start = (await optInt(call, 'start', env, ctx)) ?? 0;
  const length = await optInt(call, 'length', env, ctx);
  const cps = Array.from(s);
  const from = start < 0 ? Math.max(cps.length + start, 0) : start;
  if (from > cps.length) bounds('start', 'less than or equal to the string length', argPos(call, 'start'));
  if (length !== undefined && length < 0) bounds('length', 'positive', argPos(call, 'length'));
  return cps.slice(from, length === undefined ? cps.length : from + length).join('');
});

// --- replace ---------------------------------------------------------------------------------

define('replacestr', async (call, env, ctx) => {
  const s = await strArg(call, 'replacestr', env, ctx);
  const find = await strArg(call, 'find', env, ctx);
  const replace = await strArg(call, 'replace', env, ctx);
  // Java String.replace; an empty `find` inserts between code points (Java: between UTF-16 units).
  if (find === '') return ['', ...Array.from(s), ''].join(replace);
  return s.split(find).join(replace);
});

// --- format ------------------------------------------------------------------------------------

interface Spec {
  /** Literal text (conversion undefined) or a conversion. */
  text?: string;
  conv?: string; // s S d x X o f e E g G b B t T n % @ ^
  dt?: string; // date/time suffix
  index?: number; // 1-based explicit index; 0 = ordinary; -1 = relative (<)
  flags: string;
  width?: number;
  precision?: number;
}

const CONVERSIONS = new Set('sSdxXofeEgGbBn%@^');
const DT_SUFFIXES = new Set('HIklMSLNpzZsQBbhAaCYyjmdeRTrDFc');

function parseFormat(fmt: string, pos: Position): Spec[] {
  const specs: Spec[] = [];
  let i = 0;
  let text = '';
  const bad = (c: string): never => {
    throw errors.invalidArgument(`Invalid conversion format '${c}'.`, pos);
  };
  while (i < fmt.length) {
    const ch = fmt[i];
    if (ch !== '%') {
      text += ch;
      i++;
      continue;
    }
    if (text) specs.push({ text, flags: '' });
    text = '';
    const at = i + 1;
    if (at >= fmt.length) bad('%');
    let j = at;
    const spec: Spec = { flags: '', index: 0 };
    // %N$ (explicit index) — digits followed by '$'
    const idx = /^(\d+)\$/.exec(fmt.slice(j, j + 12));
    if (idx) {
      spec.index = Number(idx[1]);
      j += idx[0].length;
    }
    while (j < fmt.length && '-#+ 0,(<'.includes(fmt[j])) {
      if (fmt[j] === '<') spec.index = -1;
      else spec.flags += fmt[j];
      j++;
    }
    const w = /^\d+/.exec(fmt.slice(j));
    if (w) {
      spec.width = Number(w[0]);
      j += w[0].length;
    }
    if (fmt[j] === '.') {
      const p = /^\d+/.exec(fmt.slice(j + 1));
      if (!p) bad(fmt[at]);
      spec.precision = Number(p![0]);
      j += 1 + p![0].length;
    }
    if (j >= fmt.length) bad(fmt[at]);
    const conv = fmt[j];
    if (conv === 't' || conv === 'T') {
      if (j + 1 >= fmt.length) bad(conv);
      const suffix = String.fromCodePoint(fmt.codePointAt(j + 1)!);
      if (!DT_SUFFIXES.has(suffix)) throw errors.invalidArgument(`Invalid date/time suffix '${suffix}'.`, pos);
      spec.conv = conv;
      spec.dt = suffix;
      j += 1 + suffix.length;
    } else {
      if (!CONVERSIONS.has(conv)) bad(String.fromCodePoint(fmt.codePointAt(j)!));
      spec.conv = conv;
      j++;
    }
    if (conv === 'n' || conv === '%') spec.index = undefined;
    specs.push(spec);
    i = j;
  }
  if (text) specs.push({ text, flags: '' });
  return specs;
}

function justify(s: string, spec: Spec): string {
  if (spec.width === undefined) return s;
  const n = cpLength(s);
  if (n >= spec.width) return s;
  const pad = ' '.repeat(spec.width - n);
  return spec.flags.includes('-') ? s + pad : pad + s;
}

function group3(int: string): string {
  let out = '';
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) out += ',';
    out += int[i];
  }
  return out;
}

/**
 * Java Formatter's sign / grouping / zero padding of a magnitude, then justification.
 * `mag` is the digits (with optional '.' and fraction); `tail` follows it unpadded (e.g. "e+05").
 */
function signed(neg: boolean, mag: string, tail: string, spec: Spec, group: boolean): string {
  const f = spec.flags;
  const paren = neg && f.includes('(');
  const sign = neg ? (paren ? '(' : '-') : f.includes('+') ? '+' : f.includes(' ') ? ' ' : '';
  if (group && f.includes(',')) {
    const dot = mag.indexOf('.');
    mag = dot < 0 ? group3(mag) : group3(mag.slice(0, dot)) + mag.slice(dot);
  }
  const end = tail + (paren ? ')' : '');
  if (spec.width !== undefined && f.includes('0')) {
    const missing = spec.width - sign.length - mag.length - end.length;
    if (missing > 0) mag = '0'.repeat(missing) + mag;
  }
  return justify(sign + mag + end, spec);
}

/** Shortest round-trip decimal digits of a positive finite double: value = d.ddd × 10^exp. */
function decimalDigits(x: number): { digits: string; exp: number } {
  const e = x.toExponential();
  const at = e.indexOf('e');
  let digits = e.slice(0, at).replace('.', '');
  digits = digits.replace(/0+$/, '') || '0';
  return { digits, exp: Number(e.slice(at + 1)) };
}

/** Rounds to `n` significant digits, half-up on the decimal digits (Java's applyPrecision). */
function roundDigits(d: { digits: string; exp: number }, n: number): { digits: string; exp: number } {
  if (n >= d.digits.length) return d;
  if (n < 0) return { digits: '0', exp: d.exp };
  const next = d.digits.charCodeAt(n) - 48;
  if (next < 5) return n === 0 ? { digits: '0', exp: d.exp } : { digits: d.digits.slice(0, n), exp: d.exp };
  if (n === 0) return { digits: '1', exp: d.exp + 1 };
  const keep = d.digits.slice(0, n).split('').map(Number);
  let k = n - 1;
  while (k >= 0 && keep[k] === 9) keep[k--] = 0;
  if (k < 0) return { digits: '1', exp: d.exp + 1 };
  keep[k]++;
  return { digits: keep.join('').replace(/0+$/, '') || '0', exp: d.exp };
}

function fixed(x: number, prec: number): string {
  let d = x === 0 ? { digits: '0', exp: 0 } : decimalDigits(x);
  if (x !== 0) d = roundDigits(d, d.exp + 1 + prec);
  const zero = d.digits === '0';
  const point = zero ? 1 : d.exp + 1;
  const int = point <= 0 ? '0' : (d.digits + '0'.repeat(Math.max(0, point - d.digits.length))).slice(0, point);
  const frac = point <= 0 ? '0'.repeat(-point) + d.digits : d.digits.slice(point);
  const f = zero ? '0'.repeat(prec) : (frac + '0'.repeat(prec)).slice(0, prec);
  return prec > 0 ? int + '.' + f : int;
}

function scientific(x: number, prec: number): { mant: string; exp: string } {
  let d = x === 0 ? { digits: '0', exp: 0 } : decimalDigits(x);
  if (x !== 0) d = roundDigits(d, prec + 1);
  const rest = (d.digits.slice(1) + '0'.repeat(prec)).slice(0, prec);
  const mant = prec > 0 ? d.digits[0] + '.' + rest : d.digits[0];
  const e = Math.abs(d.exp);
  return { mant, exp: (d.exp < 0 ? '-' : '+') + (e < 10 ? '0' + e : String(e)) };
}

function formatDouble_(x: number, spec: Spec): string {
  const conv = spec.conv!;
  const upper = conv === 'E' || conv === 'G';
  if (Number.isNaN(x)) return justify(upper ? 'NAN' : 'NaN', spec);
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let out: string;
  if (!Number.isFinite(ax)) {
    out = signed(neg, 'Infinity', '', { ...spec, flags: spec.flags.replace('0', '') }, false);
  } else if (conv === 'f') {
    let mag = fixed(ax, spec.precision ?? 6);
    if (spec.flags.includes('#') && spec.precision === 0) mag += '.';
    out = signed(neg, mag, '', spec, true);
  } else if (conv === 'e' || conv === 'E') {
    const prec = spec.precision ?? 6;
    const s = scientific(ax, prec);
    out = signed(neg, s.mant + (spec.flags.includes('#') && prec === 0 ? '.' : ''), 'e' + s.exp, spec, false);
  } else {
    const p = spec.precision === undefined ? 6 : spec.precision === 0 ? 1 : spec.precision;
    const r = ax === 0 ? { digits: '0', exp: 0 } : roundDigits(decimalDigits(ax), p);
    if (ax !== 0 && (r.exp < -4 || r.exp >= p)) {
      const s = scientific(ax, p - 1);
      out = signed(neg, s.mant, 'e' + s.exp, spec, false);
    } else {
      out = signed(neg, fixed(ax, ax === 0 ? p - 1 : p - (r.exp + 1)), '', spec, true);
    }
  }
  return upper ? out.toUpperCase() : out;
}

function formatLong(v: bigint, spec: Spec): string {
  const conv = spec.conv!;
  if (conv === 'd') {
    const neg = v < 0n;
    return signed(neg, (neg ? -v : v).toString(), '', spec, true);
  }
  const u = BigInt.asUintN(64, v);
  let digits = conv === 'o' ? u.toString(8) : u.toString(16);
  const prefix = spec.flags.includes('#') ? (conv === 'o' ? '0' : '0x') : '';
  if (spec.width !== undefined && spec.flags.includes('0')) {
    const missing = spec.width - prefix.length - digits.length;
    if (missing > 0) digits = '0'.repeat(missing) + digits;
  }
  const out = justify(prefix + digits, spec);
  return conv === 'X' ? out.toUpperCase() : out;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function pad(n: number | bigint, w: number): string {
  const s = String(n);
  return s.length >= w ? s : '0'.repeat(w - s.length) + s;
}

/** Java's %t conversions on a UTC date-time (a Date is midnight UTC). */
function formatDateTime(nanos: bigint, suffix: string): string {
  let days = nanos / NANOS_PER_DAY;
  let rem = nanos % NANOS_PER_DAY;
  if (rem < 0n) {
    rem += NANOS_PER_DAY;
    days -= 1n;
  }
  const day = Number(days);
  const nod = Number(rem);
  const civil = civilFromDays(day);
  const secOfDay = Math.floor(nod / 1e9);
  const hour = Math.floor(secOfDay / 3600);
  const minute = Math.floor(secOfDay / 60) % 60;
  const second = secOfDay % 60;
  const nano = nod - secOfDay * 1e9;
  const yoe = civil.year <= 0 ? 1 - civil.year : civil.year; // Java's YEAR_OF_ERA
  const dow = (((day + 4) % 7) + 7) % 7;
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
  const f = (s: string): string => formatDateTime(nanos, s);
  switch (suffix) {
    case 'H': return pad(hour, 2);
    case 'I': return pad(h12, 2);
    case 'k': return String(hour);
    case 'l': return String(h12);
    case 'M': return pad(minute, 2);
    case 'S': return pad(second, 2);
    case 'L': return pad(Math.floor(nano / 1e6), 3);
    case 'N': return pad(nano, 9);
    case 'p': return hour < 12 ? 'am' : 'pm';
    case 'z': return '+0000';
    case 'Z': return 'UTC';
    case 's': return floorDiv(nanos, 1_000_000_000n).toString();
    case 'Q': return floorDiv(nanos, 1_000_000n).toString();
    case 'B': return MONTHS[civil.month - 1];
    case 'b':
    case 'h': return MONTHS[civil.month - 1].slice(0, 3);
    case 'A': return WEEKDAYS[dow];
    case 'a': return WEEKDAYS[dow].slice(0, 3);
    case 'C': return pad(Math.floor(yoe / 100), 2);
    case 'Y': return pad(yoe, 4);
    case 'y': return pad(yoe % 100, 2);
    case 'j': return pad(day - daysFromCivil(civil.year, 1, 1) + 1, 3);
    case 'm': return pad(civil.month, 2);
    case 'd': return pad(civil.day, 2);
    case 'e': return String(civil.day);
    case 'R': return `${f('H')}:${f('M')}`;
    case 'T': return `${f('H')}:${f('M')}:${f('S')}`;
    case 'r': return `${f('I')}:${f('M')}:${f('S')} ${f('p').toUpperCase()}`;
    case 'D': return `${f('m')}/${f('d')}/${f('y')}`;
    case 'F': return `${f('Y')}-${f('m')}-${f('d')}`;
    default: return `${f('a')} ${f('b')} ${f('d')} ${f('T')} ${f('Z')} ${f('Y')}`; // 'c'
  }
}


function truncate(s: string, spec: Spec): string {
  if (spec.precision === undefined) return s;
  return Array.from(s).slice(0, spec.precision).join('');
}

define('format', async (call, env, ctx) => {
  const fmt = await strArg(call, 'format', env, ctx);
  const values = call.args.has('values') ? await evalList(call, 'values', env, ctx, false) : [];
  const specs = parseFormat(fmt, argPos(call, 'format'));

  // Resolve argument indexes first: every specifier needs a value.
  let ordinary = 0;
  let lastIndex = -1;
  const indexes = specs.map((s) => {
    if (s.conv === undefined || s.index === undefined) return -1;
    const i = s.index > 0 ? s.index - 1 : s.index === -1 ? lastIndex : ordinary++;
    lastIndex = i;
    return i;
  });
  if (indexes.some((i, k) => specs[k].conv !== undefined && specs[k].index !== undefined && (i < 0 || i >= values.length)))
    throw errors.invalidArgument('format specifiers count must be <= arguments size', call.pos);

  let out = '';
  specs.forEach((spec, k) => {
    if (spec.conv === undefined) {
      out += spec.text;
      return;
    }
    if (spec.conv === 'n') {
      out += '\n';
      return;
    }
    if (spec.conv === '%') {
      out += justify('%', spec);
      return;
    }
    const i = indexes[k];
    const v = values[i];
    const pos = elemPos(call, 'values', i);
    switch (spec.conv) {
      case 's':
      case 'S': {
        const s = justify(truncate(toFqlString(v, pos), spec), spec);
        out += spec.conv === 'S' ? s.toUpperCase() : s;
        return;
      }
      case 'b':
      case 'B': {
        const s = justify(truncate(v === null ? 'false' : typeof v === 'boolean' ? String(v) : 'true', spec), spec);
        out += spec.conv === 'B' ? s.toUpperCase() : s;
        return;
      }
      case 'd':
      case 'x':
      case 'X':
      case 'o':
        if (typeof v !== 'bigint') mismatch('Integer', v, pos);
        out += formatLong(v, spec);
        return;
      case 'f':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
        if (typeof v !== 'number') mismatch('Double', v, pos);
        out += formatDouble_(v, spec);
        return;
      case 't':
      case 'T': {
        let nanos: bigint;
        if (v instanceof Time) nanos = v.nanos;
        else if (v instanceof DateV) nanos = BigInt(v.days) * NANOS_PER_DAY;
        else mismatch('Temporal', v, pos);
        const s = justify(formatDateTime(nanos, spec.dt!), spec);
        out += spec.conv === 'T' ? s.toUpperCase() : s;
        return;
      }
      default: // '@' and '^': the value as JSON (API 4 rendering for both)
        out += justify(truncate(encodeValue(v, { txnTs: ctx.snapshotTs }), spec), spec);
    }
  });
  return out;
});
