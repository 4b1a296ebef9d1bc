// The size and depth of a value as its JSON would be, counting shared parts every time they appear.
//
// A query can build a value whose parts are the same object many times over: `[a, a]` doubled forty
// times is forty small arrays in memory but 2^40 elements to render, store, compare or hash. Every
// array and object a query builds is therefore measured when it is built (each part once, as
// results are cached by identity: values are never mutated) and refused when it is larger than any
// value may be, or nested deeper than a request may be. All later walks over it are then bounded.

import type { Value } from '../values/types';
import { measure, type Measure } from '../values/measure';
import { LimitExceeded, valueTooLarge } from './budget';

/** As deep as a request's JSON may nest (fql-v4.md §9). */
export const MAX_VALUE_DEPTH = 1000;

/** Checks a value a query has just built: within `maxBytes` as JSON, and not too deep. Returns it. */
export function checkBuilt<T extends Value>(v: T, maxBytes: number): T {
  checkMeasure(measure(v), maxBytes);
  return v;
}

/** Checks a measure (of a value built, or about to be) against the limits. */
export function checkMeasure({ size, depth }: Measure, maxBytes: number): void {
  if (size > maxBytes) throw valueTooLarge(size, maxBytes);
  if (depth > MAX_VALUE_DEPTH) throw new LimitExceeded(`Value nesting exceeds the limit: got ${depth} levels, limit ${MAX_VALUE_DEPTH}`);
}
