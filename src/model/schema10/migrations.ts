// A collection's data migrations (the core's repo/schema/migration/Migration.scala): the steps a
// schema update derives from its `migrations` block, and how each rewrites a document's data.
// Paths are within `data`. Types are signatures (parsed when a step runs), values plain values.
//
// The core writes a document's schema version beside each version and migrates lazily on read,
// rewriting versions in the background (MigrationTask), or in the updating transaction when the
// collection is small (MigrationTask.Sync). Flora does the latter up to MAX_SYNC_VERSIONS, and
// past it (or while an earlier migration of the collection still runs) records the steps for
// the background (migrationState.ts), readers seeing documents migrated meanwhile
// (migrationView.ts). Either way every version keeps its time, and index entries and their
// history follow (rewriteIndexHistory).

import { errors, type Position } from '../../values/errors';
import { Ref, type Obj, type Value } from '../../values/types';
import { NATIVE_IDS, schemaConflictKey, type SchemaEntry } from '../catalog';
import type { TxnContext } from '../context';
import { rewriteIndexHistory } from '../indexHistory';
import { isBackingIndex } from './backing';
import { isOfType } from './schemaType';
import { parseSignature } from './signature';
import type { Version } from '../../storage/types';
import { addMigration, endMigration, levelOf, pushCommits, readMigration, readProgress, stepsFrom, writeProgress } from './migrationState';
import { asStored } from './migrationView';
import { schemaOf } from '../resolve';
import { indexesFor } from '../indexMaintenance';
import type { IndexDef } from '../indexDef';

export type FieldPath = readonly string[];

export type Migration =
  /** Sets `path` to `value` (null: nothing); a value already there that is not of `type` goes to the conflicts. */
  | { readonly kind: 'add'; readonly path: FieldPath; readonly type: string; readonly value: Value }
  | { readonly kind: 'drop'; readonly path: FieldPath }
  | { readonly kind: 'move'; readonly from: FieldPath; readonly to: FieldPath }
  /** Moves what `add` steps displaced into the object at `into`. */
  | { readonly kind: 'move_conflicts'; readonly into: FieldPath }
  /** A value of `field` not of `type` moves to `spill`; each left empty gets its backfill. */
  | { readonly kind: 'split'; readonly field: FieldPath; readonly spill: FieldPath; readonly type: string; readonly fieldBackfill: Value; readonly spillBackfill: Value }
  /** Top-level fields not in `keep` move into the object at `into`. */
  | { readonly kind: 'move_wildcard'; readonly into: FieldPath; readonly keep: readonly string[] };

/** A step that would overwrite a value (the core's IllegalStateException): the schema update is refused. */
export class MigrationConflict extends Error {}

/**
 * The most document versions a collection may have for its migration to run in the updating
 * transaction (tests lower it with FLORA_TEST_MIGRATE_SYNC_VERSIONS).
 */
export const MAX_SYNC_VERSIONS = Number(process.env.FLORA_TEST_MIGRATE_SYNC_VERSIONS) || 10_000;

/**
 * `data` migrated by `steps`, in order (a new object; `data` is not changed). `lenient`: a step
 * that would overwrite a value is skipped rather than refused (a migration in the background,
 * whose schema update has committed: the core fails such a read).
 */
export function migrateData(data: Obj, steps: ReadonlyArray<Migration>, lenient = false): Obj {
  let out = data;
  // What `add` steps displaced, by path within data, until a `move_conflicts` takes it.
  let conflicts: [string, Value][] = [];
  for (const m of steps) {
    try {
      out = step(out, m, conflicts);
    } catch (e) {
      if (!(lenient && e instanceof MigrationConflict)) throw e;
    }
    if (m.kind === 'move_conflicts') conflicts = [];
  }
  return out;
}

