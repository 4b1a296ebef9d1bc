// Java regular expressions (java.util.regex.Pattern, what Fauna's JVM service ran) translated to
// RE2 syntax (what re2js runs, in linear time; see re2.ts). Pure: no I/O, no state but caches.
//
// Translated exactly:
//  * literals and escapes: `\Q…\E`, `\t \n \r \f \a \e \cX`, octal `\0…`, `\xhh`, `\x{h…}`,
//    `\uhhhh` (surrogate pairs joined);
//  * classes: ranges, nested classes (union), `&&` intersections (computed here: RE2 has none),
//    `\d \w \s \h \v` and negations (ASCII, as Java's; Unicode under `(?U)`), POSIX classes
//    (`\p{Lower}` …, Unicode under `(?U)`), `\p{javaLowerCase}` & co, general categories
//    (`\pL`, `\p{IsLu}`, `\p{gc=Lu}`), scripts (`\p{IsGreek}`, `\p{sc=Greek}`), binary
//    properties (`\p{IsAlphabetic}` …);
//  * `.` (all but \n \r \u0085 \u2028 \u2029; `(?s)` everything; `(?d)` all but \n), `^` and
//    `\A`, `\z`, `\b`, `\B`, `\R`, `(?m)^`/`(?m)$` (see deviations);
//  * inline flags `(?idmsuxU-idmsuxU)` and `(?flags:…)`, scoped to their group as in Java:
//    `i` is ASCII-only case folding unless `u` (or `U`) is on, then Unicode case folding; `x`
//    ignores whitespace and `#` comments; under `i`, Java's case properties (`\p{Lower}`,
//    `\p{Lu}`, `\p{javaUpperCase}` …) match both cases, as in Java 17;
//  * groups: `(…)`, `(?:…)`, `(?<name>…)`; greedy and lazy quantifiers.
//
// Approximated (documented deviations from Java):
//  * possessive quantifiers (`*+`, `++`, `?+`, `{n,m}+`) and atomic groups `(?>…)` are greedy /
//    plain groups: the same matches except where Java would refuse to backtrack into them;
//  * `$` and `\Z` without `(?m)` match at the end and before a final line terminator, as in
//    Java: RE2 has no lookahead, so the terminator is matched by a hidden group and taken back
//    out of the match afterwards (re2.ts). That works where nothing follows the `$` but the end
//    of the pattern (`a$`, `(x|y$)`, `^\s*$`); where something does (`a$\n`, `$\b`), `$` matches
//    only at the very end. They also match between the \r and \n of a final \r\n (Java: not);
//  * `(?m)$` matches before \n and at the end only (Java: before any line terminator), `(?m)^`
//    after \n only, and also after a final \n (Java: after any terminator, never at the end);
//  * `\b`, `\B` are ASCII word boundaries (Java's count any letter or digit);
//  * groups inside repetitions report the last iteration that matched (Java can report one from an
//    attempt that failed), and repetitions of something that can match empty (`(a|)+`) may stop
//    elsewhere than Java's backtracker;
//  * a lone surrogate in a pattern matches nothing.
//
// Refused (RegexUnsupported, HTTP 400 `invalid argument`): backreferences (`\1`, `\k<n>`),
// lookahead and lookbehind, `\G`, `\X`, `\N{…}`, `\b{…}`, Unicode blocks (`\p{InGreek}`),
// repetition counts above 1000 (RE2's limit, nested counts multiplied), and patterns too large
// to compile cheaply (LIMITS). Anything Java itself rejects is a RegexSyntaxError.

import {
  ALL,
  EMPTY,
  caseFold,
  complement,
  intersect,
  jsClassRanges,
  normalize,
  rangeCount,
  re2Class,
  re2Literal,
  single,
  union,
  type Ranges,
} from './charSets';

/** Not a valid Java regular expression. */
export class RegexSyntaxError extends Error {
  /** Where in the pattern (code points) the parser stood, as Java's PatternSyntaxException.getIndex(). */
  index = -1;
}

/** Valid in Java, but not something RE2 can run; `message` says what and why. */
export class RegexUnsupported extends Error {}

export const LIMITS = Object.freeze({
  /** Longest pattern translated, in UTF-16 units. */
  patternLength: 65_536,
  /** Largest RE2 program, in (estimated) instructions. */
  programSize: 20_000,
  /** Most character-class ranges in one program (each costs RE2 to compile and search). */
  classRanges: 20_000,
  /** Deepest nesting of groups and classes. */
  depth: 250,
  /** RE2's largest repetition count, also for nested counts multiplied. */
  repeat: 1000,
});

export interface Translation {
  /** The pattern in RE2 syntax. */
  source: string;
  /** Capturing groups of the Java pattern. */
  groups: number;
  /** RE2 group number of each Java group (index 0 = the whole match = 0). */
  re2Groups: number[];
  /** Java group number of each named group. */
  names: Map<string, number>;
  /** RE2 groups holding the line terminator a `$` / `\Z` consumed (see the header). */
  endGroups: number[];
  /** Estimated RE2 program size (instructions). */
  size: number;
}

