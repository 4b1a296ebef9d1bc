// The size and depth of a value as its JSON would be, counting shared parts every time they appear
// (a value built of the same part many times over is as large as its JSON, not as its memory).
// Sizes of larger values are remembered on them (values are never mutated), so measuring a value
// made of measured parts costs only its own slots.

import { Bytes, Lambda, Page, SetV, type Value } from './types';

// size * DEPTH_SPAN + depth, kept on the array or Map itself under a symbol: a WeakMap of millions
// of entries would make every garbage collection slow (ephemerons are traced in its pauses).
const DEPTH_SPAN = 2048;
/** Sizes are remembered on values larger than this (bytes as JSON). */
export const REMEMBER_FROM = 256;
const MEASURED = Symbol('flora.measured');
type Measured = { [MEASURED]?: number };

export interface Measure {
  size: number;
  depth: number;
}

/** JSON-like size in bytes and nesting depth (scalars: depth 0). */
export function measure(v: Value): Measure {
  switch (typeof v) {
    case 'string':
      return { size: v.length + 2, depth: 0 };
    case 'object':
      break;
    default:
      return { size: 8, depth: 0 };
  }
  if (v === null) return { size: 4, depth: 0 };
  if (Array.isArray(v) || v instanceof Map) {
    const known = (v as Measured)[MEASURED];
    if (known !== undefined) return { size: Math.floor(known / DEPTH_SPAN), depth: known % DEPTH_SPAN };
    let size = 2;
    let depth = 0;
    if (Array.isArray(v)) {
      for (const x of v) {
        const m = measure(x);
        size += m.size + 1;
        if (m.depth > depth) depth = m.depth;
      }
    } else {
      for (const [k, x] of v) {
        const m = measure(x);
        size += k.length + 4 + m.size;
        if (m.depth > depth) depth = m.depth;
      }
    }
    depth = Math.min(depth + 1, DEPTH_SPAN - 1);
    // Small values are measured again when needed (cheaply: they are small); remembering a size on
    // every small array would cost more memory than it saves time.
    if (size > REMEMBER_FROM && Object.isExtensible(v)) (v as Measured)[MEASURED] = size * DEPTH_SPAN + depth;
    return { size, depth };
  }
  if (v instanceof Page) {
    const data = measure(v.data);
    const before = v.before === undefined ? 0 : measure(v.before).size;
    const after = v.after === undefined ? 0 : measure(v.after).size;
    return { size: data.size + before + after + 32, depth: data.depth + 1 };
  }
  if (v instanceof Bytes) return { size: Math.ceil(v.bytes.length * 1.34) + 16, depth: 1 };
  if (v instanceof SetV) {
    const expr = measure(v.expr);
    return { size: expr.size + 10, depth: expr.depth + 1 };
  }
  if (v instanceof Lambda) {
    let size = 64;
    let depth = 1;
    for (const x of v.closure?.values() ?? []) {
      const m = measure(x);
      size += m.size;
      depth = Math.max(depth, m.depth + 1);
    }
    return { size, depth };
  }
  return { size: 64, depth: 1 }; // refs, times, dates, TxnTime
}

/** Records the size of an array known without walking it (the arrays it was joined from were measured). */
export function remember(v: Value[], m: Measure): void {
  if (m.size > REMEMBER_FROM && Object.isExtensible(v)) (v as Measured)[MEASURED] = m.size * DEPTH_SPAN + Math.min(m.depth, DEPTH_SPAN - 1);
}

/** The measure of the concatenation of `lists`, from theirs: `[...a, ...b]` is a's and b's elements between one pair of brackets. */
export function joined(lists: readonly Value[][]): Measure {
  let size = 2;
  let depth = 1;
  for (const l of lists) {
    const m = measure(l);
    size += m.size - 2;
    if (m.depth > depth) depth = m.depth;
  }
  return { size, depth };
}
