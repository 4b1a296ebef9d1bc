// What the built-in roles may do (fql-v4.md §6.3) and the `public` permissions that client keys
// get (DECISIONS #2); tokens get their built-in allowances on top of those. User-defined roles (ABAC)
// arrive later.

import type { EvalContext } from '../fql/context';
import { errors, QueryError, type Position } from '../values/errors';
import type { Target } from './resolve';
import type { Scope } from './auth';

export type Action = 'read' | 'write' | 'create' | 'delete' | 'history_read' | 'history_write';

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

export function checkAccess(ctx: EvalContext, action: Action, t: Target, pos: Position): void {
  if (!allowed(ctx, action, t)) throw errors.permissionDenied(pos);
  if (action !== 'read' && action !== 'history_read' && t.scoped)
    throw new QueryError('invalid argument', 'Cannot write a scoped ref.', pos);
}

export function allowed(ctx: EvalContext, action: Action, t: Target): boolean {
  if (ctx.scope.token) return tokenAllowed(ctx.scope, action, t) || clientAllowed(action, t);
  const role = ctx.scope.role;
  const native = nativeOf(t);
  const reading = action === 'read' || action === 'history_read';
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

/** Client keys: only what a collection's `permissions` grants to "public". */
function clientAllowed(action: Action, t: Target): boolean {
  if (t.kind !== 'doc') return false;
  const perms = t.coll.fields.get('permissions');
  if (!(perms instanceof Map)) return false;
  const key = action === 'delete' ? 'write' : action;
  return perms.get(key) === 'public';
}

/**
 * A token's built-in allowances (fql-v4.md §6.4): read its identity's credentials document, read and
 * delete itself. ABAC roles (membership of the identity's collection) come with the roles issue.
 */
function tokenAllowed(scope: Scope, action: Action, t: Target): boolean {
  if (t.kind !== 'secretDoc' || t.self || t.scoped || t.db !== scope.token!.db) return false;
  const reading = action === 'read' || action === 'history_read';
  if (t.native === 'tokens') return t.id === scope.token!.id && (reading || action === 'delete');
  if (t.native === 'credentials') return reading && t.id === scope.credentials;
  return false;
}
