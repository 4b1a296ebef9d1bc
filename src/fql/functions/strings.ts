// String functions of FQL v4 (fql-v4.md §3.8): casefold, containsstr, containsstrregex,
// startswith, endswith, findstr, findstrregex, length, lowercase, uppercase, titlecase, ltrim,
// rtrim, trim, ngram, repeat, replacestr, replacestrregex, regexescape, space, substring, format.
// (`concat` lives in objects.ts.)
//
// Indexes and lengths are in code points, as Fauna's (Java) implementation reports them.
//
// Regular expressions are Java regexes. They are translated to JS RegExps (flags `v`, plus `i`
// when any `(?i)` appears); see JavaRegex below for what is exact and what is approximated:
//  * `\Q…\E`, octal/hex/unicode escapes, `\A \z \Z \h \H \v \V \R`, ASCII `\s`, POSIX and
//    java.lang.Character `\p{…}` classes, scripts/categories, nested classes and `&&`
//    intersections, Java `.`/`^`/`$` line-terminator semantics (incl. `(?m)`, `(?s)`, `(?d)`,
//    `(?x)` scoped per group) and Java's backreference digit rules are translated exactly;
//  * possessive quantifiers (`*+`, `++`, `?+`, `{n,m}+`) and atomic groups `(?>…)` degrade to
//    their greedy / non-atomic forms (same matches except where backtracking into them matters);
//  * `(?i)` anywhere makes the whole pattern case-insensitive, with Unicode (not ASCII-only)
//    case folding; `(?-i)` is ignored;
//  * `\G`, `\X`, `\N{…}`, `\b{…}` and Unicode block properties (`\p{InGreek}`) are rejected as
//    invalid patterns; JS lookbehind is unbounded where Java requires a bounded length;
//  * a backreference to a group that did not participate matches the empty string (Java: fails).

import { errors, type Position } from '../../values/errors';
import { DateV, Time, type Value } from '../../values/types';
import type { CallExpr } from '../../wire/expr';
import { encodeValue } from '../../wire/encode';
import { NANOS_PER_DAY, civilFromDays, daysFromCivil } from '../../wire/time';
import type { EvalContext } from '../context';
import type { Env } from '../env';
import {
  argPos,
  asBoolean,
  asLong,
  asString,
  elemPos,
  evalArg,
  evalList,
  evalOptional,
  mismatch,
} from '../args';
import { define } from '../registry';
import { toFqlString } from './conversions';

// --- argument helpers ------------------------------------------------------------------------

