// Reading and writing documents of every kind: user documents and the native schema/key documents.
// Results are rendered as FQL documents: {ref, ts, …fields}.

import { addressed } from './addresses';
import { checkMinValidTime, noteTtl } from './retention';
import { rewriteIndexHistory } from './indexHistory';
import type { TxnContext } from './context';
import type { DocKey, Version } from '../storage/types';
import { errors, QueryError, type Position } from '../values/errors';
import { EventObj, Ref, Time, TxnTime, type Obj, type Value } from '../values/types';
import { NATIVE_IDS, schemaConflictKey, type NamedNative } from './catalog';
import { deepMerge, Failures, stripNulls } from './data';
import { newId } from './ids';
import { keyType, NATIVE_TYPES, type CreatedFields, type NativeType } from './nativeTypes';
import { PendingDoc } from './lambdaLanguage';
import { checkAccess, usesRoles, allowed } from './permissions';
import { maintainIndexes, maintainNativeIndexes, type DocState } from './indexMaintenance';
import { addrOfTarget, assertResolved, resolveRef, schemaOf, type Target } from './resolve';
import { checkedFields, runChecks } from './schema10/enforce';
import { BACKING_MARKS, dropBackingIndexes, syncBackingIndexes, type IndexWriter } from './schema10/backing';
import { writingCurrentAt } from './schema10/migrationView';
import { indexType } from './indexSchema';
import { credentialsOf, credentialsParam, identityKeyIn, setPassword } from './credentialsType';

export interface StoredDoc {
  key: DocKey;
  version: Version;
}

/** The database ref that scopes a ref, wherever it sits on that ref's shape. */
export function dbRefOf(ref: Ref): Ref | undefined {
  if (ref.collection === undefined) return ref.database;
  if (ref.collection.collection === undefined) return ref.database ?? ref.collection.database;
  return ref.collection.database;
}

/** The canonical ref of a target, scoped like the ref the caller used. */
export function refOf(t: Target, dbRef: Ref | undefined): Ref {
  const addr = addrOfTarget(t);
  switch (t.kind) {
    case 'native':
      return new Ref(t.native, undefined, dbRef, addr);
    case 'schema':
      return new Ref(t.entry?.name ?? t.name, new Ref(t.native), dbRef, addr);
    case 'secretDoc':
      return new Ref(String(t.id), Ref.native(t.native, dbRef), undefined, addr);
    case 'doc': {
      const coll = new Ref(t.coll.name, new Ref('collections'), dbRef, { db: t.db, coll: NATIVE_IDS.collections, id: t.coll.id });
      return new Ref(String(t.id), coll, undefined, addr);
    }
  }
}

export function docKeyOf(t: Target): DocKey | undefined {
  switch (t.kind) {
    case 'doc':
      return { db: t.db, coll: Number(t.coll.id), id: t.id };
    case 'schema':
      return t.entry ? { db: t.db, coll: NATIVE_IDS[t.native], id: t.entry.id } : undefined;
    case 'secretDoc':
      return t.self ? undefined : { db: t.db, coll: NATIVE_IDS[t.native], id: t.id };
    case 'native':
      return undefined;
  }
}

function notFoundText(t: Target): string {
  switch (t.kind) {
    case 'doc':
      return 'Document not found.';
    case 'schema':
      return t.native === 'access_providers' ? 'other not found.' : `${labelOf(t.native)} not found.`;
    case 'secretDoc':
      return `${labelOf(t.native)} not found.`;
    case 'native':
      return 'Document not found.';
  }
}

const LABELS: Record<string, string> = {
  databases: 'Database',
  collections: 'Collection',
  indexes: 'Index',
  functions: 'Function',
  roles: 'Role',
  access_providers: 'other',
  keys: 'Key',
  tokens: 'Token',
  credentials: 'Credentials',
};

function labelOf(native: string): string {
  return LABELS[native] ?? 'Document';
}

/** Reads the live version of a target at `at` (default: the snapshot), or null. */
export async function readLive(ctx: TxnContext, t: Target, at?: bigint): Promise<StoredDoc | null> {
  const key = docKeyOf(t);
  if (!key) return null;
  // History retention (fql-v4.md §4.4): reads in the past stop at the collection's MVT.
  const when = at ?? ctx.readAt;
  if (when !== undefined && when < ctx.snapshotTs && t.kind === 'doc') checkMinValidTime(ctx, t.coll, when);
  const version = await ctx.txn.getVersion(key, at ?? ctx.readAt);
  if (!version || version.action === 'delete') return null;
  if (isExpired(version, at ?? ctx.readAt ?? ctx.snapshotTs)) return null;
  return { key, version };
}