/** `\t` and the other one-letter escapes of a control character. */
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, r: 0x0d, f: 0x0c, a: 0x07, e: 0x1b };

const REASON = 'regular expressions run on RE2, which has no backreferences or lookaround';

// --- the tree --------------------------------------------------------------------------------

interface Prop {
  /** RE2 general category name (L, Lu, …). */
  name: string;
  negate: boolean;
}

/** A set of characters: explicit ranges plus RE2 general categories; `negate` applies to the union. */
interface CharSet {
  ranges: Ranges;
  props: Prop[];
  negate: boolean;
}

type Node =
  | { t: 'lit'; cp: number }
  | ({ t: 'set' } & CharSet)
  | { t: 'assert'; re2: string }
  | { t: 'end'; unix: boolean }
  | { t: 'group'; capture?: number; name?: string; body: Node }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; body: Node; min: number; max: number; lazy: boolean; op: string };

const EMPTY_NODE: Node = { t: 'cat', items: [] };

interface Flags {
  i: boolean;
  u: boolean;
  m: boolean;
  s: boolean;
  d: boolean;
  x: boolean;
  U: boolean;
}

type Escape =
  | { kind: 'char'; cp: number }
  | { kind: 'set'; set: CharSet }
  | { kind: 'node'; node: Node }
  | { kind: 'quote'; cps: number[] };

// --- fixed sets --------------------------------------------------------------------------------

const r = (...pairs: number[]): Ranges => normalize(pairs);
const DIGIT = r(0x30, 0x39);
const WORD = r(0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a);
const SPACE = r(0x09, 0x0d, 0x20, 0x20);
const H_SPACE = r(0x20, 0x20, 0x09, 0x09, 0xa0, 0xa0, 0x1680, 0x1680, 0x180e, 0x180e, 0x2000, 0x200a, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000);
const V_SPACE = r(0x0a, 0x0d, 0x85, 0x85, 0x2028, 0x2029);
const LINE_TERMS = r(0x0a, 0x0a, 0x0d, 0x0d, 0x85, 0x85, 0x2028, 0x2029);
const NOT_LF = complement(single(0x0a));
const NOT_TERM = complement(LINE_TERMS);

/** POSIX and java.lang.Character classes: [ASCII / default source, Unicode (`(?U)`) source], as JS classes. */
const POSIX: Record<string, [string, string?]> = {
  Lower: ['[a-z]', '\\p{Lowercase}'],
  Upper: ['[A-Z]', '\\p{Uppercase}'],
  ASCII: ['[\\x00-\\x7F]'],
  Alpha: ['[a-zA-Z]', '\\p{Alphabetic}'],
  Digit: ['[0-9]', '\\p{Nd}'],
  Alnum: ['[a-zA-Z0-9]', '[\\p{Alphabetic}\\p{Nd}]'],
  Punct: ['[\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E]', '\\p{P}'],
  Graph: ['[\\x21-\\x7E]', '[^\\p{White_Space}\\p{Cc}\\p{Cs}\\p{Cn}]'],
  Print: ['[\\x20-\\x7E]', '[[[^\\p{White_Space}\\p{Cc}\\p{Cs}\\p{Cn}][\\p{White_Space}--[\\p{Zl}\\p{Zp}\\x0A-\\x0D\\x85]]]--\\p{Cc}]'],
  Blank: ['[ \\t]', '[\\p{White_Space}--[\\p{Zl}\\p{Zp}\\x0A-\\x0D\\x85]]'],
  Cntrl: ['[\\x00-\\x1F\\x7F]', '\\p{Cc}'],
  XDigit: ['[0-9a-fA-F]', '[\\p{Nd}\\p{Hex_Digit}]'],
  Space: ['[\\t-\\r ]', '\\p{White_Space}'],
  javaLowerCase: ['\\p{Lowercase}'],
  javaUpperCase: ['\\p{Uppercase}'],
  javaWhitespace: ['[\\t-\\r\\x1C-\\x20\\u1680\\u2000-\\u2006\\u2008-\\u200A\\u2028\\u2029\\u205F\\u3000]'],
  javaMirrored: ['\\p{Bidi_Mirrored}'],
  javaLetter: ['\\p{L}'],
  javaDigit: ['\\p{Nd}'],
  javaLetterOrDigit: ['[\\p{L}\\p{Nd}]'],
  javaAlphabetic: ['\\p{Alphabetic}'],
  javaIdeographic: ['\\p{Ideographic}'],
  javaTitleCase: ['\\p{Lt}'],
  javaSpaceChar: ['\\p{Z}'],
  javaDefined: ['\\P{Cn}'],
  javaISOControl: ['[\\x00-\\x1F\\x7F-\\x9F]'],
  all: ['[\\x00-\\u{10FFFF}]'],
  L1: ['[\\x00-\\xFF]'],
  LD: ['[\\p{L}\\p{Nd}]'],
};

