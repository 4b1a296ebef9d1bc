// What the FQL v10 stdlib asks of collection definitions (`Collection.create`, `Coll.definition`,
// `Collection.byName(..).update/replace/delete`, index methods `Coll.byName(term…, { from, to })`),
// over plain values and TxnContext; the v10 language renders the results and errors
// (ConstraintFailureError: `constraint_failure`, its `summary` and `constraintFailures`).
//
//   createCollection(ctx, db, params, pos)            → the definition (definitionOf) of the new collection
//   definitionOf(ctx, db, name)                       → the definition as v10 shows it, or undefined
//   updateCollection(ctx, db, name, params, replace, pos) → the new definition (update merges, null removes)
//   deleteCollection(ctx, db, name, pos)              → the definition as it was
//   (update, replace and delete refuse destructive changes in a protected database: protectedMode.ts)
//   indexRange(ctx, db, coll, index, terms, range, pos) → the index and entry-key range a set source scans
//
// The definition is the stored document minus what the core keeps internal (backingIndexes), with
// `ts` and each index's read-only `status` ("building" until its backing index is built, then
// "complete") and `queryable`, and each unique constraint's `status` ("pending" / "active").

import { errors, QueryError, type Position } from '../../values/errors';
import { Ref, TxnTime, type Obj, type Value } from '../../values/types';
import type { DbSchema, SchemaEntry } from '../catalog';
import { PendingDoc } from '../lambdaLanguage';
import { checkAccess } from '../permissions';
import type { TxnContext } from '../context';
import { deepMerge, stripNulls } from '../data';
import { createDocument, deleteDocument, writeCollectionFields } from '../documents';
import type { IndexDef } from '../indexDef';
import { cursorBound, prefixEnd, termsPrefix } from '../indexKeys';
import { indexDefOf } from '../indexSchema';
import { schemaAsOf, schemaOf, type Target } from '../resolve';
import { backingFor, uniqueConstraintSpec, userIndexSpec, wantedBackingIndexes } from './backing';
import { validateDefinition } from './definition';
import { readMigration } from './migrationState';
import { stepsTouch, type Migration } from './migrations';
import { ConstraintFailureError } from './errors';
import { checkProtectedDelete, checkProtectedUpdate } from './protectedMode';

export async function createCollection(ctx: TxnContext, db: bigint, params: Obj, pos: Position): Promise<Obj> {
  const created = await createDocument(ctx, Ref.native('collections'), params, pos);
  return (await definitionOf(ctx, db, String(created.get('name'))))!;
}

/** Collection `name`'s definition as v10 shows it, as of `at` (µs; undefined: now). */
export async function definitionOf(ctx: TxnContext, db: bigint, name: string, at?: bigint): Promise<Obj | undefined> {
  const schema = await schemaAsOf(ctx, db, at);
  const entry = schema.get('collections', name);
  return entry && definitionFrom(schema, entry, at === undefined ? await staleIndexes(ctx, db, schema, entry) : NONE_STALE);
}

/** The definition of a collection as a write is about to leave it (its stored `fields`, its internal `id`). */
export async function pendingDefinition(ctx: TxnContext, db: bigint, id: bigint, fields: Obj): Promise<Obj> {
  const schema = await schemaOf(ctx, db);
  const entry: SchemaEntry = { native: 'collections', id, name: String(fields.get('name')), fields, ts: TxnTime.instance };
  return definitionFrom(schema, entry, await staleIndexes(ctx, db, schema, entry));
}

const NONE_STALE: ReadonlySet<string> = new Set();

/**
 * The backing indexes (by index name) of the collection's indexes and unique constraints whose
 * entries a background migration changes (staleUnder): shown as building and pending.
 */
async function staleIndexes(ctx: TxnContext, db: bigint, schema: DbSchema, entry: SchemaEntry): Promise<ReadonlySet<string>> {
  if (!schema.migrating.has(Number(entry.id))) return NONE_STALE;
  const stale = new Set<string>();
  const steps = await pendingSteps(ctx, db, Number(entry.id));
  for (const spec of wantedBackingIndexes(entry.fields)) {
    const backing = backingFor(entry.fields, spec);
    const indexEntry = backing && schema.get('indexes', backing.index);
    if (indexEntry && staleUnder(steps, indexDefOf(db, indexEntry))) stale.add(backing.index);
  }
  return stale;
}

function definitionFrom(schema: DbSchema, entry: SchemaEntry, stale: ReadonlySet<string>): Obj {
  const backingEntry = (b: { index: string } | undefined) => b && schema.get('indexes', b.index);
  const built = (b: { index: string } | undefined): boolean => backingEntry(b)?.fields.get('active') === true && !stale.has(b!.index);
  const out: Obj = new Map<string, Value>([['name', entry.name]]);
  for (const [k, v] of entry.fields) {
    if (k === 'name' || k === 'backingIndexes') continue;
    if (k === 'indexes' && v instanceof Map) {
      const indexes: Obj = new Map();
      for (const [n, def] of v) {
        const d = new Map(def as Obj);
        const backing = backingFor(entry.fields, userIndexSpec(def as Obj));
        const complete = built(backing);
        const isStale = backing !== undefined && stale.has(backing.index);
        d.set('queryable', isStale ? false : d.get('queryable') ?? complete);
        d.set('status', complete ? 'complete' : 'building');
        indexes.set(n, d);
      }
      out.set(k, indexes);
    } else if (k === 'constraints' && Array.isArray(v)) {
      out.set(k, v.map((c) => {
        const spec = uniqueConstraintSpec(c);
        if (!spec) return c;
        const backing = backingFor(entry.fields, spec);
        const status = backingEntry(backing)?.fields.get('failed') === true ? 'failed' : built(backing) ? 'active' : 'pending';
        return new Map([...(c as Obj), ['status', status]]);
      }));
    } else out.set(k, v);
  }
  out.set('ts', entry.ts);
  return out;
}