/**
 * `Ref("keys/self")`, `Ref("tokens/self")`, `Ref("credentials/self")`: the caller's key, token, or
 * its identity's credentials (fql-v4.md §1.13, §6.4). Other targets are returned unchanged. One the
 * secret cannot resolve (a key asking for `tokens/self`) is `invalid expression` "Invalid ref.", as
 * Fauna's parser answers it (ast/Parser.scala transformRef), not a missing document.
 */
export async function resolveSelf(ctx: TxnContext, t: Target, pos: Position): Promise<Target> {
  if (t.kind !== 'secretDoc' || !t.self) return t;
  const scope = ctx.scope;
  let id: bigint | undefined;
  if (t.native === 'keys' && scope.key?.db === t.db) id = scope.key.id;
  else if (t.native === 'tokens' && scope.token?.db === t.db) id = scope.token.id;
  else if (t.native === 'credentials' && scope.identity && scope.token?.db === t.db) {
    const key = await identityKeyIn(ctx, t.db, scope.identity);
    id = key && (await credentialsOf(ctx, key))?.id;
  }
  if (id === undefined) throw errors.invalidExpression('Invalid ref.', pos);
  return { ...t, id, self: false };
}

/** A document whose `ttl` has passed reads as if it did not exist. */
export function isExpired(version: Version, at: bigint): boolean {
  const ttl = version.data?.get('ttl');
  return ttl instanceof Time && ttl.micros <= at;
}

export function render(t: Target, dbRef: Ref | undefined, doc: StoredDoc, once?: Obj): Obj {
  const out: Obj = new Map<string, Value>([
    ['ref', refOf(t, dbRef)],
    ['ts', doc.version.ts],
  ]);
  const fields = doc.version.data ?? new Map();
  const type = t.kind === 'doc' ? undefined : NATIVE_TYPES[nativeName(t)];
  if (type) for (const [k, v] of type.render(doc.key.id, fields, once)) out.set(k, v);
  else for (const [k, v] of fields) out.set(k, v);
  return out;
}

function nativeName(t: Target): string {
  return t.kind === 'doc' ? 'collections' : t.native;
}

/** `refPos` is where ref errors point (Get's argument); `pos` the rest (not found, permission). */
export async function getDocument(ctx: TxnContext, ref: Ref, pos: Position, at?: bigint, refPos: Position = pos): Promise<Obj> {
  const t = await resolveSelf(ctx, await resolveRef(ctx, ref, refPos), refPos);
  assertResolved(t, refPos);
  await checkAccess(ctx, 'read', t, pos);
  const doc = await readLive(ctx, t, at);
  if (!doc) throw errors.notFound(notFoundText(t), pos);
  return render(t, dbRefOf(ref), doc);
}

export async function documentExists(ctx: TxnContext, ref: Ref, pos: Position, at?: bigint): Promise<boolean> {
  if (ref.dangling) return false;
  let t: Target;
  try {
    t = await resolveRef(ctx, ref, pos);
  } catch (e) {
    if (e instanceof QueryError && e.code === 'invalid ref') return false;
    throw e;
  }
  if (t.kind === 'native') return true;
  if (t.kind === 'schema' && !t.entry) return false; // unresolved: false, whatever the permissions
  if (t.kind === 'secretDoc' && t.self) t = await resolveSelf(ctx, t, pos);
  await checkAccess(ctx, 'read', t, pos);
  return (await readLive(ctx, t, at)) !== null;
}

/** How a language checks a create. */
export interface CreateRules {
  /** A chosen id needs `create` as well as `create_with_id` (v10: WriteBroker.checkCreatePermission). */
  readonly idAlsoNeedsCreate?: boolean;
}

