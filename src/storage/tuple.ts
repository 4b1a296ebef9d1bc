// Order-preserving encoding of value tuples: wherever `compareValues` orders two tuples (element by
// element, a tuple that is a prefix of another first), memcmp of their encodings agrees.
//
// Layout: body = the elements, each self-delimiting; then, only if the tuple holds a Double anywhere,
// a trailer = 0x01 + one type byte per number in encounter order.
// Numbers in the body carry no type: Long 1 and Double 1.0 compare equal under `compareValues`
// (also inside arrays, where the next element must decide), so their type may only break ties after
// the whole body. The trailer still keeps them distinct keys that decode to their own types.
// `encodeTuplePrefix` (no trailer) gives range bounds: every tuple whose leading elements equal the
// prefix's (numerically, for numbers) starts with it.

import { collationKey } from '../values/order';
import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, type LambdaParams, type Obj, type Value } from '../values/types';

// Type tags in the order of fql-v4.md §5.1. 0x00 terminates arrays and objects.
const T_END = 0x00;
const T_NUMBER = 0x10;
const T_BYTES = 0x20;
const T_STRING = 0x30;
const T_ARRAY = 0x40;
const T_OBJECT = 0x50;
const T_REF = 0x60;
const T_TIME = 0x70;
const T_DATE = 0x80;
const T_LAMBDA = 0x90;
const T_PAGE = 0xa0;
const T_SET = 0xa8;
const T_TXNTIME = 0xb0;
const T_FALSE = 0xc0;
const T_TRUE = 0xc1;
const T_NULL = 0xf0;

// The trailer marker sorts below every tag, so a shorter tuple still sorts first.
const T_TRAILER = 0x01;
// Number types in the trailer.
const N_LONG = 0x01;
const N_DOUBLE = 0x02;
const N_NEG_ZERO = 0x03;

// Optional parts.
const ABSENT = 0x00;
const PRESENT = 0x01;

const TIME_BIAS = 1n << 95n; // times are 96-bit signed nanos (±1.2e12 years)
const DATE_BIAS = 1n << 63n;
const TWO_53 = 2n ** 53n;

class Writer {
  buf = new Uint8Array(64);
  pos = 0;
  private view = new DataView(this.buf.buffer);
  /** Type of each number written, in order; the trailer is only needed if one is not a Long. */
  numberTypes: number[] = [];
  allLongs = true;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }
  u16(n: number): void {
    this.ensure(2);
    this.view.setUint16(this.pos, n);
    this.pos += 2;
  }
  u32(n: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, n);
    this.pos += 4;
  }
  u64(n: bigint): void {
    this.ensure(8);
    this.view.setBigUint64(this.pos, n);
    this.pos += 8;
  }
  f64(d: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, d);
    this.pos += 8;
  }
  /** Bytes with 0x00 escaped as 00 FF, terminated by 00 00 (order-preserving, prefix first). */
  escaped(bytes: Uint8Array): void {
    this.ensure(bytes.length * 2 + 2);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      buf[p++] = b;
      if (b === 0) buf[p++] = 0xff;
    }
    buf[p++] = 0;
    buf[p++] = 0;
    this.pos = p;
  }
  result(withTrailer: boolean): Uint8Array {
    if (withTrailer && !this.allLongs) {
      this.byte(T_TRAILER);
      for (const t of this.numberTypes) this.byte(t);
    }
    return this.buf.slice(0, this.pos);
  }
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // keep a leading U+FEFF

export function encodeTuple(values: readonly Value[]): Uint8Array {
  const w = new Writer();
  for (const v of values) writeElement(w, v);
  return w.result(true);
}

/**
 * The body of `encodeTuple(values)` without the number-type trailer: a byte prefix of the
 * encoding of every tuple that starts with elements equal to `values`.
 */
export function encodeTuplePrefix(values: readonly Value[]): Uint8Array {
  const w = new Writer();
  for (const v of values) writeElement(w, v);
  return w.result(false);
}

