// Comparing values. Two orders exist in the core and both are kept:
//  - ValueCmp.scala (`cmp`, `totalCmp`, `isEqual`): what `<`, `==`… answer;
//  - Value.compare / Value.equals (repo/values/Value.scala): what `order()` sorts by and what
//    `includes`, `indexOf` and `distinct` match with.

import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { ValueSet } from './sets';
import { ExtValue, IdV, isInt32, Lambda, ModuleV, NativeFn, NullV, SetCursorV, SmallLong, type DocIdentity, type RtValue, type Struct } from './values';
import { parseJavaLong } from './types';
import type { CallCtx } from './table';

/** Value.totalOrderingPosition */
export function orderRank(v: RtValue): number {
  switch (typeof v) {
    case 'bigint':
    case 'number':
      return 0;
    case 'string':
      return 2;
    case 'boolean':
      return 11;
  }
  if (Array.isArray(v)) return 3;
  if (v instanceof Map) return 4;
  if (v instanceof NullV) return 18;
  if (v instanceof SmallLong) return 0;
  if (v instanceof Bytes) return 1;
  if (v instanceof IdV) return 5;
  if (v instanceof Time) return 7;
  if (v instanceof TxnTime) return 8;
  if (v instanceof DateV) return 9;
  if (v instanceof ModuleV) return 12;
  if (v instanceof ValueSet) return 13;
  if (v instanceof SetCursorV) return 14;
  if (v instanceof Lambda) return 15;
  if (v instanceof NativeFn) return 16;
  if (v instanceof ExtValue) return v.orderRank;
  return 17;
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** java.lang.Double.compare: -0.0 < 0.0, NaN above everything and equal to itself. */
function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const an = a !== a;
  const bn = b !== b;
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (a === 0 && b === 0) {
    const az = Object.is(a, -0);
    const bz = Object.is(b, -0);
    return az === bz ? 0 : az ? -1 : 1;
  }
  return 0;
}

/** Value.Number.compareNumbers: integers exactly, against a Double as Doubles. */
export function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  return compareDoubles(Number(a), Number(b));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return sign(a.length - b.length);
}

// Objects without an order of their own (sets, cursors, lambdas) compare by when first compared,
// as the core compares their hash codes: stable within a query, meaningless across.
const ids = new WeakMap<object, number>();
let nextId = 0;
function identity(o: object): number {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = nextId++));
  return id;
}

/** ValueCmp.listCmp, as the core has it: an exhausted left list is less even when the right one is
 *  exhausted too (ValueCmp.scala:10), so `[1] < [1]` holds though `[1] == [1]`. */
function listCmp<A>(a: readonly A[], b: readonly A[], cmp: (x: A, y: A) => number): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = cmp(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length <= b.length ? -1 : 1;
}

function sortedEntries(s: Struct): [string, RtValue][] {
  return [...s.entries()].sort((x, y) => compareStrings(x[0], y[0]));
}

