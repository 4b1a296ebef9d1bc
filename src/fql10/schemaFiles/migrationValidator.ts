// A collection's `migrations` block checked against its live schema (the core's
// fql/migration/MigrationValidator.scala): the submitted schema is rewound through the migrations
// not applied yet (those after the longest prefix of the submitted block that ends the live one),
// which yields the steps to run in order, and the rewound shape must then be compatible with the
// live one; when it is not, IncompatibilityExplainer says why. Errors and hints are the core's.

import { error, type Diagnostic, type Hint } from '../diagnostic';
import type { Expr } from '../ast';
import type { Span } from '../span';
import { NULL_SPAN } from '../span';
import { ANY, NULL, displayType as displaySchemaType, type SchemaType } from '../../model/schema10/schemaType';
import type { Collection, FieldPath, FslMigration } from '../fsl/ast';
import { displayExpr, displayPath } from '../fsl/display';
import {
  copyShape, isPresent, isSchemaSubtype, isSubtype, lookup, put, shapeOf, typeOf, wildcardPresent,
  type ShapeField, type Shape,
} from './migrationShape';

type Item<K extends FslMigration['kind']> = Extract<FslMigration, { kind: K }>;

/** A step of the derived migration (SchemaMigration). */
export type SchemaMigration =
  | { readonly kind: 'add'; readonly field: FieldPath; readonly ty: SchemaType; readonly backfill: Expr | null }
  | { readonly kind: 'drop'; readonly field: FieldPath }
  | { readonly kind: 'move'; readonly field: FieldPath; readonly to: FieldPath }
  | { readonly kind: 'split'; readonly source: FieldPath; readonly targets: ReadonlyArray<{ path: FieldPath; ty: SchemaType; backfill: Expr | null }> }
  | { readonly kind: 'move_conflicts'; readonly into: FieldPath }
  | { readonly kind: 'move_wildcard'; readonly into: FieldPath; readonly keep: ReadonlyArray<string> }
  | { readonly kind: 'add_wildcard' };

export type MigrationResult = { readonly ok: true; readonly value: SchemaMigration[] } | { readonly ok: false; readonly errors: Diagnostic[] };

const at = (s: Span, pos: number): Span => ({ start: pos, end: pos, src: s.src });
const show = (p: FieldPath) => displayPath(p);
const samePath = (a: FieldPath, b: FieldPath) => show(a) === show(b);
const lastName = (p: FieldPath): { str: string; span: Span } => {
  const e = p.elems[p.elems.length - 1];
  return { str: e.kind === 'field' ? e.name : String(e.index), span: e.span };
};
const parentOf = (p: FieldPath): FieldPath | null => (p.elems.length > 1 ? { elems: p.elems.slice(0, -1), span: p.span } : null);
const isNullable = (t: SchemaType) => isSubtype(NULL, t);
const optionalField = (f: ShapeField) => f.source.k !== 'drop' && (!isPresent(f) || (f.source.k === 'schema' && f.source.default !== null) || isNullable(typeOf(f)));

/** A migration's text without positions: what tells applied migrations apart. */
function migrationKey(m: FslMigration): string {
  switch (m.kind) {
    case 'Backfill': return `backfill ${show(m.path)} = ${displayExpr(m.value.expr)}`;
    case 'Drop': return `drop ${show(m.path)}`;
    case 'Add': return `add ${show(m.path)}`;
    case 'Split': return `split ${show(m.from)} -> ${m.to.map(show).join(', ')}`;
    case 'Move': return `move ${show(m.from)} -> ${show(m.to)}`;
    case 'MoveConflicts': return `move_conflicts ${show(m.into)}`;
    case 'MoveWildcard': return `move_wildcard ${show(m.into)}`;
    case 'AddWildcard': return 'add_wildcard';
  }
}

/** The hint suggesting migrations, in the block there is or in a new one (suggestMigration). */
function suggestMigration(c: Collection, noBlockSpan: Span, message: string, ms: string[]): Hint {
  if (c.migrations !== null) {
    const end = c.migrations.span.end - 1;
    return ms.length ? { message, span: at(c.migrations.span, end), suggestion: `  ${ms.join('\n    ')}\n` } : { message, span: at(c.migrations.span, end) };
  }
  return ms.length ? { message, span: noBlockSpan, suggestion: `migrations {\n    ${ms.join('\n    ')}\n  }\n` } : { message, span: noBlockSpan };
}

