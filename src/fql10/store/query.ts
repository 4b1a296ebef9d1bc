// `Query.identity()` and `Query.token()` (stdlib/Query.scala) over the request's Scope
// (model/auth.ts): a token's identity document and the token itself; a JWT's payload as a
// struct (it has no identity document). `Query.isEnvTypechecked()` and `Query.isEnvProtected()`:
// the database's flag, else its nearest ancestor's. Hooks implement EvalHooks with these.

import { inheritedDatabaseFlag } from '../../model/databases';
import { schemaOf } from '../../model/resolve';
import { isProtected } from '../../model/schema10/protectedMode';
import type { Value } from '../../values/types';
import { QueryRuntimeFailure } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import { toRuntime } from './convert';
import { DocV } from './docs';
import { txnOf } from './hooks';
import { PERMISSION_DENIED } from './errors';
import { NativeDocV } from './natives';
import { TOKEN_SPEC } from './tokens';

export async function scopeIdentity(ctx: CallCtx): Promise<RtValue | undefined> {
  const tx = txnOf(ctx);
  const ref = tx.scope.identity;
  if (ref === undefined || !ref.isUserDocument || tx.scope.jwt !== undefined) return undefined;
  if (ref.addr !== undefined) return toRuntime(ref);
  const entry = (await schemaOf(tx, tx.scope.db)).get('collections', ref.collection!.id);
  return entry === undefined ? undefined : new DocV(tx.scope.db, entry.id, entry.name, BigInt(ref.id));
}

export async function scopeToken(ctx: CallCtx): Promise<RtValue | undefined> {
  const scope = txnOf(ctx).scope;
  if (scope.jwt !== undefined) return toRuntime(scope.jwt.payload as Value);
  if (scope.token !== undefined) return new NativeDocV(TOKEN_SPEC, scope.token.db, scope.token.id);
  return undefined;
}

/** Database.isTypechecked: on unless the database or an ancestor turns it off (Flora does not
 *  typecheck either way: the flag is only reported). */
export async function isEnvTypechecked(ctx: CallCtx): Promise<boolean> {
  const tx = txnOf(ctx);
  return (await inheritedDatabaseFlag(tx, tx.scope.db, 'typechecked')) ?? true;
}

/** Database.isProtected, for admin keys only. */
export async function isEnvProtected(ctx: CallCtx): Promise<boolean> {
  const tx = txnOf(ctx);
  if (tx.scope.role !== 'admin' || tx.scope.roles !== undefined) throw new QueryRuntimeFailure('permission_denied', PERMISSION_DENIED, ctx.trace);
  return isProtected(tx, tx.scope.db);
}
