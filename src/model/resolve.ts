// Turns symbolic refs into internal addresses, relative to the caller's database.

import type { TxnContext } from './context';
import { errors, type Position } from '../values/errors';
import { ADDR_NATIVE, isNativeName, nativeById, Ref, TxnTime, type NativeName, type RefAddr } from '../values/types';
import { NATIVE_IDS, type DbSchema, type NamedNative, type SchemaEntry } from './catalog';

export type Target =
  /** A native collection itself, e.g. Collections() or Keys(). */
  | { kind: 'native'; db: bigint; native: NativeName; scoped: boolean }
  /** A named schema document (collection, index, database, …); `entry` is absent if it does not exist. */
  | {
      kind: 'schema';
      db: bigint;
      native: NamedNative;
      name: string;
      entry?: SchemaEntry;
      scoped: boolean;
      /** Set when an index's entries (a Match) are read rather than its definition document. */
      entries?: boolean;
    }
  /** A key, token or credentials document. */
  | { kind: 'secretDoc'; db: bigint; native: 'keys' | 'tokens' | 'credentials'; id: bigint; self: boolean; scoped: boolean }
  /** A document in a user collection. */
  | { kind: 'doc'; db: bigint; coll: SchemaEntry; id: bigint; scoped: boolean };

export function schemaOf(ctx: TxnContext, db: bigint): Promise<DbSchema> {
  return ctx.catalog.schema(ctx.txn, db, ctx.schemaWrites.has(db));
}

/**
 * Whether schema item `entry` of `db` was created by this transaction: no committed version
 * precedes its own. The v10 core resolves names in the schema as the query began (Cache and the
 * query's environment), so such an item is not yet callable there.
 */
export async function createdInTxn(ctx: TxnContext, db: bigint, entry: SchemaEntry): Promise<boolean> {
  if (!(entry.ts instanceof TxnTime)) return false;
  for await (const v of ctx.txn.history({ db, coll: NATIVE_IDS[entry.native], id: entry.id }, { reverse: true }))
    if (!(v.ts instanceof TxnTime)) return v.action === 'delete';
  return true;
}

/** `db`'s schema as of `at` (µs): the current one for undefined or a time at or past the snapshot. */
export function schemaAsOf(ctx: TxnContext, db: bigint, at: bigint | undefined): Promise<DbSchema> {
  return at === undefined || at >= ctx.txn.snapshotTs ? schemaOf(ctx, db) : ctx.catalog.schemaAt(ctx.txn, db, at);
}

/** Resolves a database ref chain to the scope id of that database. */
export async function resolveDb(ctx: TxnContext, dbRef: Ref | undefined, pos: Position): Promise<bigint> {
  if (!dbRef) return ctx.scope.db;
  if (dbRef.nativeParent !== 'databases') throw errors.invalidRef('Invalid ref.', pos);
  const parent = await resolveDb(ctx, dbRef.database, pos);
  const entry = (await schemaOf(ctx, parent)).get('databases', dbRef.id);
  if (!entry) throw errors.invalidRef(`Ref refers to undefined database '${dbRef.id}'`, pos);
  return entry.id;
}

/** Parses a document id: an all-digit string that fits a signed 64-bit long. */
export function parseDocId(id: string, pos: Position): bigint {
  if (!/^\d+$/.test(id))
    throw errors.invalidArgument(`Number or numeric String expected, non-numeric '${id}' provided.`, pos);
  const n = BigInt(id);
  if (n > 9223372036854775807n) throw errors.invalidArgument(`The id provided is too large: '${id}'`, pos);
  return n;
}