async function strArg(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<string> {
  return asString(await evalArg(call, key, env, ctx), argPos(call, key));
}

/** An optional Integer argument (absent or null → undefined), clamped to a safe JS number. */
async function optInt(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<number | undefined> {
  const v = await evalOptional(call, key, env, ctx);
  if (v === undefined || v === null) return undefined;
  return clampInt(asLong(v, argPos(call, key)));
}

function clampInt(b: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(b > max ? max : b < -max ? -max : b);
}

function bounds(arg: string, predicate: string, pos: Position): never {
  throw errors.invalidArgument(`${arg} must be ${predicate}`, pos);
}

// --- code points ---------------------------------------------------------------------------

function cpLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** UTF-16 index of code point `cp` (clamped to the string). */
function unitIndex(s: string, cp: number): number {
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += unitWidth(s, i);
  return i;
}

function unitWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** Converts increasing UTF-16 indexes of one string to code-point indexes incrementally. */
class CpCounter {
  private unit = 0;
  private cp = 0;
  constructor(private readonly s: string) {}
  at(u: number): number {
    if (u < this.unit) {
      this.unit = 0;
      this.cp = 0;
    }
    while (this.unit < u) {
      this.unit += unitWidth(this.s, this.unit);
      this.cp++;
    }
    return this.cp;
  }
}

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

define('containsstrregex', async (call, env, ctx) => {
  const s = await strArg(call, 'containsstrregex', env, ctx);
  const pattern = await strArg(call, 'pattern', env, ctx);
  const { re } = javaRegex(pattern, argPos(call, 'pattern'));
  re.lastIndex = 0;
  return re.test(s);
});

/** Start positions outside 1..length-1 are treated as 0 (Fauna's FindStr). */
function startIndex(s: string, start: number | undefined): number {
  if (start === undefined) return 0;
  const len = cpLength(s);
  return start >= 1 && start <= len - 1 ? start : 0;
}

define('findstr', async (call, env, ctx) => {
  const s = await strArg(call, 'findstr', env, ctx);
  const find = await strArg(call, 'find', env, ctx);
  const start = startIndex(s, await optInt(call, 'start', env, ctx));
  const at = s.indexOf(find, unitIndex(s, start));
  return at < 0 ? -1n : BigInt(cpLength(s.slice(0, at)));
});

const MAX_RESULTS = 1024;

define('findstrregex', async (call, env, ctx) => {
  const s = await strArg(call, 'findstrregex', env, ctx);
  const pattern = await strArg(call, 'pattern', env, ctx);
  const start = startIndex(s, await optInt(call, 'start', env, ctx));
  const num = await optInt(call, 'num_results', env, ctx);
  const { re } = javaRegex(pattern, argPos(call, 'pattern'));
  const limit = Math.min(num ?? MAX_RESULTS, MAX_RESULTS);
  const results: Value[] = [];
  const cps = new CpCounter(s);
  re.lastIndex = unitIndex(s, start);
  while (results.length < limit) {
    const m = re.exec(s);
    if (!m) break;
    const from = cps.at(m.index);
    const to = cps.at(m.index + m[0].length);
    results.push(
      new Map<string, Value>([
        ['start', BigInt(from)],
        ['end', BigInt(to - 1)],
        ['data', m[0]],
      ]),
    );
    if (m[0].length === 0) {
      if (m.index >= s.length) break;
      re.lastIndex = m.index + unitWidth(s, m.index);
    }
  }
  return results;
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

define('replacestrregex', async (call, env, ctx) => {
  const s = await strArg(call, 'replacestrregex', env, ctx);
  const pattern = await strArg(call, 'pattern', env, ctx);
  const replace = await strArg(call, 'replace', env, ctx);
  const fv = await evalOptional(call, 'first', env, ctx);
  const first = fv === undefined || fv === null ? false : asBoolean(fv, argPos(call, 'first'));
  const rx = javaRegex(pattern, argPos(call, 'pattern'));
  const re = rx.re;
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(s);
    if (!m) break;
    out += s.slice(last, m.index) + javaReplacement(replace, m, rx.groups, argPos(call, 'replace'));
    last = m.index + m[0].length;
    if (first) break;
    if (m[0].length === 0) {
      if (m.index >= s.length) break;
      re.lastIndex = m.index + unitWidth(s, m.index);
    }
  }
  return out + s.slice(last);
});

/** Java Matcher.appendReplacement: `$n` (longest valid group number), `${name}`, `\x` escapes. */
function javaReplacement(rep: string, m: RegExpExecArray, groupCount: number, pos: Position): string {
  const fail = (msg: string): never => {
    throw errors.invalidArgument(msg, pos);
  };
  let out = '';
  let i = 0;
  while (i < rep.length) {
    const c = rep[i];
    if (c === '\\') {
      i++;
      if (i === rep.length) fail('character to be escaped is missing');
      out += rep[i++];
    } else if (c === '$') {
      i++;
      if (i === rep.length) fail('Illegal group reference: group index is missing');
      let group: string | undefined;
      if (rep[i] === '{') {
        i++;
        let name = '';
        while (i < rep.length && /[A-Za-z0-9]/.test(rep[i])) name += rep[i++];
        if (name === '') fail('named capturing group has 0 length name');
        if (rep[i] !== '}') fail("named capturing group is missing trailing '}'");
        i++;
        if (/^[0-9]/.test(name)) fail(`capturing group name {${name}} starts with digit character`);
        if (!m.groups || !(name in m.groups)) fail(`No group with name {${name}}`);
        group = m.groups![name];
      } else {
        let n = rep.charCodeAt(i) - 48;
        if (n < 0 || n > 9) fail('Illegal group reference');
        i++;
        while (i < rep.length) {
          const d = rep.charCodeAt(i) - 48;
          if (d < 0 || d > 9 || n * 10 + d > groupCount) break;
          n = n * 10 + d;
          i++;
        }
        if (n > groupCount) fail(`No group ${n}`);
        group = m[n];
      }
      if (group !== undefined) out += group;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Java Pattern.quote. */
define('regexescape', async (call, env, ctx) => {
  const s = await strArg(call, 'regexescape', env, ctx);
  return '\\Q' + s.split('\\E').join('\\E\\\\E\\Q') + '\\E';
});

// --- Java regex → JS RegExp ----------------------------------------------------------------

class RegexSyntax extends Error {}

interface RxFlags {
  m: boolean;
  s: boolean;
  x: boolean;
  d: boolean;
}

const LINE_TERMS = '\\n\\r\\u0085\\u2028\\u2029';
const JAVA_SPACE = '[\\t\\n\\x0B\\f\\r ]';
const H_SPACE = '[ \\t\\xA0\\u1680\\u180E\\u2000-\\u200A\\u202F\\u205F\\u3000]';
const V_SPACE = '[\\n\\x0B\\f\\r\\x85\\u2028\\u2029]';
const START = '(?<![\\s\\S])';
const END = '(?![\\s\\S])';
const SYNTAX = new Set('^$\\.*+?()[]{}|/');

const POSIX: Record<string, string> = {
  Lower: '[a-z]',
  Upper: '[A-Z]',
  ASCII: '[\\x00-\\x7F]',
  Alpha: '[a-zA-Z]',
  Digit: '[0-9]',
  Alnum: '[a-zA-Z0-9]',
  Punct: '[\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E]',
  Graph: '[\\x21-\\x7E]',
  Print: '[\\x20-\\x7E]',
  Blank: '[ \\t]',
  Cntrl: '[\\x00-\\x1F\\x7F]',
  XDigit: '[0-9a-fA-F]',
  Space: JAVA_SPACE,
  javaLowerCase: '\\p{Lowercase}',
  javaUpperCase: '\\p{Uppercase}',
  javaWhitespace: '[\\t-\\r\\x1C-\\x20\\u1680\\u2000-\\u2006\\u2008-\\u200A\\u2028\\u2029\\u205F\\u3000]',
  javaMirrored: '\\p{Bidi_Mirrored}',
  javaLetter: '\\p{L}',
  javaDigit: '\\p{Nd}',
  javaLetterOrDigit: '[\\p{L}\\p{Nd}]',
  javaAlphabetic: '\\p{Alphabetic}',
  javaIdeographic: '\\p{Ideographic}',
  javaTitleCase: '\\p{Lt}',
  javaSpaceChar: '\\p{Z}',
  javaDefined: '\\P{Cn}',
  javaISOControl: '[\\x00-\\x1F\\x7F-\\x9F]',
};

/** Java's `\p{IsXxx}` binary properties (matched case-insensitively, `_`/space ignored). */
const BINARY: Record<string, string> = {
  alphabetic: '\\p{Alphabetic}',
  ideographic: '\\p{Ideographic}',
  letter: '\\p{L}',
  lowercase: '\\p{Lowercase}',
  uppercase: '\\p{Uppercase}',
  titlecase: '\\p{Lt}',
  punctuation: '\\p{P}',
  control: '\\p{Cc}',
  whitespace: '\\p{White_Space}',
  digit: '\\p{Nd}',
  hexdigit: '\\p{Hex_Digit}',
  joincontrol: '\\p{Join_Control}',
  noncharactercodepoint: '\\p{Noncharacter_Code_Point}',
  assigned: '\\P{Cn}',
  emoji: '\\p{Emoji}',
  emojipresentation: '\\p{Emoji_Presentation}',
  emojimodifier: '\\p{Emoji_Modifier}',
  emojimodifierbase: '\\p{Emoji_Modifier_Base}',
  emojicomponent: '\\p{Emoji_Component}',
  extendedpictographic: '\\p{Extended_Pictographic}',
};

const GENERAL_CATEGORY = /^(?:[LMNPSZC]|L[ultmoC]|M[nce]|N[dlo]|P[cdseifo]|S[mcko]|Z[slp]|C[cfson])$/;

function scriptName(name: string): string {
  return name
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join('_');
}

type ClassItem = { kind: 'char'; cp: number } | { kind: 'set'; js: string } | { kind: 'atom'; js: string } | { kind: 'quote'; cps: number[] };

/** One translation pass over a Java pattern (run twice: the second knows the group count). */
class JavaRegex {
  private k = 0;
  private readonly p: number[];
  private flags: RxFlags = { m: false, s: false, x: false, d: false };
  private readonly stack: RxFlags[] = [];
  groups = 0;
  ci = false;

  constructor(
    source: string,
    private readonly totalGroups: number,
  ) {
    this.p = Array.from(source, (c) => c.codePointAt(0)!);
  }

  translate(): string {
    let out = '';
    while (this.k < this.p.length) out += this.term();
    if (this.stack.length > 0) throw new RegexSyntax('Unclosed group');
    return out;
  }

  private peek(off = 0): string {
    const c = this.p[this.k + off];
    return c === undefined ? '' : String.fromCodePoint(c);
  }

  private term(): string {
    const c = this.p[this.k];
    if (this.flags.x) {
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
        this.k++;
        return '';
      }
      if (c === 0x23 /* # */) {
        while (this.k < this.p.length && !isLineTerm(this.p[this.k])) this.k++;
        return '';
      }
    }
    this.k++;
    switch (String.fromCodePoint(c)) {
      case '\\': {
        const e = this.escape(false);
        if (e.kind === 'char') return lit(e.cp);
        if (e.kind === 'quote') return e.cps.map(lit).join('');
        return e.js;
      }
      case '[':
        return this.charClass();
      case '(':
        return this.openGroup();
      case ')': {
        const saved = this.stack.pop();
        if (!saved) throw new RegexSyntax("Unmatched closing ')'");
        this.flags = saved;
        return ')';
      }
      case '.':
        return this.flags.s ? '[\\s\\S]' : this.flags.d ? '[^\\n]' : `[^${LINE_TERMS}]`;
      case '^':
        if (!this.flags.m) return `(?:${START})`;
        return this.flags.d
          ? `(?:(?=[\\s\\S])(?:${START}|(?<=\\n)))`
          : `(?:(?=[\\s\\S])(?:${START}|(?<=[\\n\\u0085\\u2028\\u2029]|\\r(?!\\n))))`;
      case '$':
        if (this.flags.d) return this.flags.m ? `(?:(?=\\n)|${END})` : `(?:(?=\\n?${END}))`;
        return this.flags.m
          ? `(?:${END}|(?=[\\r\\u0085\\u2028\\u2029])|(?<!\\r)(?=\\n))`
          : `(?:(?=(?:\\r\\n|[${LINE_TERMS}])?${END})(?<!\\r(?=\\n)))`;
      case '*':
      case '+':
      case '?':
        return String.fromCodePoint(c) + this.quantSuffix();
      case '{':
        return this.braceQuantifier();
      case '|':
        return '|';
      default:
        return lit(c);
    }
  }

  /** Lazy `?` is kept; possessive `+` degrades to greedy. */
  private quantSuffix(): string {
    const c = this.peek();
    if (c === '?') {
      this.k++;
      return '?';
    }
    if (c === '+') this.k++;
    return '';
  }

  private braceQuantifier(): string {
    let text = '{';
    const digits = (): string => {
      let d = '';
      while (/[0-9]/.test(this.peek())) d += String.fromCodePoint(this.p[this.k++]);
      return d;
    };
    const lo = digits();
    if (lo === '') throw new RegexSyntax('Illegal repetition');
    text += lo;
    if (this.peek() === ',') {
      this.k++;
      text += ',' + digits();
    }
    if (this.peek() !== '}') throw new RegexSyntax('Unclosed counted closure');
    this.k++;
    return text + '}' + this.quantSuffix();
  }

  private openGroup(): string {
    if (this.peek() !== '?') {
      this.groups++;
      this.stack.push(this.flags);
      return '(';
    }
    this.k++;
    const c = this.peek();
    const open = (js: string, skip: number): string => {
      this.k += skip;
      this.stack.push(this.flags);
      return js;
    };
    if (c === ':') return open('(?:', 1);
    if (c === '=') return open('(?=', 1);
    if (c === '!') return open('(?!', 1);
    if (c === '>') return open('(?:', 1); // atomic group degrades to a plain group
    if (c === '<') {
      const d = this.peek(1);
      if (d === '=') return open('(?<=', 2);
      if (d === '!') return open('(?<!', 2);
      this.k++;
      let name = '';
      while (/[A-Za-z0-9]/.test(this.peek())) name += String.fromCodePoint(this.p[this.k++]);
      if (!/^[A-Za-z]/.test(name) || this.peek() !== '>') throw new RegexSyntax('named capturing group is missing');
      this.groups++;
      return open(`(?<${name}>`, 1);
    }
    // inline flags: (?idmsuxU-idmsuxU) or (?idmsuxU-idmsuxU:X)
    const next = { ...this.flags };
    let on = true;
    for (;;) {
      const f = this.peek();
      if (f === '-') on = false;
      else if (f === 'i') this.ci ||= on;
      else if (f === 'm' || f === 's' || f === 'x' || f === 'd') next[f] = on;
      else if (f !== 'u' && f !== 'U' && f !== 'c') break;
      this.k++;
    }
    const end = this.peek();
    if (end === ')') {
      this.k++;
      this.flags = next;
      return '';
    }
    if (end !== ':') throw new RegexSyntax('Unknown inline modifier');
    this.k++;
    this.stack.push(this.flags);
    this.flags = next;
    return '(?:';
  }

  private hex(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const d = parseInt(this.peek(), 16);
      if (Number.isNaN(d)) throw new RegexSyntax('Illegal hexadecimal escape sequence');
      v = v * 16 + d;
      this.k++;
    }
    return v;
  }

  private escape(inClass: boolean): ClassItem {
    if (this.k >= this.p.length) throw new RegexSyntax('Unexpected internal error');
    const code = this.p[this.k++];
    const c = String.fromCodePoint(code);
    const atom = (js: string): ClassItem => {
      if (inClass) throw new RegexSyntax('Illegal/unsupported escape sequence');
      return { kind: 'atom', js };
    };
    const set = (js: string): ClassItem => ({ kind: 'set', js });
    const char = (cp: number): ClassItem => ({ kind: 'char', cp });
    switch (c) {
      case '0': {
        const oct = (s: string) => s >= '0' && s <= '7';
        if (!oct(this.peek())) throw new RegexSyntax('Illegal octal escape sequence');
        let v = this.p[this.k++] - 48;
        if (oct(this.peek())) {
          const first = v;
          v = v * 8 + (this.p[this.k++] - 48);
          if (oct(this.peek()) && first <= 3) v = v * 8 + (this.p[this.k++] - 48);
        }
        return char(v);
      }
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9': {
        if (inClass) throw new RegexSyntax('Illegal/unsupported escape sequence');
        let n = code - 48;
        while (/[0-9]/.test(this.peek()) && n * 10 + (this.p[this.k] - 48) <= this.groups) n = n * 10 + (this.p[this.k++] - 48);
        return atom(n <= this.totalGroups ? `(?:\\${n})` : '(?!)');
      }
      case 'A':
        return atom(`(?:${START})`);
      case 'z':
        return atom(`(?:${END})`);
      case 'Z':
        return atom(`(?:(?=(?:\\r\\n|[${LINE_TERMS}])?${END})(?<!\\r(?=\\n)))`);
      case 'b':
        if (this.peek() === '{') throw new RegexSyntax('Unsupported boundary');
        return atom('\\b');
      case 'B':
        return atom('\\B');
      case 'R':
        return atom(`(?:\\r\\n|${V_SPACE})`);
      case 'd': case 'D': case 'w': case 'W':
        return set('\\' + c);
      case 's':
        return set(JAVA_SPACE);
      case 'S':
        return set(`[^${JAVA_SPACE}]`);
      case 'h':
        return set(H_SPACE);
      case 'H':
        return set(`[^${H_SPACE}]`);
      case 'v':
        return set(V_SPACE);
      case 'V':
        return set(`[^${V_SPACE}]`);
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === '{') {
          this.k++;
          name = '';
          while (this.k < this.p.length && this.peek() !== '}') name += String.fromCodePoint(this.p[this.k++]);
          if (this.peek() !== '}') throw new RegexSyntax('Unclosed character family');
          this.k++;
        } else {
          name = this.peek();
          if (name === '') throw new RegexSyntax('Illegal character family');
          this.k++;
        }
        const js = property(name);
        return set(c === 'P' ? `[^${js}]` : js);
      }
      case 't':
        return char(9);
      case 'n':
        return char(10);
      case 'r':
        return char(13);
      case 'f':
        return char(12);
      case 'a':
        return char(7);
      case 'e':
        return char(27);
      case 'c': {
        if (this.k >= this.p.length) throw new RegexSyntax('Illegal control escape sequence');
        return char(this.p[this.k++] ^ 64);
      }
      case 'x': {
        if (this.peek() === '{') {
          this.k++;
          let v = 0;
          let n = 0;
          while (/[0-9a-fA-F]/.test(this.peek())) {
            v = v * 16 + parseInt(this.peek(), 16);
            this.k++;
            n++;
            if (v > 0x10ffff) throw new RegexSyntax('Hexadecimal codepoint is too big');
          }
          if (n === 0 || this.peek() !== '}') throw new RegexSyntax('Unclosed hexadecimal escape sequence');
          this.k++;
          return char(v);
        }
        return char(this.hex(2));
      }
      case 'u': {
        const v = this.hex(4);
        if (v >= 0xd800 && v <= 0xdbff && this.peek() === '\\' && this.peek(1) === 'u') {
          const save = this.k;
          this.k += 2;
          try {
            const lo = this.hex(4);
            if (lo >= 0xdc00 && lo <= 0xdfff) return char(0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00));
          } catch {
            // not a low surrogate escape: leave it for the next token
          }
          this.k = save;
        }
        return char(v);
      }
      case 'k': {
        if (this.peek() !== '<') throw new RegexSyntax('\\k is not followed by \'<\' for named capturing group');
        this.k++;
        let name = '';
        while (/[A-Za-z0-9]/.test(this.peek())) name += String.fromCodePoint(this.p[this.k++]);
        if (this.peek() !== '>') throw new RegexSyntax('named capturing group is missing trailing \'>\'');
        this.k++;
        return atom(`(?:\\k<${name}>)`);
      }
      case 'Q': {
        const cps: number[] = [];
        while (this.k < this.p.length && !(this.peek() === '\\' && this.peek(1) === 'E')) cps.push(this.p[this.k++]);
        if (this.k < this.p.length) this.k += 2;
        return { kind: 'quote', cps };
      }
      default:
        // Any other ASCII letter is an unsupported escape (also \G, \X, \N, \E); anything else is literal.
        if (/[A-Za-z]/.test(c)) throw new RegexSyntax('Illegal/unsupported escape sequence');
        return char(code);
    }
  }

  /** A Java character class (after `[`), emitted in `v`-mode syntax. */
  private charClass(): string {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.k++;
    }
    const operands: string[][] = [[]];
    let cur = operands[0];
    let first = true;
    for (;;) {
      if (this.k >= this.p.length) throw new RegexSyntax('Unclosed character class');
      const c = this.peek();
      if (this.flags.x && /^[ \t\n\x0B\f\r]$/.test(c)) {
        this.k++;
        continue;
      }
      if (c === ']' && !first) {
        this.k++;
        break;
      }
      first = false;
      if (c === '[') {
        this.k++;
        cur.push(this.charClass());
        continue;
      }
      if (c === '&' && this.peek(1) === '&') {
        this.k += 2;
        cur = [];
        operands.push(cur);
        continue;
      }
      let cp: number;
      if (c === '\\') {
        this.k++;
        const e = this.escape(true);
        if (e.kind === 'quote') {
          for (const q of e.cps) cur.push(clsChar(q));
          continue;
        }
        if (e.kind !== 'char') {
          cur.push(e.js);
          continue;
        }
        cp = e.cp;
      } else {
        cp = this.p[this.k++];
      }
      if (this.peek() === '-' && this.k + 1 < this.p.length && this.peek(1) !== ']' && this.peek(1) !== '[') {
        this.k++;
        let end: number;
        if (this.peek() === '\\') {
          this.k++;
          const e = this.escape(true);
          if (e.kind !== 'char') throw new RegexSyntax('Illegal character range');
          end = e.cp;
        } else {
          end = this.p[this.k++];
        }
        if (end < cp) throw new RegexSyntax('Illegal character range');
        cur.push(clsChar(cp) + '-' + clsChar(end));
      } else {
        cur.push(clsChar(cp));
      }
    }
    const body = operands.length === 1 ? operands[0].join('') : operands.map((o) => '[' + o.join('') + ']').join('&&');
    return '[' + (negate ? '^' : '') + body + ']';
  }
}

