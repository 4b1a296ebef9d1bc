// A collection's data migrations (the core's repo/schema/migration/Migration.scala): the steps a
// schema update derives from its `migrations` block, and how each rewrites a document's data.
// Paths are within `data`. Types are signatures (parsed when a step runs), values plain values.
//
// The core writes a document's schema version beside each version and migrates lazily on read,
// rewriting versions in the background (MigrationTask), or in the updating transaction when the
// collection is small (MigrationTask.Sync). Flora always does the latter, up to MAX_SYNC_VERSIONS:
// every version keeps its time, and index entries and their history follow (rewriteIndexHistory).

import { errors, type Position } from '../../values/errors';
import { Ref, type Obj, type Value } from '../../values/types';
import { NATIVE_IDS, type SchemaEntry } from '../catalog';
import type { TxnContext } from '../context';
import { rewriteIndexHistory } from '../indexHistory';
import { isOfType } from './schemaType';
import { parseSignature } from './signature';
import type { Version } from '../../storage/types';

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

/** The most document versions a collection may have for its migration to run in the updating transaction. */
export const MAX_SYNC_VERSIONS = 10_000;

/** `data` migrated by `steps`, in order (a new object; `data` is not changed). */
export function migrateData(data: Obj, steps: ReadonlyArray<Migration>): Obj {
  let out = data;
  // What `add` steps displaced, by path within data, until a `move_conflicts` takes it.
  let conflicts: [string, Value][] = [];
  for (const m of steps) {
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
        conflicts = [];
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
 * `steps`, keeping each version's time; refused past MAX_SYNC_VERSIONS versions.
 */
export async function migrateDocuments(ctx: TxnContext, db: bigint, coll: SchemaEntry, steps: ReadonlyArray<Migration>, pos: Position): Promise<void> {
  if (steps.length === 0) return;
  const collId = Number(coll.id);
  const docs: { id: bigint; versions: Version[] }[] = [];
  let count = 0;
  for await (const doc of ctx.txn.scan(db, collId, { withDeleted: true })) {
    const versions: Version[] = [];
    for await (const v of ctx.txn.history({ db, coll: collId, id: doc.id })) versions.push(v);
    count += versions.length;
    if (count > MAX_SYNC_VERSIONS)
      throw errors.invalidArgument(`Collection \`${coll.name}\` has more than ${MAX_SYNC_VERSIONS} document versions, more than Flora migrates in one schema update.`, pos);
    docs.push({ id: doc.id, versions });
  }
  const collRef = new Ref(coll.name, new Ref('collections'), undefined, { db, coll: NATIVE_IDS.collections, id: coll.id });
  for (const { id, versions } of docs) {
    const key = { db, coll: collId, id };
    let changed = false;
    for (const v of versions) {
      const data = v.data?.get('data');
      if (typeof v.ts !== 'bigint' || !(data instanceof Map)) continue;
      const migrated = migrateData(data, steps);
      if (migrated === data) continue;
      await ctx.txn.putVersionAt(key, v.ts, v.action, new Map([...v.data!, ['data', migrated]]));
      changed = true;
    }
    if (!changed) continue;
    const after: Version[] = [];
    for await (const v of ctx.txn.history(key)) after.push(v);
    await rewriteIndexHistory(ctx, db, coll, new Ref(String(id), collRef, undefined, key), versions, after, pos);
  }
}