/** Java's `\p{IsXxx}` binary properties (matched case-insensitively, `_`/space/`-` ignored). */
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

/** General categories RE2 knows by the same name and with the same members as Java. */
const RE2_CATEGORIES = new Set(
  'L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp Cc Cf Cs Co'.split(' '),
);
/** Other Java category names (computed from V8's data: RE2's C lacks Cn, and it has no Cn). */
const OTHER_CATEGORIES = new Set(['C', 'Cn', 'LC']);

function scriptName(name: string): string {
  return name
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join('_');
}

function jsSet(source: string): CharSet {
  try {
    return { ranges: jsClassRanges(source), props: [], negate: false };
  } catch (e) {
    if (e instanceof SyntaxError) throw new RegexSyntaxError('Unknown character property name');
    throw e;
  }
}

/** What Java's case-insensitive `\p{Lower}`-like properties match: every cased character. */
const CASED = '[\\p{Lowercase}\\p{Uppercase}\\p{Lt}]';

function category(name: string, ci = false): CharSet {
  if (ci && (name === 'Lu' || name === 'Ll' || name === 'Lt')) name = 'LC'; // Java: any cased letter
  if (RE2_CATEGORIES.has(name)) return { ranges: EMPTY, props: [{ name, negate: false }], negate: false };
  if (OTHER_CATEGORIES.has(name)) return jsSet(`\\p{gc=${name}}`);
  throw new RegexSyntaxError('Unknown character property name');
}

const CATEGORY_NAME = /^(?:[LMNPSZC]|L[ultmoC]|M[nce]|N[dlo]|P[cdseifo]|S[mcko]|Z[slp]|C[cfson])$/;

/**
 * `\p{name}` in Java's spellings (unicodeClasses: under `(?U)`). Under `(?i)` Java makes its
 * case properties (`\p{Lower}`, `\p{Lu}`, `\p{javaUpperCase}`, `\p{IsTitlecase}`, …) match both
 * cases; the others keep their members.
 */
function property(name: string, unicodeClasses: boolean, ci: boolean): CharSet {
  if (ci && (name === 'Lower' || name === 'Upper')) return jsSet(unicodeClasses ? CASED : '[a-zA-Z]');
  if (ci && /^java(?:Lower|Upper|Title)Case$/.test(name)) return jsSet(CASED);
  const posix = POSIX[name];
  if (posix) return jsSet(unicodeClasses && posix[1] ? posix[1] : posix[0]);
  if (/^In/.test(name) || /^(?:block|blk)=/i.test(name))
    throw new RegexUnsupported(`Unicode blocks (\\p{${name}}) cannot be used; use a script such as \\p{IsGreek}`);
  const kv = /^(script|sc|general_category|gc)=(.+)$/i.exec(name);
  if (kv) return /^s/i.test(kv[1]) ? jsSet(`\\p{Script=${scriptName(kv[2])}}`) : category(kv[2], ci);
  if (CATEGORY_NAME.test(name)) return category(name, ci);
  const bare = /^Is/.test(name) ? name.slice(2) : name;
  if (CATEGORY_NAME.test(bare)) return category(bare, ci);
  const key = bare.toLowerCase().replace(/[_ -]/g, '');
  if (ci && (key === 'lowercase' || key === 'uppercase' || key === 'titlecase')) return jsSet(CASED);
  const bin = BINARY[key];
  if (bin) return jsSet(bin);
  if (!/^[A-Za-z_]+$/.test(bare)) throw new RegexSyntaxError('Unknown character property name');
  if (bare !== name) return jsSet(`\\p{Script=${scriptName(bare)}}`);
  return jsSet(`\\p{${name}}`);
}

/** The members of a set as explicit ranges (categories looked up in V8's data). */
function materialize(set: CharSet): Ranges {
  let out = set.ranges;
  for (const p of set.props) {
    const cat = jsClassRanges(`\\p{gc=${p.name}}`);
    out = union(out, p.negate ? complement(cat) : cat);
  }
  return set.negate ? complement(out) : out;
}

function rangesSet(ranges: Ranges, negate = false): CharSet {
  return { ranges, props: [], negate };
}

// --- parser ----------------------------------------------------------------------------------

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isAsciiLetter = (c: number | undefined): boolean =>
  c !== undefined && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));
const isLineTerm = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isXSpace = (c: number | undefined): boolean => c !== undefined && (c === 0x20 || (c >= 0x09 && c <= 0x0d));

class Parser {
  private k = 0;
  private readonly p: number[];
  private flags: Flags = { i: false, u: false, m: false, s: false, d: false, x: false, U: false };
  groups = 0;
  readonly names = new Map<string, number>();
  private depth = 0;
  /** The first construct RE2 cannot run; reported once the whole pattern parsed. */
  unsupported: string | undefined;

