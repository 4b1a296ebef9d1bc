// The FQL total order over values (fql-v4.md §5.1) and FQL equality (§3.1 Equals).
// storage/tuple.ts encodes values so that byte order matches `compareValues`; the two must change
// together (test/unit/tuple.test.ts checks that they agree).

import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, refEquals, type Obj, type RefAddr, type Value } from './types';

/** Rank of each type in the cross-type order. */
export const enum TypeRank {
  Number = 0,
  Bytes = 1,
  String = 2,
  Array = 3,
  Object = 4,
  Ref = 5,
  Time = 6,
  Date = 7,
  Lambda = 8,
  Page = 9,
  Set = 10,
  TxnTime = 11,
  Boolean = 12,
  Null = 13,
}

export function typeRank(v: Value): TypeRank {
  if (v === null) return TypeRank.Null;
  switch (typeof v) {
    case 'bigint':
    case 'number':
      return TypeRank.Number;
    case 'string':
      return TypeRank.String;
    case 'boolean':
      return TypeRank.Boolean;
  }
  if (Array.isArray(v)) return TypeRank.Array;
  if (v instanceof Map) return TypeRank.Object;
  if (v instanceof Ref) return TypeRank.Ref;
  if (v instanceof Time) return TypeRank.Time;
  if (v instanceof DateV) return TypeRank.Date;
  if (v instanceof Bytes) return TypeRank.Bytes;
  if (v instanceof Lambda) return TypeRank.Lambda;
  if (v instanceof Page) return TypeRank.Page;
  if (v instanceof SetV) return TypeRank.Set;
  if (v instanceof TxnTime) return TypeRank.TxnTime;
  throw new TypeError(`not an FQL value: ${String(v)}`);
}

/**
 * Total order of FQL values. Numerically equal numbers (Long 1 and Double 1.0, 0 and -0) compare
 * as 0, as FQL's lt/gte need; everything else compares 0 only when identical.
 */
export function compareValues(a: Value, b: Value): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case TypeRank.Number:
      return compareNumbers(a as bigint | number, b as bigint | number);
    case TypeRank.Bytes:
      return compareBytes((a as Bytes).bytes, (b as Bytes).bytes);
    case TypeRank.String:
      return compareStrings(a as string, b as string);
    case TypeRank.Array:
      return compareArrays(a as Value[], b as Value[]);
    case TypeRank.Object:
      return compareObjects(a as Obj, b as Obj);
    case TypeRank.Ref:
      return compareRefs(a as Ref, b as Ref);
    case TypeRank.Time:
      return cmp((a as Time).nanos, (b as Time).nanos);
    case TypeRank.Date:
      return cmp((a as DateV).days, (b as DateV).days);
    case TypeRank.Lambda:
      return compareLambdas(a as Lambda, b as Lambda);
    case TypeRank.Page:
      return comparePages(a as Page, b as Page);
    case TypeRank.Set:
      return compareObjects((a as SetV).expr, (b as SetV).expr);
    case TypeRank.TxnTime:
      return 0;
    case TypeRank.Boolean:
      return a === b ? 0 : a ? 1 : -1;
    case TypeRank.Null:
      return 0;
  }
}

function cmp<T extends number | bigint | string>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- numbers -------------------------------------------------------------------------------

/** Exact numeric comparison of Longs and Doubles; NaN sorts after +Infinity and equals itself. */
export function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint') {
    if (typeof b === 'bigint') return cmp(a, b);
    return 0 - compareDoubleLong(b, a);
  }
  if (typeof b === 'bigint') return compareDoubleLong(a, b);
  if (a !== a) return b !== b ? 0 : 1; // NaN
  if (b !== b) return -1;
  return a < b ? -1 : a > b ? 1 : 0; // -0 == 0
}

function compareDoubleLong(d: number, l: bigint): number {
  if (d !== d || d === Infinity) return 1;
  if (d === -Infinity) return -1;
  const f = Math.floor(d);
  const c = cmp(BigInt(f), l);
  if (c !== 0) return c;
  return f === d ? 0 : 1; // d has a fraction above floor(d) == l
}

// ---- bytes ---------------------------------------------------------------------------------

