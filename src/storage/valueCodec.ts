// Compact binary serialization of values for stored document versions (not order-preserving; keys
// use tuple.ts). Reads decode every document, so both directions avoid JSON and per-value
// allocations: one reused scratch buffer for writing, offsets into the input for reading.

import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, type LambdaParams, type Obj, type RefAddr, type Value } from '../values/types';

const enum Tag {
  Null = 0,
  False = 1,
  True = 2,
  Int32 = 3,
  Int64 = 4,
  Double = 5,
  String = 6,
  Array = 7,
  Object = 8,
  Ref = 9,
  Time64 = 10,
  TimeBig = 11, // nanos beyond ±2^63 (≈ year 2262), as a decimal string
  Date = 12,
  Bytes = 13,
  Set = 14,
  Lambda = 15,
  Page = 16,
  RefAddr = 17, // db u64 LE | coll u32 LE | id u64 LE (Ref = 9 held names: the format before identity)
}

/**
 * Gives stored refs their names as of a read time. May throw (e.g. when the names it needs are not
 * loaded yet); decoding then stops and can be retried.
 */
export interface RefNamer {
  name(addr: RefAddr, at: bigint): Ref;
}

// Presence bits of a legacy ref's optional parts and of a lambda's/page's optional fields.
const HAS_COLLECTION = 1;
const HAS_DATABASE = 2;
const HAS_FIRST = 1;
const HAS_SECOND = 2;

const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const SCRATCH_SIZE = 64 * 1024;

class Writer {
  buf = Buffer.allocUnsafe(SCRATCH_SIZE);
  pos = 0;
  commitTs: bigint | undefined;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }
  varint(n: number): void {
    this.ensure(5);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.pos++] = n;
  }
  string(s: string): void {
    const len = s.length;
    if (len < 0x80) {
      // Fast path: short ASCII strings are copied char by char behind a 1-byte length.
      this.ensure(len + 1);
      const buf = this.buf;
      const start = this.pos;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + 1 + i] = c;
      }
      if (i === len) {
        buf[start] = len;
        this.pos = start + 1 + len;
        return;
      }
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
  }
}

const scratch = new Writer();

/**
 * Serializes `v`. A TxnTime (the `ts` placeholder of a document written by the committing
 * transaction) is written as the Long `commitTs`, so it must be given when `v` may contain one.
 */
export function encodeValue(v: Value, commitTs?: bigint): Uint8Array {
  const w = scratch;
  w.pos = 0;
  w.commitTs = commitTs;
  try {
    writeValue(w, v);
    return Buffer.from(w.buf.subarray(0, w.pos));
  } finally {
    // Do not keep a huge scratch buffer alive after one big document.
    if (w.buf.length > 16 * SCRATCH_SIZE) w.buf = Buffer.allocUnsafe(SCRATCH_SIZE);
  }
}

