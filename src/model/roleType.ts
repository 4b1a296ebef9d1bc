// Role documents (the `roles` native collection, fql-v4.md §4.3, §6.5): `ref, ts, name,
// privileges?, membership?, data?`. Privileges name a resource (a user collection, an index, a
// function, or a native collection such as Collections()/Keys()) and per-action grants (`true`,
// `false` or a predicate lambda whose arity is checked per action); membership entries name a
// user collection whose documents (as token identities) get the role, optionally filtered by a
// one-argument predicate. A role written in v10 names its resources by name (a collection, a
// function, or a native collection's v10 name: `"Collection"`, `"Key"`…) and its predicates are
// v10 source strings (lambdaLanguage.ts); the core keeps either form (Role.scala), so does Flora.

import type { TxnContext } from './context';
import { errors, type Position } from '../values/errors';
import { isNativeName, Lambda, Ref, type NativeName, type Obj, type Value } from '../values/types';
import { Failures, stripNulls, validateName } from './data';
import { nextInternalId } from './internalIds';
import type { NativeType } from './nativeTypes';
import { applyPatch, inOrder, uniqueName, checkRename } from './schemaFields';
import { schemaOf } from './resolve';
import { ACTION_ARITIES, isAction } from './roleActions';

const WRITABLE = ['name', 'privileges', 'membership', 'data'] as const;
const FIRST_ROLE_ID = 1;
export const MAX_ROLES_PER_MEMBERSHIP = 64;

/**
 * Whether a `role` field (a function's, a key's) may name `name`: a role that exists. A v10 write
 * names it as it likes: the v10 language checks the name once the query has run, so that a role
 * made later in the same query counts (Validators.scala NameValidationHook, a post-eval hook).
 */
export async function roleNameMissing(ctx: TxnContext, db: bigint, name: string): Promise<boolean> {
  return !ctx.writingV10 && !(await schemaOf(ctx, db)).get('roles', name);
}

/** v4's failure for a `role` field naming no role. */
export function unknownRoleName(name: string): string {
  return `Role name \`${name}\` does not exist.`;
}

export function lambdaArity(l: Lambda): number {
  return typeof l.params === 'string' ? 1 : l.params.length;
}

/** The native collections a v10 role names as resources (Role.scala's native names). */
export const V10_NATIVE_RESOURCES: Readonly<Record<string, NativeName>> = {
  Collection: 'collections',
  Database: 'databases',
  Function: 'functions',
  Role: 'roles',
  AccessProvider: 'access_providers',
  Key: 'keys',
  Token: 'tokens',
  Credential: 'credentials',
  Credentials: 'credentials',
};

async function validateResource(ctx: TxnContext, db: bigint, v: Value | undefined, field: (string | number)[], f: Failures, collectionsOnly: boolean): Promise<void> {
  if (v === undefined || v === null) return f.required(field);
  if (typeof v === 'string' && ctx.writingV10) {
    const schema = await schemaOf(ctx, db);
    const found = collectionsOnly ? schema.get('collections', v) : schema.get('collections', v) ?? schema.get('functions', v) ?? V10_NATIVE_RESOURCES[v];
    if (!found) f.add(field, 'invalid reference', `Resource \`${v}\` does not exist.`);
    return;
  }
  if (!(v instanceof Ref)) return f.invalidType(field, v, 'Ref');
  if (v.database || v.collection?.database) return f.add(field, 'invalid reference', 'Reference cannot be scoped.');
  if (v.collection === undefined) {
    if (!collectionsOnly && isNativeName(v.id)) return;
    return f.add(field, 'invalid reference', 'Cannot read reference.');
  }
  const parent = v.nativeParent;
  const ok = collectionsOnly ? parent === 'collections' : parent === 'collections' || parent === 'indexes' || parent === 'functions';
  if (!ok || !(await schemaOf(ctx, db)).get(parent as 'collections', v.id)) f.add(field, 'invalid reference', 'Cannot read reference.');
}

function validateLambda(ctx: TxnContext, v: Value, field: (string | number)[], expected: readonly number[] | undefined, f: Failures): void {
  if (typeof v === 'string' && ctx.writingV10 && ctx.lambdaLanguage) {
    const failure = ctx.lambdaLanguage.lambdaFailure(v, String(field[field.length - 1]), expected);
    if (failure !== undefined) f.add(field, 'invalid lambda', failure);
    return;
  }
  if (!(v instanceof Lambda)) return f.invalidType(field, v, 'Query');
  if (expected && !expected.includes(lambdaArity(v)))
    f.add(field, 'invalid arity', `Found lambda with arity ${lambdaArity(v)} expected ${expected.join(' or ')}`);
}

/**
 * `privileges` and `membership` take one object or an array of them: each must be an object with
 * only `allowed` keys; `check` validates it at its position.
 */
async function validateEntries(
  field: string,
  v: Value,
  allowedKeys: readonly string[],
  f: Failures,
  check: (entry: Map<string, Value>, at: (string | number)[]) => Promise<void>,
): Promise<void> {
  const list = v instanceof Map ? [v] : v;
  if (!Array.isArray(list)) return f.invalidType([field], v, 'Array');
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    const at = v instanceof Map ? [field] : [field, i];
    if (!(entry instanceof Map)) {
      f.invalidType(at, entry, 'Map');
      continue;
    }
    for (const k of entry.keys()) if (!allowedKeys.includes(k)) f.add([...at, k], 'invalid field', 'Field not allowed.');
    await check(entry, at);
  }
}