const collectionEnd = (c: Collection) => at(c.span, c.span.end - 1);

/**
 * The steps taking `live`'s documents to `submitted` (MigrationValidator.validate); `live` null:
 * the collection is new or empty, and the block need only make sense on its own.
 */
export function deriveMigrations(live: Collection | null, submitted: Collection): MigrationResult {
  const v = new Rewinder(submitted);
  const all = submitted.migrations?.items ?? [];
  if (live === null) return v.rewind(all).result;
  const { result, shape } = v.rewind(migrationsToApply(live, all));
  if (!result.ok) return result;
  const liveShape = shapeOf(live);
  if (compatible(shape, liveShape)) return result;
  // Rewinding left what explains the incompatibility in the rewound fields.
  const explained = shapeOf(submitted);
  for (const [k, f] of shape.fields) explained.fields.set(k, f);
  explained.wildcard = shape.wildcard;
  return { ok: false, errors: explain(explained, liveShape, submitted) };
}

/** The submitted migrations after the longest prefix of them that the live ones end with. */
function migrationsToApply(live: Collection, submitted: ReadonlyArray<FslMigration>): ReadonlyArray<FslMigration> {
  const lms = (live.migrations?.items ?? []).map(migrationKey);
  const tms = submitted.map(migrationKey);
  for (let i = 0; i <= tms.length; i++) {
    const prefix = tms.slice(0, tms.length - i);
    if (prefix.length <= lms.length && prefix.every((k, j) => lms[lms.length - prefix.length + j] === k)) return submitted.slice(submitted.length - i);
  }
  return submitted;
}

/** CollectionShape.compatibleWith: every field of `shape` takes the values of the live one's. */
function compatible(shape: Shape, live: Shape): boolean {
  for (const name of new Set([...shape.fields.keys(), ...live.fields.keys()])) {
    const f = shape.fields.get(name);
    const p = live.fields.get(name);
    if (f && p) {
      if (f.source.k === 'backfill' || !isPresent(f) || !isPresent(p) || !isSchemaSubtype(typeOf(p), typeOf(f))) return false;
    } else if (f) {
      const introduced = (g: ShapeField): boolean =>
        g.source.k === 'add' || (g.source.k === 'schema' && g.record !== null && !g.record.wildcard && [...g.record.fields.values()].every(introduced));
      if (f.source.k === 'schema' ? !(shape.wildcard === null && introduced(f)) : !['add', 'splitInto', 'movedInto'].includes(f.source.k)) return false;
    } else if (p && isPresent(p)) return false;
  }
  const w = shape.wildcard;
  const p = live.wildcard;
  if (w && p) return isSchemaSubtype(p.ty, w.ty);
  if (w) return !wildcardPresent(w);
  if (p) return !wildcardPresent(p);
  return true;
}

/** One pass rewinding the submitted schema through migrations, last first. */
class Rewinder {
  private readonly errs: Diagnostic[] = [];
  private readonly steps: SchemaMigration[] = [];
  private readonly shape: Shape;
  private moveConflicts: FieldPath | null = null;

  constructor(private readonly target: Collection) {
    this.shape = copyShape(shapeOf(target));
  }

  rewind(ms: ReadonlyArray<FslMigration>): { result: MigrationResult; shape: Shape } {
    for (const m of [...ms].reverse()) this.one(m);
    // A backfill that no add or split consumed.
    for (const m of ms) {
      if (m.kind !== 'Backfill') continue;
      const f = lookup(this.shape, m.path);
      if (typeof f !== 'string' && f.source.k === 'backfill')
        this.err(`Field \`${show(m.path)}\` is backfilled without being declared by an \`add\` or \`split\` migration`, m.span);
    }
    const result: MigrationResult = this.errs.length ? { ok: false, errors: this.errs } : { ok: true, value: this.steps };
    return { result, shape: this.shape };
  }

  private err(message: string, span: Span, hints: Hint[] = []): void {
    this.errs.push(error(message, span, undefined, hints));
  }