  constructor(source: string) {
    this.p = Array.from(source, (c) => c.codePointAt(0)!);
  }

  /** The code point the parser stands at. */
  get position(): number {
    return Math.min(this.k, this.p.length);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.k < this.p.length) throw new RegexSyntaxError("Unmatched closing ')'");
    return node;
  }

  private refuse(what: string): void {
    this.unsupported ??= what;
  }

  private peek(off = 0): number | undefined {
    return this.p[this.k + off];
  }

  private is(ch: string, off = 0): boolean {
    return this.p[this.k + off] === ch.charCodeAt(0);
  }

  /** In comments mode, whitespace and `#…` comments between tokens. */
  private skipSpace(): void {
    if (!this.flags.x) return;
    for (;;) {
      const c = this.peek();
      if (isXSpace(c)) this.k++;
      else if (c === 0x23) while (this.k < this.p.length && !isLineTerm(this.p[this.k])) this.k++;
      else return;
    }
  }

  private enter(): void {
    if (++this.depth > LIMITS.depth)
      throw new RegexUnsupported(`groups and classes nested deeper than ${LIMITS.depth} cannot be used`);
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.is('|')) {
      this.k++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0] : { t: 'alt', items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (;;) {
      this.skipSpace();
      if (this.k >= this.p.length || this.is('|') || this.is(')')) break;
      const atom = this.atom();
      if (atom === null) continue;
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0] : { t: 'cat', items };
  }

  private literal(cp: number): Node {
    if (!this.flags.i) return { t: 'lit', cp };
    const folded = caseFold(single(cp), this.flags.u || this.flags.U);
    return folded.length === 2 ? { t: 'lit', cp } : { t: 'set', ranges: folded, props: [], negate: false };
  }

  private setNode(set: CharSet): Node {
    return { t: 'set', ...set };
  }

  private atom(): Node | null {
    const c = this.p[this.k++];
    switch (c) {
      case 0x28: // (
        return this.group();
      case 0x5b: // [
        return this.setNode(this.charClass());
      case 0x5c: {
        // backslash
        const e = this.escape(false);
        if (e.kind === 'char') return this.literal(e.cp);
        if (e.kind === 'set') return this.setNode(e.set);
        if (e.kind === 'node') return e.node;
        return { t: 'cat', items: e.cps.map((cp) => this.literal(cp)) };
      }
      case 0x2e: // .
        return this.setNode(rangesSet(this.flags.s ? ALL : this.flags.d ? NOT_LF : NOT_TERM));
      case 0x5e: // ^
        return { t: 'assert', re2: this.flags.m ? '(?m:^)' : '\\A' };
      case 0x24: // $
        return this.flags.m ? { t: 'assert', re2: '(?m:$)' } : { t: 'end', unix: this.flags.d };
      case 0x2a: // *
      case 0x2b: // +
      case 0x3f: {
        // ?  (Java names the character, and points at it)
        const e = new RegexSyntaxError(`Dangling meta character '${String.fromCodePoint(c)}'`);
        e.index = this.k - 1;
        throw e;
      }
      case 0x7b: // {
        throw new RegexSyntaxError('Illegal repetition');
      default:
        return this.literal(c);
    }
  }

  private number(): number | undefined {
    if (!isDigit(this.peek())) return undefined;
    let v = 0;
    while (isDigit(this.peek())) {
      v = v * 10 + (this.p[this.k++] - 0x30);
      if (v > 0x7fffffff) throw new RegexSyntaxError('Illegal repetition');
    }
    return v;
  }

  private quantified(atom: Node): Node {
    this.skipSpace();
    const c = this.peek();
    let min: number;
    let max: number;
    let op: string;
    if (c === 0x2a) [min, max, op] = [0, -1, '*'];
    else if (c === 0x2b) [min, max, op] = [1, -1, '+'];
    else if (c === 0x3f) [min, max, op] = [0, 1, '?'];
    else if (c === 0x7b) {
      const start = this.k;
      this.k++;
      const lo = this.number();
      if (lo === undefined) throw new RegexSyntaxError('Illegal repetition');
      let hi = lo;
      if (this.is(',')) {
        this.k++;
        hi = this.number() ?? -1;
      }
      if (!this.is('}')) throw new RegexSyntaxError('Unclosed counted closure');
      if (hi !== -1 && hi < lo) throw new RegexSyntaxError('Illegal repetition range');
      [min, max, op] = [lo, hi, '{}'];
      const text = String.fromCodePoint(...this.p.slice(start, this.k + 1));
      if (Math.max(lo, hi) > LIMITS.repeat)
        this.refuse(`repetition counts above ${LIMITS.repeat} (${text}) cannot be used; regular expressions run on RE2, which allows at most ${LIMITS.repeat}`);
      else if (!repeatFits(atom, LIMITS.repeat / Math.max(1, hi === -1 ? lo : hi)))
        this.refuse(`nested repetitions counting more than ${LIMITS.repeat} in all (…${text}) cannot be used; regular expressions run on RE2, which allows at most ${LIMITS.repeat}`);
    } else return atom;
    this.k++;
    let lazy = false;
    if (this.is('?')) {
      lazy = true;
      this.k++;
    } else if (this.is('+')) this.k++; // possessive: greedy (see the header)
    return { t: 'rep', body: atom, min, max, lazy, op };
  }

  private group(): Node | null {
    this.enter();
    const saved = this.flags;
    let node: Node | null;
    if (!this.is('?')) {
      const capture = ++this.groups;
      node = { t: 'group', capture, body: this.alternation() };
    } else {
      this.k++;
      const c = this.peek();
      if (c === 0x3a /* : */ || c === 0x3e /* > atomic: a plain group */) {
        this.k++;
        node = { t: 'group', body: this.alternation() };
      } else if (c === 0x3d /* = */ || c === 0x21 /* ! */) {
        this.k++;
        this.refuse(`${c === 0x3d ? 'lookahead (?=…)' : 'negative lookahead (?!…)'} cannot be used; ${REASON}`);
        node = { t: 'group', body: this.alternation() };
      } else if (c === 0x3c /* < */ && (this.is('=', 1) || this.is('!', 1))) {
        const negative = this.is('!', 1);
        this.k += 2;
        this.refuse(`${negative ? 'negative lookbehind (?<!…)' : 'lookbehind (?<=…)'} cannot be used; ${REASON}`);
        node = { t: 'group', body: this.alternation() };
      } else if (c === 0x3c) {
        this.k++;
        const name = this.groupName();
        if (this.names.has(name)) throw new RegexSyntaxError(`Named capturing group <${name}> is already defined`);
        const capture = ++this.groups;
        this.names.set(name, capture);
        node = { t: 'group', capture, name, body: this.alternation() };
      } else {
        // inline flags: (?idmsuxU-idmsuxU) or (?idmsuxU-idmsuxU:X)
        const next = { ...this.flags };
        let on = true;
        for (;;) {
          const f = this.peek();
          const ch = f === undefined ? '' : String.fromCodePoint(f);
          if (ch === '-') on = false;
          else if ('idmsuxU'.includes(ch) && ch !== '') next[ch as keyof Flags] = on;
          else break;
          this.k++;
        }
        if (this.is(')')) {
          this.k++;
          this.depth--;
          this.flags = next; // for the rest of the enclosing group
          return null;
        }
        if (!this.is(':')) throw new RegexSyntaxError('Unknown inline modifier');
        this.k++;
        this.flags = next;
        node = { t: 'group', body: this.alternation() };
      }
    }
    if (!this.is(')')) throw new RegexSyntaxError('Unclosed group');
    this.k++;
    this.flags = saved;
    this.depth--;
    return node;
  }

  /** `name>` of `(?<name>` or `\k<name>`: an ASCII letter, then letters and digits. */
  private groupName(): string {
    let name = '';
    while (isAsciiLetter(this.peek()) || isDigit(this.peek())) name += String.fromCodePoint(this.p[this.k++]);
    if (name === '' || !isAsciiLetter(name.charCodeAt(0))) throw new RegexSyntaxError('capturing group name does not start with a Latin letter');
    if (!this.is('>')) throw new RegexSyntaxError("named capturing group is missing trailing '>'");
    this.k++;
    return name;
  }

  private hex(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const c = this.peek();
      const d = c === undefined ? NaN : parseInt(String.fromCodePoint(c), 16);
      if (Number.isNaN(d)) throw new RegexSyntaxError('Illegal hexadecimal escape sequence');
      v = v * 16 + d;
      this.k++;
    }
    return v;
  }

  private predefined(ascii: Ranges, unicode: string | undefined, negate: boolean): Escape {
    const set = this.flags.U && unicode ? jsSet(unicode) : rangesSet(ascii);
    return { kind: 'set', set: { ...set, negate } };
  }

  private escape(inClass: boolean): Escape {
    if (this.k >= this.p.length) throw new RegexSyntaxError('Unexpected internal error');
    const start = this.k - 1;
    const code = this.p[this.k++];
    const c = String.fromCodePoint(code);
    const node = (n: Node): Escape => {
      if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence');
      return { kind: 'node', node: n };
    };
    const char = (cp: number): Escape => ({ kind: 'char', cp });
    const text = (): string => String.fromCodePoint(...this.p.slice(start, this.k));
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined) return char(control);
    switch (c) {
      case '0': {
        const oct = (x: number | undefined) => x !== undefined && x >= 0x30 && x <= 0x37;
        if (!oct(this.peek())) throw new RegexSyntaxError('Illegal octal escape sequence');
        let v = this.p[this.k++] - 0x30;
        if (oct(this.peek())) {
          const first = v;
          v = v * 8 + (this.p[this.k++] - 0x30);
          if (oct(this.peek()) && first <= 3) v = v * 8 + (this.p[this.k++] - 0x30);
        }
        return char(v);
      }
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9': {
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence');
        // Java's rule: take further digits while they still name an existing group.
        let n = code - 0x30;
        while (isDigit(this.peek()) && n * 10 + (this.p[this.k] - 0x30) <= this.groups) n = n * 10 + (this.p[this.k++] - 0x30);
        this.refuse(`backreferences (${text()}) cannot be used; ${REASON}`);
        return node(EMPTY_NODE);
      }
      case 'k': {
        if (inClass) throw new RegexSyntaxError('Illegal/unsupported escape sequence');
        if (!this.is('<')) throw new RegexSyntaxError("\\k is not followed by '<' for named capturing group");
        this.k++;
        const name = this.groupName();
        if (!this.names.has(name)) throw new RegexSyntaxError(`named capturing group <${name}> does not exist`);
        this.refuse(`backreferences (${text()}) cannot be used; ${REASON}`);
        return node(EMPTY_NODE);
      }
      case 'G':
        this.refuse('\\G (the end of the previous match) cannot be used; regular expressions run on RE2, which has no \\G');
        return node(EMPTY_NODE);
      case 'X':
        this.refuse('\\X (grapheme clusters) cannot be used; regular expressions run on RE2, which has no grapheme clusters');
        return node(EMPTY_NODE);
      case 'N':
        if (!this.is('{')) throw new RegexSyntaxError('Illegal/unsupported escape sequence');
        while (this.k < this.p.length && !this.is('}')) this.k++;
        if (!this.is('}')) throw new RegexSyntaxError('Unclosed character name escape sequence');
        this.k++;
        this.refuse(`named characters (${text()}) cannot be used; write the character or \\x{…} instead`);
        return char(0);
      case 'A':
        return node({ t: 'assert', re2: '\\A' });
      case 'z':
        return node({ t: 'assert', re2: '\\z' });
      case 'Z':
        return node({ t: 'end', unix: this.flags.d });
      case 'b':
        if (this.is('{')) {
          while (this.k < this.p.length && !this.is('}')) this.k++;
          if (this.k < this.p.length) this.k++;
          this.refuse(`${text()} boundaries cannot be used; regular expressions run on RE2, which only has \\b and \\B`);
          return node(EMPTY_NODE);
        }
        return node({ t: 'assert', re2: '\\b' });
      case 'B':
        return node({ t: 'assert', re2: '\\B' });
      case 'R':
        return node({
          t: 'group',
          body: { t: 'alt', items: [{ t: 'cat', items: [{ t: 'lit', cp: 0x0d }, { t: 'lit', cp: 0x0a }] }, { t: 'set', ...rangesSet(V_SPACE) }] },
        });
      case 'd':
      case 'D':
        return this.predefined(DIGIT, '\\p{Nd}', c === 'D');
      case 'w':
      case 'W':
        return this.predefined(WORD, '[\\p{Alphabetic}\\p{Mn}\\p{Me}\\p{Mc}\\p{Nd}\\p{Pc}\\p{Join_Control}]', c === 'W');
      case 's':
      case 'S':
        return this.predefined(SPACE, '\\p{White_Space}', c === 'S');
      case 'h':
      case 'H':
        return this.predefined(H_SPACE, undefined, c === 'H');
      case 'v':
      case 'V':
        return this.predefined(V_SPACE, undefined, c === 'V');
      case 'p':
      case 'P': {
        let name: string;
        if (this.is('{')) {
          this.k++;
          const from = this.k;
          while (this.k < this.p.length && !this.is('}')) this.k++;
          if (!this.is('}')) throw new RegexSyntaxError('Unclosed character family');
          name = String.fromCodePoint(...this.p.slice(from, this.k));
          this.k++;
        } else {
          if (this.k >= this.p.length) throw new RegexSyntaxError('Illegal character family');
          name = String.fromCodePoint(this.p[this.k++]);
        }
        let set: CharSet;
        try {
          set = property(name, this.flags.U, this.flags.i);
        } catch (e) {
          if (!(e instanceof RegexUnsupported)) throw e;
          this.refuse(e.message);
          set = rangesSet(EMPTY);
        }
        return { kind: 'set', set: c === 'P' ? { ...set, negate: !set.negate } : set };
      }
      case 'c':
        if (this.k >= this.p.length) throw new RegexSyntaxError('Illegal control escape sequence');
        return char(this.p[this.k++] ^ 64);
      case 'x': {
        if (!this.is('{')) return char(this.hex(2));
        this.k++;
        let v = 0;
        let n = 0;
        for (;;) {
          const x = this.peek();
          const d = x === undefined ? NaN : parseInt(String.fromCodePoint(x), 16);
          if (Number.isNaN(d)) break;
          v = v * 16 + d;
          this.k++;
          n++;
          if (v > 0x10ffff) throw new RegexSyntaxError('Hexadecimal codepoint is too big');
        }
        if (n === 0 || !this.is('}')) throw new RegexSyntaxError('Unclosed hexadecimal escape sequence');
        this.k++;
        return char(v);
      }
      case 'u': {
        const v = this.hex(4);
        if (v >= 0xd800 && v <= 0xdbff && this.is('\\') && this.is('u', 1)) {
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
      case 'Q': {
        const cps: number[] = [];
        while (this.k < this.p.length && !(this.is('\\') && this.is('E', 1))) cps.push(this.p[this.k++]);
        if (this.k < this.p.length) this.k += 2;
        return { kind: 'quote', cps };
      }
      default:
        // Any other ASCII letter is an unknown escape (also \E, \C, …); anything else is literal.
        if (isAsciiLetter(code)) throw new RegexSyntaxError('Illegal/unsupported escape sequence');
        return char(code);
    }
  }

  /** One character or range of a class, folded under `(?i)`. */
  private classItem(ranges: Ranges): Ranges {
    return this.flags.i ? caseFold(ranges, this.flags.u || this.flags.U) : ranges;
  }

  /** A Java character class, after its `[`. */
  private charClass(): CharSet {
    this.enter();
    let negate = false;
    if (this.is('^')) {
      negate = true;
      this.k++;
    }
    // Operands separated by `&&`; each is a union of explicit ranges and RE2 categories.
    const operands: CharSet[] = [rangesSet(EMPTY)];
    let cur = operands[0];
    let first = true;
    const add = (set: CharSet): void => {
      if (set.negate) cur.ranges = union(cur.ranges, materialize(set));
      else {
        cur.ranges = union(cur.ranges, set.ranges);
        cur.props.push(...set.props);
      }
    };
    for (;;) {
      if (this.k >= this.p.length) throw new RegexSyntaxError('Unclosed character class');
      const c = this.peek()!;
      if (this.flags.x && isXSpace(c)) {
        this.k++;
        continue;
      }
      if (c === 0x5d /* ] */ && !first) {
        this.k++;
        break;
      }
      first = false;
      if (c === 0x5b /* [ */) {
        this.k++;
        add(this.charClass());
        continue;
      }
      if (c === 0x26 /* & */ && this.is('&', 1)) {
        this.k += 2;
        cur = rangesSet(EMPTY);
        operands.push(cur);
        continue;
      }
      let lo: number;
      if (c === 0x5c /* \ */) {
        this.k++;
        const e = this.escape(true);
        if (e.kind === 'quote') {
          for (const q of e.cps) add(rangesSet(this.classItem(single(q))));
          continue;
        }
        if (e.kind === 'set') {
          add(e.set);
          continue;
        }
        lo = (e as { cp: number }).cp;
      } else {
        lo = this.p[this.k++];
      }
      if (this.is('-') && this.k + 1 < this.p.length && !this.is(']', 1) && !this.is('[', 1)) {
        this.k++;
        let hi: number;
        if (this.is('\\')) {
          this.k++;
          const e = this.escape(true);
          if (e.kind !== 'char') throw new RegexSyntaxError('Illegal character range');
          hi = e.cp;
        } else {
          hi = this.p[this.k++];
        }
        if (hi < lo) throw new RegexSyntaxError('Illegal character range');
        add(rangesSet(this.classItem([lo, hi])));
      } else {
        add(rangesSet(this.classItem(single(lo))));
      }
    }
    this.depth--;
    const used = operands.filter((o) => o.ranges.length > 0 || o.props.length > 0);
    if (used.length <= 1) {
      const only = used[0] ?? rangesSet(EMPTY);
      return { ranges: only.ranges, props: dedupe(only.props), negate };
    }
    let acc = materialize(used[0]);
    for (const o of used.slice(1)) acc = intersect(acc, materialize(o));
    return rangesSet(acc, negate);
  }
}

