// Field rules of the native document types: collections, databases and keys here; indexes,
// functions, roles, tokens, credentials and access providers in their own modules, all registered
// in NATIVE_TYPES. Each type validates create/update params into stored fields and renders them in
// Fauna's field order.

import type { TxnContext } from './context';
import type { Position } from '../values/errors';
import { Ref, Time, type Obj, type Value } from '../values/types';
import { isBuiltinRole, encodeDbId, dbParentKey } from './auth';
import { encodeSecretLocation, secretLocationKey } from './secretLocation';
import { FIRST_USER_COLLECTION_ID, LAST_USER_COLLECTION_ID, schemaConflictKey } from './catalog';
import { nextInternalId } from './internalIds';
import { applyPatch, inOrder, uniqueName, checkRename } from './schemaFields';
import { indexType } from './indexSchema';
import { functionType } from './functionType';
import { roleNameMissing, roleType, unknownRoleName } from './roleType';
import { tokenType } from './tokenType';
import { credentialsType } from './credentialsType';
import { accessProviderType } from './accessProviderType';
import { Failures, pick, stripNulls, validateName } from './data';
import { newId, zbase32 } from './ids';
import { issueKeySecret } from './secrets';
import { schemaOf } from './resolve';
import { V10_FIELDS, V4_RETAINED, validateDefinition } from './schema10/definition';
import { ConstraintFailureError } from './schema10/errors';
import { isValidIdentifier } from './schema10/identifiers';

export interface CreatedFields {
  id: bigint;
  fields: Obj;
  /** Fields shown only in the creation response (a key's secret), placed before hashed_secret. */
  once?: Obj;
}

export interface NativeType {
  /** "Collection", "Database", "Key": used in not-found / already-exists texts. */
  label: string;
  create(ctx: TxnContext, db: bigint, params: Obj, pos: Position): Promise<CreatedFields>;
  update(ctx: TxnContext, db: bigint, id: bigint, old: Obj, params: Obj, replace: boolean, pos: Position): Promise<Obj>;
  /** Fields after ref and ts, in rendering order. */
  render(id: bigint, fields: Obj, once?: Obj): [string, Value][];
  /** Side effects of a delete beyond removing the document. */
  onDelete?(ctx: TxnContext, db: bigint, id: bigint): void;
}

function validateData(params: Obj, f: Failures): void {
  const data = params.get('data');
  if (data !== undefined && data !== null && !(data instanceof Map)) f.invalidType(['data'], data, 'Map');
}

function validateLong(params: Obj, key: string, f: Failures, min?: bigint, max?: bigint): void {
  const v = params.get(key);
  if (v === undefined || v === null) return;
  if (typeof v !== 'bigint') return f.invalidType([key], v, 'Long');
  if (min !== undefined && v < min) {
    if (min === 0n) f.add([key], 'non-negative value required', 'Value must be non-negative.');
    else f.add([key], 'bounds error', `Value ${v} is not in expected range ${min} to ${max}.`);
  } else if (max !== undefined && v > max) f.add([key], 'bounds error', `Value ${v} is not in expected range ${min} to ${max}.`);
}




const COLLECTION_WRITABLE = ['name', 'history_days', 'ttl_days', 'data', 'permissions'] as const;
/** v4 may write a collection's v10 fields when it creates it; Update and Replace keep V4_RETAINED, as the core's CollectionWriteConfig. */
const COLLECTION_V4_WRITABLE = [...COLLECTION_WRITABLE, 'wildcard', 'document_ttls'] as const;

/** The v10 definition of a collection about to be stored, checked as the core checks it. */
function checkDefinition(ctx: TxnContext, fields: Obj, summary: string, pos: Position): void {
  const failures = validateDefinition(fields, ctx.schemaLanguage);
  if (failures.length) throw new ConstraintFailureError(summary, failures, pos);
}

