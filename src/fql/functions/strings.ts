// String functions of FQL v4 (fql-v4.md §3.8): casefold, containsstr, startswith, endswith,
// findstr, length, lowercase, uppercase, titlecase, ltrim, rtrim, trim, ngram, repeat, replacestr,
// space, substring, format. (`concat` lives in objects.ts; the regex functions in regex.ts.)
//
// Indexes and lengths are in code points, as Fauna's (Java) implementation reports them.

import { errors, type Position } from '../../values/errors';
import { DateV, Time, type Value } from '../../values/types';
import { TooLong, encodeValue } from '../../wire/encode';
import { valueTooLarge } from '../../model/budget';
import { NANOS_PER_DAY, civilFromDays, daysFromCivil } from '../../wire/time';
import { argPos, asLong, elemPos, evalArg, evalList, evalOptional, mismatch } from '../args';
import { define } from '../registry';
import { toFqlString } from './conversions';
import type { EvalContext } from '../context';
import { Output, Searcher, bounds, chargeChars, clampInt, cpLength, optInt, startIndex, strArg, unitIndex, unitWidth, work } from './text';

// --- chunked work ------------------------------------------------------------------------------

/** Longest piece of a string mapped in one synchronous step (casefold, case mapping). */
const CHUNK = 1 << 16;

/**
 * Maps `s` through `f` piece by piece: pieces end only where `splitOk(s, i)` allows, each
 * result is counted against the value cap before the next is made, and the query yields between
 * pieces. `passes` is how many times `f` reads its input (for the compute charge).
 */
async function mapChunks(
  ctx: EvalContext,
  s: string,
  f: (piece: string) => string,
  splitOk: (s: string, i: number) => boolean,
  passes = 1,
): Promise<string> {
  const out = new Output(ctx.budget);
  const pieces: string[] = [];
  let at = 0;
  while (at < s.length) {
    let end = Math.min(s.length, at + CHUNK);
    // Past 4 × CHUNK without a place to split (a run of combining marks with no base character),
    // split anyway: bounded steps matter more than such text.
    const limit = Math.min(s.length, at + 4 * CHUNK);
    while (end < limit && !splitOk(s, end)) {
      end++;
      if ((end - at) % CHUNK === 0) await work(ctx, CHUNK);
    }
    if (end < s.length && isLowSurrogate(s.charCodeAt(end))) end++;
    const r = f(at === 0 && end === s.length ? s : s.slice(at, end));
    out.add(r.length);
    pieces.push(r);
    await work(ctx, (end - at) * passes);
    at = end;
  }
  return pieces.length === 1 ? pieces[0] : pieces.join('');
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

// --- casefold ------------------------------------------------------------------------------

const NORMALIZERS = ['NFKCCaseFold', 'NFC', 'NFD', 'NFKC', 'NFKD'] as const;
export type Normalizer = (typeof NORMALIZERS)[number];
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const IS_DEFAULT_IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const MARK = /^\p{M}$/u;

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

/** Hangul vowel and trailing jamo (and their compatibility forms), Kirat Rai vowel signs: the
 *  characters other than marks that compose with the character before them. */
const COMPOSES_BACKWARDS = /^[\u1160-\u11ff\u3130-\u318f\ua960-\ua97f\ud7b0-\ud7ff\uffa0-\uffdf\u{16d40}-\u{16d7f}]$/u;

/**
 * Whether normalization (and default-ignorable removal) of s[..i] and s[i..] apart gives what it
 * gives for s: no character at i or after it attaches to one before. True when s[i] is not
 * ignorable and its decomposition starts with a character that composes with nothing before it.
 */
function normalizationBoundary(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0x80) return true;
  if (isLowSurrogate(c)) return false;
  const ch = String.fromCodePoint(s.codePointAt(i)!);
  if (MARK.test(ch) || IS_DEFAULT_IGNORABLE.test(ch)) return false;
  const head = String.fromCodePoint(ch.normalize('NFKD').codePointAt(0)!);
  return !MARK.test(head) && !COMPOSES_BACKWARDS.test(head);
}