function validatePrivileges(ctx: TxnContext, db: bigint, v: Value, f: Failures): Promise<void> {
  return validateEntries('privileges', v, ['resource', 'actions'], f, async (p, at) => {
    await validateResource(ctx, db, p.get('resource'), [...at, 'resource'], f, false);
    const actions = p.get('actions');
    if (actions === undefined || actions === null) return;
    if (!(actions instanceof Map)) return f.invalidType([...at, 'actions'], actions, 'Map');
    for (const [action, grant] of actions) {
      const field = [...at, 'actions', action];
      if (!isAction(action)) f.add(field, 'invalid field', 'Field not allowed.');
      else if (typeof grant !== 'boolean' && grant !== null) validateLambda(ctx, grant, field, ACTION_ARITIES[action], f);
    }
  });
}

function validateMembership(ctx: TxnContext, db: bigint, v: Value, f: Failures): Promise<void> {
  return validateEntries('membership', v, ['resource', 'predicate'], f, async (m, at) => {
    await validateResource(ctx, db, m.get('resource'), [...at, 'resource'], f, true);
    const pred = m.get('predicate');
    if (pred !== undefined && pred !== null) validateLambda(ctx, pred, [...at, 'predicate'], [1], f);
  });
}

/** The membership entries of a role's fields (a single object or an array). */
export function membershipOf(fields: Obj): Obj[] {
  const m = fields.get('membership');
  const list = m instanceof Map ? [m] : Array.isArray(m) ? m : [];
  return list.filter((x): x is Obj => x instanceof Map);
}

/** The privilege entries of a role's fields (a single object or an array). */
export function privilegesOf(fields: Obj): Obj[] {
  const p = fields.get('privileges');
  const list = p instanceof Map ? [p] : Array.isArray(p) ? p : [];
  return list.filter((x): x is Obj => x instanceof Map);
}

/** The name a privilege or membership resource gives (a v4 ref's id, a v10 name). */
export function resourceName(v: Value | undefined): string | undefined {
  return typeof v === 'string' ? v : v instanceof Ref ? v.id : undefined;
}

/** At most 64 roles may name the same membership collection. */
async function checkMembershipLimit(ctx: TxnContext, db: bigint, fields: Obj, self: bigint | undefined, pos: Position): Promise<void> {
  const colls = new Set(membershipOf(fields).map((m) => resourceName(m.get('resource'))));
  if (!colls.size) return;
  const counts = new Map<string, number>();
  for (const role of (await schemaOf(ctx, db)).all('roles')) {
    if (role.id === self) continue;
    for (const c of new Set(membershipOf(role.fields).map((m) => resourceName(m.get('resource')))))
      if (c !== undefined && colls.has(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  for (const n of counts.values())
    if (n >= MAX_ROLES_PER_MEMBERSHIP)
      throw errors.validationFailed(
        [{ field: ['membership'], code: 'resources exceeded', description: `Maximum number of roles per membership class exceeded. Maximum allowed: ${MAX_ROLES_PER_MEMBERSHIP}.` }],
        pos,
      );
}

async function validate(ctx: TxnContext, db: bigint, params: Obj, f: Failures): Promise<void> {
  const privileges = params.get('privileges');
  if (privileges !== undefined && privileges !== null) await validatePrivileges(ctx, db, privileges, f);
  const membership = params.get('membership');
  if (membership !== undefined && membership !== null) await validateMembership(ctx, db, membership, f);
  const data = params.get('data');
  if (data !== undefined && data !== null && !(data instanceof Map)) f.invalidType(['data'], data, 'Map');
}



export const roleType: NativeType = {
  label: 'Role',
  async create(ctx, db, params, pos) {
    const f = new Failures();
    const name = validateName(params.get('name'), f);
    await validate(ctx, db, params, f);
    f.throwIfAny(pos);
    await uniqueName(ctx, db, 'roles', name!, 'Role', pos);
    const fields = new Map<string, Value>();
    for (const k of WRITABLE) {
      const v = params.get(k);
      if (v !== undefined && v !== null) fields.set(k, stripNulls(v));
    }
    await checkMembershipLimit(ctx, db, fields, undefined, pos);
    ctx.secretsChanged = true;
    const id = await nextInternalId(ctx, db, 'roles', FIRST_ROLE_ID);
    return { id, fields };
  },
  async update(ctx, db, id, old, params, replace, pos) {
    const f = new Failures();
    if (params.has('name') && params.get('name') !== null) await checkRename(ctx, db, 'roles', params.get('name'), 'Role', f, pos, id);
    await validate(ctx, db, params, f);
    f.throwIfAny(pos);
    const out = inOrder(applyPatch(old, params, { writable: WRITABLE, keep: ['name'], required: ['name'] }, replace), WRITABLE);
    await checkMembershipLimit(ctx, db, out, id, pos);
    ctx.secretsChanged = true;
    return out;
  },
  render(_id, fields) {
    const out: [string, Value][] = [];
    for (const k of WRITABLE) if (fields.has(k)) out.push([k, fields.get(k) as Value]);
    return out;
  },
  onDelete(ctx) {
    ctx.secretsChanged = true;
  },
};
