// What a scope may do (fql-v4.md §6.3–§6.5): the built-in roles, the `public` permissions that
// client keys get (DECISIONS #2), a token's built-in allowances, and user-defined roles (ABAC).
//
// User roles come from a key whose `role` names roles, an `@role/<name>` scoped secret, a UDF's
// `role`, or — for tokens — every role whose membership includes the identity's collection (and
// whose membership predicate returns exactly true). A scope's permissions are the union of its
// roles; a predicate grants only when it returns exactly `true`, and an error in it denies.
// Predicates run read-only, as an internal identity that can read everything in the database.
// A token's own allowances, whatever its roles, are in tokenAllowances.ts.
// A role written in v10 names resources by name and keeps its predicates as v10 source, run by
// the v10 language through TxnContext.lambdaLanguage (lambdaLanguage.ts); v4 lambdas run through
// TxnContext.applyLambda. Each predicate runs in the language it was written in.

import { QueryTimeout } from './budget';
import type { TxnContext } from './context';
import { errors, QueryError, type Position } from '../values/errors';
import { Lambda, Ref, type Value } from '../values/types';
import type { Txn } from '../storage/types';
import { resolveRef, schemaOf, type Target } from './resolve';
import type { BuiltinRole, Scope } from './auth';
import { membershipOf, privilegesOf, V10_NATIVE_RESOURCES } from './roleType';
import { readsOwnIdentity, tokenAllowed } from './tokenAllowances';
import type { Action } from './roleActions';
import { PendingDoc, type LambdaArg } from './lambdaLanguage';

export type { Action } from './roleActions';

/** Native collections whose documents only admins may see or change. */
const ADMIN_ONLY = new Set(['databases', 'keys', 'roles', 'access_providers']);

function nativeOf(t: Target): string | undefined {
  switch (t.kind) {
    case 'native':
      return t.native;
    case 'schema':
      return t.native;
    case 'secretDoc':
      return t.native;
    case 'doc':
      return undefined;
  }
}

/** The ref a target stands for (relative to its database), a predicate's default argument. */
export function refOfTarget(t: Target): Ref {
  switch (t.kind) {
    case 'native':
      return Ref.native(t.native);
    case 'schema':
      return Ref.schema(t.native, t.name);
    case 'secretDoc':
      return new Ref(String(t.id), Ref.native(t.native));
    case 'doc':
      return new Ref(String(t.id), Ref.collection(t.coll.name));
  }
}

/**
 * A native document as a create or write leaves it, made only when a v10 predicate asks for it
 * (v4 predicates get `args`).
 */
export type PendingNative = () => Promise<PendingDoc>;

/**
 * Throws 403 unless the scope may perform `action` on `t`. `args` are the predicate arguments of
 * fql-v4.md §6.5 (default: the target's ref); `pending`, for a create or write of a native
 * document, what v10 predicates get as the document it leaves.
 */
export async function checkAccess(ctx: TxnContext, action: Action, t: Target, pos: Position, args?: Value[], pending?: PendingNative): Promise<void> {
  // A scoped ref is never written, whoever asks: Fauna refuses it before any permission check
  // (WriteFunctions.scala), so the answer does not depend on the caller's privileges.
  if (action !== 'read' && action !== 'history_read' && action !== 'unrestricted_read' && action !== 'call' && t.scoped)
    throw new QueryError('invalid argument', 'Cannot write a scoped ref.', pos);
  if (!(await allowed(ctx, action, t, args, pending))) throw errors.permissionDenied(pos);
}

/** True when the scope is governed by user-defined roles (keys/UDFs with roles, tokens, JWTs). */
export function usesRoles(scope: Scope): boolean {
  return scope.roles !== undefined || scope.token !== undefined || scope.docScoped === true || scope.jwtRoles !== undefined;
}