/** Create(collection ref | native collection ref | document ref with a chosen id, params). */
export async function createDocument(ctx: TxnContext, ref: Ref, params: Obj, pos: Position, rules: CreateRules = {}): Promise<Obj> {
  ctx.assertWritable(pos);
  const t = await resolveRef(ctx, ref, pos);
  if (t.kind === 'native') return createNative(ctx, t.db, t.native, params, pos, dbRefOf(ref), t);
  if (t.kind === 'schema') {
    if (t.native !== 'collections')
      throw errors.invalidArgument('Regular Class Ref expected, Schema Class Ref provided.', pos);
    if (!t.entry) throw errors.invalidRef(`Ref refers to undefined collection '${t.name}'`, pos);
    const target: Target = { kind: 'doc', db: t.db, coll: t.entry, id: newId(), scoped: t.scoped };
    return createUserDoc(ctx, target, params, pos, dbRefOf(ref));
  }
  if (t.kind === 'doc') return createUserDoc(ctx, t, params, pos, dbRefOf(ref), true, rules);
  throw errors.invalidArgument(`Cannot create a document with a chosen id in ${t.native}.`, pos);
}

async function createUserDoc(ctx: TxnContext, t: Target & { kind: 'doc' }, params: Obj, pos: Position, dbRef: Ref | undefined, withId = false, rules: CreateRules = {}): Promise<Obj> {
  // User roles' predicates receive the new fields (and the ref for create_with_id), so they are
  // checked once those are known.
  const roles = usesRoles(ctx.scope);
  const action = withId ? 'create_with_id' : 'create';
  if (!roles) await checkAccess(ctx, action, t, pos);
  const key = docKeyOf(t)!;
  const existing = await ctx.txn.getVersion(key, undefined, { forWrite: true });
  if (existing && existing.action !== 'delete') {
    // A generated id that is taken (a document created with that id chosen): take another.
    if (!withId) return createUserDoc(ctx, { ...t, id: newId() }, params, pos, dbRef);
    throw errors.alreadyExists('Document already exists.', pos);
  }
  const fields = await checkedFields(ctx, t.coll, await addressed(ctx, userFields(ctx, t, params, undefined, false, pos), pos), 'create', t.id, pos);
  if (roles) {
    const docRef = refOf(t, undefined);
    // A chosen id needs create_with_id, or both create and history_write (fql-v4.md §6.5).
    const viaHistory =
      withId &&
      (await allowed(ctx, 'create', t, [fields])) &&
      (await allowed(ctx, 'history_write', t, [docRef, Time.fromMicros(ctx.snapshotTs), 'create', fields.get('data') ?? null]));
    if (!viaHistory) await checkAccess(ctx, action, t, pos, [fields, docRef]);
    if (withId && !viaHistory && rules.idAlsoNeedsCreate) await checkAccess(ctx, 'create', t, pos, [fields]);
  }
  const password = credentialsParam(params, pos);
  ctx.txn.putVersion(key, 'create', fields);
  noteTtl(ctx, t.db, Number(t.coll.id), fields);
  if (password !== undefined) await setPassword(ctx, key, refOf(t, undefined), password);
  await maintainIndexes(ctx, t.db, t.coll, refOf(t, undefined), null, { ts: ctx.snapshotTs, fields }, pos);
  await runChecks(ctx, t.coll, refOf(t, undefined), 'create', t.id, pos);
  const out = render(t, dbRef, { key, version: { ts: TxnTime.instance, action: 'create', data: fields } });
  ctx.created(out);
  return out;
}

/** The stored fields of a user document: `data` and `ttl`; everything else is dropped. */
function userFields(ctx: TxnContext, t: Target & { kind: 'doc' }, params: Obj, old: Obj | undefined, replace: boolean, pos: Position): Obj {
  const f = new Failures();
  const data = params.get('data');
  if (data !== undefined && data !== null && !(data instanceof Map)) f.invalidType(['data'], data, 'Map');
  const ttl = params.get('ttl');
  if (ttl !== undefined && ttl !== null && !(ttl instanceof Time)) f.invalidType(['ttl'], ttl, 'Time');
  f.throwIfAny(pos);
  const out: Obj = new Map();
  if (old && !replace) {
    const merged = params.has('data') ? (data === null ? undefined : deepMerge(old.get('data') ?? null, data as Value)) : old.get('data');
    if (merged !== undefined) out.set('data', merged);
    const keptTtl = params.has('ttl') ? ttl : old.get('ttl');
    if (keptTtl !== undefined && keptTtl !== null) out.set('ttl', keptTtl);
  } else {
    if (data instanceof Map) out.set('data', stripNulls(data));
    if (ttl instanceof Time) out.set('ttl', ttl);
  }
  const ttlDays = t.coll.fields.get('ttl_days');
  if (!out.has('ttl') && typeof ttlDays === 'bigint')
    out.set('ttl', new Time((ctx.snapshotTs + ttlDays * 86_400_000_000n) * 1000n));
  if (!out.has('data')) out.set('data', new Map());
  return reorderUser(out);
}

