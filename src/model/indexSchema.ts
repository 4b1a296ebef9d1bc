// Index documents: validation of CreateIndex / Update / Replace params (fql-v4.md §5.3, §1.10), their
// rendering, and compiling a stored index document into the IndexDef the rest of the server uses.

import type { TxnContext } from './context';
import { decodeExpr } from '../wire/decode';
import type { Expr } from '../wire/expr';
import { Lambda, Ref, TxnTime, type Obj, type Value } from '../values/types';
import type { SchemaEntry } from './catalog';
import { Failures, pick, stripNulls, validateName } from './data';
import type { FieldSpec, IndexDef, IndexSource } from './indexDef';
import type { NativeType } from './nativeTypes';
import { schemaOf } from './resolve';
import { inOrder, uniqueName, checkRename } from './schemaFields';
import { nextInternalId } from './internalIds';
import { buildNow, countEvents, scheduleBuild, sourceCollections, SYNC_BUILD_EVENTS } from './indexBuild';
import { isNativeSource, sourceNameOf } from './indexer';

export const FIRST_INDEX_ID = 32768;

const WRITABLE = ['name', 'source', 'terms', 'values', 'unique', 'serialized', 'partitions', 'active', 'data', 'permissions'] as const;
const FIXED = ['source', 'terms', 'values', 'partitions'] as const;

/** Functions a binding may not call: they read, write or call user code (index bindings are pure). */
const IMPURE = new Set([
  'get', 'exists', 'paginate', 'match', 'documents', 'key_from_secret', 'call', 'create', 'update', 'replace',
  'delete', 'insert', 'remove', 'create_collection', 'create_database', 'create_index', 'create_key',
  'create_function', 'create_role', 'create_access_provider', 'move_database', 'login', 'logout', 'identify',
  'new_id', 'count', 'sum', 'mean', 'any', 'all', 'first', 'last', 'is_empty', 'is_nonempty', 'events',
  'singleton', 'union', 'intersection', 'difference', 'distinct', 'join', 'range',
]);

function isPure(e: Expr): boolean {
  switch (e.t) {
    case 'lit':
    case 'var':
      return true;
    case 'array':
      return e.items.every(isPure);
    case 'object':
      return e.entries.every(([, x]) => isPure(x));
    case 'lambda':
      return isPure(e.body);
    case 'let':
      return e.bindings.every(([, x]) => isPure(x)) && isPure(e.body);
    case 'call':
      return !IMPURE.has(e.fn) && [...e.args.values()].every(isPure);
  }
}

function lambdaArity(l: Lambda): number {
  return typeof l.params === 'string' ? 1 : l.params.length;
}

/** A source position: a collection ref, `_` (every other collection), or a source object. */
interface ParsedSource {
  collection: Ref | '_';
  fields: Obj | undefined;
}

function parseSources(v: Value | undefined, f: Failures): ParsedSource[] {
  if (v === undefined || v === null) {
    f.required(['source']);
    return [];
  }
  const list = Array.isArray(v) ? v : [v];
  const out: ParsedSource[] = [];
  list.forEach((item, i) => {
    const field = Array.isArray(v) ? ['source', i] : ['source'];
    if (item === '_') out.push({ collection: '_', fields: undefined });
    else if (item instanceof Ref) out.push({ collection: item, fields: undefined });
    else if (item instanceof Map) {
      const coll = item.get('collection') ?? item.get('class');
      const fields = item.get('fields');
      if (coll !== '_' && !(coll instanceof Ref)) f.invalidType([...field, 'collection'], coll ?? null, 'Ref');
      else if (fields !== undefined && fields !== null && !(fields instanceof Map)) f.invalidType([...field, 'fields'], fields, 'Map');
      else out.push({ collection: coll, fields: fields instanceof Map ? fields : undefined });
    } else f.invalidType(field, item, 'Ref');
  });
  return out;
}