/** One step of migrateData; `conflicts` collects what `add` displaces. */
function step(data: Obj, m: Migration, conflicts: [string, Value][]): Obj {
  let out = data;
  switch (m.kind) {
    case 'add': {
      for (let i = 1; i < m.path.length; i++) if (get(out, m.path.slice(0, i)) === undefined) out = put(out, m.path.slice(0, i), new Map());
      const prev = get(out, m.path);
      if (prev !== undefined) {
        if (isOfType(parseSignature(m.type), prev)) break;
        out = remove(out, m.path);
        conflicts.push([m.path.join('.'), prev]);
      }
      if (m.value !== null) out = put(out, m.path, m.value);
      break;
    }
    case 'drop':
      out = remove(out, m.path);
      break;
    case 'move': {
      if (get(out, m.to) !== undefined) throw new MigrationConflict(`Refusing to overwrite existing field at ${m.to.join('.')}`);
      const v = get(out, m.from);
      if (v !== undefined) out = put(remove(out, m.from), m.to, v);
      break;
    }
    case 'move_conflicts': {
      if (conflicts.length === 0) break;
      const into = get(out, m.into);
      if (into !== undefined && !(into instanceof Map)) throw new MigrationConflict(`Refusing to overwrite existing non-struct at ${m.into.join('.')}`);
      const target: Obj = new Map(into ?? []);
      for (const [name, v] of conflicts) target.set(freeName(target, name), v);
      out = put(out, m.into, target);
      break;
    }
    case 'split': {
      if (get(out, m.spill) !== undefined) throw new MigrationConflict(`Refusing to overwrite existing field at ${m.spill.join('.')}`);
      const prev = get(out, m.field) ?? null;
      if (prev !== null && !isOfType(parseSignature(m.type), prev)) {
        out = remove(out, m.field);
        if (m.fieldBackfill !== null) out = put(out, m.field, m.fieldBackfill);
        out = put(out, m.spill, prev);
      } else {
        if (prev === null && m.fieldBackfill !== null) out = put(out, m.field, m.fieldBackfill);
        if (m.spillBackfill !== null) out = put(out, m.spill, m.spillBackfill);
      }
      break;
    }
    case 'move_wildcard': {
      const keep = new Set(m.keep);
      const moved = [...out].filter(([k]) => !keep.has(k));
      if (moved.length === 0) break;
      const into = get(out, m.into);
      if (into !== undefined && !(into instanceof Map)) throw new MigrationConflict(`Refusing to overwrite existing into field at ${m.into.join('.')}`);
      const target: Obj = new Map(into ?? []);
      // Fewer leading underscores first, so that renamed names are the same whatever the order.
      const lead = (s: string) => s.length - s.replace(/^_+/, '').length;
      const renamed = new Map<string, string>();
      for (const [name] of [...moved].sort((a, b) => lead(a[0]) - lead(b[0]))) {
        const free = freeName(target, name);
        renamed.set(name, free);
        target.set(free, null);
      }
      for (const [name, v] of moved) target.set(renamed.get(name)!, v);
      out = new Map([...out].filter(([k]) => keep.has(k)));
      out = put(out, m.into, target);
      break;
    }
  }
  return out;
}

/** `name`, or with as many leading underscores as it takes not to be in `obj`. */
function freeName(obj: Obj, name: string): string {
  let n = name;
  while (obj.has(n)) n = `_${n}`;
  return n;
}

function get(data: Obj, path: FieldPath): Value | undefined {
  let v: Value | undefined = data;
  for (const k of path) {
    if (!(v instanceof Map)) return undefined;
    v = v.get(k);
  }
  return v;
}

/** `data` with `value` at `path` (parents made objects as needed). */
function put(data: Obj, path: FieldPath, value: Value): Obj {
  const [head, ...rest] = path;
  const out: Obj = new Map(data);
  if (rest.length === 0) out.set(head, value);
  else {
    const child = data.get(head);
    out.set(head, put(child instanceof Map ? child : new Map(), rest, value));
  }
  return out;
}

function remove(data: Obj, path: FieldPath): Obj {
  const [head, ...rest] = path;
  if (!data.has(head)) return data;
  const out: Obj = new Map(data);
  if (rest.length === 0) out.delete(head);
  else {
    const child = data.get(head);
    if (child instanceof Map) out.set(head, remove(child, rest));
  }
  return out;
}

/**
 * Rewrites every version of every document of `coll` (its entry as the update leaves it) with
 * `steps`, keeping each version's time; past MAX_SYNC_VERSIONS versions, or while an earlier
 * migration of `coll` still runs, leaves the rewrite to the background (ctx.migrations).
 */