export async function updateCollection(ctx: TxnContext, db: bigint, name: string, params: Obj, replace: boolean, pos: Position): Promise<Obj> {
  const entry = await collectionEntry(ctx, db, name, pos);
  const kept = ['backingIndexes', 'history_days'];
  let fields: Obj;
  if (replace) {
    fields = new Map([...entry.fields].filter(([k]) => kept.includes(k)));
    for (const [k, v] of stripNulls(readWritable(params)) as Obj) fields.set(k, v);
  } else fields = deepMerge(entry.fields, readWritable(params)) as Obj;
  // The write check (v4's Update of a collection makes it in writeDocument): a v10 predicate gets
  // the definition before and after.
  const target: Target = { kind: 'schema', db, native: 'collections', name, entry, scoped: false };
  const written = fields;
  await checkAccess(ctx, 'write', target, pos, [entry.fields, params, Ref.schema('collections', name)], async () => new PendingDoc(Ref.schema('collections', String(written.get('name'))), written, entry.id));
  // A replace is an update to the core (DocAction has no replace).
  const summary = `Failed to update Collection \`${name}\`.`;
  const failures = validateDefinition(fields, ctx.schemaLanguage);
  if (failures.length) throw new ConstraintFailureError(summary, failures, pos);
  await checkProtectedUpdate(ctx, db, entry.fields, fields, summary, pos);
  const newName = fields.get('name');
  if (newName !== name && typeof newName === 'string' && (await schemaOf(ctx, db)).get('collections', newName))
    throw errors.alreadyExists('Collection already exists.', pos);
  await writeCollectionFields(ctx, db, entry.id, fields, pos);
  return (await definitionOf(ctx, db, String(fields.get('name'))))!;
}

export async function deleteCollection(ctx: TxnContext, db: bigint, name: string, pos: Position): Promise<Obj> {
  const before = await definitionOf(ctx, db, (await collectionEntry(ctx, db, name, pos)).name);
  await checkProtectedDelete(ctx, db, name, pos);
  await deleteDocument(ctx, Ref.schema('collections', name), pos);
  return before!;
}

/** A scan of a v10 index: its IndexDef (entries `[terms, values, ref]`) and the key range to read. */
export interface IndexRange {
  def: IndexDef;
  from: Uint8Array;
  to: Uint8Array | undefined;
}

/**
 * The entries of index `index` of collection `coll` with `terms`, within `range` (index values,
 * `to` inclusive as a prefix). Refused while the index is not queryable, as the core refuses it.
 */
export async function indexRange(
  ctx: TxnContext,
  db: bigint,
  coll: string,
  index: string,
  terms: Value[],
  range: { from?: Value[]; to?: Value[] },
  pos: Position,
): Promise<IndexRange | undefined> {
  const schema = await schemaOf(ctx, db);
  const entry = schema.get('collections', coll);
  const def = entry?.fields.get('indexes');
  const idx = def instanceof Map ? def.get(index) : undefined;
  if (!(idx instanceof Map)) return undefined;
  const backing = backingFor(entry!.fields, userIndexSpec(idx));
  const indexEntry = backing && schema.get('indexes', backing.index);
  const queryable = idx.get('queryable') ?? indexEntry?.fields.get('active') === true;
  if (!indexEntry || indexEntry.ts instanceof TxnTime || queryable !== true || indexEntry.fields.get('active') !== true)
    throw new QueryError('invalid_index_invocation', `The index \`${coll}.${index}\` is not queryable.`, pos);
  const d = indexDefOf(db, indexEntry);
  if (schema.migrating.has(Number(entry!.id)) && staleUnder(await pendingSteps(ctx, db, Number(entry!.id)), d))
    throw new QueryError('invalid_index_invocation', `The index \`${coll}.${index}\` is not queryable.`, pos);
  const prefix = termsPrefix(d, terms);
  const from = range.from ? cursorBound(d, terms, range.from) : prefix;
  const to = range.to ? prefixEnd(cursorBound(d, terms, range.to)) : prefix.length ? prefixEnd(prefix) : undefined;
  return { def: d, from, to };
}

/** The steps of the collection's background migration (none: it is not migrating). */
async function pendingSteps(ctx: TxnContext, db: bigint, coll: number): Promise<Migration[]> {
  const state = await readMigration(ctx.txn, db, coll);
  return state === undefined ? [] : state.pushes.flatMap((p) => p.steps);
}

/** An index whose entries the pending migration `steps` change: not queryable until it is done. */
function staleUnder(steps: ReadonlyArray<Migration>, def: IndexDef): boolean {
  if (steps.length === 0) return false;
  // A computed field may read any field.
  return [...def.terms, ...def.values].some((f) => f.binding !== undefined || (f.field?.[0] === 'data' && stepsTouch(steps, f.field.slice(1))));
}

async function collectionEntry(ctx: TxnContext, db: bigint, name: string, pos: Position): Promise<SchemaEntry> {
  const entry = (await schemaOf(ctx, db)).get('collections', name);
  if (!entry) throw errors.notFound('Collection not found.', pos);
  return entry;
}

/** The fields a v10 definition write may set: read-only ones (`coll`, `ts`) are the language's to refuse. */
function readWritable(params: Obj): Obj {
  const out: Obj = new Map(params);
  for (const k of ['coll', 'ts', 'backingIndexes']) out.delete(k);
  return out;
}
