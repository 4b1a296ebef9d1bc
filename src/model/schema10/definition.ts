// The v10 fields of a collection document, validated as the core validates the Collection schema
// collection (NativeCollection.scala `Collection`, CollectionIndexSchemaTypes, IndexFieldValidator,
// CollectionValidators, CollectionSchemaHooks.validateCollection): `alias`, `computed_fields`,
// `fields`, `migrations`, `wildcard`, `document_ttls`, `indexes`, `constraints`. Pure: what needs
// the v10 parser (lambda bodies, default expressions) is asked of the SchemaLanguage.
//
// Failures carry the core's paths and messages; the caller wraps them in a ConstraintFailureError.

import type { Obj, Value } from '../../values/types';
import { isValidIdentifier } from './identifiers';
import type { SchemaLanguage } from './language';
import { signatureFailure } from './signature';
import { ANY, BOOLEAN, LONG, STRING, optional, record, validate, type ConstraintFailure, type Path, type SchemaType } from './schemaType';

/** The v10 fields a collection document may hold beyond v4's `name`, `history_days`, `ttl_days`, `data`. */
export const V10_FIELDS = ['alias', 'computed_fields', 'fields', 'migrations', 'wildcard', 'document_ttls', 'indexes', 'constraints'] as const;

/** Fields v4's Update and Replace keep from the stored version (the core's CollectionWriteConfig.fqlxFields). */
export const V4_RETAINED = ['computed_fields', 'fields', 'migrations', 'indexes', 'constraints', 'alias', 'backingIndexes'] as const;

/** Names a document's own members take (Tokens.SpecialFieldNames and the document methods). */
const RESERVED_IN_DOC = new Set(['id', 'coll', 'ts', 'data', 'ttl', 'delete', 'update', 'replace', 'updateData', 'replaceData', 'exists']);
/** Names a user collection's own methods take (UserCollectionCompanion's static resolvers). */
const RESERVED_IN_COLL = new Set(['all', 'byId', 'create', 'createData', 'createAll', 'definition', 'firstWhere', 'where', 'toString']);

const STR_ARRAY: SchemaType = { t: 'array', of: STRING };
const TERM = record({ field: STRING, mva: optional(BOOLEAN) });
const ORDER: SchemaType = { t: 'union', of: [{ t: 'literal', value: 'asc' }, { t: 'literal', value: 'desc' }] };
const VALUE = record({ field: STRING, order: optional(ORDER), mva: optional(BOOLEAN) });
const INDEX_STATUS: SchemaType = { t: 'union', of: ['building', 'complete', 'failed'].map((value) => ({ t: 'literal', value }) as SchemaType) };
const INDEX = record({
  terms: optional({ t: 'array', of: TERM }),
  values: optional({ t: 'array', of: VALUE }),
  status: optional(INDEX_STATUS),
  queryable: optional(BOOLEAN),
});
const COMPUTED = record({ body: STRING, signature: optional(STRING) });
const DEFINED = record({ signature: STRING, default: optional(STRING) });
const CHECK = record({ check: record({ name: STRING, body: STRING }) });
const UNIQUE_FIELDS: SchemaType = { t: 'union', of: [STR_ARRAY, { t: 'array', of: record({ field: STRING, mva: optional(BOOLEAN) }) }] };
const UNIQUE = record({ unique: UNIQUE_FIELDS, status: optional(STRING) });
const MIGRATION: SchemaType = {
  t: 'union',
  of: [
    record({ backfill: record({ field: STRING, value: STRING }) }),
    record({ drop: record({ field: STRING }) }),
    record({ split: record({ field: STRING, to: STR_ARRAY }) }),
    record({ move: record({ field: STRING, to: STRING }) }),
    record({ add: record({ field: STRING }) }),
    record({ move_conflicts: record({ into: STRING }) }),
    record({ move_wildcard: record({ into: STRING }) }),
    record({ add_wildcard: record({}) }),
  ],
};

const OPTIONAL_TYPES: Record<string, SchemaType> = {
  alias: STRING,
  wildcard: STRING,
  document_ttls: BOOLEAN,
  history_days: LONG,
  ttl_days: LONG,
  data: record({}, ANY),
  migrations: { t: 'array', of: MIGRATION },
};