function writeElement(w: Writer, v: Value): void {
  if (v === null) return w.byte(T_NULL);
  switch (typeof v) {
    case 'boolean':
      return w.byte(v ? T_TRUE : T_FALSE);
    case 'bigint':
      return writeLong(w, v);
    case 'number':
      return writeDouble(w, v);
    case 'string':
      w.byte(T_STRING);
      return writeString(w, v);
  }
  if (Array.isArray(v)) {
    w.byte(T_ARRAY);
    for (const x of v) writeElement(w, x);
    return w.byte(T_END);
  }
  if (v instanceof Map) {
    w.byte(T_OBJECT);
    return writeObjectBody(w, v);
  }
  if (v instanceof Ref) {
    w.byte(T_REF);
    return writeRef(w, v);
  }
  if (v instanceof Time) {
    const biased = v.nanos + TIME_BIAS;
    if (biased < 0n || biased >= 1n << 96n) throw new RangeError('Time out of the storable range');
    w.byte(T_TIME);
    w.ensure(12);
    w.buf[w.pos++] = Number((biased >> 88n) & 0xffn);
    w.buf[w.pos++] = Number((biased >> 80n) & 0xffn);
    w.buf[w.pos++] = Number((biased >> 72n) & 0xffn);
    w.buf[w.pos++] = Number((biased >> 64n) & 0xffn);
    return w.u64(BigInt.asUintN(64, biased));
  }
  if (v instanceof DateV) {
    if (!Number.isSafeInteger(v.days)) throw new RangeError('Date days must be an integer');
    w.byte(T_DATE);
    return w.u64(BigInt(v.days) + DATE_BIAS);
  }
  if (v instanceof Bytes) {
    w.byte(T_BYTES);
    return w.escaped(v.bytes);
  }
  if (v instanceof Lambda) {
    w.byte(T_LAMBDA);
    writeElement(w, v.params as Value);
    writeElement(w, v.body as Value);
    writeElement(w, v.apiVersion ?? null);
    return writeOptional(w, v.closure as Obj | undefined);
  }
  if (v instanceof Page) {
    w.byte(T_PAGE);
    writeElement(w, v.data);
    writeOptional(w, v.before);
    return writeOptional(w, v.after);
  }
  if (v instanceof SetV) {
    w.byte(T_SET);
    return writeObjectBody(w, v.expr);
  }
  if (v instanceof TxnTime) return w.byte(T_TXNTIME);
  throw new TypeError(`cannot encode ${String(v)} in a key`);
}

/** Sign-flipped IEEE image: memcmp order == numeric order; -0 folds into +0, NaN above +Inf. */
function writeImage(w: Writer, d: number): void {
  w.ensure(8);
  const start = w.pos;
  w.f64(d === 0 ? 0 : d !== d ? NaN : d); // canonical NaN (0x7ff8…)
  const buf = w.buf;
  if (buf[start] & 0x80) {
    for (let i = start; i < start + 8; i++) buf[i] = ~buf[i] & 0xff;
  } else {
    buf[start] |= 0x80;
  }
}

function writeLong(w: Writer, v: bigint): void {
  w.byte(T_NUMBER);
  if (v > -TWO_53 && v < TWO_53) {
    writeImage(w, Number(v));
    w.u16(0x8000);
  } else {
    // The nearest double orders the long among numbers; the residual (|r| ≤ 1024 for 64-bit
    // longs) orders longs that round to the same double and makes the value exact.
    const d = Number(v);
    const residual = Number(v - BigInt(d));
    if (residual < -0x8000 || residual > 0x7fff) throw new RangeError(`Long out of 64-bit range: ${v}`);
    writeImage(w, d);
    w.u16(residual + 0x8000);
  }
  w.numberTypes.push(N_LONG);
}

function writeDouble(w: Writer, d: number): void {
  w.byte(T_NUMBER);
  writeImage(w, d);
  w.u16(0x8000);
  w.numberTypes.push(d === 0 && 1 / d < 0 ? N_NEG_ZERO : N_DOUBLE);
  w.allLongs = false;
}