/** ValueCmp.cmp: undefined for values of unrelated types. */
export function cmp(a: RtValue, b: RtValue): number | undefined {
  if (a === b) return 0;
  if (a instanceof SmallLong) a = a.value;
  if (b instanceof SmallLong) b = b.value;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number')) return compareNumbers(a as bigint, b as bigint);
  if (ta === 'string') {
    if (tb === 'string') return compareStrings(a as string, b as string);
    if (b instanceof IdV) {
      const n = parseJavaLong(a as string);
      return n === undefined ? undefined : compareNumbers(n, b.value);
    }
    return undefined;
  }
  if (ta === 'boolean') return tb === 'boolean' ? (a === b ? 0 : a ? 1 : -1) : undefined;
  if (a instanceof NullV) return b instanceof NullV ? 0 : undefined;
  if (a instanceof IdV) {
    if (b instanceof IdV || typeof b === 'bigint' || typeof b === 'number') return compareNumbers(a.value, b instanceof IdV ? b.value : b);
    if (typeof b === 'string') {
      const n = parseJavaLong(b);
      return n === undefined ? undefined : compareNumbers(a.value, n);
    }
    return undefined;
  }
  if (b instanceof IdV && (ta === 'bigint' || ta === 'number')) return compareNumbers(a as bigint, b.value);
  if (Array.isArray(a)) return Array.isArray(b) ? listCmp(a, b, totalCmp) : undefined;
  if (a instanceof Map) {
    if (!(b instanceof Map)) return undefined;
    return listCmp(sortedEntries(a), sortedEntries(b), (x, y) => compareStrings(x[0], y[0]) || totalCmp(x[1], y[1]));
  }
  if (a instanceof Time) return b instanceof Time ? (a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0) : undefined;
  if (a instanceof DateV) return b instanceof DateV ? sign(a.days - b.days) : undefined;
  if (a instanceof Bytes) return b instanceof Bytes ? compareBytes(a.bytes, b.bytes) : undefined;
  if (a instanceof ModuleV) {
    if (!(b instanceof ModuleV)) return undefined;
    if (a.parent !== undefined && b.parent !== undefined) {
      const c = cmp(a.parent, b.parent);
      return c === 0 ? compareStrings(a.name, b.name) : c;
    }
    if (a.parent === undefined && b.parent === undefined) return compareStrings(a.name, b.name);
    return a.parent !== undefined ? 1 : -1;
  }
  if (a instanceof ValueSet) return b instanceof ValueSet ? sign(identity(a) - identity(b)) : undefined;
  if (a instanceof SetCursorV) return b instanceof SetCursorV ? compareStrings(a.token, b.token) : undefined;
  if (a instanceof Lambda) {
    if (!(b instanceof Lambda)) return undefined;
    const c = listCmp(a.params, b.params, (x, y) => (x !== null && y !== null ? compareStrings(x, y) : x === null && y !== null ? -1 : x !== null && y === null ? 1 : 0));
    return c === 0 ? sign(identity(a) - identity(b)) : c;
  }
  if (a instanceof NativeFn) {
    if (!(b instanceof NativeFn)) return undefined;
    const c = totalCmp(a.callee ?? NULL_CALLEE, b.callee ?? NULL_CALLEE);
    return c === 0 ? compareStrings(a.name, b.name) : c;
  }
  if (a instanceof ExtValue && b instanceof ExtValue) {
    const da = a.docIdentity?.();
    const db = b.docIdentity?.();
    return da !== undefined && db !== undefined ? cmpDocs(da, db) : a.compare(b);
  }
  return undefined;
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** DocID.compare: the id, then the collection (an id not yet known: equal ids). */
function compareDocIds(a: DocIdentity, b: DocIdentity): number {
  return (a.id !== undefined && b.id !== undefined ? compareBig(a.id, b.id) : 0) || compareBig(a.coll, b.coll);
}

/** ValueCmp.cmp of documents: the DocID first, then the names of named ones. */
function cmpDocs(a: DocIdentity, b: DocIdentity): number {
  return compareDocIds(a, b) || (a.name !== undefined && b.name !== undefined ? compareStrings(a.name, b.name) : 0);
}

/** Value.compare of documents: the collection first, then the names of named ones, else the DocID. */
function sortDocs(a: DocIdentity, b: DocIdentity): number {
  return compareBig(a.coll, b.coll) || (a.name !== undefined && b.name !== undefined ? compareStrings(a.name, b.name) : compareDocIds(a, b));
}

/**
 * Learns what comparing `vs` (at any depth) needs of documents that do not carry it (a named
 * document's id), before `cmp` or `sortCompare` compare them; undefined when nothing is needed.
 */
export function prepareCompare(ctx: CallCtx, vs: readonly RtValue[]): Promise<void> | undefined {
  const pending: Promise<void>[] = [];
  const walk = (v: RtValue): void => {
    if (v instanceof ExtValue) {
      if (v.prepareCompare !== undefined) pending.push(v.prepareCompare(ctx));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v instanceof Map) v.forEach(walk);
  };
  vs.forEach(walk);
  return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined);
}

const NULL_CALLEE = NullV.lit({ start: 0, end: 0, src: { name: '*null*' } });

/** ValueCmp.totalCmp: `cmp`, else by type. */
function totalCmp(a: RtValue, b: RtValue): number {
  const c = cmp(a, b);
  return c !== undefined ? c : sign(orderRank(a) - orderRank(b));
}

/** ValueCmp.isEqual with a query: a document (at any depth) equals null when it is not there,
 *  whichever side the null is on. Answers synchronously unless a document must be read. */
export function isEqualIn(ctx: CallCtx, a: RtValue, b: RtValue): boolean | Promise<boolean> {
  if (a === b) return true;
  if (a instanceof NullV && b instanceof ExtValue) return absent(ctx, b);
  if (b instanceof NullV && a instanceof ExtValue) return absent(ctx, a);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return allEqual(ctx, a.map((x, i) => [x, b[i]]));
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    const pairs: [RtValue, RtValue][] = [];
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined) return false;
      pairs.push([v, w]);
    }
    return allEqual(ctx, pairs);
  }
  return isEqual(a, b);
}

async function absent(ctx: CallCtx, v: ExtValue): Promise<boolean> {
  return (await v.nullCause(ctx)) !== undefined;
}

function allEqual(ctx: CallCtx, pairs: [RtValue, RtValue][]): boolean | Promise<boolean> {
  for (let i = 0; i < pairs.length; i++) {
    const r = isEqualIn(ctx, pairs[i][0], pairs[i][1]);
    if (r === false) return false;
    if (r !== true) return r.then((eq) => eq && allEqual(ctx, pairs.slice(i + 1)));
  }
  return true;
}

/** ValueCmp.isEqual without reading documents (a document never equals null here). */
function isEqual(a: RtValue, b: RtValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!isEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !isEqual(v, w)) return false;
    }
    return true;
  }
  if (a instanceof TxnTime && b instanceof TxnTime) return true;
  return cmp(a, b) === 0;
}

// ---- Value.compare / Value.equals ----

