// The globals storage defines (GlobalResolvers.scala): the native collections' companions
// (`Collection`, `Function`, `Role`, `Key`, `Database`, `AccessProvider`, `Credential` and its
// alias `Credentials`, `Token`) beside the standard library's (STORE_GLOBALS, the endpoint's
// EvalHooks.globals), then each user collection by its name or alias, then each user function by
// its name or alias (resolveStoreGlobal, the endpoint's EvalHooks.resolveGlobal).

import type { CallCtx } from '../runtime/table';
import type { ModuleV, RtValue } from '../runtime/values';
import { AccessProviderModule } from './accessProviders';
import { CollectionModule, userCollection } from './collections';
import { CredentialModule } from './credentials';
import { DatabaseModule } from './databases';
import { FunctionModule, lookupFunction } from './functions';
import { STDLIB_GLOBALS } from '../stdlib/globals';
import { txnOf } from './hooks';
import { KeyModule } from './keys';
import { RoleModule } from './roles';
import { TokenModule } from './tokens';

const NATIVE_MODULES: [string, ModuleV][] = [
  ['Collection', CollectionModule.module],
  ['Function', FunctionModule.module],
  ['Role', RoleModule.module],
  ['Key', KeyModule.module],
  ['Database', DatabaseModule.module],
  ['AccessProvider', AccessProviderModule.module],
  ['Credential', CredentialModule.module],
  ['Credentials', CredentialModule.module],
  ['Token', TokenModule.module],
];

export const STORE_GLOBALS: ReadonlyMap<string, RtValue> = new Map<string, RtValue>([...STDLIB_GLOBALS, ...NATIVE_MODULES]);

export async function resolveStoreGlobal(ctx: CallCtx, name: string): Promise<RtValue | undefined> {
  const db = txnOf(ctx).scope.db;
  return (await userCollection(ctx, db, name)) ?? (await lookupFunction(ctx, db, name));
}