/** Collation key (zero-free, 0x00-terminated), then the exact UTF-8 as the tiebreak. */
function writeString(w: Writer, s: string): void {
  w.raw(collationKey(s));
  w.byte(0);
  w.escaped(utf8.encode(s));
}

function writeObjectBody(w: Writer, o: ReadonlyMap<string, Value>): void {
  for (const [k, x] of o) {
    w.byte(T_STRING);
    writeString(w, k);
    writeElement(w, x);
  }
  w.byte(T_END);
}

// A ref is its address (document id, collection id, database scope: Fauna's order, §5.1), never
// its names, so a rename changes no key. A ref must be resolved to its address before encoding.
function writeRef(w: Writer, r: Ref): void {
  const a = r.addr;
  if (a === undefined) throw new Error(`tuple: ref ${r} has no address`);
  w.u64(a.id);
  w.u32(a.coll);
  w.u64(a.db);
}

function writeOptional(w: Writer, v: Value | undefined): void {
  if (v === undefined) return w.byte(ABSENT);
  w.byte(PRESENT);
  writeElement(w, v);
}

// ---- decoding ------------------------------------------------------------------------------

class Reader {
  pos = 0;
  /** Number types from the trailer; without one every number is a Long. */
  types: Uint8Array | undefined;
  typeIndex = 0;
  private view: DataView;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError('truncated tuple');
    return this.buf[this.pos++];
  }
  u16(): number {
    const n = this.view.getUint16(this.pos);
    this.pos += 2;
    return n;
  }
  u32(): number {
    const n = this.view.getUint32(this.pos);
    this.pos += 4;
    return n;
  }
  u64(): bigint {
    const n = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return n;
  }
  /** Reverses `Writer.escaped`. */
  unescaped(): Uint8Array {
    const buf = this.buf;
    let end = this.pos;
    let zeros = 0;
    for (;;) {
      if (end + 1 >= buf.length) throw new RangeError('unterminated bytes in tuple');
      if (buf[end] === 0) {
        if (buf[end + 1] === 0) break;
        zeros++;
        end += 2;
      } else end++;
    }
    let out: Uint8Array;
    if (zeros === 0) out = buf.slice(this.pos, end);
    else {
      out = new Uint8Array(end - this.pos - zeros);
      let o = 0;
      for (let i = this.pos; i < end; i++) {
        out[o++] = buf[i];
        if (buf[i] === 0) i++;
      }
    }
    this.pos = end + 2;
    return out;
  }
}

export function decodeTuple(bytes: Uint8Array): Value[] {
  const r = new Reader(bytes);
  let out: Value[] = [];
  while (r.pos < bytes.length) {
    const tag = r.byte();
    if (tag === T_TRAILER) {
      // Not all numbers were Longs: decode again, now knowing each number's type.
      r.types = bytes.subarray(r.pos);
      const end = r.pos - 1;
      r.pos = 0;
      out = [];
      while (r.pos < end) out.push(readElement(r, r.byte()));
      if (r.typeIndex !== r.types.length) throw new RangeError('tuple trailer does not match its numbers');
      break;
    }
    out.push(readElement(r, tag));
  }
  return out;
}

function readElement(r: Reader, tag: number): Value {
  switch (tag) {
    case T_NULL:
      return null;
    case T_FALSE:
      return false;
    case T_TRUE:
      return true;
    case T_NUMBER:
      return readNumber(r);
    case T_STRING:
      return readString(r);
    case T_BYTES:
      return new Bytes(r.unescaped());
    case T_ARRAY: {
      const arr: Value[] = [];
      for (let t = r.byte(); t !== T_END; t = r.byte()) arr.push(readElement(r, t));
      return arr;
    }
    case T_OBJECT:
      return readObjectBody(r);
    case T_REF:
      return readRef(r);
    case T_TIME: {
      let hi = 0n;
      for (let i = 0; i < 4; i++) hi = (hi << 8n) | BigInt(r.byte());
      return new Time(((hi << 64n) | r.u64()) - TIME_BIAS);
    }
    case T_DATE:
      return new DateV(Number(r.u64() - DATE_BIAS));
    case T_LAMBDA: {
      const params = readElement(r, r.byte()) as LambdaParams;
      const body = readElement(r, r.byte());
      const apiVersion = readElement(r, r.byte()) as string | null;
      const closure = readOptional(r) as Obj | undefined;
      return new Lambda(params, body, apiVersion ?? undefined, closure);
    }
    case T_PAGE: {
      const data = readElement(r, r.byte()) as Value[];
      const before = readOptional(r);
      const after = readOptional(r);
      return new Page(data, before, after);
    }
    case T_SET:
      return new SetV(readObjectBody(r));
    case T_TXNTIME:
      return TxnTime.instance;
  }
  throw new RangeError(`bad tuple tag 0x${tag.toString(16)} at ${r.pos - 1}`);
}