function writeValue(w: Writer, v: Value): void {
  if (v === null) return w.byte(Tag.Null);
  switch (typeof v) {
    case 'boolean':
      return w.byte(v ? Tag.True : Tag.False);
    case 'bigint':
      return writeLong(w, v);
    case 'number':
      w.ensure(9);
      w.buf[w.pos] = Tag.Double;
      w.buf.writeDoubleLE(v, w.pos + 1);
      w.pos += 9;
      return;
    case 'string':
      w.byte(Tag.String);
      return w.string(v);
  }
  if (Array.isArray(v)) {
    w.byte(Tag.Array);
    w.varint(v.length);
    for (const x of v) writeValue(w, x);
    return;
  }
  if (v instanceof Map) {
    w.byte(Tag.Object);
    return writeObj(w, v);
  }
  if (v instanceof Ref) return writeRef(w, v);
  if (v instanceof Time) {
    if (v.nanos >= I64_MIN && v.nanos <= I64_MAX) {
      w.ensure(9);
      w.buf[w.pos] = Tag.Time64;
      w.buf.writeBigInt64LE(v.nanos, w.pos + 1);
      w.pos += 9;
    } else {
      w.byte(Tag.TimeBig);
      w.string(v.nanos.toString());
    }
    return;
  }
  if (v instanceof DateV) {
    w.ensure(9);
    w.buf[w.pos] = Tag.Date;
    w.buf.writeDoubleLE(v.days, w.pos + 1);
    w.pos += 9;
    return;
  }
  if (v instanceof Bytes) {
    w.byte(Tag.Bytes);
    w.varint(v.bytes.length);
    w.ensure(v.bytes.length);
    w.buf.set(v.bytes, w.pos);
    w.pos += v.bytes.length;
    return;
  }
  if (v instanceof SetV) {
    w.byte(Tag.Set);
    return writeObj(w, v.expr);
  }
  if (v instanceof Lambda) {
    w.byte(Tag.Lambda);
    w.byte((v.apiVersion !== undefined ? HAS_FIRST : 0) | (v.closure !== undefined ? HAS_SECOND : 0));
    writeValue(w, v.params as Value);
    writeValue(w, v.body as Value);
    if (v.apiVersion !== undefined) w.string(v.apiVersion);
    if (v.closure !== undefined) writeObj(w, v.closure);
    return;
  }
  if (v instanceof Page) {
    w.byte(Tag.Page);
    w.byte((v.before !== undefined ? HAS_FIRST : 0) | (v.after !== undefined ? HAS_SECOND : 0));
    writeValue(w, v.data);
    if (v.before !== undefined) writeValue(w, v.before);
    if (v.after !== undefined) writeValue(w, v.after);
    return;
  }
  if (v instanceof TxnTime) {
    if (w.commitTs === undefined) throw new Error('encodeValue: TxnTime needs the commit ts');
    return writeLong(w, w.commitTs);
  }
  throw new TypeError(`cannot serialize ${String(v)}`);
}

function writeLong(w: Writer, v: bigint): void {
  if (v >= -0x80000000n && v <= 0x7fffffffn) {
    w.ensure(5);
    w.buf[w.pos] = Tag.Int32;
    w.buf.writeInt32LE(Number(v), w.pos + 1);
    w.pos += 5;
  } else {
    w.ensure(9);
    w.buf[w.pos] = Tag.Int64;
    w.buf.writeBigInt64LE(BigInt.asIntN(64, v), w.pos + 1);
    w.pos += 9;
  }
}

function writeObj(w: Writer, o: ReadonlyMap<string, Value>): void {
  w.varint(o.size);
  for (const [k, x] of o) {
    w.string(k);
    writeValue(w, x);
  }
}

// A stored ref is its address only: a rename rewrites nothing (see RefNamer for reads).
function writeRef(w: Writer, r: Ref): void {
  const a = r.addr;
  if (a === undefined) throw new Error(`encodeValue: ref ${r} has no address`);
  w.ensure(21);
  const buf = w.buf;
  buf[w.pos] = Tag.RefAddr;
  buf.writeBigUInt64LE(a.db, w.pos + 1);
  buf.writeUInt32LE(a.coll, w.pos + 9);
  buf.writeBigUInt64LE(a.id, w.pos + 13);
  w.pos += 21;
}

// ---- decoding ------------------------------------------------------------------------------

