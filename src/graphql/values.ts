// Between GraphQL values and FQL values: inputs (graphql-js coerced values → FQL), outputs (stored
// FQL values checked against the declared scalar: data written through FQL that breaks the schema
// gives a clear field error), the opaque page cursors, and the response JSON writer.

import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  type GraphQLInputType,
} from 'graphql';
import { DateV, Page, Ref, Time, TxnTime, typeName, type Obj, type Value } from '../values/types';
import { encodeValue } from '../wire/encode';
import { parseJson } from '../wire/json';
import { decodeLiteral } from '../wire/decode';
import { formatDate } from '../wire/time';
import { formatGqlTime } from './scalars';

/** An error of a resolver that is not an FQL error: `extensions.code` when `code` is set. */
export class GqlError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A document as resolvers pass it down: fields are read from `data`. */
export class DocSrc {
  constructor(
    readonly ref: Ref,
    readonly ts: Value,
    readonly data: Obj,
  ) {}

  static of(doc: Value, where: string): DocSrc | null {
    if (doc === null) return null;
    if (doc instanceof Map && doc.get('ref') instanceof Ref) {
      const data = doc.get('data');
      return new DocSrc(doc.get('ref') as Ref, doc.get('ts') ?? null, data instanceof Map ? data : new Map());
    }
    throw new GqlError(`Expected a document for ${where}, got a value of type ${typeName(doc)}.`);
  }
}

/** An embedded object (or an object returned by a resolver for an embedded type). */
export class EmbSrc {
  constructor(readonly data: Obj) {}
}

// --- inputs ----------------------------------------------------------------------------------

/** A coerced GraphQL input value → FQL: Int → Long, Float → Double, input objects → objects. */
export function inputToFql(value: unknown, type: GraphQLInputType): Value {
  if (value === null || value === undefined) return null;
  if (type instanceof GraphQLNonNull) return inputToFql(value, type.ofType);
  if (type instanceof GraphQLList) {
    const list = Array.isArray(value) ? value : [value];
    return list.map((x) => inputToFql(x, type.ofType));
  }
  if (type instanceof GraphQLInputObjectType) {
    const out: Obj = new Map();
    const fields = type.getFields();
    for (const [k, x] of Object.entries(value as Record<string, unknown>)) {
      const f = fields[k];
      if (f && x !== undefined) out.set(k, inputToFql(x, f.type));
    }
    return out;
  }
  if (type instanceof GraphQLEnumType) return value as string;
  return scalarToFql(value, (type as GraphQLScalarType).name);
}

export function scalarToFql(value: unknown, scalar: string): Value {
  if (value === null || value === undefined) return null;
  switch (scalar) {
    case 'Int':
      return BigInt(value as number);
    case 'Float':
      // A literal like 1e400 passes graphql-js as Infinity, which no document can hold.
      if (!Number.isFinite(value)) throw new GqlError(`Float cannot represent non numeric value: ${String(value)}`, 'invalid argument');
      return value as number;
    default:
      return value as Value; // String, ID, Boolean; Long/Date/Time are parsed to FQL values already
  }
}

// --- outputs ---------------------------------------------------------------------------------

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

function mismatch(v: Value, scalar: string, where: string): GqlError {
  return new GqlError(`The value at '${where}' does not match the schema: ${scalar} expected, ${typeName(v)} found.`);
}

/** A stored FQL value → what the scalar's serializer takes, or a clear error when it does not fit. */
export function scalarOut(v: Value, scalar: string, where: string): unknown {
  if (v === null || v === undefined) return null;
  switch (scalar) {
    case 'String':
      if (typeof v === 'string') return v;
      break;
    case 'Boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'ID':
      if (typeof v === 'string') return v;
      if (typeof v === 'bigint') return v.toString();
      if (v instanceof Ref) return v.id;
      break;
    case 'Int':
      if (typeof v === 'bigint' && v >= BigInt(INT_MIN) && v <= BigInt(INT_MAX)) return Number(v);
      if (typeof v === 'number' && Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX) return v;
      break;
    case 'Float':
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      break;
    case 'Long':
      if (typeof v === 'bigint' || v instanceof TxnTime) return v;
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      break;
    case 'Date':
      if (v instanceof DateV) return v;
      break;
    case 'Time':
      if (v instanceof Time) return v;
      break;
    default:
      // enums: their names
      if (typeof v === 'string') return v;
  }
  throw mismatch(v, scalar, where);
}

// --- cursors ---------------------------------------------------------------------------------

/** An FQL page cursor → opaque `_cursor` text (base64url of `{"after"|"before": <wire value>}`). */
export function encodeCursor(direction: 'after' | 'before', cursor: Value | undefined): string | null {
  if (cursor === undefined) return null;
  const json = `{"${direction}":${encodeValue(cursor, { txnTs: 0n })}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

export function decodeCursor(text: string | null | undefined): { after?: Value; before?: Value } | undefined {
  if (text === null || text === undefined) return undefined;
  try {
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) throw new Error();
    const json = parseJson(Buffer.from(text, 'base64url').toString('utf8'));
    if (!(json instanceof Map) || json.size !== 1) throw new Error();
    const [[dir, inner]] = [...json];
    if (dir !== 'after' && dir !== 'before') throw new Error();
    return { [dir]: decodeLiteral(inner) };
  } catch {
    throw new GqlError(`Invalid cursor: '${text}'.`, 'invalid argument');
  }
}

export interface PageOut {
  data: unknown[];
  after: string | null;
  before: string | null;
}

export function pageOut(page: Page, data: unknown[]): PageOut {
  return { data, after: encodeCursor('after', page.after), before: encodeCursor('before', page.before) };
}

// --- response JSON ---------------------------------------------------------------------------

/**
 * JSON text of a GraphQL response: bigints (Long) as exact integers, a document ts written by this
 * request (TxnTime) as the commit time.
 */
export function responseJson(value: unknown, txnTs: bigint): string {
  return write(value, txnTs);
}

function write(v: unknown, txnTs: bigint): string {
  const scalar = scalarJson(v, txnTs);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(v)) return '[' + v.map((x) => write(x, txnTs)).join(',') + ']';
  let out = '{';
  let first = true;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + write(x, txnTs);
    first = false;
  }
  return out + '}';
}

/** The JSON text of a value of a response that is neither a list nor an object; undefined for those. */
export function scalarJson(v: unknown, txnTs: bigint): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'undefined':
      return 'null';
  }
  if (v === null) return 'null';
  if (v instanceof TxnTime) return txnTs.toString();
  if (v instanceof Time) return JSON.stringify(formatGqlTime(v.nanos));
  if (v instanceof DateV) return JSON.stringify(formatDate(v.days));
  return undefined;
}
