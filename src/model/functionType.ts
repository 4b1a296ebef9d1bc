// Function documents (the `functions` native collection, fql-v4.md §4.3): `ref, ts, name, body,
// role?, data?` (plus the legacy `permissions` object, where `{call: "public"}` lets client keys
// call the function). `body` is a v4 lambda value, or v10 source (`"x => x + 1"`, checked by
// the v10 language: lambdaLanguage.ts) with the v10 fields `alias` and `signature`; `role` is a
// built-in role name, a role name, a role ref, or an array of role names/refs.

import type { TxnContext } from './context';
import { Lambda, Ref, type Obj, type Value } from '../values/types';
import { isBuiltinRole } from './auth';
import { Failures, pick, stripNulls, validateName } from './data';
import { nextInternalId } from './internalIds';
import type { NativeType } from './nativeTypes';
import { applyPatch, inOrder, uniqueName, checkRename } from './schemaFields';
import { roleNameMissing, unknownRoleName } from './roleType';

const WRITABLE = ['name', 'alias', 'signature', 'body', 'role', 'data', 'permissions'] as const;
const FIRST_FUNCTION_ID = 1;


async function validateRoleItem(ctx: TxnContext, db: bigint, v: Value, field: (string | number)[], f: Failures): Promise<void> {
  if (typeof v === 'string') {
    if (isBuiltinRole(v)) return;
    if (await roleNameMissing(ctx, db, v)) f.add(field, 'validation failure', unknownRoleName(v));
    return;
  }
  // Role refs are accepted as given; user-defined roles are resolved by the identity issue.
  if (v instanceof Ref && v.nativeParent === 'roles') return;
  f.invalidType(field, v, 'Role');
}

async function validate(ctx: TxnContext, db: bigint, params: Obj, f: Failures, creating: boolean): Promise<void> {
  const body = params.get('body');
  if (body === undefined || body === null) {
    if (creating) f.required(['body']);
  } else if (typeof body === 'string' && ctx.writingV10 && ctx.lambdaLanguage) {
    const failure = ctx.lambdaLanguage.lambdaFailure(body, 'body');
    if (failure !== undefined) f.add(['body'], 'invalid lambda', failure);
  } else if (!(body instanceof Lambda)) f.invalidType(['body'], body, 'Query');
  for (const k of ['alias', 'signature']) {
    const v = params.get(k);
    if (v !== undefined && v !== null && typeof v !== 'string') f.invalidType([k], v, 'String');
  }
  const role = params.get('role');
  if (role !== undefined && role !== null) {
    if (Array.isArray(role)) for (let i = 0; i < role.length; i++) await validateRoleItem(ctx, db, role[i], ['role', i], f);
    else await validateRoleItem(ctx, db, role, ['role'], f);
  }
  for (const k of ['data', 'permissions']) {
    const v = params.get(k);
    if (v !== undefined && v !== null && !(v instanceof Map)) f.invalidType([k], v, 'Map');
  }
}


export const functionType: NativeType = {
  label: 'Function',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const name = validateName(params.get('name'), f);
    await validate(ctx, db, params, f, true);
    f.throwIfAny(pos);
    await uniqueName(ctx, db, 'functions', name!, 'Function', pos);
    const id = await nextInternalId(ctx, db, 'functions', FIRST_FUNCTION_ID);
    return { id, fields: inOrder(stripNulls(pick(params, WRITABLE)) as Obj, WRITABLE) };
  },
  async update(ctx, db, id, old, params, replace, pos) {
    const f = new Failures();
    if (params.has('name') && params.get('name') !== null) await checkRename(ctx, db, 'functions', params.get('name'), 'Function', f, pos, id);
    await validate(ctx, db, params, f, replace);
    f.throwIfAny(pos);
    return inOrder(applyPatch(old, params, { writable: WRITABLE, keep: ['name'], required: ['name', 'body'], merged: ['data', 'permissions'] }, replace), WRITABLE);
  },
  render(_id, fields) {
    const out: [string, Value][] = [];
    for (const k of WRITABLE) if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
};
