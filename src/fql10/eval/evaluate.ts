// Running a parsed query: variables bound, the tree evaluated, the post-eval checks run (a write's
// deferred validation), the result materialized, and the summary the response carries (the error
// first, then the logs, as FQL2Response renders them).

import type { Expr } from '../ast';
import { renderSummary, type Diagnostic, type SourceTexts } from '../diagnostic';
import { QueryCheckFailure, QueryRuntimeFailure } from '../runtime/failure';
import type { EvalHooks } from '../runtime/hooks';
import { Scope, type RtValue } from '../runtime/values';
import { STDLIB_GLOBALS } from '../stdlib/globals';
import type { MValue } from '../../wire/v10/model';
import { Interp, QueryRun } from './interpreter';
import { materialize } from './materialize';

export type EvalOutcome =
  | { readonly ok: true; readonly value: MValue; readonly logs: Diagnostic[] }
  | { readonly ok: false; readonly failure: QueryRuntimeFailure | QueryCheckFailure; readonly logs: Diagnostic[] };

/** Evaluates `expr` with `vars` bound (named arguments, template values `$0`, `$1`…). Failures
 *  other than the query's own (a budget exceeded, a bug) propagate as thrown. */
export async function evaluate(expr: Expr, vars: ReadonlyMap<string, RtValue>, hooks: EvalHooks): Promise<EvalOutcome> {
  const run = new QueryRun(hooks, hooks.globals ?? STDLIB_GLOBALS);
  let scope: Scope | null = null;
  for (const [k, v] of vars) scope = new Scope(scope, k, v);
  const ctx = new Interp(run);
  try {
    const v = await ctx.eval(expr, scope);
    for (const check of run.postEval.values()) await check();
    return { ok: true, value: await materialize(ctx, v), logs: run.diagnostics };
  } catch (e) {
    if (e instanceof QueryRuntimeFailure || e instanceof QueryCheckFailure) return { ok: false, failure: e, logs: run.diagnostics };
    throw e;
  }
}

/** The response's `summary`. */
export function summary(out: EvalOutcome, sources?: SourceTexts): string {
  const ds: Diagnostic[] = [];
  if (!out.ok) {
    if (out.failure instanceof QueryCheckFailure) ds.push(...out.failure.errors);
    else {
      const d = out.failure.toDiagnostic();
      if (d !== undefined) ds.push(d);
    }
  }
  ds.push(...out.logs);
  return renderSummary(ds, sources);
}