class Reader {
  pos = 0;
  readonly buf: Buffer;
  /** Names stored refs; without one they decode anonymous (Ref.anonymous). */
  names: RefNamer | undefined;
  at = 0n;
  /** Set when the value held a ref (callers that keep raw values use it to skip work). */
  sawRef = false;
  /** Reads refs of the format before identity (names) through this, for the migration only. */
  legacy: ((ref: Ref) => Ref) | undefined;
  constructor(bytes: Uint8Array, offset: number) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = offset;
  }
  byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError('truncated value');
    return this.buf[this.pos++];
  }
  varint(): number {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
    }
  }
  string(): string {
    const n = this.varint();
    const start = this.pos;
    const end = start + n;
    if (end > this.buf.length) throw new RangeError('truncated value');
    this.pos = end;
    if (n < 16) {
      // Short ASCII strings (keys, most field values) are cheaper to build by hand.
      let s = '';
      for (let i = start; i < end; i++) {
        const c = this.buf[i];
        if (c >= 0x80) return this.buf.toString('utf8', start, end);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return this.buf.toString('utf8', start, end);
  }
}

/**
 * Decodes a value written by `encodeValue`, starting at `offset`. Refs get their names from
 * `names` as of `at`, or stay anonymous without one (for code that only re-encodes them).
 */
export function decodeValue(bytes: Uint8Array, offset = 0, names?: RefNamer, at = 0n): Value {
  const r = new Reader(bytes, offset);
  r.names = names;
  r.at = at;
  const v = readValue(r);
  if (r.pos !== r.buf.length) throw new RangeError('trailing bytes after value');
  return v;
}

/**
 * Decodes a value of either format: refs by name (before identity; each goes through `legacy`,
 * which gives it its address) or by address (anonymous). For the migration of old data only.
 */
export function decodeLegacyValue(bytes: Uint8Array, offset: number, legacy: (ref: Ref) => Ref): { value: Value; sawRef: boolean } {
  const r = new Reader(bytes, offset);
  r.legacy = legacy;
  const value = readValue(r);
  if (r.pos !== r.buf.length) throw new RangeError('trailing bytes after value');
  return { value, sawRef: r.sawRef };
}

function readValue(r: Reader): Value {
  const tag = r.byte();
  const buf = r.buf;
  switch (tag) {
    case Tag.Null:
      return null;
    case Tag.False:
      return false;
    case Tag.True:
      return true;
    case Tag.Int32: {
      const n = buf.readInt32LE(r.pos);
      r.pos += 4;
      return BigInt(n);
    }
    case Tag.Int64: {
      const n = buf.readBigInt64LE(r.pos);
      r.pos += 8;
      return n;
    }
    case Tag.Double: {
      const d = buf.readDoubleLE(r.pos);
      r.pos += 8;
      return d;
    }
    case Tag.String:
      return r.string();
    case Tag.Array: {
      const n = r.varint();
      const arr: Value[] = new Array(n);
      for (let i = 0; i < n; i++) arr[i] = readValue(r);
      return arr;
    }
    case Tag.Object:
      return readObj(r);
    case Tag.RefAddr: {
      const addr: RefAddr = { db: buf.readBigUInt64LE(r.pos), coll: buf.readUInt32LE(r.pos + 8), id: buf.readBigUInt64LE(r.pos + 12) };
      r.pos += 20;
      r.sawRef = true;
      return r.names ? r.names.name(addr, r.at) : Ref.anonymous(addr);
    }
    case Tag.Ref: {
      if (!r.legacy) throw new RangeError('a ref stored by name (the format before identity): the data needs migrating');
      r.sawRef = true;
      return r.legacy(readLegacyRef(r));
    }
    case Tag.Time64: {
      const n = buf.readBigInt64LE(r.pos);
      r.pos += 8;
      return new Time(n);
    }
    case Tag.TimeBig:
      return new Time(BigInt(r.string()));
    case Tag.Date: {
      const d = buf.readDoubleLE(r.pos);
      r.pos += 8;
      return new DateV(d);
    }
    case Tag.Bytes: {
      const n = r.varint();
      if (r.pos + n > buf.length) throw new RangeError('truncated value');
      const b = new Uint8Array(n);
      b.set(buf.subarray(r.pos, r.pos + n));
      r.pos += n;
      return new Bytes(b);
    }
    case Tag.Set:
      return new SetV(readObj(r));
    case Tag.Lambda: {
      const flags = r.byte();
      const params = readValue(r) as LambdaParams;
      const body = readValue(r);
      const apiVersion = flags & HAS_FIRST ? r.string() : undefined;
      const closure = flags & HAS_SECOND ? readObj(r) : undefined;
      return new Lambda(params, body, apiVersion, closure);
    }
    case Tag.Page: {
      const flags = r.byte();
      const data = readValue(r) as Value[];
      const before = flags & HAS_FIRST ? readValue(r) : undefined;
      const after = flags & HAS_SECOND ? readValue(r) : undefined;
      return new Page(data, before, after);
    }
  }
  throw new RangeError(`bad value tag ${tag} at ${r.pos - 1}`);
}

function readObj(r: Reader): Obj {
  const n = r.varint();
  const o: Obj = new Map();
  for (let i = 0; i < n; i++) {
    const k = r.string();
    o.set(k, readValue(r));
  }
  return o;
}

function readLegacyRef(r: Reader): Ref {
  const id = r.string();
  const flags = r.byte();
  const collection = flags & HAS_COLLECTION ? readLegacyRef(r) : undefined;
  const database = flags & HAS_DATABASE ? readLegacyRef(r) : undefined;
  return new Ref(id, collection, database);
}
