// Wire JSON → FQL in the driver's JavaScript syntax, for display: a response value as fauna-shell
// 0.x printed it (util.inspect of the driver's values: `Ref(Collection("users"), "1")`,
// `Time("…")`, `{ data: { name: 'x' } }`), and an expression (a set, a lambda) as text that
// parses back, through parseFqlJs, to the same wire JSON.

import type { JsonObject, JsonValue } from '../wire/expr';
import { BUILDER_HEADS, matchForm } from '../wire/builders';
import { formatDouble } from '../wire/encode';
import { type Doc, type LayoutOptions, callDoc, layout, list, punct, seq, tok } from './layout';
import { exprKey, inspectKey, inspectString } from './quote';
import { SHAPES, type Shape } from './shapes';

export type { Colouriser, LayoutOptions, TokenKind } from './layout';

/** A response value (as Flora's parseJson reads it: integers bigint, doubles number) as FQL-JS text. */
export function renderValue(v: JsonValue, options?: LayoutOptions): string {
  return layout(valueDoc(v), options);
}

/** An expression's wire JSON as FQL-JS text in the driver's syntax. */
export function renderExpr(v: JsonValue, options?: LayoutOptions): string {
  return layout(exprDoc(v), options);
}

const str = (s: string): Doc => tok(JSON.stringify(s), 'string');

function scalarDoc(v: null | boolean | bigint | number): Doc {
  if (v === null || typeof v === 'boolean') return tok(String(v), 'keyword');
  return tok(typeof v === 'bigint' ? v.toString() : formatDouble(v), 'number');
}

function objectDoc(entries: Iterable<[string, JsonValue]>, key: (k: string) => string, value: (v: JsonValue) => Doc, pad: boolean): Doc {
  const items = [...entries].map(([k, v]) => seq(tok(key(k), k === key(k) ? undefined : 'string'), punct(': '), value(v)));
  return list(punct('{'), items, punct('}'), pad);
}

function valueDoc(v: JsonValue): Doc {
  if (typeof v === 'string') return tok(inspectString(v), 'string');
  if (v === null || typeof v !== 'object') return scalarDoc(v);
  if (Array.isArray(v)) return list(punct('['), v.map(valueDoc), punct(']'), true);
  return literalDoc(v, valueDoc) ?? objectDoc(v, inspectKey, valueDoc, true);
}

/**
 * The special forms values and expressions share: `@ref`, `@ts`, `@date`, `@bytes`, `@set`,
 * `@query`, and `@obj` (whose fields render with `field`).
 */
function literalDoc(m: JsonObject, field: (v: JsonValue) => Doc): Doc | undefined {
  if (m.size !== 1) return undefined;
  const [[key, inner]] = m;
  switch (key) {
    case '@ref':
      return refDoc(inner);
    case '@ts':
      return typeof inner === 'string' ? callDoc('Time', [str(inner)]) : undefined;
    case '@date':
      return typeof inner === 'string' ? callDoc('Date', [str(inner)]) : undefined;
    case '@bytes':
      return typeof inner === 'string' ? callDoc('Bytes', [str(inner)]) : undefined;
    case '@set':
      return exprDoc(inner);
    case '@query':
      return callDoc('Query', [exprDoc(queryLambda(inner))]);
    case '@obj':
      return inner instanceof Map ? objectDoc(inner, field === valueDoc ? inspectKey : exprKey, field, field === valueDoc) : undefined;
  }
  return undefined;
}

/** A `@query`'s lambda without its `api_version`, which the driver's `Query()` never writes. */
function queryLambda(inner: JsonValue): JsonValue {
  if (!(inner instanceof Map) || !inner.has('api_version')) return inner;
  const rest = new Map(inner);
  rest.delete('api_version');
  return rest;
}

// --- refs, as the driver's Ref.toString ------------------------------------------------------

/** Native collections with a constructor of their own: `Collection("users")`, `Index("x")`. */
const CONSTRUCTORS: Record<string, string> = {
  collections: 'Collection', classes: 'Class', databases: 'Database', indexes: 'Index', functions: 'Function',
  roles: 'Role', access_providers: 'AccessProvider',
};

function refDoc(inner: JsonValue): Doc | undefined {
  if (typeof inner === 'string') return callDoc('Ref', [str(inner)]); // an API 2.0 string ref
  if (!(inner instanceof Map)) return undefined;
  const id = inner.get('id');
  if (typeof id !== 'string') return undefined;
  const collection = refOf(inner.get('collection') ?? inner.get('class'));
  const database = refOf(inner.get('database'));
  if (collection === null || database === null) return undefined;
  const db = database ? [refDoc(database)!] : [];
  if (!collection) {
    // A native collection itself: `Collections()`, `Keys(Database("a"))`.
    const name = id === 'access_providers' ? 'AccessProviders' : id.charAt(0).toUpperCase() + id.slice(1);
    return callDoc(name, db);
  }
  const ctor = collection.has('collection') || collection.has('class') ? undefined : CONSTRUCTORS[collection.get('id') as string];
  if (ctor) return callDoc(ctor, [str(id), ...db]);
  return callDoc('Ref', [refDoc(collection)!, str(id)]);
}