export async function allowed(ctx: TxnContext, action: Action, t: Target, args?: Value[], pending?: PendingNative): Promise<boolean> {
  const scope = ctx.scope;
  if (scope.roles) return rolesAllow(ctx, scope.roles, action, t, args, false, pending);
  if (scope.jwtRoles) return clientAllowed(action, t) || rolesAllow(ctx, await membershipRoles(ctx), action, t, args, false, pending);
  if (scope.token) {
    if ((await tokenAllowed(ctx, action, t)) || clientAllowed(action, t)) return true;
    const roles = await membershipRoles(ctx);
    return roles.length ? rolesAllow(ctx, roles, action, t, args, false, pending) : readsOwnIdentity(ctx, action, t);
  }
  // A key scoped to `@doc/…`: the identity's membership roles, like a token without its allowances.
  if (scope.docScoped) return clientAllowed(action, t) || rolesAllow(ctx, await membershipRoles(ctx), action, t, args, false, pending);
  const role = scope.role;
  const native = nativeOf(t);
  const reading = action === 'read' || action === 'history_read' || action === 'unrestricted_read';
  switch (role) {
    case 'admin':
      return true;
    case 'server':
      return native === undefined || !ADMIN_ONLY.has(native);
    case 'server-readonly':
      return reading && (native === undefined || !ADMIN_ONLY.has(native));
    case 'client':
      return clientAllowed(action, t);
  }
}

/**
 * Reading a set (Documents of a collection, a native collection, Match of an index): throws 403 when nothing could be
 * read; returns a per-document filter when each document must pass `read` on its collection
 * (no `unrestricted_read`), or undefined when every element is visible.
 */
export async function checkSetRead(
  ctx: TxnContext,
  t: Target,
  pos: Position,
  args?: Value[],
): Promise<((ctx: TxnContext, ref: Ref) => Promise<boolean>) | undefined> {
  if (!usesRoles(ctx.scope)) {
    await checkAccess(ctx, 'read', t, pos, args);
    return undefined;
  }
  if (await allowed(ctx, 'unrestricted_read', t, args ?? [null])) return undefined;
  // An index whose entries are public (DECISIONS #2) is read whole by tokens, as by client keys:
  // users log in through a public unique index whatever their secret (service.md, Login rules).
  if (!ctx.scope.roles && t.kind === 'schema' && clientAllowed('read', t)) return undefined;
  if (t.kind === 'doc' || t.kind === 'native') {
    // Documents(coll), Collections(), Keys(), …: any possible read grant; each element is then checked.
    if (!(await mayPossibly(ctx, 'read', t))) throw errors.permissionDenied(pos);
  } else await checkAccess(ctx, 'read', t, pos, args);
  const scopeAtCheck = ctx.scope;
  // Documents are checked as the scope that opened the set, wherever the scan is consumed.
  return (c, ref) =>
    c
      .within({ scope: scopeAtCheck }, async () => {
        const target = await resolveRef(c, ref, pos);
        return target.kind === 'native' || (await allowed(c, 'read', target, [ref]));
      })
      .catch(() => false);
}

/** Whether any grant (static or predicate) for `action` on `t` exists: predicates are not run. */
async function mayPossibly(ctx: TxnContext, action: Action, t: Target): Promise<boolean> {
  const scope = ctx.scope;
  if (!scope.roles && scope.token && (await tokenAllowed(ctx, action, t))) return true;
  if (!scope.roles && (scope.token || scope.docScoped || scope.jwtRoles) && clientAllowed(action, t)) return true;
  const roles = scope.roles ?? (scope.token || scope.docScoped || scope.jwtRoles ? await membershipRoles(ctx) : []);
  return rolesAllow(ctx, roles, action, t, undefined, true);
}

/**
 * Client keys: only what `permissions: "public"` grants (DECISIONS #2) — `create`/`read`/`write` on
 * a collection's documents, `read` on an index, `call` on a function.
 */
function clientAllowed(action: Action, t: Target): boolean {
  if (t.kind === 'schema') {
    const perms = t.entry?.fields.get('permissions');
    if (!(perms instanceof Map)) return false;
    if (t.native === 'indexes' && action === 'read' && t.entries) return perms.get('read') === 'public';
    if (t.native === 'functions' && action === 'call') return perms.get('call') === 'public';
    return false;
  }
  if (t.kind !== 'doc') return false;
  const perms = t.coll.fields.get('permissions');
  if (!(perms instanceof Map)) return false;
  const key = action === 'delete' ? 'write' : action === 'create_with_id' ? 'create' : action;
  return perms.get(key) === 'public';
}