export async function migrateDocuments(ctx: TxnContext, db: bigint, coll: SchemaEntry, steps: ReadonlyArray<Migration>, pos: Position): Promise<void> {
  if (steps.length === 0) return;
  const collId = Number(coll.id);
  const docs = (await readMigration(ctx.txn, db, collId)) ? undefined : await asStored(ctx, () => smallHistory(ctx, db, collId));
  if (docs === undefined) {
    await refuseV4Indexes(ctx, db, coll, pos);
    await addMigration(ctx.txn, db, collId, steps);
    ctx.migrations.push({ db, coll: collId });
    return;
  }
  for (const { id, versions } of docs) await rewriteDocument(ctx, db, coll, id, versions, (data) => migrateData(data, steps), pos);
}

/** Every document of `coll` with its versions, unless they are more than MAX_SYNC_VERSIONS. */
async function smallHistory(ctx: TxnContext, db: bigint, coll: number): Promise<{ id: bigint; versions: Version[] }[] | undefined> {
  const docs: { id: bigint; versions: Version[] }[] = [];
  let count = 0;
  for await (const doc of ctx.txn.scan(db, coll, { withDeleted: true })) {
    const versions: Version[] = [];
    for await (const v of ctx.txn.history({ db, coll, id: doc.id })) versions.push(v);
    count += versions.length;
    if (count > MAX_SYNC_VERSIONS) return undefined;
    docs.push({ id: doc.id, versions });
  }
  return docs;
}

/**
 * v4 indexes would serve entries of documents not migrated yet, so the core refuses migrations
 * of a collection they cover; Flora refuses only the background ones (it rewrites a small
 * collection's entries in the update).
 */
async function refuseV4Indexes(ctx: TxnContext, db: bigint, coll: SchemaEntry, pos: Position): Promise<void> {
  const schema = await schemaOf(ctx, db);
  for (const def of await indexesFor(ctx, db, coll.name)) {
    if (!isBackingIndex(schema.getById('indexes', BigInt(def.id))?.fields))
      throw errors.invalidArgument(`Cannot create migrations on a collection with v4 indexes: collection \`${coll.name}\` has more than ${MAX_SYNC_VERSIONS} document versions, which Flora migrates in the background.`, pos);
  }
}

/** Rewrites the stored `versions` of document `id` with `migrate` (undefined: unchanged), and its index history. */
async function rewriteDocument(
  ctx: TxnContext,
  db: bigint,
  coll: SchemaEntry,
  id: bigint,
  versions: Version[],
  migrate: (data: Obj, v: Version) => Obj | undefined,
  pos: Position,
  duplicate?: (def: IndexDef) => void,
): Promise<void> {
  const key = { db, coll: Number(coll.id), id };
  let changed = false;
  for (const v of versions) {
    const data = v.data?.get('data');
    if (typeof v.ts !== 'bigint' || !(data instanceof Map)) continue;
    const migrated = migrate(data, v);
    if (migrated === undefined || migrated === data) continue;
    await ctx.txn.putVersionAt(key, v.ts, v.action, new Map([...v.data!, ['data', migrated]]));
    changed = true;
  }
  if (!changed) return;
  const after: Version[] = [];
  for await (const v of ctx.txn.history(key)) after.push(v);
  const collRef = new Ref(coll.name, new Ref('collections'), undefined, { db, coll: NATIVE_IDS.collections, id: coll.id });
  await rewriteIndexHistory(ctx, db, coll, new Ref(String(id), collRef, undefined, key), versions, after, pos, duplicate);
}

/** One batch of a background migration: what it did, and whether the collection is done. */
export interface MigrationBatch {
  /** The collection's. */
  readonly name: string;
  readonly done: number;
  readonly finished: boolean;
  /** For the server log: unique constraints the batch found violated (and marked failed). */
  readonly warnings?: string[];
}

/**
 * Rewrites the next `size` documents of collection `collId` migrating in the background (one
 * transaction of the background work); the last batch forgets the migration.
 */
