// String (stdlib/Strings.scala). Indexes are code points, not UTF-16 units; `length` counts code
// points. Regular expressions are Java's, as the core's, run on RE2 (src/regex/): linear time, so no
// pattern a client sends can hold the process; backreferences and lookaround are refused
// (invalid_regex), other deviations from Java are listed in src/regex/javaRegex.ts. A search over n
// characters with a program of m instructions is charged n·m/SEARCH_DIVISOR compute units before it
// runs, so no single synchronous search can run long: the compute limit refuses it first.

import { compileJavaRegex, RegexMatcher, RegexSyntaxError, RegexUnsupported, type CompiledRegex } from '../../regex/re2';
import { Failures, type Trace } from '../runtime/failure';
import { frameSpan, type CallCtx } from '../runtime/table';
import { parseJavaLong, p, tt } from '../runtime/types';
import { toDisplayStringIn } from '../runtime/toString';
import { long, NullV, type RtValue } from '../runtime/values';
import { prototype } from './base';
import { MAX_STRING_SIZE } from './limits';

const tooLarge = (size: number, t: Trace | null) => Failures.valueTooLarge(`string size ${size} exceeds limit ${MAX_STRING_SIZE}`, t);

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

/** String.codePointCount(0, charIndex) */
function toCodepoint(s: string, charIndex: number): bigint {
  return BigInt(cpLength(s.slice(0, charIndex)));
}

/** offsetByCodePoints(0, idx), or undefined when the string has fewer code points. */
function offsetByCodepoints(s: string, idx: number): number | undefined {
  let i = 0;
  for (let k = 0; k < idx; k++) {
    if (i >= s.length) return undefined;
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff ? 2 : 1;
  }
  return i;
}

function inclusiveIndex(s: string, idx: bigint, t: Trace | null): number {
  const err = () => Failures.indexOutOfBounds(idx, cpLength(s), t);
  if (idx > BigInt(s.length) || idx < 0n) throw err();
  const i = offsetByCodepoints(s, Number(idx));
  if (i === undefined) throw err();
  return i;
}

/** codepointToIndex: the char index of code point `idx`; unchecked, out-of-range indexes pass. */
function charIndex(s: string, idx: bigint, t: Trace | null, checked = true): number {
  const err = () => Failures.indexOutOfBounds(idx, cpLength(s), t);
  if (idx >= BigInt(s.length) || idx < 0n) {
    if (checked) throw err();
    return Number(idx);
  }
  const i = idx > BigInt(s.length) ? undefined : offsetByCodepoints(s, Number(idx));
  if (!checked) return i === undefined ? s.length : i;
  if (i === undefined || i === s.length) throw err();
  return i;
}

/** Input characters × program instructions per compute unit (~1 µs of re2js NFA work), as v4's. */
const SEARCH_DIVISOR = 256;

function regex(ctx: CallCtx, pattern: string): CompiledRegex {
  try {
    return compileJavaRegex(pattern);
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw Failures.invalidRegex(e.message, Math.max(0, e.index), ctx.trace);
    // Valid Java that RE2 cannot run (a backreference, lookaround): said so in the same shape.
    if (e instanceof RegexUnsupported) throw Failures.invalidRegex(`Unsupported construct: ${e.message}`, 0, ctx.trace);
    throw e;
  }
}

/** The first match in `section` (Regex.findFirstMatchIn), its search charged first. */
function findFirst(ctx: CallCtx, rx: CompiledRegex, section: string): [number, number] | undefined {
  chargeSearch(ctx, section.length, rx);
  const m = new RegexMatcher(rx, section);
  return m.find(0) ? [m.start, m.end] : undefined;
}

function chargeSearch(ctx: CallCtx, chars: number, rx: CompiledRegex): void {
  const units = Math.floor((chars * rx.size) / SEARCH_DIVISOR);
  if (units > 0) ctx.hooks.compute(units);
}

type Matcher = (section: string) => [number, number] | undefined;

const literalMatcher =
  (pat: string): Matcher =>
  (section) => {
    const i = section.indexOf(pat);
    return i < 0 ? undefined : [i, i + pat.length];
  };

