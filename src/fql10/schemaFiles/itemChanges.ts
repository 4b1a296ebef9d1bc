// What changed between two versions of the schema items, item by item and member by member (the
// core's fql/schema/SchemaDiff.scala), for the semantic diff. The core diffs its generic item form
// (annotations, fields, and members each with a config); Flora's items are seen in that form here
// (ItemView), so that additions, removals and modifications pair up, order and group as the core's do.

import { displayString } from '../parser/display';
import { isValidIdent } from '../parser/identifiers';
import type { AccessProvider, Collection, FunctionItem, IndexTerm, IndexValue, Membership, Role, SchemaItem } from '../fsl/ast';
import { displayExpr, displayPath } from '../fsl/display';
import type { SchemaMigration } from './migrationValidator';

// ---- the core's generic item form ----

type ScalarKind = 'id' | 'bool' | 'str' | 'long' | 'expr' | 'term' | 'value' | 'check' | 'predicate' | 'lambda' | 'migrations';

export interface Scalar {
  readonly kind: ScalarKind;
  /** What the core compares (Config.id: the value without spans). */
  readonly id: string;
  /** Config.display, where the diff shows the value. */
  readonly display: string;
}

export type Config = Scalar | { readonly kind: 'seq'; readonly configs: ReadonlyArray<Scalar> } | { readonly kind: 'opt'; readonly config: Config | null } | { readonly kind: 'block'; readonly members: ReadonlyArray<Member> };

export interface Member {
  readonly keyword: string;
  readonly name: string | null;
  readonly config: Config;
  /** Member.Repeated: told apart by its config (`unique`). */
  readonly repeated: boolean;
  /** Member.Default: `set` when written, `implicit` when not (history_days). */
  readonly defaulted: 'set' | 'implicit' | null;
  readonly isDefault: boolean;
}

export interface Annotation {
  readonly keyword: 'alias' | 'role';
  readonly config: Scalar;
}

export interface FieldView {
  readonly kind: 'defined' | 'compute' | 'wildcard';
  readonly name: string;
  readonly ty: string | null;
  /** A defined field's type with its nested defaults (SchemaTypeExpr). */
  readonly schemaTy: string | null;
  readonly value: Scalar | null;
  /** The wildcard the core adds to a collection with neither fields nor a wildcard. */
  readonly implicit: boolean;
}

export type ItemView =
  | { readonly kind: 'config'; readonly annotations: ReadonlyArray<Annotation>; readonly fields: ReadonlyArray<FieldView>; readonly members: ReadonlyArray<Member> }
  | { readonly kind: 'function'; readonly annotations: ReadonlyArray<Annotation>; readonly sig: string; readonly body: string };

export type Category = 'Computed fields' | 'Indexes' | 'Constraints' | 'Configuration';
export const CATEGORIES: ReadonlyArray<Category> = ['Computed fields', 'Indexes', 'Constraints', 'Configuration'];

export type Element = { readonly kind: 'annotation'; readonly ann: Annotation } | { readonly kind: 'field'; readonly field: FieldView } | { readonly kind: 'member'; readonly member: Member };

export type Change =
  | { readonly kind: 'add' | 'remove'; readonly element: Element }
  | { readonly kind: 'modify'; readonly element: Element; readonly config: Config }
  | { readonly kind: 'block'; readonly member: Member; readonly changes: ReadonlyArray<Change> }
  | { readonly kind: 'replaceBody' | 'replaceSig' | 'replaceType' }
  /** The item's new name (Change.Rename). */
  | { readonly kind: 'rename'; readonly to: string }
  | { readonly kind: 'removeFieldDefault'; readonly field: FieldView };

/** A change's category (null: not shown among a collection's changes). */
export function categoryOf(c: Change): Category | null {
  switch (c.kind) {
    case 'add':
    case 'remove':
    case 'modify':
      return elementCategory(c.element);
    case 'block':
      return memberCategory(c.member);
    case 'removeFieldDefault':
    case 'rename':
      return 'Configuration';
    default:
      return null;
  }
}