export function migrateBatch(ctx: TxnContext, db: bigint, collId: number, size: number): Promise<MigrationBatch> {
  return asStored(ctx, async () => {
    const state = await readMigration(ctx.txn, db, collId);
    const coll = (await schemaOf(ctx, db)).getById('collections', BigInt(collId));
    if (state === undefined || coll === undefined) {
      // Done already, or the collection is gone.
      if (state !== undefined) await endMigration(ctx.txn, db, collId);
      return { name: coll?.name ?? String(collId), done: 0, finished: true };
    }
    const commits = await pushCommits(ctx.txn, db, collId, state);
    const progress = await readProgress(ctx.txn, db, collId);
    const floor = progress.floors[progress.floors.length - 1];
    const target = state.pushes.length;
    let budget = size;
    const duplicates = new Map<number, { def: IndexDef; ids: bigint[] }>();
    const finish = async (finished: boolean): Promise<MigrationBatch> => {
      const warnings = await failUniqueConstraints(ctx, db, coll, duplicates);
      return { name: coll.name, done: progress.done, finished, ...(warnings.length ? { warnings } : {}) };
    };
    for await (const doc of ctx.txn.scan(db, collId, { withDeleted: true, fromId: floor.upTo })) {
      if (budget-- === 0) {
        floor.upTo = doc.id;
        writeProgress(ctx.txn, db, collId, progress);
        return finish(false);
      }
      const versions: Version[] = [];
      for await (const v of ctx.txn.history({ db, coll: collId, id: doc.id })) versions.push(v);
      await rewriteDocument(ctx, db, coll, doc.id, versions, (data, v) => {
        const level = levelOf(progress, commits, doc.id, v.ts as bigint);
        return level < target ? migrateData(data, stepsFrom(state, level), true) : undefined;
      }, [], (def) => {
        const d = duplicates.get(def.id) ?? { def, ids: [] };
        d.ids.push(doc.id);
        duplicates.set(def.id, d);
      });
      progress.done++;
    }
    await endMigration(ctx.txn, db, collId);
    return finish(true);
  });
}

/**
 * A background rewrite that gives a document the value another already has under a unique
 * constraint cannot refuse (its schema update committed), so it keeps both and marks the
 * constraint's index failed, as the core does when the build of a unique index finds duplicates:
 * the definition shows the constraint `failed`, and writes go on being checked against it.
 */
async function failUniqueConstraints(ctx: TxnContext, db: bigint, coll: SchemaEntry, duplicates: Map<number, { def: IndexDef; ids: bigint[] }>): Promise<string[]> {
  const warnings: string[] = [];
  const schema = await schemaOf(ctx, db);
  for (const [index, { def, ids }] of duplicates) {
    const entry = schema.getById('indexes', BigInt(index));
    if (entry && entry.fields.get('failed') !== true) {
      ctx.txn.putVersion({ db, coll: NATIVE_IDS.indexes, id: BigInt(index) }, 'update', new Map([...entry.fields, ['failed', true]]));
      ctx.txn.writeConflictKey(schemaConflictKey(db));
    }
    const fields = def.terms.map((t) => (t.field?.[0] === 'data' ? '.' + t.field.slice(1).join('.') : t.field?.join('.') ?? '(computed)')).join(', ');
    const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
    warnings.push(`collection ${coll.name}: unique constraint [${fields}] failed: the migration gave document${ids.length > 1 ? 's' : ''} ${shown} a value another document has`);
  }
  return warnings;
}

/**
 * Whether `steps` may change what is at `path` (within data): an index over such a path serves
 * stale entries until the documents are rewritten (the core rebuilds such an index).
 */
export function stepsTouch(steps: ReadonlyArray<Migration>, path: ReadonlyArray<string | number>): boolean {
  const p = path.map(String);
  const overlaps = (q: FieldPath) => q.every((k, i) => i >= p.length || p[i] === k);
  return steps.some((m) => {
    switch (m.kind) {
      case 'add':
      case 'drop':
        return overlaps(m.path);
      case 'move':
        return overlaps(m.from) || overlaps(m.to);
      case 'move_conflicts':
        return overlaps(m.into);
      case 'split':
        return overlaps(m.field) || overlaps(m.spill);
      case 'move_wildcard':
        return p.length === 0 || !m.keep.includes(p[0]) || overlaps(m.into);
    }
  });
}