const regexMatcher =
  (ctx: CallCtx, pattern: string): Matcher => {
    const rx = regex(ctx, pattern);
    return (section) => findFirst(ctx, rx, section);
  };

function replace0(ctx: CallCtx, s: string, matches: Matcher, replacement: string, count: bigint | undefined): string {
  if (count !== undefined && count < 1n) throw Failures.invalidArgument('count', 'must be greater than or equal to 1', ctx.trace);
  let prev = 0;
  let remaining = count;
  let out = '';
  while (remaining === undefined || remaining > 0n) {
    const m = matches(s.slice(prev));
    if (m === undefined) break;
    const [start, end] = m;
    const min = out.length + start + replacement.length;
    if (min > MAX_STRING_SIZE) throw tooLarge(min, ctx.trace);
    out += s.slice(prev, prev + start) + replacement;
    // An empty match must still advance, or the loop would never end.
    prev += end === 0 ? 1 : end;
    if (end === 0) out += s.slice(prev - 1, prev);
    if (remaining !== undefined) remaining--;
    if (prev > s.length) break;
  }
  const min = out.length + s.length - Math.min(prev, s.length);
  if (min > MAX_STRING_SIZE) throw tooLarge(min, ctx.trace);
  return out + s.slice(prev);
}

/** split0: JavaScript's split semantics, as the core chose. */
function split0(s: string, matches: Matcher): string[] {
  let prev = 0;
  let done = false;
  const out: string[] = [];
  while (!done && prev < s.length) {
    const m = matches(s.slice(prev));
    if (m === undefined) break;
    const [start, end] = m;
    if (start === end) {
      out.push(s.slice(prev, prev + 1));
      prev += 1;
      if (prev === s.length - 1) done = true;
    } else {
      out.push(s.slice(prev, prev + start));
      prev += end;
    }
  }
  out.push(s.slice(prev));
  return out;
}

const JAVA_DOUBLE = /^[\x00-\x20]*[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)|(0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+))[fFdD]?[\x00-\x20]*$/;

/** Double.parseDouble, or undefined. */
function parseJavaDouble(s: string): number | undefined {
  if (!JAVA_DOUBLE.test(s)) return undefined;
  const t = s.trim().replace(/[fFdD]$/, '');
  if (/0[xX]/.test(t)) return undefined;
  return Number(t);
}

function checkRadix(ctx: CallCtx, radix: bigint): number {
  if (radix < 2n || radix > 36n) throw Failures.invalidArgument('format', 'invalid radix, expected a number from 2-36', ctx.trace);
  return Number(radix);
}

function parseInteger(ctx: CallCtx, s: string, radix: number, bits: 32 | 64): RtValue {
  const n = parseJavaLong(s, radix);
  if (n === undefined || (bits === 32 && (n < -(2n ** 31n) || n > 2n ** 31n - 1n))) return new NullV({ kind: 'invalidNumber', value: s, span: frameSpan(ctx) });
  return bits === 64 ? long(n) : n;
}

const noElement = (ctx: CallCtx) => NullV.noSuchElement('no element found', frameSpan(ctx));

const t = prototype('String');
export const StringPrototype = t;