function elementCategory(e: Element): Category | null {
  if (e.kind === 'annotation') return 'Configuration';
  if (e.kind === 'field') return e.field.kind === 'compute' ? 'Computed fields' : null;
  return memberCategory(e.member);
}

function memberCategory(m: Member): Category | null {
  switch (m.keyword) {
    case 'index': return 'Indexes';
    case 'unique':
    case 'check': return 'Constraints';
    case 'migrations': return null;
    default: return 'Configuration';
  }
}

// ---- Flora's items in that form ----

/** A value without its spans (`withNullSpan`), as a string to compare. */
function shapeId(v: unknown): string {
  return JSON.stringify(v, (key, x: unknown) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (x !== null && typeof x === 'object' && 'start' in x && 'end' in x && 'src' in x) return undefined;
    return x;
  });
}

const ident = (s: string): string => (isValidIdent(s) ? s : displayString(s));
const scalar = (kind: ScalarKind, id: string, display = id): Scalar => ({ kind, id, display });
const member = (keyword: string, config: Config, name: string | null = null): Member => ({ keyword, name, config, repeated: false, defaulted: null, isDefault: false });

const term = (t: IndexTerm): string => (t.mva ? `mva(${displayPath(t.path)})` : displayPath(t.path));
const termScalar = (t: IndexTerm): Scalar => scalar('term', shapeId([t.path, t.mva]), term(t));
const valueScalar = (v: IndexValue): Scalar => scalar('value', shapeId([v.path, v.mva, v.asc]), v.asc ? term(v) : `desc(${term(v)})`);
const predicate = (p: Membership['predicate']): Config => ({ kind: 'opt', config: p === null ? null : scalar('predicate', shapeId(p)) });

/** The core's DefaultHistoryDays (`fauna.model.default-history_days`, 0). */
const DEFAULT_HISTORY_DAYS = 0n;

/**
 * `implicitHistoryDays`: for a collection that does not write `history_days`, the days the database
 * keeps (SchemaValidate.fillDefaults, for the items of the files the database answers now).
 */
export function itemView(item: SchemaItem, implicitHistoryDays: bigint = DEFAULT_HISTORY_DAYS): ItemView {
  switch (item.kind) {
    case 'collection': return collectionView(item, implicitHistoryDays);
    case 'function': return functionView(item);
    case 'role': return roleView(item);
    case 'access provider': return accessProviderView(item);
  }
}

function collectionView(c: Collection, implicitDays: bigint): ItemView {
  const fields: FieldView[] = c.fields.map((f) => {
    switch (f.kind) {
      case 'defined':
        return { kind: 'defined', name: f.name.str, ty: null, schemaTy: shapeId(f.ty), value: f.default === null ? null : scalar('expr', shapeId(f.default), displayExpr(f.default)), implicit: false };
      case 'computed':
        return { kind: 'compute', name: f.name.str, ty: f.ty === null ? null : shapeId(f.ty), schemaTy: null, value: scalar('lambda', shapeId(f.value), displayExpr(f.value)), implicit: false };
      case 'wildcard':
        return { kind: 'wildcard', name: '*', ty: shapeId(f.ty), schemaTy: null, value: null, implicit: false };
    }
  });
  const members: Member[] = [];
  for (const i of c.indexes) {
    const parts: Member[] = [];
    if (i.terms !== null) parts.push(member('terms', { kind: 'seq', configs: i.terms.terms.map(termScalar) }));
    if (i.values !== null) parts.push(member('values', { kind: 'seq', configs: i.values.values.map(valueScalar) }));
    members.push(member('index', { kind: 'block', members: parts }, i.name.str));
  }
  for (const u of c.uniques) members.push({ ...member('unique', { kind: 'seq', configs: u.terms.map(termScalar) }), repeated: true });
  for (const k of c.checks) members.push(member('check', scalar('check', shapeId(k.predicate)), k.name.str));
  const written = c.historyDays.span !== null;
  const days = written ? c.historyDays.value : implicitDays;
  members.push({ ...member('history_days', scalar('long', String(days))), defaulted: written ? 'set' : 'implicit', isDefault: days === DEFAULT_HISTORY_DAYS });
  if (c.ttlDays !== null) members.push(member('ttl_days', scalar('long', String(c.ttlDays.value))));
  if (c.documentTTLs !== null) members.push(member('document_ttls', scalar('bool', String(c.documentTTLs.value))));
  if (c.migrations !== null) members.push(member('migrations', scalar('migrations', shapeId(c.migrations.items))));
  const annotations: Annotation[] = c.alias === null ? [] : [{ keyword: 'alias', config: scalar('id', c.alias.value.str, ident(c.alias.value.str)) }];
  return { kind: 'config', annotations, fields, members };
}