export async function resolveRef(ctx: TxnContext, ref: Ref, pos: Position): Promise<Target> {
  if (ref.addr) return resolveAddr(ctx, ref, ref.addr, pos);
  if (ref.collection === undefined) {
    if (!isNativeName(ref.id)) throw errors.invalidRef(`Valid native collection name expected, '${ref.id}' provided.`, pos);
    return { kind: 'native', db: await resolveDb(ctx, ref.database, pos), native: ref.id, scoped: !!ref.database };
  }
  const parent = ref.collection;
  if (parent.collection === undefined) {
    // A document of a native collection: its database scope is on the ref itself or on the native ref.
    const dbRef = ref.database ?? parent.database;
    const db = await resolveDb(ctx, dbRef, pos);
    const native = parent.id;
    if (native === 'keys' || native === 'tokens' || native === 'credentials') {
      const self = ref.id === 'self';
      return { kind: 'secretDoc', db, native, id: self ? 0n : parseDocId(ref.id, pos), self, scoped: !!dbRef };
    }
    if (!isNativeName(native)) throw errors.invalidRef(`Valid native collection name expected, '${native}' provided.`, pos);
    const named = native as NamedNative;
    const entry = (await schemaOf(ctx, db)).get(named, ref.id);
    return { kind: 'schema', db, native: named, name: ref.id, entry, scoped: !!dbRef };
  }
  // A user document: Ref(id, Ref(collName, Collections(), db?)).
  if (parent.nativeParent !== 'collections') throw errors.invalidRef('Invalid ref.', pos);
  const db = await resolveDb(ctx, parent.database, pos);
  const coll = (await schemaOf(ctx, db)).get('collections', parent.id);
  if (!coll) throw errors.invalidRef(`Ref refers to undefined collection '${parent.id}'`, pos);
  return { kind: 'doc', db, coll, id: parseDocId(ref.id, pos), scoped: !!parent.database };
}

/**
 * A ref read from storage goes by its address, not its names: right after a rename, under `At`,
 * and when its name now belongs to something else. One whose target is gone is not found.
 */
async function resolveAddr(ctx: TxnContext, ref: Ref, addr: RefAddr, pos: Position): Promise<Target> {
  if (ref.dangling) throw errors.notFound('Document not found.', pos);
  const { db, coll, id } = addr;
  const scoped = db !== ctx.scope.db;
  if (coll === ADDR_NATIVE) {
    const native = nativeById(id);
    if (native === undefined) throw errors.invalidRef('Invalid ref.', pos);
    return { kind: 'native', db, native, scoped };
  }
  const native = nativeById(coll);
  if (native === 'keys' || native === 'tokens' || native === 'credentials') return { kind: 'secretDoc', db, native, id, self: false, scoped };
  const schema = await schemaOf(ctx, db);
  if (native !== undefined) {
    const named = native as NamedNative;
    const entry = schema.getById(named, id);
    return { kind: 'schema', db, native: named, name: entry?.name ?? ref.id, entry, scoped };
  }
  const entry = schema.getById('collections', BigInt(coll));
  if (!entry) throw errors.notFound('Document not found.', pos);
  return { kind: 'doc', db, coll: entry, id, scoped };
}

/**
 * A name that resolves to no schema document makes an unresolved ref (Fauna's `UnresolvedRefL`):
 * reading, writing or storing it is `invalid ref` at the ref's argument (fql-v4.md §1.9), not a 404.
 */
export function assertResolved(t: Target, pos: Position): void {
  if (t.kind === 'schema' && !t.entry) throw errors.invalidRef(`Ref refers to undefined ${SINGULAR[t.native]} '${t.name}'`, pos);
}

/** The address of a resolved target; undefined for a schema document that does not exist. */
export function addrOfTarget(t: Target): RefAddr | undefined {
  switch (t.kind) {
    case 'native':
      return { db: t.db, coll: ADDR_NATIVE, id: BigInt(NATIVE_IDS[t.native]) };
    case 'schema':
      return t.entry ? { db: t.db, coll: NATIVE_IDS[t.native], id: t.entry.id } : undefined;
    case 'secretDoc':
      return { db: t.db, coll: NATIVE_IDS[t.native], id: t.id };
    case 'doc':
      return { db: t.db, coll: Number(t.coll.id), id: t.id };
  }
}

/** Resolves a ref that must name an existing collection (Documents, Create). */
export async function resolveCollection(ctx: TxnContext, ref: Ref, pos: Position): Promise<Target> {
  const t = await resolveRef(ctx, ref, pos);
  if (t.kind === 'schema' && t.native === 'collections' && !t.entry)
    throw errors.invalidRef(`Ref refers to undefined collection '${t.name}'`, pos);
  return t;
}

export function nativeCollId(native: NativeName): number {
  return NATIVE_IDS[native];
}

/** The ref a caller sees for database `db` when it acts in `from` (undefined when not a descendant). */
export const SINGULAR: Record<NativeName, string> = {
  databases: 'database',
  collections: 'collection',
  indexes: 'index',
  functions: 'function',
  roles: 'role',
  access_providers: 'access_provider',
  keys: 'key',
  tokens: 'token',
  credentials: 'credentials',
};