/** Casefold of one string, in pieces that normalize independently. */
export function casefold(ctx: EvalContext, s: string, norm: Normalizer = 'NFKCCaseFold'): Promise<string> {
  return mapChunks(ctx, s, (x) => normalize(x, norm), normalizationBoundary, norm === 'NFKCCaseFold' ? 4 : 1);
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
  const out: Value[] = [];
  for (const v of inputs) out.push(typeof v === 'string' ? await casefold(ctx, v, norm) : v);
  // One input gives one output, several give an array (Fauna's CasefoldFunction).
  if (out.length === 1) return out[0];
  ctx.budget.array(out.length);
  return out;
});

// --- simple predicates and searches ---------------------------------------------------------

define('containsstr', async (call, env, ctx) => {
  const s = await strArg(call, 'containsstr', env, ctx);
  const t = await strArg(call, 'search', env, ctx);
  chargeChars(ctx, s.length);
  return new Searcher(t, ctx.budget).indexOf(s, 0) >= 0;
});

define('startswith', async (call, env, ctx) => (await strArg(call, 'startswith', env, ctx)).startsWith(await strArg(call, 'search', env, ctx)));
define('endswith', async (call, env, ctx) => (await strArg(call, 'endswith', env, ctx)).endsWith(await strArg(call, 'search', env, ctx)));

define('findstr', async (call, env, ctx) => {
  const s = await strArg(call, 'findstr', env, ctx);
  const find = await strArg(call, 'find', env, ctx);
  const start = startIndex(s, await optInt(call, 'start', env, ctx));
  chargeChars(ctx, s.length);
  const from = unitIndex(s, start);
  const at = new Searcher(find, ctx.budget).indexOf(s, from);
  return at < 0 ? -1n : BigInt(start + cpLength(s.slice(from, at)));
});

// --- case, length, trimming --------------------------------------------------------------------

define('length', async (call, env, ctx) => {
  const s = await strArg(call, 'length', env, ctx);
  chargeChars(ctx, s.length);
  return BigInt(cpLength(s));
});

/** Unicode White_Space (includes NBSP and U+0085, unlike Java's Character.isWhitespace); all BMP. */
function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/** toLowerCase's only context, final sigma, never looks past white space. */
const beforeWhiteSpace = (s: string, i: number): boolean => isWhiteSpace(s.charCodeAt(i));
const anywhere = (): boolean => true;

define('lowercase', async (call, env, ctx) =>
  mapChunks(ctx, await strArg(call, 'lowercase', env, ctx), (x) => x.toLowerCase(), beforeWhiteSpace),
);
define('uppercase', async (call, env, ctx) =>
  mapChunks(ctx, await strArg(call, 'uppercase', env, ctx), (x) => x.toUpperCase(), anywhere),
);

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

/** One word segment: its first letter, number, symbol or private-use character titlecased, the rest lowercased. */
function titleSegment(segment: string): string {
  let i = 0;
  while (i < segment.length && !TITLE_START.test(String.fromCodePoint(segment.codePointAt(i)!))) i += unitWidth(segment, i);
  if (i >= segment.length) return segment.toLowerCase();
  const w = unitWidth(segment, i);
  return segment.slice(0, i) + titleChar(segment.slice(i, i + w)) + segment.slice(i + w).toLowerCase();
}

/**
 * Intl.Segmenter's iteration costs time proportional to the text per segment (V8), so a long text
 * is segmented in windows of about TITLE_WINDOW units. A window ends where a word break is certain
 * whatever follows (after white space or ASCII punctuation that no word-break rule joins to
 * anything, before a character that does not attach backwards): there its words are exactly the
 * text's. Where no such place is near, the window's segments are kept up to TITLE_GUARD units
 * before its end (word-break rules look only a few characters ahead) and the window grows until
 * it has one.
 */
const TITLE_WINDOW = 2048;
const TITLE_GUARD = 256;
/** ASCII after which a word break is certain (UAX #29 classes Other, CR, LF, Newline, WSegSpace). */
const HARD_BEFORE = new Set(Array.from('\t\n\v\f\r !#$%&()*+-/<=>?@[\\]^`{|}~', (c) => c.charCodeAt(0)));
const ATTACHES = /^[\p{M}\p{Cf}\p{Emoji_Modifier}\p{White_Space}\u200d]$/u;

function certainBreak(s: string, i: number): boolean {
  if (!HARD_BEFORE.has(s.charCodeAt(i - 1))) return false;
  const c = s.charCodeAt(i);
  if (c < 0x80) return !isWhiteSpace(c);
  return !ATTACHES.test(String.fromCodePoint(s.codePointAt(i)!));
}