  private one(m: FslMigration): void {
    switch (m.kind) {
      case 'Backfill': return this.backfill(m);
      case 'Drop': return this.drop(m);
      case 'Move': return this.move(m);
      case 'Split': return this.split(m);
      case 'Add': return this.add(m);
      case 'MoveConflicts': return this.moveWildcardConflicts(m);
      case 'MoveWildcard': return this.moveWildcard(m);
      case 'AddWildcard': return this.addWildcard(m);
    }
  }

  private backfill(bf: Item<'Backfill'>): void {
    const field = bf.path;
    const f = lookup(this.shape, field);
    if (f === 'notFound') return this.err(`Cannot backfill field \`${show(field)}\`, as it is not in the submitted schema`, field.span);
    if (f === 'wildcardNeighbor') return this.err(`Cannot backfill field, as there is a wildcard in the same struct as \`${show(field)}\``, field.span);
    const src = f.source;
    if (src.k === 'backfill')
      this.err(`Cannot backfill field \`${show(field)}\` multiple times`, src.item.path.span, [
        { message: 'Earlier backfill defined here', span: field.span },
        { message: 'Delete the later backfill', span: src.item.span, suggestion: '' },
      ]);
    else if (src.k === 'splitInto')
      this.err(`Cannot split field \`${show(field)}\`: cannot split into a field after it's backfilled`, field.span, [
        { message: 'Field is an output of a split', span: src.target.span },
        { message: 'Move the backfill after the split', span: src.item.span, suggestion: `backfill ${show(field)} = ${displayExpr(bf.value.expr)}` },
        { message: 'Remove the backfill', span: bf.span, suggestion: '' },
        { message: 'Remove the split', span: src.item.span, suggestion: '' },
      ]);
    else if (src.k === 'add') this.err(`Cannot add field \`${show(field)}\` after it's backfilled`, src.item.span, [{ message: 'Field backfilled here', span: bf.span }]);
    else if (!isPresent(f)) this.err(`Cannot backfill field \`${show(field)}, as it is not in the submitted schema`, field.span);
    else put(this.shape, field, { ...f, source: { k: 'backfill', item: bf } });
  }

  private drop(d: Item<'Drop'>): void {
    const field = d.path;
    this.steps.unshift({ kind: 'drop', field });
    const f = lookup(this.shape, field);
    if (typeof f !== 'string' && isPresent(f))
      return this.err(`Cannot drop field \`${show(field)}\`. Dropped fields must be removed from schema`, field.span, [{ message: 'Field defined here', span: f.nameSpan }]);
    const name = lastName(field);
    const dropped: ShapeField = { name: name.str, nameSpan: name.span, ty: ANY, tySpan: NULL_SPAN, record: null, source: { k: 'drop', item: d } };
    const parent = parentOf(field);
    if (parent === null) return put(this.shape, field, dropped);
    const p = lookup(this.shape, parent);
    if (typeof p === 'string') this.err(`Cannot drop field \`${show(field)}\`, as the parent object was removed`, field.span);
    else if (p.record === null) this.err(`Cannot drop field \`${show(field)}\`, as the parent is not an object`, field.span);
    else put(this.shape, field, dropped);
  }