function reorderUser(o: Obj): Obj {
  const out: Obj = new Map();
  if (o.has('data')) out.set('data', o.get('data') as Value);
  if (o.has('ttl')) out.set('ttl', o.get('ttl') as Value);
  return out;
}

async function createNative(ctx: TxnContext, db: bigint, native: string, params: Obj, pos: Position, dbRef: Ref | undefined, t: Target): Promise<Obj> {
  const type = NATIVE_TYPES[native];
  if (!type) throw errors.notImplemented(`create ${native}`, pos);
  // A v10 predicate gets the new document: made once, for it or for the write.
  let made: Promise<CreatedFields> | undefined;
  const make = (): Promise<CreatedFields> =>
    (made ??= type.create(ctx, db, params, pos).then(async (c) => ({ ...c, fields: await addressed(ctx, c.fields, pos) })));
  await checkAccess(ctx, 'create', t, pos, [params], async () => {
    const c = await make();
    return pendingNative(native, c.id, c.fields);
  });
  const created = await make();
  const key: DocKey = { db, coll: NATIVE_IDS[native as NamedNative], id: created.id };
  ctx.txn.putVersion(key, 'create', created.fields);
  await maintainNativeIndexes(ctx, db, native, created.id, null, { ts: ctx.snapshotTs, fields: created.fields }, pos);
  markSchemaWrite(ctx, db, native);
  if (native === 'collections') created.fields = await withBackingIndexes(ctx, key, 'create', created.fields, pos);
  const target = targetFor(db, native, created.id, created.fields, t.scoped);
  const out = render(target, dbRef, { key, version: { ts: TxnTime.instance, action: 'create', data: created.fields } }, created.once);
  ctx.created(out);
  return out;
}

/** What the v10 backing indexes of a collection (and those a staged schema builds) need to write index documents. */
export function backingIndexWriter(ctx: TxnContext, db: bigint): IndexWriter {
  return {
    async create(params, pos) {
      const created = await indexType.create(ctx, db, params, pos);
      for (const [k, v] of BACKING_MARKS) created.fields.set(k, v);
      const fields = await addressed(ctx, created.fields, pos);
      ctx.txn.putVersion({ db, coll: NATIVE_IDS.indexes, id: created.id }, 'create', fields);
      markSchemaWrite(ctx, db, 'indexes');
    },
    async remove(name, pos) {
      const entry = (await schemaOf(ctx, db)).get('indexes', name);
      if (!entry) return;
      ctx.txn.putVersion({ db, coll: NATIVE_IDS.indexes, id: entry.id }, 'delete', null);
      markSchemaWrite(ctx, db, 'indexes');
      ctx.purges.push({ db, index: Number(entry.id) });
    },
  };
}

/** A collection document just written: its backing indexes follow its v10 definition (the version is rewritten when they change). */
async function withBackingIndexes(ctx: TxnContext, key: DocKey, action: 'create' | 'update', fields: Obj, pos: Position): Promise<Obj> {
  const name = String(fields.get('name'));
  const synced = await syncBackingIndexes(ctx, key.db, name, fields, backingIndexWriter(ctx, key.db), pos);
  if (synced !== fields) {
    ctx.txn.putVersion(key, action, synced);
    markSchemaWrite(ctx, key.db, 'collections');
  }
  return synced;
}

/**
 * Writes a collection document's fields as they are (the v10 language's update/replace of a
 * definition, already merged and checked), its backing indexes following. Returns the stored fields.
 */
export async function writeCollectionFields(ctx: TxnContext, db: bigint, id: bigint, fields: Obj, pos: Position): Promise<Obj> {
  ctx.assertWritable(pos);
  const key: DocKey = { db, coll: NATIVE_IDS.collections, id };
  const stored = await addressed(ctx, fields, pos);
  ctx.txn.putVersion(key, 'update', stored);
  markSchemaWrite(ctx, db, 'collections');
  return withBackingIndexes(ctx, key, 'update', stored, pos);
}

