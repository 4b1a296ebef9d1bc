// Access provider documents (the `access_providers` native collection, fql-v4.md §4.3):
// `ref, ts, name, issuer, jwks_uri, roles?, audience, data?`. `audience` names the database the
// provider lives in (`https://db.fauna.com/db/<global_id>`) and is read-only. JWTs issued by
// `issuer` and signed with a key from `jwks_uri` authenticate into that database (model/jwt.ts).

import type { TxnContext } from './context';
import { errors, type Position } from '../values/errors';
import { Lambda, Ref, type Obj, type Value } from '../values/types';
import { Failures, pick, stripNulls, validateName } from './data';
import { zbase32 } from './ids';
import { nextInternalId } from './internalIds';
import type { NativeType } from './nativeTypes';
import { applyPatch, inOrder } from './schemaFields';
import { schemaOf } from './resolve';

const WRITABLE = ['name', 'issuer', 'jwks_uri', 'roles', 'data'] as const;
const KEPT_ON_REPLACE = ['name', 'issuer', 'jwks_uri', 'roles', 'audience'] as const;
const FIRST_PROVIDER_ID = 1;

/** The `aud` a JWT must carry to act in database `db`. */
export function audienceOf(db: bigint): string {
  return `https://db.fauna.com/db/${zbase32(db)}`;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** https URLs; plain http only for loopback hosts (local JWKS servers, tests). */
export function validJwksUri(s: string): boolean {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  if (!u.hostname) return false;
  return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
}

async function validateRole(ctx: TxnContext, db: bigint, v: Value, field: (string | number)[], f: Failures): Promise<void> {
  let role: Value | undefined = v;
  if (v instanceof Map) {
    role = v.get('role');
    const predicate = v.get('predicate');
    if (typeof predicate === 'string' && ctx.writingV10 && ctx.lambdaLanguage) {
      // A v10 predicate (lambdaLanguage.ts) receives the JWT's payload.
      const failure = ctx.lambdaLanguage.lambdaFailure(predicate, 'predicate', [1]);
      if (failure !== undefined) f.add([...field, 'predicate'], 'invalid lambda', failure);
    } else if (predicate !== undefined && predicate !== null && !(predicate instanceof Lambda))
      f.invalidType([...field, 'predicate'], predicate, 'Query');
    if (role === undefined || role === null) return f.required([...field, 'role']);
    field = [...field, 'role'];
  }
  // v10 names the role.
  if (typeof role === 'string' && ctx.writingV10) {
    if (!(await schemaOf(ctx, db)).get('roles', role)) f.add(field, 'invalid reference', `Role \`${role}\` does not exist.`);
    return;
  }
  if (!(role instanceof Ref) || role.nativeParent !== 'roles') return f.invalidType(field, role ?? null, 'Ref');
  if (role.database) return f.add(field, 'invalid reference', 'Reference cannot be scoped.');
  if (!(await schemaOf(ctx, db)).get('roles', role.id)) f.add(field, 'invalid reference', 'Reference was not found.');
}

async function validate(ctx: TxnContext, db: bigint, params: Obj, f: Failures, creating: boolean): Promise<void> {
  const issuer = params.get('issuer');
  if (issuer === undefined || issuer === null) {
    if (creating) f.required(['issuer']);
  } else if (typeof issuer !== 'string') f.invalidType(['issuer'], issuer, 'String');
  else if (!issuer) f.add(['issuer'], 'value required', 'Required value not found.');
  const uri = params.get('jwks_uri');
  if (uri === undefined || uri === null) {
    if (creating) f.required(['jwks_uri']);
  } else if (typeof uri !== 'string') f.invalidType(['jwks_uri'], uri, 'String');
  else if (!validJwksUri(uri)) f.add(['jwks_uri'], 'invalid uri', `Invalid URI \`${uri}\`.`);
  const roles = params.get('roles');
  if (roles !== undefined && roles !== null) {
    if (Array.isArray(roles)) for (let i = 0; i < roles.length; i++) await validateRole(ctx, db, roles[i], ['roles', i], f);
    else await validateRole(ctx, db, roles, ['roles'], f);
  }
  const data = params.get('data');
  if (data !== undefined && data !== null && !(data instanceof Map)) f.invalidType(['data'], data, 'Map');
}

/** Names and issuers are unique among a database's providers ("other already exists.", the QUIRK). */
async function unique(ctx: TxnContext, db: bigint, name: string | undefined, issuer: Value | undefined, pos: Position, self?: bigint): Promise<void> {
  const schema = await schemaOf(ctx, db);
  if (name !== undefined) {
    const existing = schema.get('access_providers', name);
    if (existing && existing.id !== self) throw errors.alreadyExists('other already exists.', pos);
  }
  if (typeof issuer === 'string')
    for (const e of schema.all('access_providers'))
      if (e.id !== self && e.fields.get('issuer') === issuer) throw errors.alreadyExists('other already exists.', pos);
}


export const accessProviderType: NativeType = {
  label: 'other',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const name = validateName(params.get('name'), f);
    await validate(ctx, db, params, f, true);
    f.throwIfAny(pos);
    await unique(ctx, db, name, params.get('issuer'), pos);
    const id = await nextInternalId(ctx, db, 'access_providers', FIRST_PROVIDER_ID);
    const fields = stripNulls(pick(params, WRITABLE)) as Obj;
    fields.set('audience', audienceOf(db));
    ctx.secretsChanged = true;
    return { id, fields: inOrder(fields, [...WRITABLE, 'audience']) };
  },
  async update(ctx, db, id, old, params, replace, pos) {
    const f = new Failures();
    let name: string | undefined;
    if (params.has('name') && params.get('name') !== null) name = validateName(params.get('name'), f);
    await validate(ctx, db, params, f, false);
    f.throwIfAny(pos);
    await unique(ctx, db, name, params.get('issuer'), pos, id);
    ctx.secretsChanged = true;
    // name, issuer and jwks_uri are required: null leaves them as they are.
    const out = applyPatch(old, params, { writable: WRITABLE, keep: KEPT_ON_REPLACE, required: ['name', 'issuer', 'jwks_uri'] }, replace);
    if (!out.has('audience')) out.set('audience', audienceOf(db));
    return inOrder(out, [...WRITABLE, 'audience']);
  },
  render(_id, fields) {
    const out: [string, Value][] = [];
    for (const k of ['name', 'issuer', 'jwks_uri', 'roles', 'audience', 'data'])
      if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
};