/** Unsigned lexicographic order, a prefix first (memcmp). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return cmp(a.length, b.length);
}

// ---- strings -------------------------------------------------------------------------------

/**
 * Approximate ICU root collation at tertiary strength, then UTF-8 byte order as the tiebreak.
 * The order is defined by `collationKey` so that storage can encode it.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const c = compareBytes(collationKey(a), collationKey(b));
  return c !== 0 ? c : compareCodePoints(a, b);
}

/** Code point order, which is UTF-8 byte order (JS `<` compares UTF-16 units, which differs). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (D800–DFFF) encode code points above FFFF, so they sort after E000–FFFF.
      const sx = x >= 0xd800 && x <= 0xdfff;
      const sy = y >= 0xd800 && y <= 0xdfff;
      if (sx !== sy) return sx ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return cmp(a.length, b.length);
}

// ICU root order of the ASCII characters that carry a primary weight: whitespace, punctuation,
// symbols, currency, digits, letters. The remaining ASCII controls are ignorable.
const ASCII_ORDER = '\t\n\v\f\r _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz';
const ASCII_PRIMARY = new Int32Array(128).fill(-1);
for (let i = 0; i < ASCII_ORDER.length; i++) ASCII_PRIMARY[ASCII_ORDER.charCodeAt(i)] = i;
for (let c = 65; c <= 90; c++) ASCII_PRIMARY[c] = ASCII_PRIMARY[c + 32];
const NON_ASCII_BASE = ASCII_ORDER.length - 128; // non-ASCII code points sort after 'z'

const LEVEL_SEPARATOR = 0x01; // below every weight byte (which are ≥ 0x02)
const COMMON = 0; // secondary weight of an unaccented element; also "lowercase" at tertiary
const UPPER = 1;
const MARK_RE = /\p{M}/u;
const IGNORABLE_RE = /[\p{Cc}\p{Cf}]/u;

/**
 * Appends an order-preserving, prefix-free, zero-free encoding of weight `w` (< 2,080,800):
 * 1 byte below 190, 2 bytes below 8,350, else 3 bytes.
 */
function pushWeight(out: number[], w: number): void {
  if (w < 0xbe) {
    out.push(w + 2);
    return;
  }
  w -= 0xbe;
  if (w < 32 * 255) {
    out.push(0xc0 + Math.floor(w / 255), 1 + (w % 255));
    return;
  }
  w -= 32 * 255;
  out.push(0xe0 + Math.floor(w / 65025), 1 + (Math.floor(w / 255) % 255), 1 + (w % 255));
}

const keyCache = new Map<string, Uint8Array>();
const KEY_CACHE_MAX = 4096;

/**
 * The collation sort key of `s`: primary weights (NFD, marks removed, lowercased), then per
 * element accent weights (secondary), then per element case (tertiary), separated by 0x01.
 * Contains no 0x00 byte, so storage can terminate it with one.
 */
export function collationKey(s: string): Uint8Array {
  let key = keyCache.get(s);
  if (key !== undefined) return key;
  key = buildCollationKey(s);
  if (s.length <= 256) {
    // Sorting recomputes keys of the same strings many times; a small cache of short ones pays.
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(s, key);
  }
  return key;
}

function buildCollationKey(s: string): Uint8Array {
  const primary: number[] = [];
  const secondary: number[] = [];
  const tertiary: number[] = [];
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      const w = ASCII_PRIMARY[c];
      if (w < 0) continue;
      pushWeight(primary, w);
      pushWeight(secondary, COMMON);
      pushWeight(tertiary, c >= 65 && c <= 90 ? UPPER : COMMON);
    }
  } else {
    for (const ch of s.normalize('NFD')) {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x80) {
        const w = ASCII_PRIMARY[cp];
        if (w < 0) continue;
        pushWeight(primary, w);
        pushWeight(secondary, COMMON);
        pushWeight(tertiary, cp >= 65 && cp <= 90 ? UPPER : COMMON);
      } else if (cp >= 0x300 && MARK_RE.test(ch)) {
        // Accents only weigh at the secondary level, after their base element's common weight.
        pushWeight(secondary, cp < 0x370 ? 1 + cp - 0x300 : 0x71 + cp);
      } else if (!IGNORABLE_RE.test(ch)) {
        const lower = ch.toLowerCase();
        const caseWeight = lower !== ch ? UPPER : COMMON;
        for (const lc of lower) {
          const l = lc.codePointAt(0)!;
          const w = l < 0x80 ? ASCII_PRIMARY[l] : NON_ASCII_BASE + l;
          if (w < 0) continue;
          pushWeight(primary, w);
          pushWeight(secondary, COMMON);
          pushWeight(tertiary, caseWeight);
        }
      }
    }
  }
  const out = new Uint8Array(primary.length + secondary.length + tertiary.length + 2);
  let p = 0;
  for (const b of primary) out[p++] = b;
  out[p++] = LEVEL_SEPARATOR;
  for (const b of secondary) out[p++] = b;
  out[p++] = LEVEL_SEPARATOR;
  for (const b of tertiary) out[p++] = b;
  return out;
}

// ---- composites ----------------------------------------------------------------------------