/** Value.compare: the order `order()` and `distinct()` sort by. */
export function sortCompare(a: RtValue, b: RtValue): number {
  if (a instanceof SmallLong) a = a.value;
  if (b instanceof SmallLong) b = b.value;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number')) return compareNumbers(a as bigint, b as bigint);
  if (ta === 'string' && tb === 'string') return compareStrings(a as string, b as string);
  if (ta === 'boolean' && tb === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof IdV && b instanceof IdV) return compareNumbers(a.value, b.value);
  if (a instanceof Bytes && b instanceof Bytes) return compareBytes(a.bytes, b.bytes);
  if (a instanceof Time && b instanceof Time) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof DateV && b instanceof DateV) return sign(a.days - b.days);
  if (a instanceof ExtValue && b instanceof ExtValue) {
    const da = a.docIdentity?.();
    const db = b.docIdentity?.();
    const c = da !== undefined && db !== undefined ? sortDocs(da, db) : a.compare(b);
    if (c !== undefined) return c;
  }
  if (a instanceof Map && b instanceof Map) {
    return seqCompare(sortedEntries(a), sortedEntries(b), (x, y) => compareStrings(x[0], y[0]) || sortCompare(x[1], y[1]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return seqCompare(a, b, sortCompare);
  if (a instanceof ModuleV && b instanceof ModuleV) return compareStrings(a.name, b.name);
  return sign(orderRank(a) - orderRank(b));
}

function seqCompare<A>(a: readonly A[], b: readonly A[], c: (x: A, y: A) => number): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const r = c(a[i], b[i]);
    if (r !== 0) return r;
  }
  return sign(a.length - b.length);
}

/** Value.equals: numbers by value across Int/Long/Double (NaN unequal to itself), an ID equal to
 *  the string of its digits, structs whatever their key order. */
export function valueEquals(a: RtValue, b: RtValue): boolean {
  if (a instanceof SmallLong) a = a.value;
  if (b instanceof SmallLong) b = b.value;
  if (a === b) return typeof a !== 'number' || a === a;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'bigint' || ta === 'number') return (tb === 'bigint' || tb === 'number') && numEq(a as bigint, b as bigint);
  if (a instanceof NullV) return b instanceof NullV;
  if (a instanceof IdV) return (b instanceof IdV && a.value === b.value) || (typeof b === 'string' && parseJavaLong(b) === a.value);
  if (ta === 'string') return b instanceof IdV && parseJavaLong(a as string) === b.value;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valueEquals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !valueEquals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof Time) return b instanceof Time && a.nanos === b.nanos;
  if (a instanceof DateV) return b instanceof DateV && a.days === b.days;
  if (a instanceof Bytes) return b instanceof Bytes && compareBytes(a.bytes, b.bytes) === 0;
  if (a instanceof ModuleV) return b instanceof ModuleV && a.name === b.name;
  if (a instanceof TxnTime) return b instanceof TxnTime;
  if (a instanceof NativeFn) return b instanceof NativeFn && a.name === b.name && valueEquals(a.callee ?? NULL_CALLEE, b.callee ?? NULL_CALLEE);
  if (a instanceof SetCursorV) return b instanceof SetCursorV && a.token === b.token;
  if (a instanceof ExtValue) return b instanceof ExtValue && a.compare(b) === 0;
  return false;
}

function numEq(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  return Number(a) === Number(b);
}

/** A key equal for values `valueEquals` and Scala's hashCode both match (`distinct` on arrays:
 *  Int 1 and Double 1.0 are equal but hash apart, so both stay). */
export function hashKey(v: RtValue): string {
  switch (typeof v) {
    case 'bigint':
      return (isInt32(v) ? 'i' : 'l') + v;
    case 'number':
      return 'd' + (Object.is(v, -0) ? '-0' : String(v));
    case 'string':
      return 's' + JSON.stringify(v);
    case 'boolean':
      return v ? 'T' : 'F';
  }
  if (v instanceof NullV) return 'N';
  // Long.hashCode is Integer.hashCode for non-negative values only.
  if (v instanceof SmallLong) return (v.value >= 0n ? 'i' : 'l') + v.value;
  if (Array.isArray(v)) return '[' + v.map(hashKey).join(',') + ']';
  if (v instanceof Map) return '{' + sortedEntries(v).map(([k, x]) => JSON.stringify(k) + ':' + hashKey(x)).join(',') + '}';
  if (v instanceof IdV) return 'I' + v.value;
  if (v instanceof Time) return 't' + v.nanos;
  if (v instanceof DateV) return 'D' + v.days;
  if (v instanceof Bytes) return 'b' + Buffer.from(v.bytes).toString('base64');
  if (v instanceof ModuleV) return 'M' + v.name;
  if (v instanceof TxnTime) return 'X';
  // Two references to one document are one value (the core's DocID), not two objects.
  const doc = v instanceof ExtValue ? v.docIdentity?.() : undefined;
  if (doc?.id !== undefined) return `R${doc.coll}:${doc.id}`;
  if (doc?.name !== undefined) return `R${doc.coll}:n${JSON.stringify(doc.name)}`;
  return 'o' + identity(v as object);
}