function functionView(f: FunctionItem): ItemView {
  const annotations: Annotation[] = [];
  for (const a of [f.alias, f.role]) if (a !== null) annotations.push({ keyword: a.keyword.str as Annotation['keyword'], config: scalar('id', a.value.str, ident(a.value.str)) });
  const sig = shapeId([f.sig.args.map((a) => [a.name.str, a.ty, a.variadic]), f.sig.ret]);
  return { kind: 'function', annotations, sig, body: shapeId(f.body) };
}

function roleView(r: Role): ItemView {
  const members: Member[] = [];
  for (const p of r.privileges) {
    const actions = p.actions.map((a) => member(a.action, predicate(a.predicate)));
    members.push(member('privileges', { kind: 'block', members: actions }, p.resource.str));
  }
  for (const m of r.membership) members.push(member('membership', predicate(m.predicate), m.name.str));
  return { kind: 'config', annotations: [], fields: [], members };
}

function accessProviderView(a: AccessProvider): ItemView {
  const str = (s: string) => scalar('str', s, displayString(s));
  const members = [member('issuer', str(a.issuer.value)), member('jwks_uri', str(a.jwksUri.value)), ...a.roles.map((r) => member('role', predicate(r.predicate), r.name.str))];
  return { kind: 'config', annotations: [], fields: [], members };
}

/** DiffRender.makeEmptyItem: the item with its optional parts left out (how an addition or removal is told). */
export function emptyView(item: SchemaItem): ItemView {
  switch (item.kind) {
    case 'collection':
      return { kind: 'config', annotations: [], fields: [], members: [{ ...member('history_days', scalar('long', String(DEFAULT_HISTORY_DAYS))), defaulted: 'implicit', isDefault: true }] };
    case 'function': {
      const full = functionView(item);
      return { ...full, annotations: [] };
    }
    case 'role': return { kind: 'config', annotations: [], fields: [], members: [] };
    case 'access provider': {
      const full = accessProviderView(item);
      return full.kind === 'config' ? { ...full, members: full.members.filter((m) => m.keyword !== 'role') } : full;
    }
  }
}

// ---- the diff ----

function configId(c: Config): string {
  switch (c.kind) {
    case 'seq': return JSON.stringify(c.configs.map(configId));
    case 'opt': return c.config === null ? 'None' : `Some(${configId(c.config)})`;
    case 'block': return JSON.stringify(c.members.map(memberId));
    default: return JSON.stringify([c.kind, c.id]);
  }
}

function memberId(m: Member): string {
  if (m.repeated) return JSON.stringify([m.keyword, configId(m.config)]);
  if (m.name !== null) return JSON.stringify([m.keyword, m.name]);
  return m.keyword;
}

/**
 * SchemaDiff.alignedDiff: elements paired by identity (and by how many share it); the added ones
 * first, in the order of `after`, then the removed ones, then the pairs' differences, in the order
 * of `before`. Default members are neither added nor removed.
 */
