// Collection.create, update and replace with a `migrations` block (the core's TypeEnvValidator and
// MigrationDeriver, run once the query has been evaluated): each collection the query changed is
// migrated from its definition as the query found it to the one it leaves, by the code a schema
// push runs (schemaFiles/migrate.ts); a new one has its block checked on its own. A push checks
// and runs its collections' migrations itself.

import type { TxnContext } from '../../model/context';
import type { Obj } from '../../values/types';
import { migrateToDefinition, MigrationRefused } from '../schemaFiles/migrate';
import { QueryRuntimeFailure } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { txnOf, type StoreHooks } from './hooks';

/** Each transaction's collections changed so far (`db:id`): the first change's definition is the one migrated from. */
const changed = new WeakMap<TxnContext, Set<string>>();

/** After the query, collection `id` of `db` (its definition `live` before this write, null: created) is migrated, once per query. */
export function migrateOnceEvaluated(ctx: CallCtx, db: bigint, id: bigint, live: Obj | null): void {
  if ((ctx.hooks as Partial<StoreHooks>).schemaPush === true) return;
  const tx = txnOf(ctx);
  const seen = changed.get(tx) ?? new Set<string>();
  changed.set(tx, seen);
  const key = `${db}:${id}`;
  if (seen.has(key)) return;
  seen.add(key);
  const trace = ctx.trace;
  ctx.addPostEvalHook(`migrate:${key}`, async () => {
    try {
      await tx.within({ scope: { ...tx.scope, db } }, () => migrateToDefinition(tx, id, live));
    } catch (e) {
      if (e instanceof MigrationRefused) throw new QueryRuntimeFailure('invalid_schema', e.message, trace);
      throw e;
    }
  });
}