function compareArrays(a: readonly Value[], b: readonly Value[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return cmp(a.length, b.length);
}

/** key1, value1, key2, value2, … in stored order, then fewer pairs first. */
function compareObjects(a: ReadonlyMap<string, Value>, b: ReadonlyMap<string, Value>): number {
  const ia = a.entries();
  const ib = b.entries();
  for (;;) {
    const ea = ia.next();
    const eb = ib.next();
    if (ea.done || eb.done) return ea.done ? (eb.done ? 0 : -1) : 1;
    const ck = compareStrings(ea.value[0], eb.value[0]);
    if (ck !== 0) return ck;
    const cv = compareValues(ea.value[1], eb.value[1]);
    if (cv !== 0) return cv;
  }
}

const U64_MAX = (1n << 64n) - 1n;
const NUMERIC_ID = /^(0|[1-9][0-9]{0,19})$/;

/** A ref id in canonical decimal form that fits in u64, else undefined (a name). */
export function numericRefId(id: string): bigint | undefined {
  if (!NUMERIC_ID.test(id)) return undefined;
  const n = BigInt(id);
  return n <= U64_MAX ? n : undefined;
}

/**
 * Refs with addresses (all stored ones) order as Fauna's index keys do (fql-v4.md §5.1): by
 * document id, then the collection's internal id, then the database scope, the same order as their
 * tuple encoding. Others, by id (numeric ids as u64 first, then names in UTF-8 order), then
 * collection, then database.
 */
export function compareRefs(a: Ref | undefined, b: Ref | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  if (a.addr && b.addr) return compareAddrs(a.addr, b.addr);
  if (a.id !== b.id) {
    const na = numericRefId(a.id);
    const nb = numericRefId(b.id);
    if (na !== undefined) return nb !== undefined ? cmp(na, nb) : -1;
    if (nb !== undefined) return 1;
    return compareCodePoints(a.id, b.id);
  }
  return compareRefs(a.collection, b.collection) || compareRefs(a.database, b.database);
}

export function compareAddrs(a: RefAddr, b: RefAddr): number {
  return cmp(a.id, b.id) || cmp(a.coll, b.coll) || cmp(a.db, b.db);
}

/** Absent sorts before present. */
function compareOptional(a: Value | undefined, b: Value | undefined): number {
  if (a === undefined) return b === undefined ? 0 : -1;
  if (b === undefined) return 1;
  return compareValues(a, b);
}

function compareLambdas(a: Lambda, b: Lambda): number {
  return (
    compareValues(a.params as Value, b.params as Value) ||
    compareValues(a.body as Value, b.body as Value) ||
    compareValues(a.apiVersion ?? null, b.apiVersion ?? null) ||
    compareOptional(a.closure as Obj | undefined, b.closure as Obj | undefined)
  );
}

function comparePages(a: Page, b: Page): number {
  return compareArrays(a.data, b.data) || compareOptional(a.before, b.before) || compareOptional(a.after, b.after);
}

// ---- equality ------------------------------------------------------------------------------

/**
 * FQL Equals: Long 1 equals Double 1.0, objects compare order-insensitively, everything else
 * structurally.
 */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  const ra = typeRank(a);
  if (ra !== typeRank(b)) return false;
  switch (ra) {
    case TypeRank.Number:
      return compareNumbers(a as bigint | number, b as bigint | number) === 0;
    case TypeRank.Bytes:
      return compareBytes((a as Bytes).bytes, (b as Bytes).bytes) === 0;
    case TypeRank.String:
    case TypeRank.Boolean:
    case TypeRank.Null:
    case TypeRank.TxnTime:
      return false; // identical ones returned above
    case TypeRank.Array:
      return arraysEqual(a as Value[], b as Value[]);
    case TypeRank.Object:
      return objectsEqual(a as Obj, b as Obj);
    case TypeRank.Ref:
      return refEquals(a as Ref, b as Ref);
    case TypeRank.Time:
      return (a as Time).nanos === (b as Time).nanos;
    case TypeRank.Date:
      return (a as DateV).days === (b as DateV).days;
    case TypeRank.Set:
      return objectsEqual((a as SetV).expr, (b as SetV).expr);
    case TypeRank.Lambda: {
      const x = a as Lambda;
      const y = b as Lambda;
      return (
        valuesEqual(x.params as Value, y.params as Value) &&
        valuesEqual(x.body as Value, y.body as Value) &&
        x.apiVersion === y.apiVersion &&
        optionalEqual(x.closure as Obj | undefined, y.closure as Obj | undefined)
      );
    }
    case TypeRank.Page: {
      const x = a as Page;
      const y = b as Page;
      return arraysEqual(x.data, y.data) && optionalEqual(x.before, y.before) && optionalEqual(x.after, y.after);
    }
  }
}

function arraysEqual(a: readonly Value[], b: readonly Value[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
  return true;
}

function objectsEqual(a: ReadonlyMap<string, Value>, b: ReadonlyMap<string, Value>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    if (!b.has(k) || !valuesEqual(v, b.get(k)!)) return false;
  }
  return true;
}

function optionalEqual(a: Value | undefined, b: Value | undefined): boolean {
  return a === undefined || b === undefined ? a === b : valuesEqual(a, b);
}
