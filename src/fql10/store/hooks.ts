// What the storage-backed standard library needs from whoever runs a query: the evaluator's hooks
// plus the transaction the query runs in (model/context.ts). The endpoint's hooks (fql10/run/)
// satisfy it by carrying `tx`; tests build their own over a temporary store.

import type { TxnContext } from '../../model/context';
import type { EvalHooks } from '../runtime/hooks';
import type { CallCtx } from '../runtime/table';

export interface StoreHooks extends EvalHooks {
  readonly tx: TxnContext;
  /** The query is a schema push (schemaFiles/push.ts), which checks and runs collections' migrations itself. */
  readonly schemaPush?: boolean;
}

/** The transaction behind a call; storage methods are only reachable from hooks that have one. */
export function txnOf(ctx: CallCtx): TxnContext {
  const tx = (ctx.hooks as Partial<StoreHooks>).tx;
  if (tx === undefined) throw new Error('storage functions need StoreHooks (an evaluation without a transaction reached one)');
  return tx;
}

/** The valid time reads see in µs (`at (ts)`), or undefined for the snapshot. */
export function readTimeOf(ctx: CallCtx): bigint | undefined {
  return ctx.validTime === undefined ? undefined : ctx.validTime.micros;
}