function dedupe(props: Prop[]): Prop[] {
  const seen = new Set<string>();
  return props.filter((p) => {
    const key = (p.negate ? 'P' : 'p') + p.name;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** RE2's check on a new counted repetition: nested counts may not multiply past the limit. */
function repeatFits(node: Node, budget: number): boolean {
  if (node.t === 'rep' && node.op === '{}') {
    const m = node.max === -1 ? node.min : node.max;
    if (m > budget) return false;
    if (m > 0) budget /= m;
  }
  switch (node.t) {
    case 'group':
      return repeatFits(node.body, budget);
    case 'rep':
      return repeatFits(node.body, budget);
    case 'cat':
    case 'alt':
      return node.items.every((n) => repeatFits(n, budget));
    default:
      return true;
  }
}

// --- RE2 source ------------------------------------------------------------------------------

/**
 * Can follow a `$` that consumed the final terminator: matches the empty string with no
 * condition on the position but the end (another `$`). After `\b`, `\z`, `^`… the position
 * matters, and the consumed terminator would move it.
 */
function emptyAfterEnd(n: Node): boolean {
  switch (n.t) {
    case 'lit':
    case 'set':
    case 'assert':
      return false;
    case 'end':
      return true;
    case 'group':
      return emptyAfterEnd(n.body);
    case 'cat':
    case 'alt':
      return n.items.every(emptyAfterEnd);
    case 'rep':
      return n.max === 0 || emptyAfterEnd(n.body);
  }
}

const TERMINATOR = '\\r\\n|[\\n\\r\\x{85}\\x{2028}\\x{2029}]';

class Emitter {
  private re2Count = 0;
  readonly re2Groups: number[] = [0];
  readonly endGroups: number[] = [];
  size = 0;
  ranges = 0;

  emit(n: Node, tail: boolean): string {
    switch (n.t) {
      case 'lit':
        this.size++;
        return re2Literal(n.cp);
      case 'set':
        this.size++;
        return this.set(n);
      case 'assert':
        this.size++;
        return n.re2;
      case 'end': {
        if (!tail) {
          this.size++;
          return '\\z';
        }
        const g = ++this.re2Count;
        this.endGroups.push(g);
        this.size += 8;
        return `(?:(${n.unix ? '\\n' : TERMINATOR})?\\z)`;
      }
      case 'group': {
        if (n.capture === undefined) return `(?:${this.emit(n.body, tail)})`;
        const g = ++this.re2Count;
        this.re2Groups[n.capture] = g;
        this.size += 2;
        return `${n.name ? `(?P<${n.name}>` : '('}${this.emit(n.body, tail)})`;
      }
      case 'cat': {
        let out = '';
        n.items.forEach((item, i) => {
          out += this.emit(item, tail && n.items.slice(i + 1).every(emptyAfterEnd));
        });
        return out;
      }
      case 'alt':
        this.size += n.items.length - 1;
        return n.items.map((item) => this.emit(item, tail)).join('|');
      case 'rep': {
        const before = this.size;
        // The body's continuation is the repetition's, plus (when it repeats) the body again.
        const once = n.max !== -1 && n.max <= 1;
        const body = this.emit(n.body, tail && (once || emptyAfterEnd(n.body)));
        const sub = this.size - before;
        const copies = n.op === '{}' ? Math.max(n.max === -1 ? n.min + 1 : n.max, 1) : 1;
        this.size = before + sub * copies + 2;
        const atomic = n.body.t === 'lit' || n.body.t === 'set' || n.body.t === 'group';
        const suffix =
          n.op === '{}' ? (n.max === n.min ? `{${n.min}}` : n.max === -1 ? `{${n.min},}` : `{${n.min},${n.max}}`) : n.op;
        return (atomic ? body : `(?:${body})`) + suffix + (n.lazy ? '?' : '');
      }
    }
  }

  private set(s: CharSet): string {
    this.ranges += rangeCount(s.ranges) + s.props.length;
    if (s.props.length === 0) {
      if (!s.negate && s.ranges.length === 2 && s.ranges[0] === s.ranges[1]) return re2Literal(s.ranges[0]);
      const comp = complement(s.ranges);
      return comp.length < s.ranges.length ? re2Class(comp, !s.negate) : re2Class(s.ranges, s.negate);
    }
    const props = s.props.map((p) => `\\${p.negate ? 'P' : 'p'}{${p.name}}`).join('');
    if (!s.negate && s.ranges.length === 0 && s.props.length === 1) return props;
    const body = re2Class(s.ranges).slice(1, -1);
    return `[${s.negate ? '^' : ''}${s.ranges.length === 0 ? '' : body}${props}]`;
  }
}

/** Translates a Java pattern; throws RegexSyntaxError or RegexUnsupported. */
export function translateJavaRegex(pattern: string): Translation {
  if (pattern.length > LIMITS.patternLength)
    throw new RegexUnsupported(
      `patterns longer than ${LIMITS.patternLength} characters cannot be used; regular expressions run on RE2, and larger programs would make matching slow`,
    );
  const parser = new Parser(pattern);
  let tree: Node;
  try {
    tree = parser.parse();
  } catch (e) {
    if (e instanceof RegexSyntaxError && e.index < 0) e.index = parser.position;
    throw e;
  }
  if (parser.unsupported !== undefined) throw new RegexUnsupported(parser.unsupported);
  const emitter = new Emitter();
  const source = emitter.emit(tree, true);
  if (emitter.size > LIMITS.programSize || emitter.ranges > LIMITS.classRanges)
    throw new RegexUnsupported(
      `the pattern is too large (about ${Math.max(emitter.size, emitter.ranges)} RE2 instructions or class ranges, at most ${LIMITS.programSize}) and cannot be used; larger programs would make matching slow`,
    );
  return {
    source,
    groups: parser.groups,
    re2Groups: emitter.re2Groups,
    names: parser.names,
    endGroups: emitter.endGroups,
    size: emitter.size,
  };
}