function markSchemaWrite(ctx: TxnContext, db: bigint, native: string): void {
  if (native === 'keys' || native === 'tokens' || native === 'credentials') return;
  ctx.schemaChanged(db);
  ctx.txn.writeConflictKey(schemaConflictKey(db));
}

/** A native document a create or write is about to leave, as v10 predicates get it. */
function pendingNative(native: string, id: bigint, fields: Obj): PendingDoc {
  const named = native !== 'keys' && native !== 'tokens' && native !== 'credentials';
  return new PendingDoc(named ? Ref.schema(native, String(fields.get('name'))) : new Ref(String(id), Ref.native(native)), fields, id);
}

function targetFor(db: bigint, native: string, id: bigint, fields: Obj, scoped: boolean): Target {
  if (native === 'keys' || native === 'tokens' || native === 'credentials')
    return { kind: 'secretDoc', db, native, id, self: false, scoped };
  const name = fields.get('name');
  return {
    kind: 'schema',
    db,
    native: native as NamedNative,
    name: String(name),
    entry: { native: native as NamedNative, id, name: String(name), fields, ts: TxnTime.instance },
    scoped,
  };
}

/**
 * The indexed state of a stored version (a version written by this transaction reads at the
 * snapshot): its fields as stored, from which its index entries were derived.
 */
export function stateOf(ctx: TxnContext, doc: Pick<StoredDoc, 'version'>): DocState {
  const v = doc.version;
  return { ts: typeof v.ts === 'bigint' ? v.ts : ctx.snapshotTs, fields: (v.stored !== undefined ? v.stored : v.data) ?? new Map() };
}

/** Update (deep merge) or Replace. */
export async function writeDocument(ctx: TxnContext, ref: Ref, params: Obj, replace: boolean, pos: Position): Promise<Obj> {
  ctx.assertWritable(pos);
  const t = await resolveSelf(ctx, await resolveRef(ctx, ref, pos), pos);
  if (t.kind === 'native') throw errors.invalidArgument(`Cannot update a schema meta collection.`, pos);
  assertResolved(t, pos);
  // User roles' write predicates receive [oldFields, newFields, ref]: checked once those are known.
  const roles = usesRoles(ctx.scope);
  if (!roles) await checkAccess(ctx, 'write', t, pos);
  const doc = await readLive(ctx, t);
  if (!doc) throw errors.notFound(notFoundText(t), pos);
  const old = doc.version.data ?? new Map();
  let fields: Obj;
  const action = replace ? 'replace' : 'update';
  if (t.kind === 'doc') fields = await checkedFields(ctx, t.coll, await addressed(ctx, userFields(ctx, t, params, old, replace, pos), pos), action, t.id, pos);
  else {
    const type = nativeTypeOf(t, pos);
    // A v10 predicate gets the document as the write leaves it: made once, for it or for the write.
    let updated: Promise<Obj> | undefined;
    const update = (): Promise<Obj> => (updated ??= type.update(ctx, t.db, doc.key.id, old, params, replace, pos).then((f) => addressed(ctx, f, pos)));
    if (roles) await checkAccess(ctx, 'write', t, pos, [old, params, refOf(t, undefined)], async () => pendingNative(t.native, doc.key.id, await update()));
    fields = await update();
    markSchemaWrite(ctx, t.db, t.native);
  }
  if (roles && t.kind === 'doc') await checkAccess(ctx, 'write', t, pos, [old, fields, refOf(t, undefined)]);
  const password = t.kind === 'doc' ? credentialsParam(params, pos) : undefined;
  ctx.txn.putVersion(doc.key, 'update', fields);
  if (t.kind === 'doc') noteTtl(ctx, t.db, Number(t.coll.id), fields);
  if (password !== undefined) await setPassword(ctx, doc.key, refOf(t, undefined), password);
  if (t.kind === 'doc') {
    await maintainIndexes(ctx, t.db, t.coll, refOf(t, undefined), stateOf(ctx, doc), { ts: ctx.snapshotTs, fields }, pos);
    await runChecks(ctx, t.coll, refOf(t, undefined), action, t.id, pos);
  } else await maintainNativeIndexes(ctx, t.db, t.native, doc.key.id, stateOf(ctx, doc), { ts: ctx.snapshotTs, fields }, pos);
  if (t.kind === 'schema' && t.native === 'collections') fields = await withBackingIndexes(ctx, doc.key, 'update', fields, pos);
  const target = t.kind === 'doc' ? t : targetFor(t.db, t.native, doc.key.id, fields, t.scoped);
  return render(target, dbRefOf(ref), { key: doc.key, version: { ts: TxnTime.instance, action: 'update', data: fields } });
}