export async function titlecase(ctx: EvalContext, s: string): Promise<string> {
  const out = new Output(ctx.budget);
  const pieces: string[] = [];
  const emit = (segment: string): void => {
    const t = titleSegment(segment);
    out.add(t.length);
    pieces.push(t);
  };
  let at = 0;
  while (at < s.length) {
    let end = s.length;
    let certain = true;
    if (s.length - at > 2 * TITLE_WINDOW) {
      end = at + TITLE_WINDOW;
      while (end > at + TITLE_WINDOW / 2 && !certainBreak(s, end)) end--;
      if (!certainBreak(s, end)) {
        end = at + TITLE_WINDOW;
        certain = false;
      }
    }
    let next = end;
    for (let size = end - at; ; size *= 2) {
      const windowEnd = certain ? end : Math.min(s.length, at + size);
      const keep = certain || windowEnd === s.length ? windowEnd - at : windowEnd - at - TITLE_GUARD;
      const kept: string[] = [];
      let reached = at;
      for (const { segment, index } of WORDS.segment(s.slice(at, windowEnd))) {
        if (index + segment.length > keep) break;
        kept.push(segment);
        reached = at + index + segment.length;
      }
      if (reached > at || windowEnd === s.length) {
        kept.forEach(emit);
        next = reached;
        break;
      }
    }
    await work(ctx, (next - at) * 4);
    at = next;
  }
  return pieces.join('');
}

define('titlecase', async (call, env, ctx) => titlecase(ctx, await strArg(call, 'titlecase', env, ctx)));

function trimStart(s: string): string {
  let i = 0;
  while (i < s.length && isWhiteSpace(s.charCodeAt(i))) i++;
  return i === 0 ? s : s.slice(i);
}

function trimEnd(s: string): string {
  let i = s.length;
  while (i > 0 && isWhiteSpace(s.charCodeAt(i - 1))) i--;
  return i === s.length ? s : s.slice(0, i);
}

define('ltrim', async (call, env, ctx) => trimStart(await strArg(call, 'ltrim', env, ctx)));
define('rtrim', async (call, env, ctx) => trimEnd(await strArg(call, 'rtrim', env, ctx)));
define('trim', async (call, env, ctx) => trimEnd(trimStart(await strArg(call, 'trim', env, ctx))));

// --- ngram, repeat, space, substring ---------------------------------------------------------

/** How many n-grams (min ≤ n ≤ max) a string of `len` code points has. */
function gramCount(len: number, min: number, max: number): number {
  let count = 0;
  for (let n = min; n <= max; n++) count += Math.max(0, len - n + 1);
  return count;
}

/** UTF-16 units of all its n-grams together: each code point counts once per gram holding it. */
function gramUnits(s: string, len: number, min: number, max: number): number {
  let units = 0;
  let k = 0;
  for (let i = 0; i < s.length; k++) {
    const w = unitWidth(s, i);
    for (let n = min; n <= max; n++) {
      const grams = Math.min(k, len - n) - Math.max(0, k - n + 1) + 1;
      if (grams > 0) units += w * grams;
    }
    i += w;
  }
  return units;
}

const GRAMS_PER_STEP = 1 << 14;

/** Lucene NGramTokenizer order: for each start position, grams of increasing length (min..min+1). */
async function ngrams(ctx: EvalContext, s: string, len: number, min: number, max: number, out: Value[]): Promise<void> {
  let start = 0; // unit offset of code point p
  let mid = unitIndex(s, min); // … of p + min
  let end = max > min ? unitIndex(s, 1, mid) : mid; // … of p + max
  for (let p = 0; p + min <= len; p++) {
    out.push(s.slice(start, mid));
    if (max > min && p + max <= len) out.push(s.slice(start, end));
    start += unitWidth(s, start);
    mid += unitWidth(s, mid);
    if (max > min) end += unitWidth(s, end);
    if ((p + 1) % GRAMS_PER_STEP === 0) await work(ctx, GRAMS_PER_STEP * max);
  }
}

