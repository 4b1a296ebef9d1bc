// `Query.identity()` and `Query.token()` (stdlib/Query.scala) over the request's Scope
// (model/auth.ts): a token's identity document and the token itself; a JWT's payload as a
// struct (it has no identity document). Hooks implement EvalHooks.identity/token with these.

import { schemaOf } from '../../model/resolve';
import type { Value } from '../../values/types';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import { toRuntime } from './convert';
import { DocV } from './docs';
import { txnOf } from './hooks';
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