/** Whether a privilege's resource ref covers the target. */
function covers(resource: Value | undefined, t: Target, action: Action): boolean {
  if (typeof resource === 'string') return coversByName(resource, t, action);
  if (!(resource instanceof Ref) || resource.database) return false;
  const nativeRef = resource.collection === undefined ? resource.id : undefined;
  switch (t.kind) {
    case 'doc':
      return resource.nativeParent === 'collections' && resource.id === t.coll.name;
    case 'schema':
      if (
        (t.native === 'indexes' && t.entries && (action === 'read' || action === 'unrestricted_read')) ||
        (t.native === 'functions' && action === 'call') ||
        (t.native === 'collections' && action === 'unrestricted_read')
      )
        if (resource.nativeParent === t.native && resource.id === t.name) return true;
      return nativeRef === t.native;
    case 'secretDoc':
    case 'native':
      return nativeRef === t.native;
  }
}

/** A v10 privilege's resource: a user collection, a function (its `call`), or a native collection. */
function coversByName(name: string, t: Target, action: Action): boolean {
  switch (t.kind) {
    case 'doc':
      return name === t.coll.name || t.coll.fields.get('alias') === name;
    case 'schema':
      if (t.native === 'functions' && action === 'call' && (name === t.name || t.entry?.fields.get('alias') === name)) return true;
      return V10_NATIVE_RESOURCES[name] === t.native;
    case 'secretDoc':
    case 'native':
      return V10_NATIVE_RESOURCES[name] === t.native;
  }
}

/** A stored predicate: a v4 lambda or v10 source. */
type Predicate = Lambda | string;

/**
 * The union of the roles' grants for `action` on `t`. Static `true` short-circuits; predicates run
 * in order until one returns exactly true. With `possibly`, a predicate counts as a grant unrun.
 */
async function rolesAllow(
  ctx: TxnContext,
  roleIds: readonly bigint[],
  action: Action,
  t: Target,
  args: Value[] | undefined,
  possibly: boolean,
  pending?: PendingNative,
): Promise<boolean> {
  if (!roleIds.length) return false;
  // Privileges only apply inside the role's own database.
  if (t.scoped || t.db !== ctx.scope.db) return false;
  const schema = await schemaOf(ctx, ctx.scope.db);
  const predicates: Predicate[] = [];
  for (const id of roleIds) {
    const role = schema.getById('roles', id);
    if (!role) continue;
    for (const p of privilegesOf(role.fields)) {
      if (!covers(p.get('resource'), t, action)) continue;
      const actions = p.get('actions');
      if (!(actions instanceof Map)) continue;
      const grant = actions.get(action);
      if (grant === true) return true;
      if (grant instanceof Lambda || typeof grant === 'string') predicates.push(grant);
    }
  }
  if (possibly) return predicates.length > 0;
  const full = args ?? [action === 'unrestricted_read' && t.kind === 'doc' ? null : refOfTarget(t)];
  for (const pred of predicates) {
    const granted = typeof pred === 'string' ? runPredicate(ctx, pred, await v10PredicateArgs(action, t, full, pending)) : runPredicate(ctx, pred, v4PredicateArgs(pred, full));
    if (await granted) return true;
  }
  return false;
}

/** A v4 predicate's arguments: as many of the v4 arguments as it names (at least one). */
function v4PredicateArgs(pred: Lambda, full: Value[]): Value[] {
  const arity = typeof pred.params === 'string' ? 1 : pred.params.length;
  return full.slice(0, Math.max(arity, 1));
}

/**
 * What a v10 predicate receives (RoleEvalAction.scala fqlxLambdaArgs), native documents
 * included: `write` the document and the document as the write leaves it, `create` and
 * `create_with_id` the new document (its `id`, `coll` and fields at the top level, as a query sees
 * documents, never v4's `{ref, ts, data}`); a call its arguments as they are; otherwise the v4
 * arguments, a document's ref being the document.
 */
async function v10PredicateArgs(action: Action, t: Target, full: Value[], pending: PendingNative | undefined): Promise<LambdaArg[]> {
  if (t.kind === 'doc') {
    const ref = refOfTarget(t);
    if (action === 'write' && full[1] instanceof Map) return [ref, new PendingDoc(ref, full[1])];
    if ((action === 'create' || action === 'create_with_id') && full[0] instanceof Map) return [new PendingDoc(ref, full[0])];
  } else if (pending !== undefined) {
    if (action === 'write') return [refOfTarget(t), await pending()];
    if (action === 'create') return [await pending()];
  }
  if (action === 'call' && Array.isArray(full[0])) return full[0];
  return full;
}