define('ngram', async (call, env, ctx) => {
  const terms = await evalList(call, 'ngram', env, ctx, false);
  const min = (await optInt(call, 'min', env, ctx)) ?? 1;
  const max = (await optInt(call, 'max', env, ctx)) ?? 2;
  if (min <= 0) bounds('min', 'greater than 0', argPos(call, 'min'));
  if (min > max) bounds('max', 'greater than or equal to min', argPos(call, 'max'));
  if (max - min > 1) bounds('max - min', 'less than or equal to 1', argPos(call, 'max'));
  // Size the result before building it: grams can be quadratic in the input (large min and max).
  let count = 0;
  let units = 0;
  const lens: number[] = [];
  for (const t of terms) {
    if (typeof t !== 'string') {
      count++;
      continue;
    }
    chargeChars(ctx, t.length);
    const len = cpLength(t);
    lens.push(len);
    count += gramCount(len, min, max);
    units += gramUnits(t, len, min, max);
  }
  ctx.budget.array(count);
  ctx.budget.string(units);
  const out: Value[] = [];
  let k = 0;
  for (const t of terms) {
    if (typeof t === 'string') await ngrams(ctx, t, lens[k++], min, max, out);
    else out.push(t);
  }
  return out;
});

const MAX_REPEAT = 1024;

define('repeat', async (call, env, ctx) => {
  const s = await strArg(call, 'repeat', env, ctx);
  const n = Math.min((await optInt(call, 'number', env, ctx)) ?? 2, MAX_REPEAT);
  if (n <= 0) return '';
  ctx.budget.string(s.length * n);
  return s.repeat(n);
});

define('space', async (call, env, ctx) => {
  const n = Math.min(clampInt(asLong(await evalArg(call, 'space', env, ctx), argPos(call, 'space'))), MAX_REPEAT);
  if (n <= 0) return '';
  ctx.budget.string(n);
  return ' '.repeat(n);
});

// A substring shares the input's memory (V8 slices), so it is not charged as a new string.
define('substring', async (call, env, ctx) => {
  const s = await strArg(call, 'substring', env, ctx);
  const start = (await optInt(call, 'start', env, ctx)) ?? 0;
  const length = await optInt(call, 'length', env, ctx);
  chargeChars(ctx, s.length);
  const len = cpLength(s);
  const from = start < 0 ? Math.max(len + start, 0) : start;
  if (from > len) bounds('start', 'less than or equal to the string length', argPos(call, 'start'));
  if (length !== undefined && length < 0) bounds('length', 'positive', argPos(call, 'length'));
  const u = unitIndex(s, from);
  return s.slice(u, length === undefined ? s.length : unitIndex(s, length, u));
});

// --- replace ---------------------------------------------------------------------------------

const MATCHES_PER_STEP = 1 << 14;

