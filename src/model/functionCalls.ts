// Calling a user-defined function, whichever language calls it and whichever language its body
// is in (fql-v4.md §6.3; the core's Auth.checkCallPermission and Auth.changeRole): who may call
// it, and the scope its body runs with (its `role`, else the caller's).

import type { SchemaEntry } from './catalog';
import type { TxnContext } from './context';
import { isBuiltinRole, type Scope } from './auth';
import { actingAs, allowed, roleIdsOf, usesRoles } from './permissions';
import { schemaOf, type Target } from './resolve';
import type { Value } from '../values/types';

/**
 * Built-in roles: admin and server may call any function; server-readonly and client may not,
 * except that a client may call a function whose `permissions` has `call: "public"`. User roles:
 * the `call` action, whose predicate receives the call's arguments (`args`, one value).
 */
export async function mayCallFunction(ctx: TxnContext, t: Target, entry: SchemaEntry, args: Value): Promise<boolean> {
  const perms = entry.fields.get('permissions');
  const isPublic = perms instanceof Map && perms.get('call') === 'public';
  if (usesRoles(ctx.scope)) {
    if ((ctx.scope.token || ctx.scope.docScoped || ctx.scope.jwtRoles) && !ctx.scope.roles && isPublic) return true;
    return allowed(ctx, 'call', t, [args]);
  }
  switch (ctx.scope.role as string) {
    case 'admin':
    case 'server':
      return true;
    case 'client':
      return isPublic;
    default:
      return false;
  }
}

/** The scope a function's body runs with: its `role` (built-in, or user roles of its database), else the caller's. */
export async function functionScope(ctx: TxnContext, db: bigint, entry: SchemaEntry): Promise<Scope> {
  const caller = ctx.scope;
  const role = entry.fields.get('role');
  if (isBuiltinRole(role)) return actingAs(caller, role);
  if (role === undefined || role === null) return caller;
  const schema = await schemaOf(ctx, db);
  const roles = db === caller.db ? roleIdsOf(role, (name) => schema.get('roles', name)?.id) : undefined;
  return actingAs(caller, 'client', roles ?? []);
}
