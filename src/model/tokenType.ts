// Token documents (the `tokens` native collection): `{instance, data?, ttl?, hashed_secret}`. A token's
// secret (`fnE…`, fql-v4.md §6.1) is shown once, by Login or Create(Tokens(), …); only a hash is kept.

import type { TxnContext } from './context';
import { type Position } from '../values/errors';
import { Ref, Time, type Obj, type Value } from '../values/types';
import { identityExists } from './auth';
import { encodeSecretLocation, secretLocationKey } from './secretLocation';
import { deepMerge, Failures, stripNulls } from './data';
import { newId } from './ids';
import { issueTokenSecret } from './secrets';
import type { CreatedFields, NativeType } from './nativeTypes';

async function validateToken(ctx: TxnContext, db: bigint, params: Obj, f: Failures, creating: boolean): Promise<void> {
  const instance = params.get('instance');
  if (instance === undefined || instance === null) {
    if (creating) f.required(['instance']);
  } else if (!(instance instanceof Ref)) f.invalidType(['instance'], instance, 'Ref');
  else if (creating && !(await identityExists(ctx.catalog, ctx.txn, db, instance, ctx.schemaWrites.has(db))))
    f.add(['instance'], 'invalid reference', 'Reference was not found.');
  const data = params.get('data');
  if (data !== undefined && data !== null && !(data instanceof Map)) f.invalidType(['data'], data, 'Map');
  const ttl = params.get('ttl');
  if (ttl !== undefined && ttl !== null && !(ttl instanceof Time)) f.invalidType(['ttl'], ttl, 'Time');
}

/** Creates the fields of a new token for `instance` in database `db` (no permission check). */
export async function newToken(ctx: TxnContext, db: bigint, instance: Ref, params: Obj): Promise<CreatedFields> {
  const id = newId();
  const { secret, hashedSecret, check } = await issueTokenSecret(id, db, ctx.budget);
  const fields: Obj = new Map<string, Value>([['instance', instance]]);
  const data = params.get('data');
  if (data instanceof Map) fields.set('data', stripNulls(data));
  const ttl = params.get('ttl');
  if (ttl instanceof Time) fields.set('ttl', ttl);
  fields.set('hashed_secret', hashedSecret);
  ctx.txn.putMeta(secretLocationKey('token', id), encodeSecretLocation(db, check));
  return { id, fields, once: new Map([['secret', secret]]) };
}

export const tokenType: NativeType = {
  label: 'Token',
  async create(ctx, db, params, pos: Position) {
    const f = new Failures();
    await validateToken(ctx, db, params, f, true);
    f.throwIfAny(pos);
    return await newToken(ctx, db, params.get('instance') as Ref, params);
  },
  async update(ctx, db, _id, old, params, replace, pos) {
    const f = new Failures();
    await validateToken(ctx, db, params, f, false);
    f.throwIfAny(pos);
    ctx.secretsChanged = true;
    const out: Obj = new Map();
    const instance = params.get('instance') ?? old.get('instance');
    if (instance !== undefined) out.set('instance', instance);
    const data = params.has('data') ? params.get('data') : replace ? undefined : old.get('data');
    const merged = !replace && params.has('data') && data !== null ? deepMerge(old.get('data') ?? null, data as Value) : data;
    if (merged !== undefined && merged !== null) out.set('data', stripNulls(merged));
    const ttl = params.has('ttl') ? params.get('ttl') : replace ? undefined : old.get('ttl');
    if (ttl instanceof Time) out.set('ttl', ttl);
    if (old.has('hashed_secret')) out.set('hashed_secret', old.get('hashed_secret') as Value);
    return out;
  },
  render(_id, fields, once) {
    const out: [string, Value][] = [];
    for (const k of ['instance', 'data', 'ttl']) if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    if (once) for (const [k, v] of once) out.push([k, v]);
    else if (fields.has('hashed_secret')) out.push(['hashed_secret', fields.get('hashed_secret') as Value]);
    return out;
  },
  onDelete(ctx, _db, id) {
    ctx.txn.putMeta(secretLocationKey('token', id), null);
    ctx.secretsChanged = true;
  },
};