define('replacestr', async (call, env, ctx) => {
  const s = await strArg(call, 'replacestr', env, ctx);
  const find = await strArg(call, 'find', env, ctx);
  const replace = await strArg(call, 'replace', env, ctx);
  chargeChars(ctx, s.length);
  // Java String.replace; an empty `find` inserts between code points (Java: between UTF-16 units).
  if (find === '') {
    const len = cpLength(s);
    ctx.budget.string(s.length + (len + 1) * replace.length);
    const pieces: string[] = [replace];
    for (let i = 0, k = 1; i < s.length; k++) {
      const w = unitWidth(s, i);
      pieces.push(s.slice(i, i + w), replace);
      i += w;
      if (k % MATCHES_PER_STEP === 0) await work(ctx, MATCHES_PER_STEP * replace.length);
    }
    return pieces.join('');
  }
  // Count first, so the result is sized before it is built (|s| + matches × (|replace| − |find|)).
  const searcher = new Searcher(find, ctx.budget);
  let count = 0;
  for (let at = searcher.indexOf(s, 0); at >= 0; at = searcher.indexOf(s, at + find.length))
    if (++count % MATCHES_PER_STEP === 0) await work(ctx, MATCHES_PER_STEP);
  if (count === 0) return s;
  ctx.budget.string(s.length + count * (replace.length - find.length));
  const pieces: string[] = [];
  let last = 0;
  let k = 0;
  for (let at = searcher.indexOf(s, 0); at >= 0; at = searcher.indexOf(s, last)) {
    pieces.push(s.slice(last, at), replace);
    last = at + find.length;
    if (++k % MATCHES_PER_STEP === 0) await work(ctx, MATCHES_PER_STEP * replace.length);
  }
  pieces.push(s.slice(last));
  return pieces.join('');
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
const SPECS_PER_STEP = 1024;
const DT_SUFFIXES = new Set('HIklMSLNpzZsQBbhAaCYyjmdeRTrDFc');

/** The decimal number at fmt[j…] (clamped to Number.MAX_SAFE_INTEGER) and how many digits it has. */
function digitsAt(fmt: string, j: number): [number, number] {
  let v = 0;
  let n = 0;
  for (let c = fmt.charCodeAt(j); c >= 0x30 && c <= 0x39; c = fmt.charCodeAt(j + ++n))
    v = Math.min(v * 10 + (c - 0x30), Number.MAX_SAFE_INTEGER);
  return [v, n];
}

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
    const [index, indexDigits] = digitsAt(fmt, j);
    if (indexDigits > 0 && indexDigits <= 11 && fmt[j + indexDigits] === '$') {
      spec.index = index;
      j += indexDigits + 1;
    }
    while (j < fmt.length && '-#+ 0,(<'.includes(fmt[j])) {
      if (fmt[j] === '<') spec.index = -1;
      else spec.flags += fmt[j];
      j++;
    }
    const [width, widthDigits] = digitsAt(fmt, j);
    if (widthDigits > 0) {
      spec.width = width;
      j += widthDigits;
    }
    if (fmt[j] === '.') {
      const [precision, precisionDigits] = digitsAt(fmt, j + 1);
      if (precisionDigits === 0) bad(fmt[at]);
      spec.precision = precision;
      j += 1 + precisionDigits;
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
  return s.slice(0, unitIndex(s, spec.precision));
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

  // Padding and precision are built as asked: over the value cap they are refused before that.
  const cap = ctx.budget.limits.maxValueBytes;
  for (const spec of specs) {
    if (spec.width !== undefined && spec.width > cap) throw valueTooLarge(spec.width, cap);
    if (spec.precision !== undefined && spec.precision > cap && 'feEgG'.includes(spec.conv!))
      throw valueTooLarge(spec.precision, cap);
  }
  chargeChars(ctx, fmt.length);

  const out = new Output(ctx.budget);
  const pieces: string[] = [];
  for (let k = 0; k < specs.length; k++) {
    const piece = formatSpec(specs[k], indexes[k]);
    out.add(piece.length);
    pieces.push(piece);
    if ((k + 1) % SPECS_PER_STEP === 0) await work(ctx, SPECS_PER_STEP);
  }
  return pieces.join('');

  function formatSpec(spec: Spec, i: number): string {
    if (spec.conv === undefined) return spec.text!;
    if (spec.conv === 'n') return '\n';
    if (spec.conv === '%') return justify('%', spec);
    return formatValue(spec, i);
  }

  function formatValue(spec: Spec, i: number): string {
    const v = values[i];
    const pos = elemPos(call, 'values', i);
    switch (spec.conv) {
      case 's':
      case 'S': {
        const s = justify(truncate(toFqlString(v, pos), spec), spec);
        return spec.conv === 'S' ? s.toUpperCase() : s;
      }
      case 'b':
      case 'B': {
        const s = justify(truncate(v === null ? 'false' : typeof v === 'boolean' ? String(v) : 'true', spec), spec);
        return spec.conv === 'B' ? s.toUpperCase() : s;
      }
      case 'd':
      case 'x':
      case 'X':
      case 'o':
        if (typeof v !== 'bigint') mismatch('Integer', v, pos);
        return formatLong(v, spec);
      case 'f':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
        if (typeof v !== 'number') mismatch('Double', v, pos);
        return formatDouble_(v, spec);
      case 't':
      case 'T': {
        let nanos: bigint;
        if (v instanceof Time) nanos = v.nanos;
        else if (v instanceof DateV) nanos = BigInt(v.days) * NANOS_PER_DAY;
        else mismatch('Temporal', v, pos);
        const s = justify(formatDateTime(nanos, spec.dt!), spec);
        return spec.conv === 'T' ? s.toUpperCase() : s;
      }
      default: {
        // '@' and '^': the value as JSON (API 4 rendering for both)
        let json: string;
        try {
          json = encodeValue(v, { txnTs: ctx.snapshotTs, maxLength: cap });
        } catch (e) {
          if (e instanceof TooLong) throw valueTooLarge(e.length, cap);
          throw e;
        }
        return justify(truncate(json, spec), spec);
      }
    }
  }
});
