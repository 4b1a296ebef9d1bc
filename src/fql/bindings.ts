// Index bindings are pure one-argument lambdas (fql-v4.md §2.3): they run against a transaction
// that refuses every read and write with Fauna's effect error.

import { QueryError } from '../values/errors';
import type { Lambda, Value } from '../values/types';
import type { BindingEvaluator } from '../model/indexDef';
import type { Txn } from '../storage/types';
import { EvalContext } from './context';
import { applyLambda } from './evaluator';

function refuse(effect: 'a read' | 'a write'): never {
  throw new QueryError('invalid expression', `Call performs ${effect}, which is not allowed in index bindings.`);
}

function pureTxn(snapshotTs: bigint): Txn {
  const read = () => refuse('a read');
  const write = () => refuse('a write');
  return {
    snapshotTs,
    metrics: { bytesRead: 0, bytesWritten: 0, reads: 0, writes: 0 },
    hasWrites: false,
    getVersion: read,
    history: read,
    scan: read,
    scanIndex: read,
    indexHistory: read,
    getMeta: read,
    readConflictKey: read,
    putVersion: write,
    putMeta: write,
    putIndexEntry: write,
    putIndexHistory: write,
    writeConflictKey: write,
  };
}

/** Evaluates bindings for the transaction of `ctx`, with the same scope and deadline but no storage. */
export function bindingEvaluator(ctx: EvalContext): BindingEvaluator {
  let pure: EvalContext | undefined;
  return (binding: Lambda, doc: Value) => {
    pure ??= new EvalContext(pureTxn(ctx.snapshotTs), ctx.scope, ctx.catalog, ctx.deadline, true);
    return applyLambda(binding, [doc], pure, []);
  };
}
