// The real indexes behind a collection's v10 `indexes` and unique `constraints` (the core's
// CollectionIndexManager backing indexes): ordinary index documents whose only source is the
// collection, so Flora's indexer maintains them on every write, builds them in the background
// like any index, and a unique constraint is a unique index (its conflicting range read keeps two
// racing writers of one value from both committing). They are marked `hidden` and
// `collection_index`, and v4's Indexes() does not list them, as the core's IndexSet.Indexes hides
// them. Definitions that ask for the same terms, values and uniqueness share one index.
//
// The collection document records them in `backingIndexes` ([{terms, values, unique, index}],
// `index` the backing index's name), a field v4 and v10 never show.

import { randomUUID } from 'node:crypto';
import type { Position } from '../../values/errors';
import { Ref, type Obj, type Value } from '../../values/types';
import type { TxnContext } from '../context';
import { schemaOf } from '../resolve';
import { readStagedSchema, writeStagedSchema } from '../schemaStaged';
import { parseFieldPath } from './definition';

/** One backing index as the collection document records it. */
export interface BackingIndex {
  terms: FieldRef[];
  values: (FieldRef & { order: 'asc' | 'desc' })[];
  unique: boolean;
  /** Name of the index document. */
  index: string;
}

export interface FieldRef {
  /** The field as written: `.name`. */
  field: string;
  mva: boolean;
}

/** What the rest of the server needs to create or delete an index document (documents.ts provides it). */
export interface IndexWriter {
  create(params: Obj, pos: Position): Promise<void>;
  remove(name: string, pos: Position): Promise<void>;
}

/** The stored document path a v10 field path reads: a user field lives under `data`, `ts` and `ttl` at the top. */
export function storedPath(field: string): (string | number)[] {
  const path = parseFieldPath(field) ?? [];
  return path[0] === 'ts' || path[0] === 'ttl' ? path : ['data', ...path];
}

function fieldRef(v: Value): FieldRef {
  if (typeof v === 'string') return { field: v, mva: false };
  const m = v as Obj;
  return { field: m.get('field') as string, mva: m.get('mva') === true };
}

/** A unique constraint's index spec (undefined: another kind of constraint, a `check`). */
export function uniqueConstraintSpec(c: Value): Omit<BackingIndex, 'index'> | undefined {
  const unique = c instanceof Map ? c.get('unique') : undefined;
  return Array.isArray(unique) ? { terms: unique.map(fieldRef), values: [], unique: true } : undefined;
}

/** The backing indexes a definition asks for (without their index names yet), user indexes first. */
export function wantedBackingIndexes(fields: Obj): Omit<BackingIndex, 'index'>[] {
  const out: Omit<BackingIndex, 'index'>[] = [];
  const indexes = fields.get('indexes');
  if (indexes instanceof Map)
    for (const def of indexes.values()) {
      const d = def as Obj;
      const terms = d.get('terms');
      const values = d.get('values');
      out.push({
        terms: Array.isArray(terms) ? terms.map(fieldRef) : [],
        values: Array.isArray(values) ? values.map((v) => ({ ...fieldRef(v), order: (v as Obj).get('order') === 'desc' ? 'desc' : 'asc' })) : [],
        unique: false,
      });
    }
  const constraints = fields.get('constraints');
  if (Array.isArray(constraints))
    for (const c of constraints) {
      const spec = uniqueConstraintSpec(c);
      if (spec) out.push(spec);
    }
  return out;
}

/** A backing index's identity: two definitions with the same key share one index. */
export function backingKey(b: Omit<BackingIndex, 'index'>): string {
  return JSON.stringify([b.terms.map((t) => [t.field, t.mva]), b.values.map((v) => [v.field, v.mva, v.order]), b.unique]);
}

export function backingIndexesOf(fields: Obj): BackingIndex[] {
  const list = fields.get('backingIndexes');
  if (!Array.isArray(list)) return [];
  return list.map((b) => {
    const m = b as Obj;
    const terms = (m.get('terms') as Value[]).map(fieldRef);
    const values = (m.get('values') as Value[]).map((v) => ({ ...fieldRef(v), order: (v as Obj).get('order') === 'desc' ? ('desc' as const) : ('asc' as const) }));
    return { terms, values, unique: m.get('unique') === true, index: m.get('index') as string };
  });
}

/** The backing index serving a user index or unique constraint definition of the collection. */
export function backingFor(fields: Obj, def: Omit<BackingIndex, 'index'>): BackingIndex | undefined {
  const key = backingKey(def);
  return backingIndexesOf(fields).find((b) => backingKey(b) === key);
}

