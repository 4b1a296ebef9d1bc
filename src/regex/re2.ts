// Compiling and running user regular expressions: Java syntax (javaRegex.ts) on RE2 semantics,
// through re2js.
//
// Decision record (engine for ContainsStrRegex, FindStrRegex, ReplaceStrRegex)
//   Problem: JS RegExp backtracks and cannot be interrupted; `(a+)+$` on 28 a's and a `!` froze the
//   whole server for seconds, doubling per extra `a` (ReDoS).
//   Chosen: re2js (pure-JS port of RE2/RE2J, maintained, no install script), linear in the input.
//   Measured on this machine, 10 KB of text: re2js test 0.4–5 µs, all matches 130–700 µs;
//   re2-wasm 60–100 µs per test and ~65 ms for all matches (it converts the string on every call;
//   last release 2024); the native `re2` binding needs an install script (download or node-gyp),
//   which this project does not run; native RegExp is ~10x faster than re2js but exponential.
//   Consequences: no backreferences or lookaround (refused with a clear 400), small documented
//   deviations from Java (javaRegex.ts). Matching stays linear per search, but a search is one
//   synchronous call, so its cost is bounded up front (the input length times the program size is
//   charged to the query's compute budget before it runs) and loops over matches yield between
//   searches (functions/regex.ts).

import { RE2JS, type Matcher } from 're2js';
import { LIMITS, RegexUnsupported, translateJavaRegex, type Translation } from './javaRegex';

export { RegexSyntaxError, RegexUnsupported } from './javaRegex';

export interface CompiledRegex extends Translation {
  readonly re: RE2JS;
}

/** Compiled patterns, least recently used first; bounded in entries and in program size. */
const cache = new Map<string, CompiledRegex>();
const CACHE_ENTRIES = 512;
const CACHE_PROGRAM = 20 * LIMITS.programSize;
let cachedProgram = 0;

/** A Java pattern compiled for RE2; throws RegexSyntaxError or RegexUnsupported. */
export function compileJavaRegex(pattern: string): CompiledRegex {
  const hit = cache.get(pattern);
  if (hit) {
    cache.delete(pattern);
    cache.set(pattern, hit);
    return hit;
  }
  const t = translateJavaRegex(pattern);
  let re: RE2JS;
  try {
    re = RE2JS.compile(t.source);
  } catch (e) {
    // The translation only produces syntax RE2 accepts, so this is one of its limits.
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    throw new RegexUnsupported(`it cannot be used on RE2 (${why})`);
  }
  const rx: CompiledRegex = { ...t, re };
  cache.set(pattern, rx);
  cachedProgram += rx.size;
  while (cache.size > CACHE_ENTRIES || cachedProgram > CACHE_PROGRAM) {
    const [oldest, old] = cache.entries().next().value!;
    cache.delete(oldest);
    cachedProgram -= old.size;
  }
  return rx;
}

/**
 * Successive matches of a compiled pattern in one input, with positions and groups in Java's
 * numbering. Where a `$` matched by consuming the final line terminator (javaRegex.ts), every
 * position past the terminator's start is moved back to it, as Java's zero-width `$` would have it.
 */
export class RegexMatcher {
  private readonly m: Matcher;
  private clamp = Infinity;
  private matchStart = -1;
  private matchEnd = -1;

  constructor(
    private readonly rx: CompiledRegex,
    private readonly input: string,
  ) {
    this.m = rx.re.matcher(input);
  }

  /** The next match starting at or after UTF-16 index `from`. */
  find(from: number): boolean {
    if (!this.m.find(from)) return false;
    this.clamp = Infinity;
    this.matchStart = this.m.start();
    this.matchEnd = this.m.end();
    if (this.rx.endGroups.length > 0 && this.matchEnd === this.input.length) {
      for (const g of this.rx.endGroups) {
        const s = this.m.start(g);
        if (s >= 0 && this.m.end(g) > s && s < this.clamp) this.clamp = s;
      }
      this.matchEnd = Math.min(this.matchEnd, this.clamp);
    }
    return true;
  }

  get start(): number {
    return this.matchStart;
  }

  get end(): number {
    return this.matchEnd;
  }

  /** Java group `g`'s [start, end), or undefined when it did not take part in the match. */
  groupRange(g: number): [number, number] | undefined {
    if (g === 0) return [this.matchStart, this.matchEnd];
    const r = this.rx.re2Groups[g];
    const s = this.m.start(r);
    if (s < 0) return undefined;
    return [Math.min(s, this.clamp), Math.min(this.m.end(r), this.clamp)];
  }

  group(g: number): string | undefined {
    const range = this.groupRange(g);
    return range && this.input.slice(range[0], range[1]);
  }
}
