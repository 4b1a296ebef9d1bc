// The types a v10 collection schema checks stored values against (the core's repo SchemaType:
// scalars, literals, documents of a collection, arrays, tuples, unions, records with optional
// fields and a wildcard), how FQL displays them, and the check itself with the core's failures
// ("Expected String, provided Int", "Missing required field of type String", "Unexpected field
// provided"). Values are Flora's plain values (values/types.ts) as stored: Long is Int when it fits
// 32 bits, as the core's IR tells them apart.

import { Bytes, DateV, Lambda, Ref, Time, type Value } from '../../values/types';

export type Scalar = 'Any' | 'Null' | 'Int' | 'Long' | 'Double' | 'Number' | 'Boolean' | 'String' | 'Time' | 'Date' | 'Bytes' | 'UUID' | 'ID' | 'Query';

export type SchemaType =
  | { t: 'scalar'; name: Scalar }
  | { t: 'literal'; value: string | bigint | number | boolean | null }
  /** A document of the named collection (its ref; `Ref<Coll>` too). */
  | { t: 'doc'; coll: string }
  | { t: 'array'; of: SchemaType }
  | { t: 'tuple'; of: SchemaType[] }
  | { t: 'union'; of: SchemaType[] }
  | { t: 'record'; fields: Map<string, FieldSchema>; wildcard?: SchemaType };

export interface FieldSchema {
  type: SchemaType;
  /** Absent (null) is accepted. */
  optional: boolean;
}

export const scalar = (name: Scalar): SchemaType => ({ t: 'scalar', name });
export const ANY = scalar('Any');
export const NULL = scalar('Null');
export const STRING = scalar('String');
export const BOOLEAN = scalar('Boolean');
export const LONG = scalar('Long');

export function record(fields: Record<string, SchemaType | FieldSchema>, wildcard?: SchemaType): SchemaType {
  const m = new Map<string, FieldSchema>();
  for (const [k, v] of Object.entries(fields)) m.set(k, 't' in v ? { type: v, optional: false } : v);
  return { t: 'record', fields: m, wildcard };
}

export function optional(type: SchemaType): FieldSchema {
  return { type, optional: true };
}

/** `T?`: T or null. */
export function nullable(type: SchemaType): SchemaType {
  return { t: 'union', of: [type, NULL] };
}

/** A path into the value, as constraint failures report it. */
export type Path = (string | number)[];

export interface ConstraintFailure {
  paths: Path[];
  message: string;
}

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

/** FQL's display of a type (the core's Type.display). */
export function displayType(t: SchemaType): string {
  switch (t.t) {
    case 'scalar':
      return t.name;
    case 'literal':
      return displayLiteral(t.value);
    case 'doc':
      return t.coll;
    case 'array':
      return `Array<${displayType(t.of)}>`;
    case 'tuple':
      return `[${t.of.map(displayType).join(', ')}]`;
    case 'union':
      return t.of.map(displayType).join(' | ');
    case 'record': {
      const parts = [...t.fields].map(([k, f]) => `${displayKey(k)}: ${displayType(f.optional ? nullable(f.type) : f.type)}`);
      if (t.wildcard) parts.push(`*: ${displayType(t.wildcard)}`);
      return parts.length ? `{ ${parts.join(', ')} }` : '{}';
    }
  }
}

function displayLiteral(v: string | bigint | number | boolean | null): string {
  if (typeof v === 'string') return JSON.stringify(v);
  return v === null ? 'null' : String(v);
}

function displayKey(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : JSON.stringify(k);
}

/** The most precise type of a stored value (the core's valuePreciseType). */
export function typeOfValue(v: Value): SchemaType {
  if (v === null) return NULL;
  if (typeof v === 'boolean') return BOOLEAN;
  if (typeof v === 'bigint') return scalar(v >= INT_MIN && v <= INT_MAX ? 'Int' : 'Long');
  if (typeof v === 'number') return scalar('Double');
  if (typeof v === 'string') return STRING;
  if (v instanceof Time) return scalar('Time');
  if (v instanceof DateV) return scalar('Date');
  if (v instanceof Bytes) return scalar('Bytes');
  if (v instanceof Lambda) return scalar('Query');
  if (v instanceof Ref) return { t: 'doc', coll: 'Document' };
  if (Array.isArray(v)) return { t: 'tuple', of: v.map(typeOfValue) };
  if (v instanceof Map) {
    const fields = new Map<string, FieldSchema>();
    for (const [k, x] of v) fields.set(k, { type: typeOfValue(x), optional: false });
    return { t: 'record', fields };
  }
  return ANY;
}

/** The collection name of a document ref, when it is one of a user collection. */
function docCollection(v: Value): string | undefined {
  return v instanceof Ref && v.collection?.nativeParent === 'collections' ? v.collection.id : undefined;
}

