// Values of Fauna's snapshot export (v10 serialization) as Flora values. The writer is
// MaterializedValue.encode (core: ext/model/src/main/scala/runtime/fql2/serialization/
// MaterializedValue.scala:141-279): `tagged` wraps every non-JSON type in a one-key object
// (@int, @long, @double, @time, @date, @bytes, @mod, @ref, and @object around objects with a key
// starting with "@"); `simple` writes the same without the wrappers. Refs are written from
// materializeShallow's DocRef.toValue, `{id, coll}` (ReadBroker.scala:34-40), or SchemaRef's
// `{name, coll}` for schema documents; documents are never read, so a ref to a deleted document is
// written like any other.

import { decodeBase64 } from '../../wire/decode';
import type { JsonObject, JsonValue } from '../../wire/expr';
import { parseDate, parseIsoTime, timeInRange } from '../../wire/time';
import { Bytes, DateV, LONG_MAX, LONG_MIN, Ref, Time, type Obj, type Value } from '../../values/types';
import { BadValue, checkId, fieldPath } from './badValue';

/** v10 module names of the native collections, as v4 names them. */
export const NATIVE_MODULES: Readonly<Record<string, string>> = {
  Collection: 'collections',
  Database: 'databases',
  Function: 'functions',
  Role: 'roles',
  AccessProvider: 'access_providers',
  Key: 'keys',
  Token: 'tokens',
  Credential: 'credentials',
};

/** The collection module `name` (`{"@mod": name}`) as a ref: a native collection, or a user collection. */
export function moduleRef(name: string): Ref {
  const native = NATIVE_MODULES[name];
  return native ? Ref.native(native) : Ref.collection(name);
}

/** A ref to document `id` of the collection module `coll`. */
export function docRef(coll: string, id: string): Ref {
  const native = NATIVE_MODULES[coll];
  if (native === undefined) return Ref.doc(coll, id);
  if (native === 'keys' || native === 'tokens' || native === 'credentials') return new Ref(id, Ref.native(native));
  throw new BadValue('', `a ${coll} is referred to by name, not by id "${id}"`);
}

/** A ref to the schema document `name` of module `coll` (SchemaRef: `{name, coll}`). */
function schemaRef(coll: string, name: string, path: string): Ref {
  const native = NATIVE_MODULES[coll];
  if (native === undefined || native === 'keys' || native === 'tokens' || native === 'credentials')
    throw new BadValue(path, `a ref by name into ${coll} is not a schema document`);
  return native === 'collections' ? Ref.collection(name) : Ref.schema(native, name);
}

export function timeOf(s: JsonValue, path: string): Time {
  const nanos = typeof s === 'string' ? parseIsoTime(s) : undefined;
  if (nanos === undefined || !timeInRange(nanos)) throw new BadValue(path, `${show(s)} is not a time`);
  return new Time(nanos);
}

function show(j: JsonValue): string {
  if (typeof j === 'string') return JSON.stringify(j.length > 40 ? j.slice(0, 40) + '…' : j);
  if (typeof j === 'bigint' || typeof j === 'number' || typeof j === 'boolean' || j === null) return String(j);
  return Array.isArray(j) ? 'an array' : 'an object';
}

const INTEGER = /^-?\d+$/;
const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
// Java's Double.toString: digits with a fraction, an exponent `E`, or NaN / Infinity.
const JAVA_DOUBLE = /^-?(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|Infinity)$|^NaN$/;

function integer(tag: string, s: JsonValue, path: string, min: bigint, max: bigint): bigint {
  if (typeof s !== 'string' || !INTEGER.test(s)) throw new BadValue(path, `${tag} value ${show(s)} is not an integer`);
  const n = BigInt(s);
  if (n < min || n > max) throw new BadValue(path, `${tag} value ${s} is out of range`);
  return n;
}

// --- tagged ------------------------------------------------------------------------------------

/** A value of a `tagged` export. */
export function decodeTagged(j: JsonValue, path: string): Value {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map((x, i) => decodeTagged(x, fieldPath(path, i)));
  if (j.size === 1) {
    const [key, inner] = j.entries().next().value as [string, JsonValue];
    if (key.startsWith('@')) return decodeTag(key, inner, path);
  }
  return taggedFields(j, path);
}

function taggedFields(j: JsonObject, path: string): Obj {
  const out: Obj = new Map();
  for (const [k, v] of j) out.set(k, decodeTagged(v, fieldPath(path, k)));
  return out;
}