export const collectionType: NativeType = {
  label: 'Collection',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const name = validateName(params.get('name'), f);
    validateLong(params, 'history_days', f, 0n);
    validateLong(params, 'ttl_days', f, 0n);
    validateData(params, f);
    const perms = params.get('permissions');
    if (perms !== undefined && perms !== null && !(perms instanceof Map)) f.invalidType(['permissions'], perms, 'Map');
    f.throwIfAny(pos);
    await uniqueName(ctx, db, 'collections', name!, 'Collection', pos);
    const fields = pick(params, [...COLLECTION_WRITABLE, ...V10_FIELDS]);
    if (!params.has('history_days')) fields.set('history_days', 30n); // DECISIONS #1
    const stored = inOrder(stripNulls(fields) as Obj, COLLECTION_WRITABLE, true);
    checkDefinition(ctx, stored, 'Failed to create Collection.', pos);
    const id = await nextInternalId(ctx, db, 'collections', FIRST_USER_COLLECTION_ID, LAST_USER_COLLECTION_ID);
    return { id, fields: stored };
  },
  async update(ctx, db, id, old, params, replace, pos) {
    const f = new Failures();
    if (params.has('name') || replace) {
      // Replace without a name keeps it; an explicit null is a missing required value.
      const given = params.get('name');
      await checkRename(ctx, db, 'collections', given === undefined ? old.get('name') : given, 'Collection', f, pos, id);
    }
    validateLong(params, 'history_days', f, 0n);
    validateLong(params, 'ttl_days', f, 0n);
    validateData(params, f);
    f.throwIfAny(pos);
    const out = applyPatch(old, params, { writable: COLLECTION_V4_WRITABLE, keep: ['name', 'history_days', ...V4_RETAINED], required: ['name'] }, replace);
    checkDefinition(ctx, out, 'Failed to update Collection.', pos);
    return out;
  },
  render(_id, fields) {
    const out: [string, Value][] = [];
    if (fields.has('history_days')) out.push(['history_days', fields.get('history_days') as Value]);
    else out.push(['history_days', null]);
    out.push(['name', fields.get('name') as Value]);
    for (const k of ['ttl_days', 'data', 'permissions']) if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    // v4 shows a collection's v10 definition too, but not its migrations nor backing indexes (the core's CollectionIOConfig).
    for (const k of V10_FIELDS) if (k !== 'migrations' && fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
};

// `typechecked` and `protected` are kept as the core's Database collection keeps them (Optional(Boolean));
// Flora does not typecheck, nor refuse destructive schema changes in a protected database.
const DATABASE_WRITABLE = ['name', 'data', 'priority', 'typechecked', 'protected'] as const;

/** The fields both languages check in a database's params; v10 names must be identifiers (ValidIdentifierValidator). */
function validateDatabase(ctx: TxnContext, params: Obj, f: Failures): void {
  validateData(params, f);
  validateLong(params, 'priority', f, 1n, 500n);
  for (const k of ['typechecked', 'protected']) {
    const v = params.get(k);
    if (v !== undefined && v !== null && typeof v !== 'boolean') f.invalidType([k], v, 'Boolean');
  }
  const name = params.get('name');
  if (ctx.writingV10 && typeof name === 'string' && (name === '_' || !isValidIdentifier(name))) f.add(['name'], 'invalid identifier', 'Invalid identifier.');
}

export const databaseType: NativeType = {
  label: 'Database',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const name = validateName(params.get('name'), f);
    validateDatabase(ctx, params, f);
    f.throwIfAny(pos);
    await uniqueName(ctx, db, 'databases', name!, 'Database', pos);
    const id = newId();
    ctx.txn.putMeta(dbParentKey(id), encodeDbId(db));
    return { id, fields: stripNulls(pick(params, DATABASE_WRITABLE)) as Obj };
  },
  async update(ctx, db, id, old, params, replace, pos) {
    const f = new Failures();
    if (params.has('name')) await checkRename(ctx, db, 'databases', params.get('name'), 'Database', f, pos, id);
    validateDatabase(ctx, params, f);
    f.throwIfAny(pos);
    return applyPatch(old, params, { writable: DATABASE_WRITABLE, keep: ['name'], required: ['name'] }, replace);
  },
  render(id, fields) {
    const out: [string, Value][] = [['name', fields.get('name') as Value], ['global_id', zbase32(id)]];
    for (const k of ['data', 'priority', 'typechecked', 'protected']) if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
  onDelete(ctx) {
    // The contents become unreachable at once (nothing resolves into the scope any more).
    ctx.secretsChanged = true;
  },
};

const KEY_WRITABLE = ['role', 'database', 'priority', 'data', 'ttl'] as const;

async function validateKey(ctx: TxnContext, db: bigint, params: Obj, f: Failures, creating: boolean): Promise<void> {
  const role = params.get('role');
  if (role === undefined || role === null) {
    if (creating || role === null) f.required(['role']);
  } else if (Array.isArray(role)) {
    for (let i = 0; i < role.length; i++) await validateKeyRole(ctx, db, role[i], ['role', i], f, false);
  } else await validateKeyRole(ctx, db, role, ['role'], f, true);
  const database = params.get('database');
  if (database !== undefined && database !== null) {
    if (!(database instanceof Ref) || database.nativeParent !== 'databases') f.invalidType(['database'], database, 'Ref');
    else if (database.database) f.add(['database'], 'invalid reference', 'Reference cannot be scoped.');
    else if (!(await schemaOf(ctx, db)).get('databases', database.id))
      f.add(['database'], 'invalid reference', 'Reference was not found.');
  }
  validateData(params, f);
  validateLong(params, 'priority', f, 1n, 500n);
  const ttl = params.get('ttl');
  if (ttl !== undefined && ttl !== null && !(ttl instanceof Time)) f.invalidType(['ttl'], ttl, 'Time');
}

/** A key's role: a built-in role name, or an existing user role's name or ref (or an array of those). */
async function validateKeyRole(ctx: TxnContext, db: bigint, v: Value, field: (string | number)[], f: Failures, builtinOk: boolean): Promise<void> {
  if (typeof v === 'string') {
    if (builtinOk && isBuiltinRole(v)) return;
    if (await roleNameMissing(ctx, db, v)) f.add(field, 'validation failure', unknownRoleName(v));
    return;
  }
  if (v instanceof Ref && v.nativeParent === 'roles' && !v.database) {
    if (!(await schemaOf(ctx, db)).get('roles', v.id)) f.add(field, 'invalid reference', 'Reference was not found.');
    return;
  }
  f.invalidType(field, v, builtinOk ? 'String' : 'Role');
}

export const keyType: NativeType = {
  label: 'Key',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    await validateKey(ctx, db, params, f, true);
    f.throwIfAny(pos);
    const id = newId();
    const { secret, hashedSecret, check } = await issueKeySecret(id, ctx.budget);
    const fields = stripNulls(pick(params, inputOrder(params, KEY_WRITABLE))) as Obj;
    fields.set('hashed_secret', hashedSecret);
    ctx.txn.putMeta(secretLocationKey('key', id), encodeSecretLocation(db, check));
    ctx.txn.writeConflictKey(schemaConflictKey(db));
    ctx.secretsChanged = true;
    return { id, fields, once: new Map([['secret', secret]]) };
  },
  async update(ctx, db, _id, old, params, replace, pos) {
    const f = new Failures();
    await validateKey(ctx, db, params, f, replace);
    f.throwIfAny(pos);
    ctx.secretsChanged = true;
    return applyPatch(old, params, { writable: KEY_WRITABLE, keep: ['hashed_secret'], required: ['role'] }, replace);
  },
  render(_id, fields, once) {
    const out: [string, Value][] = [];
    for (const [k, v] of fields) {
      if (k === 'hashed_secret') continue;
      out.push([k, v]);
    }
    if (once) for (const [k, v] of once) out.push([k, v]);
    if (fields.has('hashed_secret')) out.push(['hashed_secret', fields.get('hashed_secret') as Value]);
    return out;
  },
  onDelete(ctx, _db, id) {
    ctx.txn.putMeta(secretLocationKey('key', id), null);
    ctx.secretsChanged = true;
  },
};

/** The keys of `allowed` in the order the caller wrote them. */
function inputOrder(params: Obj, allowed: readonly string[]): string[] {
  return [...params.keys()].filter((k) => allowed.includes(k));
}

export const NATIVE_TYPES: Partial<Record<string, NativeType>> = {
  collections: collectionType,
  indexes: indexType,
  functions: functionType,
  roles: roleType,
  tokens: tokenType,
  credentials: credentialsType,
  databases: databaseType,
  keys: keyType,
  access_providers: accessProviderType,
};
