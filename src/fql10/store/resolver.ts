// The globals storage defines (GlobalResolvers.scala): `Collection`, and each user collection by
// its name or alias. The endpoint passes this as EvalHooks.resolveGlobal.

import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import { CollectionModule, userCollection } from './collections';
import { txnOf } from './hooks';

export async function resolveStoreGlobal(ctx: CallCtx, name: string): Promise<RtValue | undefined> {
  if (name === 'Collection') return CollectionModule.module;
  return userCollection(ctx, txnOf(ctx).scope.db, name);
}