function decodeTag(tag: string, inner: JsonValue, path: string): Value {
  switch (tag) {
    case '@int':
      return integer(tag, inner, path, INT_MIN, INT_MAX);
    case '@long':
      return integer(tag, inner, path, LONG_MIN, LONG_MAX);
    case '@double':
      if (typeof inner !== 'string' || !JAVA_DOUBLE.test(inner)) throw new BadValue(path, `@double value ${show(inner)} is not a number`);
      return Number(inner);
    case '@time':
      return timeOf(inner, path);
    case '@date': {
      const days = typeof inner === 'string' ? parseDate(inner) : undefined;
      if (days === undefined) throw new BadValue(path, `@date value ${show(inner)} is not a date`);
      return new DateV(days);
    }
    case '@bytes': {
      const bytes = typeof inner === 'string' ? decodeBase64(inner) : undefined;
      if (bytes === undefined) throw new BadValue(path, `@bytes value ${show(inner)} is not base64`);
      return new Bytes(bytes);
    }
    case '@mod':
      if (typeof inner !== 'string' || inner === '') throw new BadValue(path, `@mod value ${show(inner)} is not a collection name`);
      return moduleRef(inner);
    case '@ref':
      return taggedRef(inner, path);
    case '@object':
      if (!(inner instanceof Map)) throw new BadValue(path, '@object does not hold an object');
      return taggedFields(inner, path);
    case '@doc':
    case '@set':
    case '@stream':
    case '@uuid':
      throw new BadValue(path, `${tag} values have no FQL v4 form`);
  }
  throw new BadValue(path, `unknown tag ${tag} (objects with keys starting with "@" are wrapped in @object)`);
}

/**
 * `{"@ref": {id, coll: {"@mod"}}}` or `{"@ref": {name, coll}}`. A ref to a missing document may
 * also carry `exists: false` and `cause` (MaterializedValue.scala:228-241): it is still a ref.
 */
function taggedRef(inner: JsonValue, path: string): Ref {
  if (!(inner instanceof Map)) throw new BadValue(path, '@ref does not hold an object');
  const coll = inner.get('coll');
  const mod = coll instanceof Map && coll.size === 1 ? coll.get('@mod') : undefined;
  if (typeof mod !== 'string') throw new BadValue(fieldPath(path, 'coll'), '@ref without a {"@mod": collection}');
  for (const k of inner.keys())
    if (k !== 'id' && k !== 'name' && k !== 'coll' && k !== 'exists' && k !== 'cause') throw new BadValue(path, `@ref with an unexpected key "${k}"`);
  const name = inner.get('name');
  if (inner.has('name') && !inner.has('id')) {
    if (typeof name !== 'string') throw new BadValue(fieldPath(path, 'name'), 'not a string');
    return schemaRef(mod, name, path);
  }
  return refTo(mod, checkId(inner.get('id'), fieldPath(path, 'id')), path);
}

function refTo(coll: string, id: string, path: string): Ref {
  try {
    return docRef(coll, id);
  } catch (err) {
    if (err instanceof BadValue) throw new BadValue(path, err.reason);
    throw err;
  }
}

// --- simple ------------------------------------------------------------------------------------

/** What decoding a `simple` export needs to know, and what it counts for the report. */
export interface SimpleContext {
  /** The export's collections: `{id, coll}` naming one of them is taken as a ref. */
  readonly exported: ReadonlySet<string>;
  /** How many objects were taken as refs. */
  refsTaken: number;
}

const SIMPLE_ID = /^\d+$/;

/**
 * A value of a `simple` export. Times, dates and bytes are plain strings there and stay strings;
 * an object of exactly `{id, coll}` whose coll names an exported collection is a ref.
 */
export function decodeSimple(j: JsonValue, ctx: SimpleContext, path: string): Value {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map((x, i) => decodeSimple(x, ctx, fieldPath(path, i)));
  const ref = simpleRef(j, ctx);
  if (ref) {
    ctx.refsTaken++;
    return ref;
  }
  const out: Obj = new Map();
  for (const [k, v] of j) out.set(k, decodeSimple(v, ctx, fieldPath(path, k)));
  return out;
}

function simpleRef(j: JsonObject, ctx: SimpleContext): Ref | undefined {
  if (j.size !== 2) return undefined;
  const id = j.get('id');
  const coll = j.get('coll');
  if (typeof id !== 'string' || typeof coll !== 'string' || !SIMPLE_ID.test(id) || !ctx.exported.has(coll)) return undefined;
  try {
    return docRef(coll, checkId(id, ''));
  } catch {
    return undefined; // not a ref after all (an id beyond 64 bits): an object
  }
}

/** A field the schema says is a ref (a credential's `document`): `{id, coll}` whatever the collection. */
export function simpleRefField(j: JsonValue, path: string): Ref {
  if (!(j instanceof Map) || typeof j.get('coll') !== 'string') throw new BadValue(path, 'not a ref {id, coll}');
  return refTo(j.get('coll') as string, checkId(j.get('id'), fieldPath(path, 'id')), path);
}