function parseFieldSpecs(v: Value | undefined, key: 'terms' | 'values', f: Failures): FieldSpec[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    f.invalidType([key], v, 'Array');
    return [];
  }
  const out: FieldSpec[] = [];
  v.forEach((item, i) => {
    const at = [key, i];
    if (!(item instanceof Map)) return f.invalidType(at, item, 'Map');
    const field = item.get('field');
    const binding = item.get('binding');
    const spec: FieldSpec = { reverse: item.get('reverse') === true, mva: item.get('mva') !== false };
    if (field !== undefined && field !== null) {
      const path = typeof field === 'string' ? [field] : field;
      if (!Array.isArray(path) || !path.every((p) => typeof p === 'string' || typeof p === 'bigint'))
        return f.invalidType([...at, 'field'], field, 'Array');
      spec.field = path.map((p) => (typeof p === 'bigint' ? Number(p) : (p as string)));
    } else if (typeof binding === 'string') spec.binding = binding;
    else return f.add(at, 'value required', 'Must provide one of the following: field, binding');
    const transform = item.get('transform');
    if (transform !== undefined && transform !== null) {
      if (transform !== 'casefold') return f.add([...at, 'transform'], 'invalid value', `Invalid value \`${String(transform)}\` at \`transform\``);
      spec.transform = 'casefold';
    }
    for (const k of ['reverse', 'mva'] as const) {
      const b = item.get(k);
      if (b !== undefined && b !== null && typeof b !== 'boolean') f.invalidType([...at, k], b, 'Boolean');
    }
    out.push(spec);
  });
  return out;
}

/** Checks sources, bindings and the term/value specs; returns the source collection names. */
async function validateDefinition(ctx: TxnContext, db: bigint, params: Obj, f: Failures): Promise<void> {
  const sources = parseSources(params.get('source'), f);
  const terms = parseFieldSpecs(params.get('terms'), 'terms', f);
  const values = parseFieldSpecs(params.get('values'), 'values', f);
  const schema = await schemaOf(ctx, db);
  const seen = new Set<string>();
  const bindings = new Set<string>();
  let wildcards = 0;
  for (const [i, s] of sources.entries()) {
    const field = ['source', i];
    if (s.collection === '_') wildcards++;
    else {
      const sourceName = s.collection.database ? undefined : sourceNameOf(s.collection);
      if (sourceName === undefined) {
        f.add(field, 'invalid reference', 'Cannot read reference.');
        continue;
      }
      if (isNativeSource(sourceName)) {
        // A native source (Tokens()): always there, no schema entry to check.
        if (seen.has(sourceName)) f.add(field, 'multiple bindings', 'A collection ref may only match one binding.');
        seen.add(sourceName);
      } else {
        // A collection created by this very transaction is a fine source (DECISIONS 13: the
        // migration tool creates a collection and its indexes in one transaction); it is built now.
        if (!schema.get('collections', s.collection.id)) f.add(field, 'invalid reference', 'Reference was not found.');
        if (seen.has(s.collection.id)) f.add(field, 'multiple bindings', 'A collection ref may only match one binding.');
        seen.add(s.collection.id);
      }
    }
    for (const [name, fn] of s.fields ?? []) {
      if (!(fn instanceof Lambda)) f.invalidType([...field, 'fields', name], fn, 'Query');
      else if (lambdaArity(fn) !== 1 || !isPure((fn.compiled ??= decodeExpr(fn.body as never)) as Expr))
        f.add([...field, 'fields', name], 'invalid binding', 'Field binding must be a pure unary function.');
      bindings.add(name);
    }
  }
  if (wildcards > 1) f.add(['source'], 'multiple wildcards', 'Too many wildcards.');
  const used = new Set([...terms, ...values].map((t) => t.binding).filter((b): b is string => b !== undefined));
  for (const b of used) if (!bindings.has(b)) f.add(['terms'], 'invalid binding', `Binding \`${b}\` is not defined by any source.`);
  for (const b of bindings) if (!used.has(b)) f.add(['source'], 'unused binding', 'Source binding is not used as a term or value.');
}

function validateOptions(params: Obj, f: Failures): void {
  for (const k of ['unique', 'serialized', 'active'] as const) {
    const v = params.get(k);
    if (v !== undefined && v !== null && typeof v !== 'boolean') f.invalidType([k], v, 'Boolean');
  }
  const partitions = params.get('partitions');
  if (partitions !== undefined && partitions !== null) {
    if (typeof partitions !== 'bigint') f.invalidType(['partitions'], partitions, 'Long');
    else if (partitions < 1n || partitions > 8n) f.add(['partitions'], 'bounds error', `Value ${partitions} is not in expected range 1 to 8.`);
  }
  for (const k of ['data', 'permissions'] as const) {
    const v = params.get(k);
    if (v !== undefined && v !== null && !(v instanceof Map)) f.invalidType([k], v, 'Map');
  }
}


export interface IndexCreation {
  fields: Obj;
  /** Build now (≤ 128 events, no wildcard) or in the background. */
  synchronous: boolean;
}