function readNumber(r: Reader): Value {
  const b = r.buf;
  const p = r.pos;
  if (p + 10 > b.length) throw new RangeError('truncated number in tuple');
  const image = new Uint8Array(8);
  if (b[p] & 0x80) {
    image.set(b.subarray(p, p + 8));
    image[0] &= 0x7f;
  } else {
    for (let i = 0; i < 8; i++) image[i] = ~b[p + i] & 0xff;
  }
  const d = new DataView(image.buffer).getFloat64(0);
  r.pos += 8;
  const residual = r.u16() - 0x8000;
  if (r.types === undefined) {
    // Without a trailer every number is a Long; if this one is not, a trailer follows and the
    // tuple is decoded again.
    return Number.isInteger(d) ? BigInt(d) + BigInt(residual) : d;
  }
  switch (r.types[r.typeIndex++]) {
    case N_LONG:
      return BigInt(d) + BigInt(residual);
    case N_DOUBLE:
      return d;
    case N_NEG_ZERO:
      return -0;
  }
  throw new RangeError('bad number type in tuple');
}

function readString(r: Reader): string {
  const b = r.buf;
  let p = r.pos;
  while (b[p] !== 0) {
    if (p >= b.length) throw new RangeError('unterminated string in tuple');
    p++;
  }
  r.pos = p + 1;
  return utf8Decoder.decode(r.unescaped());
}

function readObjectBody(r: Reader): Obj {
  const o: Obj = new Map();
  for (let t = r.byte(); t !== T_END; t = r.byte()) {
    if (t !== T_STRING) throw new RangeError('object key is not a string in tuple');
    const k = readString(r);
    o.set(k, readElement(r, r.byte()));
  }
  return o;
}

function readRef(r: Reader): Ref {
  const id = r.u64();
  const coll = r.u32();
  return Ref.anonymous({ db: r.u64(), coll, id });
}

function readOptional(r: Reader): Value | undefined {
  return r.byte() === PRESENT ? readElement(r, r.byte()) : undefined;
}

// ---- raw key helpers -----------------------------------------------------------------------

/**
 * The smallest key greater than every key that starts with `prefix` (for exclusive range ends).
 * Throws for an all-0xFF prefix, which has no such key.
 */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  let n = prefix.length;
  while (n > 0 && prefix[n - 1] === 0xff) n--;
  if (n === 0) throw new RangeError('prefix has no upper bound');
  // A copy: Buffer#slice is a view, and the caller's prefix must stay as it was.
  const out = new Uint8Array(n);
  out.set(prefix.subarray(0, n));
  out[n - 1]++;
  return out;
}

/** The smallest key greater than `key` (for turning an inclusive bound into an exclusive one). */
export function keySuccessor(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length + 1);
  out.set(key);
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Big-endian unsigned 64-bit (order-preserving for unsigned ints). */
export function encodeU64(n: bigint): Uint8Array {
  if (n < 0n || n >= 1n << 64n) throw new RangeError(`u64 out of range: ${n}`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function decodeU64(bytes: Uint8Array, offset = 0): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}

/** Big-endian unsigned 32-bit. */
export function encodeU32(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 out of range: ${n}`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

export function decodeU32(bytes: Uint8Array, offset = 0): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset);
}