function nativeTypeOf(t: Target & { kind: 'schema' | 'secretDoc' }, pos: Position): NativeType {
  const type = NATIVE_TYPES[t.native];
  if (!type) throw errors.notImplemented(`writes to ${t.native}`, pos);
  return type;
}

/** Delete: returns the document as it was. */
export async function deleteDocument(ctx: TxnContext, ref: Ref, pos: Position): Promise<Obj> {
  ctx.assertWritable(pos);
  const t = await resolveSelf(ctx, await resolveRef(ctx, ref, pos), pos);
  if (t.kind === 'native') throw errors.invalidArgument(`Cannot delete a schema meta collection.`, pos);
  assertResolved(t, pos);
  await checkAccess(ctx, 'delete', t, pos);
  const doc = await readLive(ctx, t);
  if (!doc) throw errors.notFound(notFoundText(t), pos);
  const before = render(t, dbRefOf(ref), doc);
  if (t.kind === 'doc') await removeUserDocument(ctx, t, doc, pos);
  else {
    ctx.txn.putVersion(doc.key, 'delete', null);
    await maintainNativeIndexes(ctx, t.db, t.native, doc.key.id, stateOf(ctx, doc), null, pos);
    NATIVE_TYPES[t.native]?.onDelete?.(ctx, t.db, doc.key.id);
    markSchemaWrite(ctx, t.db, t.native);
    if (t.kind === 'schema' && t.native === 'collections') {
      await dropBackingIndexes(doc.version.data ?? new Map(), backingIndexWriter(ctx, t.db), pos);
      ctx.purges.push({ db: t.db, coll: Number(doc.key.id) });
    }
    if (t.kind === 'schema' && t.native === 'databases') ctx.purges.push({ db: doc.key.id });
    if (t.kind === 'schema' && t.native === 'indexes') ctx.purges.push({ db: t.db, index: Number(doc.key.id) });
  }
  return before;
}

/** Writes a user document's delete: its index entries and its credentials go with it. */
export async function removeUserDocument(ctx: TxnContext, t: Target & { kind: 'doc' }, doc: StoredDoc, pos: Position): Promise<void> {
  ctx.txn.putVersion(doc.key, 'delete', null);
  await maintainIndexes(ctx, t.db, t.coll, refOf(t, undefined), stateOf(ctx, doc), null, pos);
  const cred = await credentialsOf(ctx, doc.key);
  if (cred) {
    ctx.txn.putVersion({ db: t.db, coll: NATIVE_IDS.credentials, id: cred.id }, 'delete', null);
    ctx.secretsChanged = true;
  }
}

/** The schema document of a database, as the parent sees it (for MoveDatabase). */
export async function databaseEntry(ctx: TxnContext, ref: Ref, pos: Position): Promise<Target & { kind: 'schema' }> {
  const t = await resolveRef(ctx, ref, pos);
  if (t.kind !== 'schema' || t.native !== 'databases') throw errors.typeMismatch('Database Ref', 'Ref', pos);
  if (!t.entry) throw errors.invalidRef(`Ref refers to undefined database '${t.name}'`, pos);
  return t;
}

export { schemaOf };

// ---- history writes (Insert / Remove, fql-v4.md §7) -----------------------------------------------

export type HistoryAction = 'create' | 'update' | 'delete';

function historyTarget(t: Target, verb: 'insert' | 'remove', pos: Position): Target & { kind: 'doc' } {
  if (t.kind === 'doc') return t;
  assertResolved(t, pos);
  throw errors.invalidArgument(`Cannot ${verb} event for specified ref.`, pos);
}

/**
 * Insert into a key's history (fql-v4.md §7: user documents and keys): a full key version validated
 * like a Replace of the key, keeping its secret's hash; a key that never existed has no secret to
 * keep. The secret cache is dropped: the present of the key may have changed.
 */