  private move(r: Item<'Move'>): void {
    const { from: field, to } = r;
    const t = lookup(this.shape, to);
    if (t === 'notFound') return this.err(`Cannot move field \`${show(field)}\`, as it is not in the live schema`, field.span);
    if (t === 'wildcardNeighbor') return this.err(`Cannot move field \`${show(to)}\` into a struct with a wildcard definition`, to.span);
    if (samePath(field, to)) return this.err('Cannot move a field to itself', field.span, [{ message: 'Remove the futile `move`', span: r.span, suggestion: '' }]);
    const f = lookup(this.shape, field);
    if (f === 'wildcardNeighbor') this.err(`Cannot move field \`${show(field)}\` out of a struct with a wildcard definition`, field.span);
    else if (f !== 'notFound' && isPresent(f) && !optionalField(f))
      this.err(`Cannot move field \`${show(field)}\`, as it is in the submitted schema`, field.span, [
        { message: 'Field defined here', span: f.nameSpan },
        {
          message: `To move \`${show(field)}\` to \`${show(to)}\` and add a new field named \`${f.name}\`, add an \`add\` migration`,
          span: at(to.span, to.span.end),
          suggestion: `\n    add ${show(field)}`,
        },
      ]);
    else if (f !== 'notFound' && isPresent(f) && f.source.k === 'schema' && f.source.default !== null)
      this.steps.unshift({ kind: 'add', field, ty: typeOf(f), backfill: f.source.default });
    const parent = parentOf(field);
    const p = parent === null ? null : lookup(this.shape, parent);
    const movedInto: ShapeField = { ...t, source: { k: 'movedInto', item: r } };
    if (typeof p === 'string') {
      this.err(`Cannot move field \`${show(field)}\`, as the parent object was removed.`, field.span);
      put(this.shape, to, movedInto);
    } else if (p !== null && p.record === null && p.source.k !== 'drop') {
      this.err(`Cannot move field \`${show(field)}\`, as the parent value is not an object.`, field.span);
      put(this.shape, to, movedInto);
    } else {
      this.steps.unshift({ kind: 'move', field, to });
      put(this.shape, field, { ...t, name: lastName(field).str, nameSpan: lastName(field).span });
      put(this.shape, to, movedInto);
    }
  }

  private split(spl: Item<'Split'>): void {
    const { from: source, to: targets } = spl;
    if (targets.length < 2) return this.err('Cannot split field: expected at least two fields to split into', spl.span);
    const s = lookup(this.shape, source);
    if (s === 'wildcardNeighbor') this.err(`Cannot split field \`${show(source)}\`, which is in a struct with a wildcard definition`, source.span);
    else if (s !== 'notFound' && isPresent(s) && !targets.some((t) => samePath(t, source))) {
      const src = s.source;
      if (src.k === 'schema' || src.k === 'backfill') this.err('Cannot split field: field is still present in submitted schema', source.span, [{ message: 'Field defined here', span: s.nameSpan }]);
      else if (src.k === 'split')
        this.err('Cannot split field twice', src.item.from.span, [
          { message: 'Field is also split here', span: spl.from.span },
          { message: 'Remove this split', span: spl.span, suggestion: '' },
          { message: 'Remove the later split', span: src.item.span, suggestion: '' },
        ]);
      else if (src.k === 'drop') this.err('Cannot drop field that was split', source.span, [{ message: 'Remove the `drop`', span: src.item.span, suggestion: '' }]);
    }
    const out: { path: FieldPath; ty: SchemaType; backfill: Expr | null }[] = [];
    const union: SchemaType[] = [];
    for (const target of targets) {
      const t = lookup(this.shape, target);
      if (t === 'notFound') {
        this.err(`Cannot split field, as \`${show(target)}\` is not in the submitted schema`, target.span);
        union.push(ANY);
        continue;
      }
      if (t === 'wildcardNeighbor') {
        this.err(`Cannot split into field \`${show(target)}\`, which is in a struct with a wildcard definition`, target.span);
        continue;
      }
      const src = t.source;
      if (src.k === 'add')
        this.err('Cannot add a field that is also created by a split', target.span, [
          { message: 'Field is added here', span: src.item.path.span },
          { message: 'Remove the add', span: src.item.span, suggestion: '' },
        ]);
      else if (src.k === 'splitInto')
        this.err('Cannot split into a field that is already split into', src.target.span, [
          { message: 'Field is also split into here', span: target.span },
          { message: 'Remove the later split', span: src.item.span, suggestion: '' },
        ]);
      else if (src.k === 'movedInto') this.err('Cannot move into a field that is also a split target', src.item.span);
      const backfill = this.takeBackfill(t, target);
      union.push(typeOf(t));
      put(this.shape, target, { ...t, source: { k: 'splitInto', item: spl, target } });
      out.push({ path: target, ty: typeOf(t), backfill });
    }
    this.steps.unshift({ kind: 'split', source, targets: out });
    // The source before the split holds what every target takes, or nothing.
    let valid = true;
    for (let i = 1; i < source.elems.length; i++) {
      const p = lookup(this.shape, { elems: source.elems.slice(0, i), span: source.span });
      if (typeof p === 'string' || p.record === null) valid = false;
    }
    if (valid) {
      const name = lastName(source);
      put(this.shape, source, { name: name.str, nameSpan: name.span, ty: { t: 'union', of: [...union, NULL] }, tySpan: NULL_SPAN, record: null, source: { k: 'split', item: spl } });
    }
  }