function isLineTerm(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
}

function clsChar(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

function lit(cp: number): string {
  const c = String.fromCodePoint(cp);
  if (SYNTAX.has(c)) return '\\' + c;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) return clsChar(cp);
  return c;
}

function property(name: string): string {
  if (POSIX[name]) return POSIX[name];
  if (/^In/.test(name) || /^(?:block|blk)=/i.test(name)) throw new RegexSyntax('Unicode blocks are not supported');
  const kv = /^(script|sc|general_category|gc)=(.+)$/i.exec(name);
  if (kv) return /^s/i.test(kv[1]) ? `\\p{Script=${scriptName(kv[2])}}` : `\\p{${kv[2]}}`;
  if (/^Is/.test(name)) {
    const rest = name.slice(2);
    if (GENERAL_CATEGORY.test(rest)) return `\\p{${rest}}`;
    const bin = BINARY[rest.toLowerCase().replace(/[_ ]/g, '')];
    if (bin) return bin;
    return `\\p{Script=${scriptName(rest)}}`;
  }
  if (GENERAL_CATEGORY.test(name)) return `\\p{${name}}`;
  if (!/^[A-Za-z_]+$/.test(name)) throw new RegexSyntax('Unknown character property name');
  return `\\p{${name}}`;
}

interface CompiledRegex {
  re: RegExp;
  groups: number;
}

const regexCache = new Map<string, CompiledRegex>();

/** A Java regex as a global JS RegExp (callers set lastIndex); invalid → Fauna's error. */
function javaRegex(pattern: string, pos: Position): CompiledRegex {
  let rx = regexCache.get(pattern);
  if (rx) return rx;
  try {
    const counting = new JavaRegex(pattern, Number.MAX_SAFE_INTEGER);
    counting.translate();
    const t = new JavaRegex(pattern, counting.groups);
    const js = t.translate();
    rx = { re: new RegExp(js, t.ci ? 'gvi' : 'gv'), groups: t.groups };
  } catch {
    throw errors.invalidArgument(`Search pattern /${pattern}/ is not a valid regular expression.`, pos);
  }
  if (regexCache.size >= 512) regexCache.delete(regexCache.keys().next().value!);
  regexCache.set(pattern, rx);
  return rx;
}

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
