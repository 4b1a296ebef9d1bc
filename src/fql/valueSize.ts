// The size and depth of a value as its JSON would be, counting shared parts every time they appear.
//
// A query can build a value whose parts are the same object many times over: `[a, a]` doubled forty
// times is forty small arrays in memory but 2^40 elements to render, store, compare or hash. Every
// array and object a query builds is therefore measured when it is built (each part once, as
// results are cached by identity: values are never mutated) and refused when it is larger than any
// value may be, or nested deeper than a request may be. All later walks over it are then bounded.

import { Bytes, Lambda, Page, SetV, type Value } from '../values/types';
import { LimitExceeded, valueTooLarge } from './budget';

/** As deep as a request's JSON may nest (fql-v4.md §9). */
export const MAX_VALUE_DEPTH = 1000;

// size * DEPTH_SPAN + depth, by array or Map.
const DEPTH_SPAN = 2048;
const measured = new WeakMap<object, number>();

interface Measure {
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
    const known = measured.get(v);
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
    measured.set(v, size * DEPTH_SPAN + depth);
    return { size, depth };
  }
  if (v instanceof Page) {
    const data = measure(v.data);
    const before = v.before === undefined ? 0 : measure(v.before).size;
    const after = v.after === undefined ? 0 : measure(v.after).size;
    return { size: data.size + before + after + 32, depth: data.depth + 1 };
  }
  if (v instanceof Bytes) return { size: Math.ceil(v.bytes.length * 1.34) + 16, depth: 1 };
  if (v instanceof SetV) return { size: measure(v.expr).size + 10, depth: measure(v.expr).depth + 1 };
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

/** Checks a value a query has just built: within `maxBytes` as JSON, and not too deep. Returns it. */
export function checkBuilt<T extends Value>(v: T, maxBytes: number): T {
  const { size, depth } = measure(v);
  if (size > maxBytes) throw valueTooLarge(size, maxBytes);
  if (depth > MAX_VALUE_DEPTH) throw new LimitExceeded(`Value nesting exceeds the limit: got ${depth} levels, limit ${MAX_VALUE_DEPTH}`);
  return v;
}
