// The evaluation context of background work (index builds, history collection, expiry): it acts
// as the database's admin, never times out, may write, and has no compute or memory limit (the
// work is the server's own, bounded by its batches).

import type { Txn } from '../storage/types';
import type { Catalog } from '../model/catalog';
import type { Scope } from '../model/auth';
import { EvalContext } from './context';
import { Budget, DEFAULT_LIMITS } from '../model/budget';
import { bindingEvaluator } from './bindings';
import { installSchemaLanguage } from '../fql10/store/schemaLanguage';

export function backgroundContext(txn: Txn, catalog: Catalog, db: bigint): EvalContext {
  const scope: Scope = { db, path: [], role: 'admin', root: true };
  const ctx = new EvalContext(txn, scope, catalog, new Budget(UNLIMITED, Number.MAX_SAFE_INTEGER), false);
  ctx.evalBinding = bindingEvaluator(ctx);
  installSchemaLanguage(ctx);
  return ctx;
}

const UNLIMITED = Object.freeze({
  ...DEFAULT_LIMITS,
  computeOps: Number.MAX_SAFE_INTEGER / 100,
  maxValueBytes: Number.MAX_SAFE_INTEGER,
  queryMemoryBytes: Number.MAX_SAFE_INTEGER,
});