const TERM_DISALLOWED: Record<string, string> = {
  id: '`id` is not supported as an index term, use the native byId method to look up a document by its id.',
  coll: '`coll` is not supported as an index term.',
  ts: '`ts` may only be used as an index value, not as an index term.',
};
const VALUE_DISALLOWED: Record<string, string> = { coll: '`coll` is not supported as a specified index value.' };
const UNIQUE_DISALLOWED: Record<string, string> = {
  id: '`id` is not supported as a unique constraint value.',
  coll: '`coll` is not supported as a unique constraint value.',
  ts: '`ts` is not supported as a unique constraint value.',
};

/**
 * Validates the v10 fields of a collection document as it will be stored (`params`: name
 * included). Without a v10 language (none loaded) lambda bodies and defaults are not parsed.
 */
export function validateDefinition(params: Obj, lang: SchemaLanguage | undefined): ConstraintFailure[] {
  const out: ConstraintFailure[] = [];
  const fail = (path: Path, message: string): void => void out.push({ paths: [path], message });
  for (const [k, type] of Object.entries(OPTIONAL_TYPES)) {
    const v = params.get(k);
    if (v !== undefined && v !== null) out.push(...validate(type, [k], v));
  }
  for (const k of ['history_days', 'ttl_days']) {
    const v = params.get(k);
    if (typeof v === 'bigint' && v < 0n) fail([k], 'Non-negative value required.');
  }
  const wildcard = params.get('wildcard');
  if (typeof wildcard === 'string') {
    const bad = signatureFailure(wildcard, 'wildcard');
    if (bad) fail(['wildcard'], bad);
  }
  members(params, 'computed_fields', COMPUTED, RESERVED_IN_DOC, out, (name, def) => {
    const body = def.get('body');
    if (typeof body === 'string') {
      const bad = lang?.lambdaFailure(body, 'body', 1);
      if (bad) fail(['computed_fields', name, 'body'], bad);
    }
    const sig = def.get('signature');
    if (typeof sig === 'string') {
      const bad = signatureFailure(sig, 'signature');
      if (bad) fail(['computed_fields', name, 'signature'], bad);
    }
  });
  members(params, 'fields', DEFINED, RESERVED_IN_DOC, out, (name, def) => {
    const sig = def.get('signature');
    if (typeof sig === 'string') {
      const bad = signatureFailure(sig, 'signature');
      if (bad) fail(['fields', name, 'signature'], bad);
    }
    const dflt = def.get('default');
    if (typeof dflt === 'string') {
      const bad = lang?.exprFailure(dflt, 'default');
      if (bad) fail(['fields', name, 'default'], bad);
    }
  });
  members(params, 'indexes', INDEX, RESERVED_IN_COLL, out, (name, def) => {
    const terms = def.get('terms');
    const values = def.get('values');
    if (terms === undefined && values === undefined) {
      fail(['indexes', name], 'Union requires fields [terms], [values], or [terms, values]');
      return;
    }
    (Array.isArray(terms) ? terms : []).forEach((t, i) => fieldPath(t, ['indexes', name, 'terms', i, 'field'], TERM_DISALLOWED, out));
    (Array.isArray(values) ? values : []).forEach((v, i) => fieldPath(v, ['indexes', name, 'values', i, 'field'], VALUE_DISALLOWED, out));
  });
  constraints(params.get('constraints'), lang, out);
  collisions(params, out);
  return out;
}

/** An object of named members (`indexes`, `fields`, `computed_fields`): names checked, each member typed. */
function members(params: Obj, key: string, type: SchemaType, reserved: Set<string>, out: ConstraintFailure[], each: (name: string, def: Obj) => void): void {
  const v = params.get(key);
  if (v === undefined || v === null) return;
  if (!(v instanceof Map)) {
    out.push(...validate(record({}, type), [key], v));
    return;
  }
  for (const [name, def] of v) {
    if (!isValidIdentifier(name)) out.push({ paths: [[key]], message: 'Invalid identifier.' });
    else if (reserved.has(name)) out.push({ paths: [[key]], message: `The name '${name}' is reserved.` });
    const bad = validate(type, [key, name], def);
    out.push(...bad);
    if (bad.length === 0) each(name, def as Obj);
  }
}