export function userIndexSpec(def: Obj): Omit<BackingIndex, 'index'> {
  return wantedBackingIndexes(new Map([['indexes', new Map([['x', def]])]]))[0];
}

/**
 * Brings the backing indexes of collection `collName` in line with its new v10 fields: creates
 * the missing ones, deletes those nothing asks for any more. Returns the fields to store, with
 * `backingIndexes` updated (the same object when nothing changed).
 */
export async function syncBackingIndexes(ctx: TxnContext, db: bigint, collName: string, fields: Obj, writer: IndexWriter, pos: Position): Promise<Obj> {
  const have = new Map(backingIndexesOf(fields).map((b) => [backingKey(b), b]));
  const next = new Map<string, BackingIndex>();
  const schema = await schemaOf(ctx, db);
  let staged = await readStagedSchema(ctx, db);
  for (const w of wantedBackingIndexes(fields)) {
    const key = backingKey(w);
    if (next.has(key)) continue;
    const existing = have.get(key);
    if (existing && schema.get('indexes', existing.index)) {
      next.set(key, existing);
      continue;
    }
    // An index a staged schema has built for this collection is taken over (commit needs no new build).
    const built = staged?.indexes.find((s) => s.collection === collName && s.key === key && schema.get('indexes', s.index));
    if (staged && built) {
      staged = { ...staged, indexes: staged.indexes.filter((s) => s !== built) };
      writeStagedSchema(ctx, db, staged);
      next.set(key, { ...w, index: built.index });
      continue;
    }
    next.set(key, { ...w, index: await createBackingIndex(writer, collName, w, pos) });
  }
  for (const [key, b] of have) if (!next.has(key)) await writer.remove(b.index, pos);
  if (have.size === next.size && [...have.keys()].every((k) => next.has(k))) return fields;
  const out: Obj = new Map(fields);
  if (next.size) out.set('backingIndexes', [...next.values()].map(storedBacking));
  else out.delete('backingIndexes');
  return out;
}

/** Creates the index document of a backing index; returns its name. */
export async function createBackingIndex(writer: IndexWriter, collName: string, spec: Omit<BackingIndex, 'index'>, pos: Position): Promise<string> {
  const index = randomUUID(); // names are irrelevant for collection indexes (the core's choice too)
  await writer.create(indexParams(index, collName, spec), pos);
  return index;
}

/** Whether new fields `next` leave a backing index of `prev` unused: one whose terms and values no
 *  index or unique constraint asks for any more (a change of uniqueness alone keeps it, as the
 *  core's CollectionIndexManager updates it in place). */
export function dropsBackingIndex(prev: Obj, next: Obj): boolean {
  const shape = (b: Omit<BackingIndex, 'index'>) => backingKey({ ...b, unique: false });
  const kept = new Set(wantedBackingIndexes(next).map(shape));
  return backingIndexesOf(prev).some((b) => !kept.has(shape(b)));
}

/** Deletes every backing index of a collection being deleted. */
export async function dropBackingIndexes(fields: Obj, writer: IndexWriter, pos: Position): Promise<void> {
  for (const b of backingIndexesOf(fields)) await writer.remove(b.index, pos);
}

function storedBacking(b: BackingIndex): Obj {
  const field = (f: FieldRef): Obj => new Map<string, Value>([['field', f.field], ['mva', f.mva]]);
  return new Map<string, Value>([
    ['terms', b.terms.map(field)],
    ['values', b.values.map((v) => new Map([...field(v), ['order', v.order]]))],
    ['unique', b.unique],
    ['index', b.index],
  ]);
}

/** The v4 index document of a backing index: field paths into the stored document, v10's mva default (off). */
function indexParams(name: string, collName: string, b: Omit<BackingIndex, 'index'>): Obj {
  const spec = (f: FieldRef, reverse: boolean): Obj =>
    new Map<string, Value>([['field', storedPath(f.field).map((p) => (typeof p === 'number' ? BigInt(p) : p))], ['reverse', reverse], ['mva', f.mva]]);
  return new Map<string, Value>([
    ['name', name],
    ['source', Ref.schema('collections', collName)],
    ['terms', b.terms.map((t) => spec(t, false))],
    ['values', b.values.map((v) => spec(v, v.order === 'desc'))],
    ['unique', b.unique],
  ]);
}

/** Marks a backing index document: hidden from v4's Indexes(), owned by its collection. */
export const BACKING_MARKS: readonly [string, Value][] = [
  ['hidden', true],
  ['collection_index', true],
];

/** Whether an index document is a collection's backing index (v4's Indexes() skips it). */
export function isBackingIndex(fields: Obj | null | undefined): boolean {
  return fields?.get('collection_index') === true;
}
