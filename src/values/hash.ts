// A structural hash consistent with valuesEqual: equal values hash alike (1 and 1.0 included, objects
// whatever their key order). Arrays and objects remember their hash (values are never mutated), so
// hashing a value built from hashed parts costs only its own slots. Used to count values as
// multisets (Distinct, Union, Intersection, Difference of arrays) in linear time.

import { Bytes, DateV, Ref, SetV, Time, type Value } from './types';
import { measure, REMEMBER_FROM } from './measure';

// Kept on the array or Map itself under a symbol (a WeakMap of millions of entries would make every
// garbage collection slow).
const HASH = Symbol('flora.hash');
type Hashed = { [HASH]?: number };

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x01000193);
  return h ^ (h >>> 15);
}

function stringHash(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 13);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function numberHash(n: number): number {
  if (n === 0) return 0x9e3779b9; // 0 and -0 are equal
  f64[0] = n;
  return mix(u32[0], u32[1]);
}

export function hashValue(v: Value): number {
  if (v === null) return 0x5bd1e995;
  switch (typeof v) {
    case 'boolean':
      return v ? 0x27d4eb2f : 0x165667b1;
    case 'string':
      return stringHash(v, 0x811c9dc5);
    case 'bigint':
    case 'number':
      // Integers and Doubles that compare equal share a double (a Long beyond 2^53 may share one
      // with a neighbour: a collision, never a miss).
      return numberHash(Number(v));
  }
  if (Array.isArray(v) || v instanceof Map) {
    const cached = (v as Hashed)[HASH];
    if (cached !== undefined) return cached;
    let h: number;
    if (Array.isArray(v)) {
      h = 0x3c6ef372 ^ v.length;
      for (const x of v) h = mix(h, hashValue(x));
    } else {
      // Order-independent: the sum of the fields' hashes.
      let sum = 0;
      for (const [k, x] of v) sum = (sum + mix(stringHash(k, 0x811c9dc5), hashValue(x))) | 0;
      h = mix(0x7f4a7c15 ^ v.size, sum);
    }
    // Remembered on the values whose size is remembered (the larger ones): hashing a part again
    // then costs at most a small value's worth of work, however the parts are shared.
    if (measure(v).size > REMEMBER_FROM && Object.isExtensible(v)) (v as Hashed)[HASH] = h;
    return h;
  }
  if (v instanceof Ref) return stringHash(v.id, 0x2545f491);
  if (v instanceof Time) return stringHash(v.nanos.toString(), 0x9e3779b1);
  if (v instanceof DateV) return numberHash(v.days) ^ 0x85ebca6b;
  if (v instanceof Bytes) {
    let h = 0xc2b2ae35;
    for (const b of v.bytes) h = Math.imul(h ^ b, 0x01000193);
    return h;
  }
  if (v instanceof SetV) return hashValue(v.expr) ^ 0x27220a95;
  return 0x1b873593; // lambdas, pages, the transaction time: rare; equality decides
}