  private add(a: Item<'Add'>): void {
    const field = a.path;
    const f = lookup(this.shape, field);
    if (f === 'notFound') return this.err(`Cannot add field, as \`${show(field)}\` is not in the submitted schema`, field.span);
    if (f === 'wildcardNeighbor') return this.err(`Cannot add field, as there is a wildcard in the same struct as \`${show(field)}\``, field.span);
    const src = f.source;
    if (src.k === 'splitInto')
      return this.err(`Cannot split field: field \`${show(field)}\` cannot both be added and be a split output`, field.span, [
        { message: 'Field is an output of a split', span: src.target.span },
        { message: 'Remove the add', span: a.span, suggestion: '' },
        { message: 'Remove the split', span: src.item.span, suggestion: '' },
      ]);
    if (src.k === 'add')
      return this.err(`Cannot add field \`${show(field)}\` twice`, src.item.path.span, [
        { message: 'Field added here', span: field.span },
        { message: 'Remove the extra add', span: src.item.span, suggestion: '' },
      ]);
    if (src.k === 'movedInto')
      return this.err(`Cannot move into field \`${show(field)}\` as it was also added`, src.item.span, [
        { message: 'Field moved into here', span: src.item.to.span },
        { message: 'Remove the add', span: a.span, suggestion: '' },
        { message: 'Remove the move', span: src.item.span, suggestion: '' },
      ]);
    const wildcard = this.shape.wildcard;
    const backfill = this.takeBackfill(f, field);
    if (wildcard !== null && field.elems.length === 1 && this.moveConflicts === null) {
      if (!isSchemaSubtype({ t: 'union', of: [wildcard.ty, NULL] }, typeOf(f)))
        this.err(`Cannot add field, as \`${show(field)}\` conflicts with the wildcard`, field.span, [
          { message: 'Add a `move_conflicts` migration', span: at(a.span, a.span.end), suggestion: '\n    move_conflicts .conflicts' },
        ]);
    } else this.steps.unshift({ kind: 'add', field, ty: typeOf(f), backfill });
    put(this.shape, field, { ...f, source: { k: 'add', item: a } });
  }

  private moveWildcardConflicts(m: Item<'MoveConflicts'>): void {
    const wildcard = this.shape.wildcard;
    if (wildcard === null || !wildcardPresent(wildcard)) {
      const lastField = this.target.fields[this.target.fields.length - 1];
      const end = lastField?.span.end ?? this.target.span.end - 1;
      return this.err('Cannot move wildcard conflicts, as there is no wildcard in the submitted schema', m.into.span, [
        { message: 'Add a wildcard constraint', span: at(this.target.span, end), suggestion: '\n  *: Any' },
        suggestMigration(this.target, collectionEnd(this.target), 'Move the extra fields into a conflicts field with `move_wildcard`', [`move_wildcard ${show(m.into)}`]),
      ]);
    }
    const f = lookup(this.shape, m.into);
    if (f === 'wildcardNeighbor')
      this.err(`Cannot move wildcard conflicts to field, as there is a wildcard in the same struct as \`${show(m.into)}\``, m.into.span);
    else if (f === 'notFound' || !isPresent(f))
      this.err(`Cannot move wildcard conflicts to field \`${show(m.into)}\`, as it is not in the submitted schema`, m.into.span);
    else {
      const expected: SchemaType = { t: 'union', of: [{ t: 'record', fields: new Map(), wildcard: wildcard.ty }, NULL] };
      if (f.source.k !== 'drop' && !sameType(typeOf(f), expected))
        this.err(`Wildcard conflicts field must have the type \`${displaySchemaType(expected)}\``, m.into.span);
    }
    this.moveConflicts = m.into;
    this.steps.unshift({ kind: 'move_conflicts', into: m.into });
  }