function alignedDiff<A, R>(
  before: ReadonlyArray<A>,
  after: ReadonlyArray<A>,
  id: (a: A) => string,
  isDefault: (a: A) => boolean,
  add: (a: A) => R[],
  rm: (a: A) => R[],
  diff: (b: A, a: A) => R[],
  afterId: (a: A) => string = id,
): R[] {
  const group = (xs: ReadonlyArray<A>, key: (a: A) => string) => {
    const m = new Map<string, A[]>();
    for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
    return m;
  };
  const b = group(before, id);
  const a = group(after, afterId);
  const sameCount = (k: string, from: Map<string, A[]>, to: Map<string, A[]>) => to.get(k)?.length === from.get(k)!.length;
  const out: R[] = [];
  for (const [k, xs] of a) if (!sameCount(k, a, b)) for (const x of xs) if (!isDefault(x)) out.push(...add(x));
  for (const [k, xs] of b) if (!sameCount(k, b, a)) for (const x of xs) if (!isDefault(x)) out.push(...rm(x));
  for (const [k, xs] of b) {
    if (!sameCount(k, b, a)) continue;
    const ys = a.get(k)!;
    xs.forEach((x, i) => out.push(...diff(x, ys[i])));
  }
  return out;
}

const el = {
  ann: (ann: Annotation): Element => ({ kind: 'annotation', ann }),
  field: (field: FieldView): Element => ({ kind: 'field', field }),
  member: (member: Member): Element => ({ kind: 'member', member }),
};

function diffAnnotations(before: ReadonlyArray<Annotation>, after: ReadonlyArray<Annotation>): Change[] {
  return alignedDiff<Annotation, Change>(
    before,
    after,
    (a) => a.keyword,
    () => false,
    (a) => [{ kind: 'add', element: el.ann(a) }],
    (a) => [{ kind: 'remove', element: el.ann(a) }],
    (b, a) => (b.config.id === a.config.id ? [] : [{ kind: 'modify', element: el.ann(b), config: a.config }]),
  );
}

/** A collection with neither defined fields nor a wildcard has an implicit `*: Any`. */
function withImplicitWildcard(fields: ReadonlyArray<FieldView>): ReadonlyArray<FieldView> {
  if (fields.some((f) => f.kind === 'wildcard' || f.kind === 'defined')) return fields;
  return [...fields, { kind: 'wildcard', name: '*', ty: shapeId({ kind: 'Any' }), schemaTy: null, value: null, implicit: true }];
}

function diffField(before: FieldView, after: FieldView): Change[] {
  if (before.kind === 'wildcard' && after.kind === 'wildcard') return before.ty === after.ty ? [] : [{ kind: 'replaceType' }];
  const out: Change[] = [];
  if (before.value !== null && after.value === null) out.push({ kind: 'removeFieldDefault', field: before });
  else if (after.value !== null && (before.value === null || before.value.id !== after.value.id)) out.push({ kind: 'modify', element: el.field(before), config: after.value });
  if (before.kind === 'defined' && after.kind === 'defined') {
    if (before.schemaTy !== after.schemaTy) out.push({ kind: 'replaceType' });
  } else if (before.ty !== null && after.ty !== null && before.ty !== after.ty) out.push({ kind: 'replaceType' });
  return out;
}

function diffMembers(before: ReadonlyArray<Member>, after: ReadonlyArray<Member>): Change[] {
  return alignedDiff<Member, Change>(
    before,
    after,
    memberId,
    (m) => m.isDefault,
    (m) => [{ kind: 'add', element: el.member(m) }],
    (m) => [{ kind: 'remove', element: el.member(m) }],
    diffMember,
  );
}

function diffMember(before: Member, after: Member): Change[] {
  const diffConfig = (b: Config, a: Config): Change[] => {
    if (b.kind === 'seq' && a.kind === 'seq') {
      const changed = b.configs.length !== a.configs.length || b.configs.some((x, i) => x.id !== a.configs[i].id);
      return changed ? [{ kind: 'modify', element: el.member(before), config: a }] : [];
    }
    if (b.kind === 'block' && a.kind === 'block') {
      const changes = diffMembers(b.members, a.members);
      return changes.length === 0 ? [] : [{ kind: 'block', member: before, changes }];
    }
    if (b.kind === 'opt' && a.kind === 'opt') {
      if (b.config === null && a.config === null) return [];
      if (b.config !== null && a.config !== null && diffConfig(b.config, a.config).length === 0) return [];
      return [{ kind: 'modify', element: el.member(before), config: a }];
    }
    if (b.kind !== 'opt' && b.kind !== 'block' && b.kind !== 'seq' && a.kind !== 'opt' && a.kind !== 'block' && a.kind !== 'seq' && b.kind === a.kind && b.id === a.id) return [];
    return [{ kind: 'modify', element: el.member(before), config: a }];
  };
  if (before.defaulted !== null && after.defaulted !== null) {
    if (before.isDefault && after.isDefault) return [];
    if (before.defaulted === 'implicit' && after.defaulted === 'set' && before.isDefault) return [{ kind: 'add', element: el.member(after) }];
    if (before.defaulted === 'set' && after.defaulted === 'implicit' && after.isDefault) return [{ kind: 'remove', element: el.member(before) }];
  }
  return diffConfig(before.config, after.config);
}

