// Database tree operations: moving a database, naming a database relative to the caller or by its id.

import type { TxnContext } from './context';
import type { Txn } from '../storage/types';
import { errors, QueryError, type Position } from '../values/errors';
import { Ref, TxnTime, type Obj } from '../values/types';
import { dbParentKey, encodeDbId, parentOf } from './auth';
import { NATIVE_IDS, schemaConflictKey, type Catalog } from './catalog';
import { render } from './documents';
import { allowed } from './permissions';
import { schemaOf, type Target } from './resolve';

/**
 * Names of database `db` from the top, found by walking its parents; undefined once it, or a
 * database above it, has been deleted (a deleted database's id is never given to another).
 */
export async function pathOfDatabase(catalog: Catalog, txn: Txn, db: bigint): Promise<string[] | undefined> {
  const names: string[] = [];
  for (let current = db; current !== 0n; ) {
    const parent = await parentOf(txn, current);
    if (parent === undefined) return undefined;
    const entry = (await catalog.schema(txn, parent, false)).getById('databases', current);
    if (!entry) return undefined;
    names.unshift(entry.name);
    current = parent;
  }
  return names;
}

/**
 * A database flag (`protected`, `typechecked`) as database `db` has it: its own setting, else the
 * nearest ancestor's (Database.foldAncestors); undefined when none sets it (the top has no document).
 */
export async function inheritedDatabaseFlag(ctx: TxnContext, db: bigint, flag: 'protected' | 'typechecked'): Promise<boolean | undefined> {
  for (let current = db; current !== 0n; ) {
    const parent = await parentOf(ctx.txn, current);
    if (parent === undefined) return undefined;
    const v = (await schemaOf(ctx, parent)).getById('databases', current)?.fields.get(flag);
    if (typeof v === 'boolean') return v;
    current = parent;
  }
  return undefined;
}

/**
 * The ref by which the caller (acting in ctx.scope.db) names database `db`: undefined for the
 * caller's own database, a nested Database ref for descendants, null when `db` is not below it.
 */
export async function dbRefFromCaller(ctx: TxnContext, db: bigint): Promise<Ref | undefined | null> {
  const chain: bigint[] = [];
  let current: bigint | undefined = db;
  while (current !== undefined && current !== ctx.scope.db) {
    chain.unshift(current);
    current = await parentOf(ctx.txn, current);
  }
  if (current === undefined) return null;
  let ref: Ref | undefined;
  let parent = ctx.scope.db;
  for (const id of chain) {
    const entry = (await schemaOf(ctx, parent)).getById('databases', id);
    if (!entry) return null;
    ref = Ref.schema('databases', entry.name, ref);
    parent = id;
  }
  return ref;
}

export async function moveDatabase(
  ctx: TxnContext,
  source: Target & { kind: 'schema' },
  dest: Target & { kind: 'schema' },
  destRef: Ref,
  pos: Position,
): Promise<Obj> {
  ctx.assertWritable(pos);
  const src = source.entry!;
  const to = dest.entry!;
  const fail = (reason: string) =>
    new QueryError('move database error', `Cannot move database '${src.name}' into parent '${to.name}': ${reason}`, pos);
  for (let cur: bigint | undefined = to.id; cur !== undefined; cur = await parentOf(ctx.txn, cur)) {
    if (cur === src.id) throw fail('Cannot move database from ancestor to descendant.');
  }
  // Unlike other writes, a move takes scoped refs on both sides (a database anywhere below the
  // caller moves up or down the tree): the core checks only the caller's right to delete the
  // source (MoveDatabaseFunction), no scoped-ref rule. Flora also asks `create` on the destination.
  if (!(await allowed(ctx, 'delete', source))) throw errors.permissionDenied(pos);
  if (!(await allowed(ctx, 'create', dest))) throw errors.permissionDenied(pos);
  if ((await schemaOf(ctx, to.id)).get('databases', src.name)) throw fail('a database with that name already exists.');
  const fields = src.fields;
  ctx.txn.putVersion({ db: source.db, coll: NATIVE_IDS.databases, id: src.id }, 'delete', null);
  ctx.txn.putVersion({ db: to.id, coll: NATIVE_IDS.databases, id: src.id }, 'create', fields);
  ctx.txn.putMeta(dbParentKey(src.id), encodeDbId(to.id));
  for (const db of [source.db, to.id]) {
    ctx.schemaChanged(db);
    ctx.txn.writeConflictKey(schemaConflictKey(db));
  }
  ctx.secretsChanged = true;
  const moved: Target = { kind: 'schema', db: to.id, native: 'databases', name: src.name, entry: { ...src, ts: TxnTime.instance }, scoped: true };
  return render(moved, destRef, {
    key: { db: to.id, coll: NATIVE_IDS.databases, id: src.id },
    version: { ts: TxnTime.instance, action: 'create', data: fields },
  });
}