function literalMatches(lit: string | bigint | number | boolean | null, v: Value): boolean {
  if (typeof lit === 'bigint') return typeof v === 'bigint' && v === lit;
  if (typeof lit === 'number') return typeof v === 'number' && v === lit;
  return v === lit;
}

/** Whether `v` is of type `t` (the core's isValueOfType: no failures gathered). */
export function isOfType(t: SchemaType, v: Value): boolean {
  switch (t.t) {
    case 'scalar':
      return scalarMatches(t.name, v);
    case 'literal':
      return literalMatches(t.value, v);
    case 'doc':
      return docCollection(v) === t.coll;
    case 'array':
      return Array.isArray(v) && v.every((x) => isOfType(t.of, x));
    case 'tuple':
      return Array.isArray(v) && v.length === t.of.length && v.every((x, i) => isOfType(t.of[i], x));
    case 'union':
      return t.of.some((m) => isOfType(m, v));
    case 'record':
      return validate(t, [], v).length === 0;
  }
}

function scalarMatches(name: Scalar, v: Value): boolean {
  switch (name) {
    case 'Any':
      return true;
    case 'Null':
      return v === null;
    case 'Int':
      return typeof v === 'bigint' && v >= INT_MIN && v <= INT_MAX;
    case 'Long':
      return typeof v === 'bigint';
    case 'Double':
      return typeof v === 'number';
    case 'Number':
      return typeof v === 'bigint' || typeof v === 'number';
    case 'Boolean':
      return typeof v === 'boolean';
    case 'String':
      return typeof v === 'string';
    case 'Time':
      return v instanceof Time;
    case 'Date':
      return v instanceof DateV;
    case 'Bytes':
      return v instanceof Bytes;
    case 'Query':
      return v instanceof Lambda;
    case 'UUID':
    case 'ID':
      return false;
  }
}

/**
 * The failures of `v` against `t` at `path` (the core's SchemaType.validate): records report each
 * field, unions the best member's failures when the value is a record, else one type mismatch.
 */
export function validate(t: SchemaType, path: Path, v: Value): ConstraintFailure[] {
  if (t.t === 'record') return validateRecord(t, path, v);
  if (t.t === 'array' && Array.isArray(v)) return v.flatMap((x, i) => validate(t.of, [...path, i], x));
  if (t.t === 'tuple' && Array.isArray(v)) {
    if (v.length !== t.of.length) return [{ paths: [path], message: 'Invalid tuple arity' }];
    return v.flatMap((x, i) => validate(t.of[i], [...path, i], x));
  }
  if (t.t === 'union') {
    if (t.of.some((m) => isOfType(m, v))) return [];
    // A record against a union of records: the member whose fields fit best explains the failure.
    const records = t.of.filter((m) => m.t === 'record');
    if (v instanceof Map && records.length === 1) return validate(records[0], path, v);
    return [mismatch(t, path, v)];
  }
  if (t.t === 'doc' && v instanceof Ref && !isOfType(t, v))
    return [{ paths: [path], message: `Expected ${t.coll} document, provided document from another collection` }];
  if (t.t === 'literal' && !literalMatches(t.value, v) && sameBaseType(t.value, v))
    return [{ paths: [path], message: `Expected ${displayType(t)}, provided ${displayLiteral(v as string | bigint | number | boolean | null)}` }];
  return isOfType(t, v) ? [] : [mismatch(t, path, v)];
}

function sameBaseType(lit: string | bigint | number | boolean | null, v: Value): boolean {
  return lit === null ? v === null : typeof lit === typeof v;
}

function mismatch(t: SchemaType, path: Path, v: Value): ConstraintFailure {
  return { paths: [path], message: `Expected ${displayType(t)}, provided ${displayType(typeOfValue(v))}` };
}

function validateRecord(t: SchemaType & { t: 'record' }, path: Path, v: Value): ConstraintFailure[] {
  if (!(v instanceof Map)) return [mismatch(t, path, v)];
  const out: ConstraintFailure[] = [];
  for (const [k, x] of v) {
    const field = t.fields.get(k);
    if (field) out.push(...validateField(field, [...path, k], x));
    else if (t.wildcard) out.push(...validate(t.wildcard, [...path, k], x));
    else out.push({ paths: [[...path, k]], message: 'Unexpected field provided' });
  }
  for (const [k, field] of t.fields) if (!v.has(k)) out.push(...validateField(field, [...path, k], null));
  return out;
}

/** A field's value, or its absence (null): a required field reports what it misses. */
export function validateField(field: FieldSchema, path: Path, v: Value): ConstraintFailure[] {
  if (v === null && !isOfType(field.type, null))
    return field.optional ? [] : [{ paths: [path], message: `Missing required field of type ${displayType(field.type)}` }];
  return validate(field.type, path, v);
}

/** A failure's path as the core prints it in a message: `a.b[0].c`. */
export function displayPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}