/** The inner map of a nested `{"@ref": {…}}`; undefined when absent, null when malformed. */
function refOf(v: JsonValue | undefined): JsonObject | undefined | null {
  if (v === undefined) return undefined;
  if (!(v instanceof Map) || v.size !== 1) return null;
  const inner = v.get('@ref');
  return inner instanceof Map && typeof inner.get('id') === 'string' && refDoc(inner) ? inner : null;
}

// --- expressions, inverting the builders of shapes.ts ----------------------------------------

const SHAPE_BY_HEAD: ReadonlyMap<string, Shape> = new Map([...SHAPES.values()].map((s) => [s.head, s]));
const NAME_BY_HEAD: ReadonlyMap<string, string> = new Map([...BUILDER_HEADS].map(([name, head]) => [head, name]));

function exprDoc(v: JsonValue): Doc {
  if (typeof v === 'string') return str(v);
  // Beyond ±2^53 a plain literal would be a rounded JavaScript number: the driver's syntax is BigInt.
  if (typeof v === 'bigint' && !Number.isSafeInteger(Number(v))) return tok(`${v}n`, 'number');
  if (v === null || typeof v !== 'object') return scalarDoc(v);
  if (Array.isArray(v)) return list(punct('['), v.map(exprDoc), punct(']'), false);
  return literalDoc(v, exprDoc) ?? specialCallDoc(v) ?? shapedCallDoc(v) ?? genericCallDoc(v);
}

const isObject = (v: JsonValue | undefined): v is JsonObject => v instanceof Map;
const hasOnly = (m: JsonObject, ...keys: string[]): boolean => m.size === keys.length && keys.every((k) => m.has(k));

/** The builders that shapes.ts does not describe: Object, Var, Lambda, Let, Ref, Paginate. */
function specialCallDoc(m: JsonObject): Doc | undefined {
  if (hasOnly(m, 'object') && isObject(m.get('object'))) return objectDoc(m.get('object') as JsonObject, exprKey, exprDoc, false);
  if (hasOnly(m, 'lambda', 'expr')) return callDoc('Lambda', [exprDoc(m.get('lambda')!), exprDoc(m.get('expr')!)]);
  if (hasOnly(m, 'let', 'in')) return letDoc(m.get('let')!, m.get('in')!);
  if (hasOnly(m, 'ref', 'id')) return callDoc('Ref', [exprDoc(m.get('ref')!), exprDoc(m.get('id')!)]);
  if (m.has('paginate') && matchForm(m)?.head === 'paginate') {
    const opts = [...m].filter(([k]) => k !== 'paginate');
    const set = exprDoc(m.get('paginate')!);
    return callDoc('Paginate', opts.length ? [set, objectDoc(opts, exprKey, exprDoc, false)] : [set]);
  }
  return undefined;
}

/** `Let({a: 1}, …)` when the names read back in the same order, else the array form. */
function letDoc(bindings: JsonValue, body: JsonValue): Doc | undefined {
  let pairs: [string, JsonValue][];
  if (isObject(bindings)) pairs = [...bindings]; // a server's rendering: one object
  else if (Array.isArray(bindings) && bindings.every((b) => isObject(b) && b.size === 1)) pairs = bindings.map((b) => [...(b as JsonObject)][0]);
  else return undefined;
  const names = pairs.map(([k]) => k);
  const plain = new Set(names).size === names.length && names.every((k) => !/^\d+$/.test(k) && k !== '__proto__');
  const binds = plain
    ? objectDoc(pairs, exprKey, exprDoc, false)
    : list(punct('['), pairs.map((p) => objectDoc([p], exprKey, exprDoc, false)), punct(']'), false);
  return callDoc('Let', [binds, exprDoc(body)]);
}

/** A call whose keys fit its builder's shape, with the arguments back in their places. */
function shapedCallDoc(m: JsonObject): Doc | undefined {
  const form = matchForm(m);
  const shape = form && SHAPE_BY_HEAD.get(form.head);
  if (!shape) return undefined;
  if (shape.params.length === 0) return m.size === 1 && m.get(shape.head) === null ? callDoc(shape.name, []) : undefined;
  if ([...m.keys()].some((k) => !shape.params.some((p) => p.key === k))) return undefined;
  const args: (Doc | undefined)[] = [];
  for (const { key, arg, mode } of shape.params) {
    const v = m.get(key);
    if (v === undefined) {
      if (mode === 'req') return undefined;
      continue;
    }
    if (mode === 'rest' || mode === 'restArray') {
      // One value stands for itself, so a one-item array must stay an array (and an empty one
      // must too where the arguments would otherwise be missing).
      const spread = Array.isArray(v) && (mode === 'restArray' || v.length > 1 || (v.length === 0 && arg > 0));
      if (mode === 'restArray' && !Array.isArray(v)) return undefined;
      if (spread) (v as JsonValue[]).forEach((x, i) => (args[arg + i] = exprDoc(x)));
      else args[arg] = exprDoc(v);
    } else if (!(mode === 'nullable' && v === null)) {
      args[arg] = exprDoc(v);
    }
  }
  // A hole before a later argument is an optional one left out: null leaves it out again.
  return callDoc(shape.name, Array.from(args, (a) => a ?? tok('null', 'keyword')));
}

/** Anything else as the driver's Expr.toString does: the head's name and every value in order. */
function genericCallDoc(m: JsonObject): Doc {
  const [head] = m.keys();
  const name = NAME_BY_HEAD.get(head) ?? head;
  return callDoc(name, [...m.values()].map(exprDoc));
}
