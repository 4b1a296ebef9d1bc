// The model's refusals (v4's QueryError codes) as the v10 failures the core raises for them
// (WriteBroker.mapWriteResult, QueryRuntimeFailure.*).

import { QueryError } from '../../values/errors';
import { ConstraintFailureError } from '../../model/schema10/errors';
import { QueryRuntimeFailure, type Trace } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';

export const PERMISSION_DENIED = 'Insufficient privileges to perform the action.';

/** `e` as a v10 failure when the model threw it; anything else is rethrown unchanged. */
export function fromModel(e: unknown, trace: Trace | null, notFound?: () => QueryRuntimeFailure): QueryRuntimeFailure {
  if (e instanceof ConstraintFailureError) return new QueryRuntimeFailure(e.v10Code, e.summary, trace, [], undefined, e.constraintFailures);
  if (!(e instanceof QueryError)) throw e;
  switch (e.code) {
    case 'permission denied':
      return new QueryRuntimeFailure('permission_denied', PERMISSION_DENIED, trace);
    case 'instance not found':
      if (notFound) return notFound();
      break;
    case 'instance not unique':
      return new QueryRuntimeFailure('constraint_failure', 'Failed unique constraint.', trace);
    case 'invalid write time':
      return mustWriteNow(trace);
  }
  return new QueryRuntimeFailure(e.code.replace(/ /g, '_'), e.description, trace);
}

/** Runs a model call, its refusals turned into v10 failures. */
export async function viaModel<T>(ctx: CallCtx, fn: () => Promise<T>, notFound?: () => QueryRuntimeFailure): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw fromModel(e, ctx.trace, notFound);
  }
}

function mustWriteNow(trace: Trace | null): QueryRuntimeFailure {
  return new QueryRuntimeFailure('invalid_write', 'Cannot write at a snapshot time in the past.', trace);
}

/** requireWriteEffect: writes are refused in read-only contexts (set functions, check
 *  constraints) and under `at`. */
export function requireWrite(ctx: CallCtx, fn: string): void {
  if (ctx.readOnlyReason !== undefined)
    throw new QueryRuntimeFailure('invalid_effect', `\`${fn}\` performs a write, which is not allowed in ${ctx.readOnlyReason}.`, ctx.trace);
  if (ctx.validTime !== undefined) throw mustWriteNow(ctx.trace);
}

