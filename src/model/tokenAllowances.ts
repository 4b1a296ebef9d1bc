// What a token may do whatever its roles say, and what a role-less token may do besides.
//
// Fauna's baseline for an identity's secrets (auth/Permissions.scala, InstancePermissions
// .checkBaselinePerms), checked before any role: `read` of the identity's credentials document, and
// `read` and `delete` of every token whose `instance` is the identity. A token whose identity is in
// no role's membership may also `read` the identity document itself (DECISIONS #15); nothing else.

import type { TxnContext } from './context';
import { Ref } from '../values/types';
import { NATIVE_IDS } from './catalog';
import { identityKeyIn } from './credentialsType';
import type { Action } from './permissions';
import type { Target } from './resolve';

/** The baseline allowances of the scope's token on `t` (a token of another database gets none). */
export async function tokenAllowed(ctx: TxnContext, action: Action, t: Target): Promise<boolean> {
  const { token, identity, credentials } = ctx.scope;
  if (!token || t.kind !== 'secretDoc' || t.self || t.scoped || t.db !== token.db) return false;
  if (t.native === 'credentials') return action === 'read' && t.id === credentials;
  if (t.native !== 'tokens' || (action !== 'read' && action !== 'delete')) return false;
  if (t.id === token.id) return true;
  const other = await ctx.txn.getVersion({ db: t.db, coll: NATIVE_IDS.tokens, id: t.id });
  const instance = other && other.action !== 'delete' ? other.data?.get('instance') : undefined;
  return instance instanceof Ref && identity !== undefined && instance.equals(identity);
}

/** A role-less token reading its own identity document (compared by address, so renames do not matter). */
export async function readsOwnIdentity(ctx: TxnContext, action: Action, t: Target): Promise<boolean> {
  const { token, identity } = ctx.scope;
  if (action !== 'read' || !token || !identity || t.kind !== 'doc' || t.scoped || t.db !== token.db) return false;
  const key = await identityKeyIn(ctx, token.db, identity);
  return key !== undefined && key.coll === Number(t.coll.id) && key.id === t.id;
}
