// The shape of a collection as migrations see it (the core's fql/migration/CollectionShape.scala):
// its defined fields, nested object fields included, each with where it came from while the
// validator rewinds the submitted schema's migrations, and its effective wildcard (an implicit
// `*: Any` when no field is defined). Types are the model's SchemaType, compared with `Any` as the
// top type (CollectionShape.isSchemaSubtype).

import type { Expr, TypeExpr } from '../ast';
import type { Span } from '../span';
import { NULL_SPAN } from '../span';
import { ANY, NULL, type SchemaType } from '../../model/schema10/schemaType';
import { parseSignature } from '../../model/schema10/signature';
import type { Collection, FieldPath, FslMigration, SchemaTypeExpr } from '../fsl/ast';
import { displayType } from '../fsl/display';

type Item<K extends FslMigration['kind']> = Extract<FslMigration, { kind: K }>;

export type FieldSource =
  | { readonly k: 'schema'; readonly default: Expr | null }
  | { readonly k: 'split'; readonly item: Item<'Split'> }
  | { readonly k: 'splitInto'; readonly item: Item<'Split'>; readonly target: FieldPath }
  | { readonly k: 'drop'; readonly item: Item<'Drop'> }
  | { readonly k: 'backfill'; readonly item: Item<'Backfill'> }
  | { readonly k: 'add'; readonly item: Item<'Add'> }
  | { readonly k: 'movedInto'; readonly item: Item<'Move'> };

export interface ShapeField {
  readonly name: string;
  readonly nameSpan: Span;
  /** A plain field's type (a nested object's is made of its present fields). */
  readonly ty: SchemaType;
  readonly tySpan: Span;
  /** A nested object's fields, and whether it declares a wildcard. */
  readonly record: { readonly fields: Map<string, ShapeField>; readonly wildcard: boolean } | null;
  readonly source: FieldSource;
}

export type WildcardSource = 'implicit' | 'schema' | 'moveWildcard' | { readonly addWildcard: Span };

export interface ShapeWildcard {
  readonly ty: SchemaType;
  readonly source: WildcardSource;
  readonly span: Span;
}

export interface Shape {
  readonly fields: Map<string, ShapeField>;
  wildcard: ShapeWildcard | null;
}

export const isPresent = (f: ShapeField): boolean => !['splitInto', 'add', 'movedInto'].includes(f.source.k);
export const wildcardPresent = (w: ShapeWildcard): boolean => typeof w.source === 'string';

/** A field's type: a nested object's is the record of its present fields. */
export function typeOf(f: ShapeField): SchemaType {
  if (f.record === null) return f.ty;
  const fields = new Map([...f.record.fields].filter(([, c]) => isPresent(c)).map(([k, c]) => [k, { type: typeOf(c), optional: false }]));
  return { t: 'record', fields };
}

/** A type expression as the model checks values against it (Any where it does not say). */
export function typeOfExpr(t: TypeExpr): SchemaType {
  try {
    return parseSignature(displayType(t));
  } catch {
    return ANY;
  }
}

export function shapeOf(c: Collection): Shape {
  const field = (name: { str: string; span: Span }, te: SchemaTypeExpr, dflt: Expr | null): ShapeField => {
    const source: FieldSource = { k: 'schema', default: dflt };
    if (te.kind === 'Object') {
      const fields = new Map(te.fields.map((f) => [f.name.str, field(f.name, f.ty, f.default)]));
      return { name: name.str, nameSpan: name.span, ty: ANY, tySpan: te.span, record: { fields, wildcard: te.wildcard !== null }, source };
    }
    return { name: name.str, nameSpan: name.span, ty: typeOfExpr(te.ty), tySpan: te.span, record: null, source };
  };
  const fields = new Map<string, ShapeField>();
  let wildcard: ShapeWildcard | null = null;
  for (const f of c.fields) {
    if (f.kind === 'defined') fields.set(f.name.str, field(f.name, f.ty, f.default));
    else if (f.kind === 'wildcard') wildcard = { ty: typeOfExpr(f.ty), source: 'schema', span: f.span };
  }
  if (wildcard === null && fields.size === 0) wildcard = { ty: ANY, source: 'implicit', span: NULL_SPAN };
  return { fields, wildcard };
}

export type Lookup = ShapeField | 'notFound' | 'wildcardNeighbor';

const names = (p: FieldPath): string[] => p.elems.map((e) => (e.kind === 'field' ? e.name : String(e.index)));