async function insertKeyVersion(ctx: TxnContext, t: Target & { kind: 'secretDoc' }, ref: Ref, ts: bigint, action: HistoryAction, params: Obj, pos: Position): Promise<Obj> {
  const key: DocKey = { db: t.db, coll: NATIVE_IDS.keys, id: t.id };
  const stored: HistoryAction = action === 'delete' ? 'delete' : 'create';
  await checkAccess(ctx, 'history_write', t, pos, [refOf(t, undefined), Time.fromMicros(ts), action, params.get('data') ?? null]);
  let latest: Version | null = null;
  for await (const v of ctx.txn.history(key, { reverse: true })) if (v.data) {
    latest = v;
    break;
  }
  if (!latest?.data) throw errors.invalidArgument('Cannot insert event for specified ref.', pos);
  const fields = stored === 'delete' ? null : await addressed(ctx, await keyType.update(ctx, t.db, t.id, latest.data, params, true, pos), pos);
  await ctx.txn.putVersionAt(key, ts, stored, fields);
  ctx.secretsChanged = true;
  return new EventObj([
    ['ts', ts],
    ['action', stored],
    ['document', refOf(t, dbRefOf(ref))],
    ['data', fields?.get('data') ?? null],
  ]);
}

/** Every version of a document, oldest first (what its index history is derived from). */
async function versionsOf(ctx: TxnContext, key: DocKey): Promise<Version[]> {
  const out: Version[] = [];
  for await (const v of ctx.txn.history(key)) out.push(v);
  return out;
}

/** Insert(ref, ts, action, params): writes a full version at ts ≤ snapshot; returns the event. */
export async function insertVersion(ctx: TxnContext, ref: Ref, ts: bigint, action: HistoryAction, params: Obj, pos: Position): Promise<Obj> {
  ctx.assertWritable(pos);
  const resolved = await resolveSelf(ctx, await resolveRef(ctx, ref, pos), pos);
  // History starts at the epoch (the store keeps versions at 0 ≤ ts ≤ snapshot): before it is outside too.
  if (ts > ctx.snapshotTs || ts < 0n) throw new QueryError('invalid write time', 'Cannot write outside of snapshot time.', pos);
  if (resolved.kind === 'secretDoc' && resolved.native === 'keys' && !resolved.scoped)
    return insertKeyVersion(ctx, resolved, ref, ts, action, params, pos);
  const t = historyTarget(resolved, 'insert', pos);
  const stored: HistoryAction = action === 'delete' ? 'delete' : 'create';
  const fields = stored === 'delete' ? null : await addressed(ctx, userFields(ctx, t, params, undefined, true, pos), pos);
  const data = fields?.get('data') ?? null;
  await checkAccess(ctx, 'history_write', t, pos, [refOf(t, undefined), Time.fromMicros(ts), action, data]);
  const key = docKeyOf(t)!;
  const before = await versionsOf(ctx, key);
  if (fields) await writingCurrentAt(ctx, key, ts);
  await ctx.txn.putVersionAt(key, ts, stored, fields);
  if (fields) noteTtl(ctx, t.db, Number(t.coll.id), fields);
  await rewriteIndexHistory(ctx, t.db, t.coll, refOf(t, undefined), before, await versionsOf(ctx, key), pos);
  return new EventObj([
    ['ts', ts],
    ['action', stored],
    ['document', refOf(t, dbRefOf(ref))],
    ['data', data],
  ]);
}

/** Remove(ref, ts, action): deletes the version at ts when its action matches (update = create). */
export async function removeVersion(ctx: TxnContext, ref: Ref, ts: bigint, action: HistoryAction, pos: Position): Promise<null> {
  ctx.assertWritable(pos);
  const t = historyTarget(await resolveRef(ctx, ref, pos), 'remove', pos);
  await checkAccess(ctx, 'history_write', t, pos, [refOf(t, undefined), Time.fromMicros(ts), action, null]);
  if (ts > ctx.snapshotTs || ts < 0n) return null;
  const key = docKeyOf(t)!;
  const wanted: HistoryAction = action === 'delete' ? 'delete' : 'create';
  let found = false;
  for await (const v of ctx.txn.history(key, { fromTs: ts, toTs: ts })) {
    if (v.ts === ts && (v.action === 'delete' ? 'delete' : 'create') === wanted) found = true;
  }
  if (!found) return null;
  const before = await versionsOf(ctx, key);
  await ctx.txn.removeVersionAt(key, ts);
  await rewriteIndexHistory(ctx, t.db, t.coll, refOf(t, undefined), before, await versionsOf(ctx, key), pos);
  return null;
}