  private moveWildcard(m: Item<'MoveWildcard'>): void {
    const current = this.shape.wildcard;
    if (current !== null && wildcardPresent(current)) return this.err('Cannot move wildcard, as there is still a wildcard in the submitted schema', m.into.span);
    const expected: SchemaType = { t: 'union', of: [{ t: 'record', fields: new Map(), wildcard: ANY }, NULL] };
    let wildTy: SchemaType = ANY;
    const f = lookup(this.shape, m.into);
    if (f === 'wildcardNeighbor')
      this.err(`Cannot move wildcard conflicts to field, as there is a wildcard in the same struct as \`${show(m.into)}\``, m.into.span);
    else if (f === 'notFound' || !isPresent(f))
      this.err(`Cannot move wildcard conflicts to field \`${show(m.into)}\`, as it is not in the submitted schema`, m.into.span);
    else if (f.source.k !== 'drop') {
      const ty = typeOf(f);
      const rec = ty.t === 'union' && ty.of.length === 2 ? ty.of.find((x) => x.t === 'record') : undefined;
      const other = ty.t === 'union' && ty.of.length === 2 ? ty.of.find((x) => x !== rec) : undefined;
      if (rec?.t === 'record' && rec.wildcard !== undefined && other !== undefined && sameType(other, NULL)) {
        if (rec.fields.size > 0) this.err(`Wildcard conflicts field must have the type \`${displaySchemaType(expected)}\``, m.into.span);
        wildTy = rec.wildcard;
      } else this.err(`Wildcard conflicts field must have the type \`${displaySchemaType(expected)}\``, m.into.span);
    }
    const keep = [...this.shape.fields.values()].filter(isPresent).map((x) => x.name);
    this.steps.unshift({ kind: 'move_wildcard', into: m.into, keep });
    this.shape.wildcard = { ty: wildTy, source: 'moveWildcard', span: NULL_SPAN };
  }

  private addWildcard(m: Item<'AddWildcard'>): void {
    const w = this.shape.wildcard;
    if (w === null) return this.err('Cannot add wildcard, as the submitted schema lacks a wildcard', m.span);
    if (typeof w.source !== 'string')
      return this.err('Cannot add a wildcard twice', w.source.addWildcard, [{ message: 'Remove the duplicate `add_wildcard` migration', span: w.source.addWildcard, suggestion: '' }]);
    this.shape.wildcard = { ...w, source: { addWildcard: m.span } };
    this.steps.unshift({ kind: 'add_wildcard' });
  }

  /** The value an add or split fills a field with: its backfill, or its default (takeBackfill). */
  private takeBackfill(f: ShapeField, path: FieldPath): Expr | null {
    const src = f.source;
    if (src.k === 'backfill') return src.item.value.expr;
    if (src.k !== 'schema') return null;
    if (src.default === null && !isNullable(typeOf(f)))
      this.err(`Cannot declare non-nullable field \`${show(path)}\`: it has no default and no backfill value`, path.span, [
        { message: 'Make the field nullable', span: at(f.tySpan, f.tySpan.end), suggestion: '?' },
        { message: 'Add a default value to this field', span: at(f.tySpan, f.tySpan.end), suggestion: ' = <expr>' },
        suggestMigration(this.target, collectionEnd(this.target), 'Add a `backfill` migration', [`backfill ${show(path)} = <expr>`]),
      ]);
    return src.default;
  }
}

function sameType(a: SchemaType, b: SchemaType): boolean {
  return isSubtype(a, b) && isSubtype(b, a);
}

