// Byte keys of index entries inside their index, such that memcmp order = set order
// (fql-v4.md §5.1): terms, then values (each ascending, or descending when `reverse`), then the
// ref ascending, then a tiebreak that keeps numerically equal entries (Long 1, Double 1.0) apart.
//
// Layout: body(t1) … body(tn) | body(v1)[inverted if reverse] … | body(ref) | trailer
//   body(x)  = encodeTuplePrefix([x]): self-delimiting and prefix-free, so the concatenation of
//              bodies equals encodeTuplePrefix of the whole tuple and compares element by element;
//   inverted = every byte complemented: two distinct prefix-free bodies differ at a byte before
//              either ends, so complementing flips their order and keeps them prefix-free;
//   trailer  = the number-type trailer of encodeTuple(whole tuple) (empty unless a Double occurs),
//              only consulted between entries whose bodies are all equal.
// Terms are never inverted: `reverse` on a term has no visible effect (§5.3).
//
// Long keys: the storage engine caps keys (LMDB: 1978 bytes) far below the 32 KiB a term or value
// may hold. A key over MAX_ENTRY_KEY bytes keeps its first LONG_KEY_PREFIX bytes followed by a
// SHA-256 of the whole key, and bounds longer than LONG_KEY_PREFIX are cut to it. Ranges built from
// cut bounds therefore hold every matching entry plus, rarely, others sharing those first bytes:
// readers confirm terms/values from the payload (see `isCutBound`), and entries that agree on their
// first LONG_KEY_PREFIX bytes are ordered by hash among themselves.

import { createHash } from 'node:crypto';
import { concatBytes, encodeTuple, encodeTuplePrefix, prefixEnd } from '../storage/tuple';
import { Bytes, DateV, Ref, Time, TxnTime, type Value } from '../values/types';
import type { FieldSpec, IndexDef, IndexEntryValue } from './indexDef';

export { prefixEnd };

export const MAX_ENTRY_KEY = 1024;
export const LONG_KEY_PREFIX = MAX_ENTRY_KEY - 32;

/** A key that fits the storage engine (see the header). */
function fitKey(key: Uint8Array): Uint8Array {
  if (key.length <= MAX_ENTRY_KEY) return key;
  return concatBytes(key.subarray(0, LONG_KEY_PREFIX), createHash('sha256').update(key).digest());
}

/** A range bound that stays a prefix of the (possibly cut) keys it bounds. */
function fitBound(bound: Uint8Array): Uint8Array {
  return bound.length > LONG_KEY_PREFIX ? bound.subarray(0, LONG_KEY_PREFIX) : bound;
}

/** True when a bound was cut: its range may hold entries that do not really match it. */
export function isCutBound(bound: Uint8Array): boolean {
  return bound.length === LONG_KEY_PREFIX;
}

/** The order-preserving body of one element (no number-type trailer). */
export function elementBody(v: Value): Uint8Array {
  return encodeTuplePrefix([v]);
}

/** Complements every byte (in place), reversing the memcmp order of prefix-free bodies. */
function invert(bytes: Uint8Array): Uint8Array {
  for (let i = 0; i < bytes.length; i++) bytes[i] = ~bytes[i] & 0xff;
  return bytes;
}

/** The body of a value position, inverted when the position sorts in reverse. */
function valueBody(spec: FieldSpec | undefined, v: Value): Uint8Array {
  const body = elementBody(v);
  return spec?.reverse ? invert(body) : body;
}

/** Conservative: could `v` contain a Double (which makes encodeTuple emit a trailer)? */
function mayHoldDouble(v: Value): boolean {
  if (typeof v === 'number') return true;
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(mayHoldDouble);
  if (v instanceof Map) {
    for (const x of v.values()) if (mayHoldDouble(x)) return true;
    return false;
  }
  // Lambda, Page and Set bodies might hold one; the scalar classes cannot.
  return !(v instanceof Ref || v instanceof Time || v instanceof DateV || v instanceof Bytes || v instanceof TxnTime);
}

/** The number-type trailer of the whole tuple: distinguishes entries equal under compareValues. */
function trailer(all: Value[], bodyLength: number): Uint8Array {
  if (!all.some(mayHoldDouble)) return new Uint8Array(0);
  return encodeTuple(all).subarray(bodyLength);
}

/** The key prefix shared by every entry with exactly these terms (a Match range). */
export function termsPrefix(_def: IndexDef, terms: readonly Value[]): Uint8Array {
  return fitBound(concatBytes(...terms.map(elementBody)));
}

/** The key of an entry inside its index. */
export function entryKey(def: IndexDef, e: IndexEntryValue): Uint8Array {
  const bodies = [
    ...e.terms.map(elementBody),
    ...e.values.map((v, i) => valueBody(def.values[i], v)),
    elementBody(e.ref),
  ];
  const body = concatBytes(...bodies);
  return fitKey(concatBytes(body, trailer([...e.terms, ...e.values, e.ref], body.length)));
}

/**
 * The key prefix for a Paginate cursor or Range bound within the entries with `terms`. `cursor`
 * is the values-then-ref tuple, possibly shorter (a prefix bound); position `values.length` is
 * the ref slot, where a non-ref simply sorts before or after every ref by its type. Elements past
 * the ref slot cannot affect the order of entries and are ignored.
 *
 * Every entry whose leading cursor positions equal the cursor has a key starting with the
 * result, so the result is an inclusive lower bound (`after`) and an exclusive upper bound
 * (`before`) at once.
 */
export function cursorBound(def: IndexDef, terms: readonly Value[], cursor: readonly Value[]): Uint8Array {
  const n = Math.min(cursor.length, def.values.length + 1);
  const parts = [concatBytes(...terms.map(elementBody))];
  for (let i = 0; i < n; i++) parts.push(valueBody(def.values[i], cursor[i]));
  return fitBound(concatBytes(...parts));
}
