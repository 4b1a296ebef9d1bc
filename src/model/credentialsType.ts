// Credentials documents (the `credentials` native collection): `{instance, hashed_password}`, one per
// identity document, found through a meta key (identity → credentials id). Usually written through
// a user document's `credentials: {password}` field (fql-v4.md §6.4); only a BCrypt hash is stored.

import type { TxnContext } from './context';
import type { DocKey } from '../storage/types';
import { errors, type Position } from '../values/errors';
import { Ref, type Obj, type Value } from '../values/types';
import { credentialsLocationKey, encodeDbId, identityExists, identityKey } from './auth';
import { NATIVE_IDS } from './catalog';
import { Failures } from './data';
import { newId } from './ids';
import { hashPassword, verifyPassword } from './secrets';
import type { NativeType } from './nativeTypes';

/** The storage address of a user document ref in database `db` (as this transaction sees the schema). */
export function identityKeyIn(ctx: TxnContext, db: bigint, ref: Ref): Promise<DocKey | undefined> {
  return identityKey(ctx.catalog, ctx.txn, db, ref, ctx.schemaWrites.has(db));
}

/** The live credentials document of an identity, if any. */
export async function credentialsOf(ctx: TxnContext, identity: DocKey): Promise<{ id: bigint; fields: Obj } | undefined> {
  const loc = await ctx.txn.getMeta(credentialsLocationKey(identity));
  if (!loc) return undefined;
  const id = Buffer.from(loc).readBigUInt64BE(0);
  const v = await ctx.txn.getVersion({ db: identity.db, coll: NATIVE_IDS.credentials, id });
  if (!v || v.action === 'delete' || !v.data) return undefined;
  return { id, fields: v.data };
}

/** Creates or updates the credentials of an identity (with server privileges). */
export async function setPassword(ctx: TxnContext, identity: DocKey, instance: Ref, password: string): Promise<void> {
  const hashed = await hashNew(ctx, password);
  const existing = await credentialsOf(ctx, identity);
  if (existing) {
    const fields: Obj = new Map(existing.fields);
    fields.set('hashed_password', hashed);
    ctx.txn.putVersion({ db: identity.db, coll: NATIVE_IDS.credentials, id: existing.id }, 'update', fields);
    return;
  }
  const id = newId();
  const fields: Obj = new Map<string, Value>([['instance', instance], ['hashed_password', hashed]]);
  ctx.txn.putVersion({ db: identity.db, coll: NATIVE_IDS.credentials, id }, 'create', fields);
  ctx.txn.putMeta(credentialsLocationKey(identity), encodeDbId(id));
  ctx.secretsChanged = true; // token scopes remember their identity's credentials id
}

/** Checks a password against an identity's credentials (a BCrypt run, charged); false when it has none. */
export async function checkPassword(ctx: TxnContext, identity: DocKey, password: string): Promise<boolean> {
  const cred = await credentialsOf(ctx, identity);
  const hash = cred?.fields.get('hashed_password');
  if (typeof hash !== 'string') return false;
  return verifyPassword(password, hash, ctx.budget);
}

/** The BCrypt hash of a new password, charged to the query before it runs. */
function hashNew(ctx: TxnContext, password: string): Promise<string> {
  return hashPassword(password, ctx.budget);
}

/** Validates the `credentials` param of a user document write; returns the new password, if any. */
export function credentialsParam(params: Obj, pos: Position): string | undefined {
  const c = params.get('credentials');
  if (c === undefined || c === null) return undefined;
  const f = new Failures();
  if (!(c instanceof Map)) f.invalidType(['credentials'], c, 'Map');
  else {
    const p = c.get('password');
    if (p !== undefined && p !== null && typeof p !== 'string') f.invalidType(['credentials', 'password'], p, 'String');
  }
  f.throwIfAny(pos);
  const p = (c as Obj).get('password');
  return typeof p === 'string' ? p : undefined;
}

/** The password (to hash once the params are valid) or ready hash a write gives, if any. */
function validatePassword(params: Obj, f: Failures): { password: string } | { hashed: string } | undefined {
  const password = params.get('password');
  if (password !== undefined && password !== null) {
    if (typeof password !== 'string') f.invalidType(['password'], password, 'String');
    else return { password };
  }
  const hashed = params.get('hashed_password');
  if (hashed !== undefined && hashed !== null) {
    if (typeof hashed !== 'string') f.invalidType(['hashed_password'], hashed, 'String');
    else return { hashed };
  }
  return undefined;
}

async function hashOf(ctx: TxnContext, given: { password: string } | { hashed: string }): Promise<string> {
  return 'hashed' in given ? given.hashed : hashNew(ctx, given.password);
}

export const credentialsType: NativeType = {
  label: 'Credentials',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const instance = params.get('instance');
    let key: DocKey | undefined;
    if (instance === undefined || instance === null) f.required(['instance']);
    else if (!(instance instanceof Ref)) f.invalidType(['instance'], instance, 'Ref');
    else if (!(key = await identityKeyIn(ctx, db, instance)) || !(await identityExists(ctx.catalog, ctx.txn, db, instance, ctx.schemaWrites.has(db))))
      f.add(['instance'], 'invalid reference', 'Reference was not found.');
    const given = validatePassword(params, f);
    if (given === undefined && !params.has('password') && !params.has('hashed_password')) f.required(['password']);
    f.throwIfAny(pos);
    if (await credentialsOf(ctx, key!)) throw errors.alreadyExists('Credentials already exists.', pos);
    const hash = given && (await hashOf(ctx, given));
    const id = newId();
    ctx.txn.putMeta(credentialsLocationKey(key!), encodeDbId(id));
    ctx.secretsChanged = true;
    return { id, fields: new Map<string, Value>([['instance', instance as Ref], ['hashed_password', hash!]]) };
  },
  async update(ctx, _db, _id, old, params, _replace, pos) {
    const f = new Failures();
    const given = validatePassword(params, f);
    f.throwIfAny(pos);
    const hash = given && (await hashOf(ctx, given));
    const out: Obj = new Map();
    if (old.has('instance')) out.set('instance', old.get('instance') as Value);
    const keep = hash ?? old.get('hashed_password');
    if (keep !== undefined) out.set('hashed_password', keep);
    return out;
  },
  render(_id, fields) {
    const out: [string, Value][] = [];
    for (const k of ['instance', 'hashed_password']) if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
  onDelete(ctx) {
    // The meta key is left behind: credentialsOf only follows it to a live document.
    ctx.secretsChanged = true;
  },
};