/** The field at `path` (CollectionShape.get): through nested objects the schema declares. */
export function lookup(shape: Shape, path: FieldPath): Lookup {
  let fields = shape.fields;
  const ns = names(path);
  for (const n of ns.slice(0, -1)) {
    const f = fields.get(n);
    if (f?.record == null || f.source.k !== 'schema') return 'notFound';
    if (f.record.wildcard) return 'wildcardNeighbor';
    fields = f.record.fields;
  }
  return fields.get(ns[ns.length - 1]) ?? 'notFound';
}

/** Sets the field at `path` (MCollectionShape.put); under a dropped (Any) parent there is nothing to set. */
export function put(shape: Shape, path: FieldPath, field: ShapeField): void {
  let fields = shape.fields;
  const ns = names(path);
  for (const n of ns.slice(0, -1)) {
    const f = fields.get(n);
    if (f?.record != null) fields = f.record.fields;
    else if (f !== undefined && f.record === null && f.ty === ANY) return;
    else throw new Error(`Expected a record as a parent of ${ns.join('.')}`);
  }
  fields.set(ns[ns.length - 1], field);
}

/** A deep copy whose maps the validator may change. */
export function copyShape(s: Shape): Shape {
  const copy = (f: ShapeField): ShapeField =>
    f.record === null ? f : { ...f, record: { wildcard: f.record.wildcard, fields: new Map([...f.record.fields].map(([k, c]) => [k, copy(c)])) } };
  return { fields: new Map([...s.fields].map(([k, f]) => [k, copy(f)])), wildcard: s.wildcard };
}

/** Whether every value of `a` is one of `b` (the typer's isSubtype; `Any` takes everything, null included). */
export function isSubtype(a: SchemaType, b: SchemaType): boolean {
  if (b.t === 'scalar' && b.name === 'Any') return true;
  if (a.t === 'union') return a.of.every((m) => isSubtype(m, b));
  if (b.t === 'union') return b.of.some((m) => isSubtype(a, m));
  if (JSON.stringify(a, replacer) === JSON.stringify(b, replacer)) return true;
  switch (a.t) {
    case 'scalar':
      if (b.t !== 'scalar') return false;
      if (a.name === 'Int') return b.name === 'Long' || b.name === 'Number';
      if (a.name === 'Long' || a.name === 'Double') return b.name === 'Number';
      return false;
    case 'literal': {
      if (b.t !== 'scalar') return false;
      const v = a.value;
      if (v === null) return b.name === 'Null';
      if (typeof v === 'string') return b.name === 'String';
      if (typeof v === 'boolean') return b.name === 'Boolean';
      if (typeof v === 'bigint') return ['Int', 'Long', 'Number'].includes(b.name);
      return b.name === 'Double' || b.name === 'Number';
    }
    case 'array':
      return b.t === 'array' && isSubtype(a.of, b.of);
    case 'tuple':
      return (b.t === 'tuple' && a.of.length === b.of.length && a.of.every((x, i) => isSubtype(x, b.of[i]))) || (b.t === 'array' && a.of.every((x) => isSubtype(x, b.of)));
    case 'record': {
      if (b.t !== 'record') return false;
      const fieldType = (f: { type: SchemaType; optional: boolean }) => (f.optional ? { t: 'union' as const, of: [f.type, NULL] } : f.type);
      for (const [k, bf] of b.fields) {
        const af = a.fields.get(k);
        if (!isSubtype(af ? fieldType(af) : a.wildcard ? { t: 'union', of: [a.wildcard, NULL] } : NULL, fieldType(bf))) return false;
      }
      for (const [k, af] of a.fields) if (!b.fields.has(k) && !(b.wildcard && isSubtype(fieldType(af), b.wildcard))) return false;
      return a.wildcard === undefined || (b.wildcard !== undefined && isSubtype(a.wildcard, b.wildcard));
    }
    case 'doc':
      return false;
  }
}

/** isSubtype with `Any` the top type only: nothing but `Any` is a supertype of it (isSchemaSubtype). */
export function isSchemaSubtype(a: SchemaType, b: SchemaType): boolean {
  if (b.t === 'scalar' && b.name === 'Any') return true;
  if (a.t === 'union') return a.of.every((m) => isSchemaSubtype(m, b));
  if (b.t === 'union') return b.of.some((m) => isSchemaSubtype(a, m));
  if (a.t === 'scalar' && a.name === 'Any') return false;
  return isSubtype(a, b);
}

function replacer(_k: string, v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Map) return [...v];
  return v;
}