t.op('+', [p('other')], (ctx, self: string, [o]) => {
  const concat = (str: string) => {
    const len = self.length + str.length;
    if (len > MAX_STRING_SIZE) throw tooLarge(len, ctx.trace);
    return self + str;
  };
  const str = toDisplayStringIn(ctx, o);
  return typeof str === 'string' ? concat(str) : str.then(concat);
});
function at(ctx: CallCtx, self: string, idx: bigint): string {
  const i = charIndex(self, idx, ctx.trace);
  return String.fromCodePoint(self.codePointAt(i)!);
}
t.access(p('index', tt.Int), (ctx, self: string, idx: bigint) => at(ctx, self, idx));
t.method('at', [p('index', tt.Int)], (ctx, self: string, [idx]: bigint[]) => at(ctx, self, idx));
t.method('concat', [p('other', tt.Str)], (ctx, self: string, [o]: string[]) => {
  const len = self.length + o.length;
  if (len > MAX_STRING_SIZE) throw tooLarge(len, ctx.trace);
  return self + o;
});
t.method('endsWith', [p('suffix', tt.Str)], (_c, self: string, [o]: string[]) => self.endsWith(o));
t.method('startsWith', [p('prefix', tt.Str)], (_c, self: string, [o]: string[]) => self.startsWith(o));
t.method('includes', [p('pattern', tt.Str)], (_c, self: string, [o]: string[]) => self.includes(o));
t.method('includesRegex', [p('regex', tt.Str)], (ctx, self: string, [r]: string[]) => findFirst(ctx, regex(ctx, r), self) !== undefined);
t.method('insert', [p('index', tt.Int), p('other', tt.Str)], (ctx, self: string, [idx, o]: [bigint, string]) => {
  const i = inclusiveIndex(self, idx, ctx.trace);
  const len = self.length + o.length;
  if (len > MAX_STRING_SIZE) throw tooLarge(len, ctx.trace);
  return self.slice(0, i) + o + self.slice(i);
});
t.method('indexOf', [p('pattern', tt.Str)], (ctx, self: string, [o]: string[]) => {
  const i = self.indexOf(o);
  return i >= 0 ? toCodepoint(self, i) : noElement(ctx);
});
t.method('indexOf', [p('pattern', tt.Str), p('start', tt.Int)], (ctx, self: string, [o, start]: [string, bigint]) => {
  const i = self.indexOf(o, charIndex(self, start, ctx.trace));
  return i >= 0 ? toCodepoint(self, i) : noElement(ctx);
});
t.method('indexOfRegex', [p('regex', tt.Str)], (ctx, self: string, [r]: string[]) => {
  const m = findFirst(ctx, regex(ctx, r), self);
  return m !== undefined ? toCodepoint(self, m[0]) : noElement(ctx);
});
t.method('indexOfRegex', [p('regex', tt.Str), p('start', tt.Int)], (ctx, self: string, [r, start]: [string, bigint]) => {
  const from = charIndex(self, start, ctx.trace);
  const m = findFirst(ctx, regex(ctx, r), self.slice(from));
  return m !== undefined ? toCodepoint(self, m[0] + from) : noElement(ctx);
});
t.method('lastIndexOf', [p('pattern', tt.Str)], (ctx, self: string, [o]: string[]) => {
  const i = self.lastIndexOf(o);
  return i >= 0 ? toCodepoint(self, i) : noElement(ctx);
});
t.method('lastIndexOf', [p('pattern', tt.Str), p('end', tt.Int)], (ctx, self: string, [o, end]: [string, bigint]) => {
  const i = self.lastIndexOf(o, charIndex(self, end, ctx.trace));
  return i >= 0 ? toCodepoint(self, i) : noElement(ctx);
});
t.field('length', (_c, self: string) => BigInt(cpLength(self)));
/** Regex.findAllMatchIn: successive matches, an empty one stepping over the next character. */
function matchAll(ctx: CallCtx, self: string, r: string): [number, string][] {
  const rx = regex(ctx, r);
  chargeSearch(ctx, self.length, rx);
  const m = new RegexMatcher(rx, self);
  const out: [number, string][] = [];
  for (let from = 0; from <= self.length && m.find(from); ) {
    out.push([m.start, self.slice(m.start, m.end)]);
    from = m.end > m.start ? m.end : m.end + 1;
  }
  return out;
}
t.method('matches', [p('regex', tt.Str)], (ctx, self: string, [r]: string[]) => matchAll(ctx, self, r).map((m) => m[1]));
t.method('matchIndexes', [p('regex', tt.Str)], (ctx, self: string, [r]: string[]) => matchAll(ctx, self, r).map(([i, s]) => [toCodepoint(self, i), s]));
const repl = [p('pattern', tt.Str), p('replacement', tt.Str)];
t.method('replace', repl, (ctx, self: string, [a, b]: string[]) => replace0(ctx, self, literalMatcher(a), b, 1n));
t.method('replace', [...repl, p('amount', tt.Int)], (ctx, self: string, [a, b, n]: [string, string, bigint]) => replace0(ctx, self, literalMatcher(a), b, n));
t.method('replaceAll', repl, (ctx, self: string, [a, b]: string[]) => replace0(ctx, self, literalMatcher(a), b, undefined));
const replRe = [p('regex', tt.Str), p('replacement', tt.Str)];
t.method('replaceRegex', replRe, (ctx, self: string, [a, b]: string[]) => replace0(ctx, self, regexMatcher(ctx, a), b, 1n));
t.method('replaceRegex', [...replRe, p('amount', tt.Int)], (ctx, self: string, [a, b, n]: [string, string, bigint]) =>
  replace0(ctx, self, regexMatcher(ctx, a), b, n),
);
t.method('replaceAllRegex', repl, (ctx, self: string, [a, b]: string[]) => replace0(ctx, self, regexMatcher(ctx, a), b, undefined));
t.method('slice', [p('start', tt.Int)], (ctx, self: string, [a]: bigint[]) => sliceJava(self, charIndex(self, a, ctx.trace, false), self.length));
t.method('slice', [p('start', tt.Int), p('end', tt.Int)], (ctx, self: string, [a, b]: bigint[]) =>
  sliceJava(self, charIndex(self, a, ctx.trace, false), charIndex(self, b, ctx.trace, false)),
);
t.method('toLowerCase', [], (_c, self: string) => self.toLowerCase());
t.method('toUpperCase', [], (_c, self: string) => self.toUpperCase());
/** NFKC_Casefold, approximated: NFKC, lower case, and the full foldings lower case misses. */
function nfkcCasefold(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/[ßẞς]/g, (c) => (c === 'ς' ? 'σ' : 'ss')).normalize('NFKC');
}
t.method('casefold', [], (_c, self: string) => nfkcCasefold(self));
t.method('casefold', [p('format', tt.Str)], (ctx, self: string, [f]: string[]) => {
  switch (f) {
    case 'NFKCCaseFold':
      return nfkcCasefold(self);
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD':
      return self.normalize(f);
  }
  throw Failures.invalidArgument('format', 'expected a casefold format (one of NFKCCaseFold, NFC, NFD, NFKC, or NFKD)', ctx.trace);
});
t.method('parseNumber', [], (ctx, self: string) => {
  const n = parseJavaLong(self);
  if (n !== undefined) return n;
  const d = parseJavaDouble(self);
  return d !== undefined ? d : new NullV({ kind: 'invalidNumber', value: self, span: frameSpan(ctx) });
});
t.method('parseDouble', [], (ctx, self: string) => {
  const d = parseJavaDouble(self);
  return d !== undefined ? d : new NullV({ kind: 'invalidNumber', value: self, span: frameSpan(ctx) });
});
t.method('parseLong', [], (ctx, self: string) => parseInteger(ctx, self, 10, 64));
t.method('parseLong', [p('radix', tt.Int)], (ctx, self: string, [r]: bigint[]) => parseInteger(ctx, self, checkRadix(ctx, r), 64));
t.method('parseInt', [], (ctx, self: string) => parseInteger(ctx, self, 10, 32));
t.method('parseInt', [p('radix', tt.Int)], (ctx, self: string, [r]: bigint[]) => parseInteger(ctx, self, checkRadix(ctx, r), 32));
t.method('split', [p('separator', tt.Str)], (_c, self: string, [sep]: string[]) => split0(self, literalMatcher(sep)));
t.method('splitRegex', [p('regex', tt.Str)], (ctx, self: string, [r]: string[]) => split0(self, regexMatcher(ctx, r)));
t.method('splitAt', [p('index', tt.Int)], (ctx, self: string, [idx]: bigint[]) => {
  const i = inclusiveIndex(self, idx, ctx.trace);
  return [self.slice(0, i), self.slice(i)];
});

/** Scala's StringOps.slice: bounds clamped, empty when from >= until. */
function sliceJava(s: string, from: number, until: number): string {
  const lo = Math.max(0, from);
  const hi = Math.min(s.length, until);
  return lo >= hi ? '' : s.slice(lo, hi);
}
