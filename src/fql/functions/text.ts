// Helpers shared by the string (strings.ts) and regex (regex.ts) families: arguments, code-point
// indexes, budgeted output and a linear-time substring search.
//
// Cost model (model/budget.ts): work proportional to the input that makes no evaluator call is
// charged one compute unit per CHARS_PER_UNIT characters (a call costs one unit, Fauna's ops are
// 50 units), so strings of ordinary size cost nothing extra; every string a function builds is
// checked against the value cap before it is built and charged to the query's memory.

import { valueTooLarge, type Budget } from '../../model/budget';
import { errors, type Position } from '../../values/errors';
import type { CallExpr } from '../../wire/expr';
import type { EvalContext } from '../context';
import type { Env } from '../env';
import { argPos, asLong, asString, evalArg, evalOptional } from '../args';

// --- arguments -------------------------------------------------------------------------------

export async function strArg(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<string> {
  return asString(await evalArg(call, key, env, ctx), argPos(call, key));
}

/** An optional Integer argument (absent or null → undefined), clamped to a safe JS number. */
export async function optInt(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<number | undefined> {
  const v = await evalOptional(call, key, env, ctx);
  if (v === undefined || v === null) return undefined;
  return clampInt(asLong(v, argPos(call, key)));
}

export function clampInt(b: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(b > max ? max : b < -max ? -max : b);
}

export function bounds(arg: string, predicate: string, pos: Position): never {
  throw errors.invalidArgument(`${arg} must be ${predicate}`, pos);
}

// --- code points -----------------------------------------------------------------------------

export function cpLength(s: string): number {
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

/** UTF-16 index of code point `cp` (clamped to the string), counting from UTF-16 index `from`. */
export function unitIndex(s: string, cp: number, from = 0): number {
  let i = from;
  for (let n = 0; n < cp && i < s.length; n++) i += unitWidth(s, i);
  return i;
}

export function unitWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** Converts increasing UTF-16 indexes of one string to code-point indexes incrementally. */
export class CpCounter {
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

/** Start positions outside 1..length-1 are treated as 0 (Fauna's FindStr and FindStrRegex). */
export function startIndex(s: string, start: number | undefined): number {
  if (start === undefined) return 0;
  const len = cpLength(s);
  return start >= 1 && start <= len - 1 ? start : 0;
}

// --- budget ----------------------------------------------------------------------------------

/** Characters of linear work per compute unit. */
export const CHARS_PER_UNIT = 256;

/** Charges linear work over `chars` characters. */
export function chargeChars(ctx: EvalContext, chars: number): void {
  const units = Math.floor(chars / CHARS_PER_UNIT);
  if (units > 0) ctx.budget.charge(units);
}

/** Charges linear work over `chars` characters, then lets other requests run if the slice is used up. */
export async function work(ctx: EvalContext, chars: number): Promise<void> {
  chargeChars(ctx, chars);
  await ctx.budget.breathe();
}

/**
 * A string built piece by piece: each piece is counted before it is appended, so the result never
 * grows past the value cap (LimitExceeded instead), and charged to the query's memory.
 */
export class Output {
  private total = 0;
  constructor(private readonly budget: Budget) {}

  get length(): number {
    return this.total;
  }

  /** Accounts for `n` more UTF-16 units. */
  add(n: number): void {
    this.total += n;
    const max = this.budget.limits.maxValueBytes;
    if (this.total > max) throw valueTooLarge(this.total, max);
    this.budget.alloc(n);
  }
}

// --- linear substring search -----------------------------------------------------------------

/**
 * V8's String.prototype.indexOf (and includes, split) falls back to Boyer-Moore, which is
 * O(haystack × needle) on periodic inputs: a 10 KB needle of a's around one b against 1 MB of a's
 * takes seconds. Needles up to NATIVE_MAX units stay on the native search (its worst case is
 * bounded by the needle length: under 0.1 s for 16 MB); longer ones use Knuth-Morris-Pratt, which
 * still skips with the native search to the needle's first unit whenever it has no partial match.
 */
const NATIVE_MAX = 64;

export class Searcher {
  private pi: Int32Array | undefined;

  constructor(
    readonly needle: string,
    private readonly budget?: Budget,
  ) {}

  /** UTF-16 index of the first occurrence at or after `from`, or -1. */
  indexOf(hay: string, from: number): number {
    const p = this.needle;
    const m = p.length;
    if (m <= NATIVE_MAX) return hay.indexOf(p, from);
    if (hay.length - from < m) return -1;
    const pi = (this.pi ??= this.table());
    const first = p[0];
    let k = 0;
    let i = from;
    while (i < hay.length) {
      if (k === 0) {
        i = hay.indexOf(first, i);
        if (i < 0 || hay.length - i < m) return -1;
      }
      const c = hay.charCodeAt(i);
      while (k > 0 && p.charCodeAt(k) !== c) k = pi[k - 1];
      if (p.charCodeAt(k) === c) k++;
      i++;
      if (k === m) return i - m;
    }
    return -1;
  }

  /** KMP prefix function: pi[q] = longest proper border of needle[0..q]. */
  private table(): Int32Array {
    const p = this.needle;
    this.budget?.alloc(p.length * 4);
    const pi = new Int32Array(p.length);
    let k = 0;
    for (let q = 1; q < p.length; q++) {
      while (k > 0 && p.charCodeAt(k) !== p.charCodeAt(q)) k = pi[k - 1];
      if (p.charCodeAt(k) === p.charCodeAt(q)) k++;
      pi[q] = k;
    }
    return pi;
  }
}
