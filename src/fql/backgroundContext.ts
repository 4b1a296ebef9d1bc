// The evaluation context of background work (index builds, history collection, expiry): it acts
// as the database's admin, never times out, and may write.

import type { Txn } from '../storage/types';
import type { Catalog } from '../model/catalog';
import type { Scope } from '../model/auth';
import { EvalContext } from './context';
import { bindingEvaluator } from './bindings';

export function backgroundContext(txn: Txn, catalog: Catalog, db: bigint): EvalContext {
  const scope: Scope = { db, path: [], role: 'admin', root: true };
  const ctx = new EvalContext(txn, scope, catalog, Number.MAX_SAFE_INTEGER, false);
  ctx.evalBinding = bindingEvaluator(ctx);
  return ctx;
}