/** Why the rewound submitted shape does not fit the live one (IncompatibilityExplainer). */
function explain(target: Shape, live: Shape, coll: Collection): Diagnostic[] {
  const errs: Diagnostic[] = [];
  const end = collectionEnd(coll);
  for (const lf of live.fields.values()) {
    const srcType = typeOf(lf);
    const tf = target.fields.get(lf.name);
    if (tf === undefined) {
      errs.push(error(`Field \`.${lf.name}\` is missing from the submitted schema`, coll.span, undefined, [
        suggestMigration(coll, end, 'Drop the field and its data with a `drop` migration', [`drop .${lf.name}`]),
      ]));
    } else if (!isPresent(tf)) {
      errs.push(error(`Field \`.${lf.name}\` is in the live schema, so it cannot be added or backfilled`, tf.nameSpan));
    } else if (tf.source.k === 'backfill') {
      errs.push(error(`Field \`.${lf.name}\` is in the live schema, so it cannot be added or backfilled`, tf.source.item.span));
    } else if (!isSubtype(srcType, typeOf(tf))) {
      const diff = srcType.t === 'union' ? srcType.of.filter((m) => !isSubtype(m, typeOf(tf))) : [srcType];
      const tmp = displaySchemaType(diff.length === 1 ? diff[0] : { t: 'union', of: diff });
      errs.push(error(`Field \`.${lf.name}\` of type \`${displaySchemaType(typeOf(tf))}\` does not match the live type \`${displaySchemaType(srcType)}\``, tf.tySpan, undefined, [
        {
          message: 'Add a migration to split the invalid types into another field',
          span: at(lf.nameSpan, lf.nameSpan.start),
          suggestion: `tmp: ${tmp}\n  migrations {\n    split .${lf.name} -> .${lf.name}, .tmp\n  }\n`,
        },
      ]));
    }
  }
  for (const tf of target.fields.values()) {
    if (live.fields.has(tf.name)) continue;
    if (tf.source.k === 'drop') {
      errs.push(error(`Field \`.${tf.name}\` was dropped but it doesn't exist in the live schema`, tf.nameSpan));
    } else if (tf.source.k === 'schema') {
      if (isNullable(typeOf(tf)) || tf.source.default !== null) {
        errs.push(error(`Field \`.${tf.name}\` is not present in the live schema`, tf.nameSpan, undefined, [
          suggestMigration(coll, end, 'Provide an `add` migration for this field', [`add .${tf.name}`]),
        ]));
      } else {
        // The one nested field not added, if there is just one; else the field itself.
        const missing: { path: string; f: ShapeField }[] = [];
        const go = (prefix: string, f: ShapeField): void => {
          const path = `${prefix}.${f.name}`;
          if (f.source.k === 'add') return;
          if (f.source.k === 'schema' && f.record !== null) {
            if (!f.record.wildcard) for (const c of f.record.fields.values()) go(path, c);
          } else missing.push({ path, f });
        };
        go('', tf);
        const { path, f } = missing.length === 1 ? missing[0] : { path: `.${tf.name}`, f: tf };
        errs.push(error(`Field \`${path}\` is not present in the live schema`, f.nameSpan, undefined, [
          { message: 'Provide an `add` migration for this field', span: at(f.nameSpan, f.nameSpan.start), suggestion: `migrations {\n    add .${f.name}\n    backfill .${f.name} = <expr>\n  }\n` },
          { message: 'Add a default value to this field', span: at(f.tySpan, f.tySpan.end), suggestion: ' = <expr>' },
          { message: 'Make the field nullable', span: at(f.tySpan, f.tySpan.end), suggestion: '?' },
        ]));
      }
    }
  }
  if (target.wildcard === null && live.wildcard !== null) {
    const first = [...target.fields.values()][0];
    const before = at(first.nameSpan, first.nameSpan.start);
    const hints: Hint[] =
      live.wildcard.source === 'implicit'
        ? [{ message: 'Collections with no fields defined allow arbitrary fields by default. To keep this behavior, add a wildcard declaration to the schema definition', span: before, suggestion: '*: Any\n' }]
        : [
          { message: 'Add the wildcard back', span: before, suggestion: '*: Any\n' },
          suggestMigration(coll, before, 'Move the extra fields with a `move_wildcard` migration', ['move_wildcard .conflicts']),
          suggestMigration(coll, before, 'Drop the extra fields with a `move_wildcard` and `drop` migration', ['move_wildcard .conflicts', 'drop .conflicts']),
        ];
    errs.push(error('Missing wildcard definition', coll.span, undefined, hints));
  }
  if (target.wildcard !== null && live.wildcard === null) {
    const wc = target.wildcard;
    if (wc.source === 'moveWildcard' || wc.source === 'schema')
      errs.push(error('Wildcard was not present in the live schema', wc.span, undefined, [suggestMigration(coll, end, 'Add the wildcard with an `add_wildcard` migration', ['add_wildcard'])]));
    else if (wc.source === 'implicit')
      errs.push(error('All fields from the live schema are dropped, reintroducing the implicit wildcard that requires an `add_wildcard` migration. Are you sure you meant to do this?', coll.span));
  }
  return errs.length ? errs : [error('Submitted schema is not compatible with the live schema', coll.span)];
}