/** A term, value or unique field: a `.path` the core can parse, and not a field it refuses there. */
function fieldPath(spec: Value, path: Path, disallowed: Record<string, string>, out: ConstraintFailure[]): void {
  const field = spec instanceof Map ? spec.get('field') : spec;
  if (typeof field !== 'string') return;
  if (field === '') return void out.push({ paths: [path], message: 'Value cannot be empty.' });
  const parsed = parseFieldPath(field);
  if (parsed === undefined) return void out.push({ paths: [path], message: `Value \`${field}\` is not a valid FQL path expression.` });
  const first = parsed[0];
  if (typeof first === 'string' && first in disallowed) out.push({ paths: [path], message: disallowed[first] });
}

function constraints(v: Value | undefined, lang: SchemaLanguage | undefined, out: ConstraintFailure[]): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) return void out.push(...validate({ t: 'array', of: ANY }, ['constraints'], v));
  const checkNames = new Map<string, number>();
  const uniquePaths = new Map<string, number>();
  v.forEach((c, i) => {
    const at: Path = ['constraints', i];
    if (c instanceof Map && c.has('check')) {
      const bad = validate(CHECK, at, c);
      out.push(...bad);
      if (bad.length) return;
      const check = c.get('check') as Obj;
      const name = check.get('name') as string;
      if (!isValidIdentifier(name)) out.push({ paths: [[...at, 'check', 'name']], message: 'Invalid identifier.' });
      const body = lang?.lambdaFailure(check.get('body') as string, 'body', 1);
      if (body) out.push({ paths: [[...at, 'check', 'body']], message: body });
      checkNames.set(name, (checkNames.get(name) ?? 0) + 1);
    } else if (c instanceof Map && c.has('unique')) {
      const bad = validate(UNIQUE, at, c);
      out.push(...bad);
      if (bad.length) return;
      const fields = c.get('unique') as Value[];
      fields.forEach((f) => fieldPath(f, [...at, 'unique'], UNIQUE_DISALLOWED, out));
      const key = `[${fields.map((f) => (f instanceof Map ? f.get('field') : f)).join(', ')}]`;
      if (fields.length === 0) out.push({ paths: [['constraints']], message: 'Unique constraints must have at least one term' });
      else uniquePaths.set(key, (uniquePaths.get(key) ?? 0) + 1);
    } else out.push(...validate({ t: 'union', of: [CHECK, UNIQUE] }, at, c));
  });
  for (const [name, n] of [...checkNames].sort()) if (n > 1) out.push({ paths: [['constraints']], message: `Duplicate check constraint name '${name}'` });
  for (const [key, n] of uniquePaths) if (n > 1) out.push({ paths: [['constraints']], message: `Duplicate unique constraint on path ${key}` });
}

/** A computed field may not share a defined field's name. */
function collisions(params: Obj, out: ConstraintFailure[]): void {
  const fields = params.get('fields');
  const computed = params.get('computed_fields');
  if (!(fields instanceof Map) || !(computed instanceof Map)) return;
  for (const name of fields.keys())
    if (computed.has(name)) out.push({ paths: [['computed_fields']], message: `Computed field '${name}' collides with a defined field` });
}

/**
 * A field path as indexes and unique constraints write it: `.a.b`, `.a[0]`, `.["a b"]`, or `a.b`
 * (the leading dot may be left out). Undefined when it is not one.
 */
export function parseFieldPath(src: string): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let i = 0;
  const s = src.trim();
  if (s[0] !== '.' && s[0] !== '[') {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s);
    if (!m) return undefined;
    out.push(m[0]);
    i = m[0].length;
  }
  while (i < s.length) {
    if (s[i] === '.') {
      i++;
      if (s[i] === '[') continue;
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
      if (!m) return undefined;
      out.push(m[0]);
      i += m[0].length;
    } else if (s[i] === '[') {
      const m = /^\[\s*(?:(\d+)|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]/.exec(s.slice(i));
      if (!m) return undefined;
      out.push(m[1] !== undefined ? Number(m[1]) : (m[2] ?? m[3]).replace(/\\(.)/g, '$1'));
      i += m[0].length;
    } else return undefined;
  }
  return out.length ? out : undefined;
}