/**
 * The scope acting with built-in `role`, or exactly user `roles`: the caller's identity stays
 * visible (CurrentIdentity), but none of its own grants (a token's allowances, `@doc` membership, a
 * JWT's roles) may shadow the role, since `allowed` consults them first.
 */
export function actingAs(scope: Scope, role: BuiltinRole, roles?: bigint[]): Scope {
  return { ...scope, role, roles, token: undefined, docScoped: undefined, jwtRoles: undefined };
}

/** Runs a predicate read-only as the database's internal identity; only exactly `true` grants. */
export async function runPredicate(ctx: TxnContext, pred: Predicate, args: Value[]): Promise<boolean>;
export async function runPredicate(ctx: TxnContext, pred: string, args: LambdaArg[]): Promise<boolean>;
export async function runPredicate(ctx: TxnContext, pred: Predicate, args: LambdaArg[]): Promise<boolean> {
  try {
    // Predicates read everything in the database as its internal identity, and may not write.
    const scope = actingAs(ctx.scope, 'admin');
    const run = (): Promise<Value> => {
      // A v4 lambda is only ever given stored values (the overloads above).
      if (pred instanceof Lambda) return ctx.applyLambda(pred, args as Value[]);
      if (!ctx.lambdaLanguage) return Promise.resolve(false);
      return ctx.lambdaLanguage.apply(ctx, pred, '*predicate*', args);
    };
    return (await ctx.within({ scope, refuseWritesIn: 'auth predicates' }, run)) === true;
  } catch (e) {
    if (e instanceof QueryTimeout) throw e;
    return false;
  }
}


const membershipCache = new WeakMap<Txn, Promise<bigint[]>>();

/** The roles a token's identity is a member of (or a JWT's provider roles), evaluated once per transaction. */
export function membershipRoles(ctx: TxnContext): Promise<bigint[]> {
  let hit = membershipCache.get(ctx.txn);
  if (!hit) {
    hit = computeMembership(ctx);
    membershipCache.set(ctx.txn, hit);
  }
  return hit;
}

async function computeMembership(ctx: TxnContext): Promise<bigint[]> {
  const scope = ctx.scope;
  const schema = await schemaOf(ctx, scope.db);
  const out: bigint[] = [];
  if (scope.jwtRoles) {
    // An access provider's `roles`: role refs, or `{role, predicate}` whose predicate gets the JWT payload.
    for (const item of scope.jwtRoles) {
      const ref = item instanceof Map ? item.get('role') : item;
      const id = roleIdsOf(ref, (name) => schema.get('roles', name)?.id)?.[0];
      if (id === undefined) continue;
      const pred = item instanceof Map ? item.get('predicate') : undefined;
      if (!(pred instanceof Lambda || typeof pred === 'string') || (await runPredicate(ctx, pred, [scope.jwt?.payload ?? null]))) out.push(id);
    }
    return out;
  }
  const identity = scope.identity;
  if (identity instanceof Ref && identity.isUserDocument && !identity.collection!.database) {
    const coll = identity.collection!.id;
    for (const role of schema.all('roles')) {
      for (const m of membershipOf(role.fields)) {
        const res = m.get('resource');
        const named = typeof res === 'string' ? res === coll : res instanceof Ref && res.nativeParent === 'collections' && res.id === coll && !res.database;
        if (!named) continue;
        const pred = m.get('predicate');
        if (!(pred instanceof Lambda || typeof pred === 'string') || (await runPredicate(ctx, pred, [identity]))) {
          out.push(role.id);
          break;
        }
      }
    }
  }
  return out;
}

/** Resolves role names / role refs (or an array of them) to role ids in `schemaRoles`; undefined if any is missing. */
export function roleIdsOf(v: Value | undefined, lookup: (name: string) => bigint | undefined): bigint[] | undefined {
  const list = Array.isArray(v) ? v : [v ?? null];
  const out: bigint[] = [];
  for (const item of list) {
    const name = typeof item === 'string' ? item : item instanceof Ref && item.nativeParent === 'roles' && !item.database ? item.id : undefined;
    if (name === undefined) return undefined;
    const id = lookup(name);
    if (id === undefined) return undefined;
    out.push(id);
  }
  return out;
}
