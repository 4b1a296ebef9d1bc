// Index bindings are pure one-argument lambdas (fql-v4.md §2.3): they run against a transaction
// that refuses every read and write with Fauna's effect error.

import { addressed } from '../model/addresses';
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
    names: undefined,
    versionView: undefined,
    metrics: { bytesRead: 0, bytesWritten: 0, reads: 0, writes: 0, reader: undefined },
    hasWrites: false,
    intendsWrite: write,
    getVersion: read,
    history: read,
    scan: read,
    scanIndex: read,
    indexHistory: read,
    getMeta: read,
    readConflictKey: read,
    putVersion: write,
    putVersionAt: write,
    removeVersionAt: write,
    putMeta: write,
    putIndexEntry: write,
    putIndexHistory: write,
    putIndexCurrent: write,
    removeIndexHistory: write,
    writeConflictKey: write,
  };
}

/**
 * Evaluates bindings for the transaction of `ctx`, with the same scope and budget but no storage.
 * A binding that fails on a document (say, Select of a field it lacks) leaves that position
 * missing, like an absent field: a document write must not fail because of an index over it.
 * Bindings that read or write are refused when the index is created.
 */
export function bindingEvaluator(ctx: EvalContext): BindingEvaluator {
  let pure: EvalContext | undefined;
  return async (binding: Lambda, doc: Value) => {
    pure ??= new EvalContext(pureTxn(ctx.snapshotTs), ctx.scope, ctx.catalog, ctx.budget, true);
    try {
      // Index keys hold refs by address: one the binding names is resolved in the real transaction.
      return await addressed(ctx, await applyLambda(binding, [doc], pure, []), []);
    } catch (e) {
      if (e instanceof QueryError) return null;
      throw e;
    }
  };
}