/** SchemaDiff.diffItem: the changes from `before` to `after` (none: the same item). */
export function diffItem(before: ItemView, after: ItemView): Change[] {
  const annotations = diffAnnotations(before.annotations, after.annotations);
  if (before.kind === 'function' && after.kind === 'function') {
    const out = [...annotations];
    if (before.sig !== after.sig) out.push({ kind: 'replaceSig' });
    if (before.body !== after.body) out.push({ kind: 'replaceBody' });
    return out;
  }
  if (before.kind !== 'config' || after.kind !== 'config') throw new Error('diffItem: items of different kinds');
  const fields = alignedDiff<FieldView, Change>(
    withImplicitWildcard(before.fields),
    withImplicitWildcard(after.fields),
    (f) => JSON.stringify([f.kind, f.name]),
    () => false,
    (f) => [{ kind: 'add', element: el.field(f) }],
    (f) => [{ kind: 'remove', element: el.field(f) }],
    diffField,
  );
  return [...annotations, ...fields, ...diffMembers(before.members, after.members)];
}

/** One item's change (SchemaDiff's Diff): a modification carries what changed, and the migrations of a collection's documents. */
export type SchemaItemDiff =
  | { readonly kind: 'add' | 'remove'; readonly item: SchemaItem; readonly view: ItemView }
  | { readonly kind: 'modify'; readonly before: SchemaItem; readonly item: SchemaItem; readonly changes: ReadonlyArray<Change>; readonly migrations: ReadonlyArray<SchemaMigration> };

/** An item with how the diff sees it. */
export interface ViewedItem {
  readonly item: SchemaItem;
  readonly view: ItemView;
}

/** An item's identity across files and the database: its kind and name. */
export const itemKey = (item: SchemaItem): string => `${item.kind}:${item.name.str}`;

/**
 * SchemaDiff.Renames: the items given new names, by the key (itemKey) of the new one, to the old
 * name. Only the schema API's per-item routes make them.
 */
export type Renames = ReadonlyMap<string, string>;

/** The key `item` is matched by: the old item's, when it is a rename of an item `before` has. */
export function renamedKey(item: SchemaItem, renames: Renames, before: ReadonlySet<string>): string {
  const old = renames.get(itemKey(item));
  const key = old === undefined ? undefined : `${item.kind}:${old}`;
  return key !== undefined && before.has(key) ? key : itemKey(item);
}

/** SchemaDiff.diffItems; modifications carry no migrations yet (the caller derives them, from the data). */
export function diffSchemaItems(before: ReadonlyArray<ViewedItem>, after: ReadonlyArray<ViewedItem>, renames: Renames = new Map()): SchemaItemDiff[] {
  const keys = new Set(before.map((v) => itemKey(v.item)));
  return alignedDiff<ViewedItem, SchemaItemDiff>(
    before,
    after,
    (v) => itemKey(v.item),
    () => false,
    (v) => [{ kind: 'add', item: v.item, view: v.view }],
    (v) => [{ kind: 'remove', item: v.item, view: v.view }],
    (b, a) => {
      const renamed: Change[] = b.item.name.str === a.item.name.str ? [] : [{ kind: 'rename', to: a.item.name.str }];
      const changes = [...renamed, ...diffItem(b.view, a.view)];
      return changes.length === 0 ? [] : [{ kind: 'modify', before: b.item, item: a.item, changes, migrations: [] }];
    },
    (v) => renamedKey(v.item, renames, keys),
  );
}