export const indexType: NativeType = {
  label: 'Index',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const name = validateName(params.get('name'), f);
    validateOptions(params, f);
    await validateDefinition(ctx, db, params, f);
    f.throwIfAny(pos);
    await uniqueName(ctx, db, 'indexes', name!, 'Index', pos);
    const fields = stripNulls(pick(params, WRITABLE)) as Obj;
    const terms = params.get('terms');
    const hasTerms = Array.isArray(terms) && terms.length > 0;
    if (!fields.has('partitions')) fields.set('partitions', hasTerms ? 1n : 8n);
    if (!fields.has('serialized')) fields.set('serialized', true);
    const id = await nextInternalId(ctx, db, 'indexes', FIRST_INDEX_ID);
    // Small sources are indexed now, in this transaction; the rest in the background.
    const def = indexDefOf(db, { native: 'indexes', id, name: name!, fields, ts: TxnTime.instance });
    const colls = await sourceCollections(ctx, def);
    const wildcard = def.sources.some((s) => s.collection === '_');
    if (!wildcard && (await countEvents(ctx, db, colls, SYNC_BUILD_EVENTS)) <= SYNC_BUILD_EVENTS) {
      await buildNow(ctx, def, colls);
      fields.set('active', true);
    } else {
      await scheduleBuild(ctx, def);
      if (!fields.has('active')) fields.set('active', false);
    }
    return { id, fields: inOrder(fields, RENDER_ORDER) };
  },
  async update(ctx, db, id, old, params, replace, pos) {
    const f = new Failures();
    if (params.has('name')) await checkRename(ctx, db, 'indexes', params.get('name'), 'Index', f, pos, id);
    validateOptions(params, f);
    const changed = FIXED.filter((k) => params.has(k) && !sameValue(params.get(k) as Value, old.get(k) ?? null));
    if (changed.length)
      // Fauna's wording, which fauna-gql-upload waits for to delete and recreate the index.
      f.add([changed[0]], 'invalid index', 'Index sources, terms, values, and partition count may not be updated.');
    f.throwIfAny(pos);
    const out: Obj = new Map(old);
    for (const k of ['name', 'unique', 'serialized', 'data', 'permissions'] as const) {
      if (params.has(k)) {
        const v = params.get(k) as Value;
        if (v === null) out.delete(k);
        else out.set(k, stripNulls(v));
      } else if (replace && k !== 'name' && k !== 'unique' && k !== 'serialized') out.delete(k);
    }
    // `active` latches: once true it cannot be set back.
    if (params.get('active') === true) out.set('active', true);
    return out;
  },
  render(_id, fields) {
    const out: [string, Value][] = [];
    for (const k of ['active', 'serialized', 'name', 'source', 'terms', 'values', 'unique', 'partitions', 'data', 'permissions'])
      if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
};

/** Fauna's rendering order of index fields (they are stored in it too). */
const RENDER_ORDER = ['active', 'serialized', 'name', 'source', 'terms', 'values', 'unique', 'partitions', 'data', 'permissions'];

function sameValue(a: Value, b: Value): boolean {
  // Structural identity of stored definitions (order-sensitive, exact types).
  return JSON.stringify(a, replacer) === JSON.stringify(b, replacer);
}

function replacer(_k: string, v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Map) return Object.fromEntries(v);
  if (v instanceof Ref) return `@ref:${v.toString()}`;
  if (v instanceof Lambda) return { lambda: v.params, body: v.body };
  return v;
}

const compiled = new WeakMap<SchemaEntry, IndexDef>();

/** The IndexDef of an index document (cached per schema entry). */
export function indexDefOf(db: bigint, entry: SchemaEntry): IndexDef {
  let def = compiled.get(entry);
  if (def) return def;
  const f = new Failures();
  const sources: IndexSource[] = parseSources(entry.fields.get('source'), f).map((s) => ({
    collection: s.collection === '_' ? '_' : (sourceNameOf(s.collection) ?? s.collection.id),
    bindings: new Map([...(s.fields ?? [])].filter((e): e is [string, Lambda] => e[1] instanceof Lambda)),
  }));
  def = {
    db,
    id: Number(entry.id),
    name: entry.name,
    sources,
    terms: parseFieldSpecs(entry.fields.get('terms'), 'terms', f),
    values: parseFieldSpecs(entry.fields.get('values'), 'values', f),
    unique: entry.fields.get('unique') === true,
    active: entry.fields.get('active') === true,
  };
  compiled.set(entry, def);
  return def;
}
