// Call: user-defined functions (fql-v4.md §3.1, §1.9, §6.3).
//
// `{"call": fn, "arguments": args?}`: fn is a function ref or a function name. The arguments value
// (absent → []) is the lambda's single argument, so `Lambda('x', …)` receives it whole and an
// array pattern `Lambda(['a','b'], …)` destructures it (what the driver's Call(f, a, b) sends).
//
// Errors raised by the body are wrapped in `call error` (at the Call's position) whose `cause`
// holds the inner error (positions relative to the function's lambda, e.g. ["expr", "let", 0]).
// DECISION: `stack overflow` is not wrapped — it passes through every enclosing call unchanged,
// instead of 200 nested `call error`s.

import { define } from '../registry';
import { argPos, evalArg, evalOptional, mismatch } from '../args';
import { applyLambda } from '../evaluator';
import { errors, QueryError } from '../../values/errors';
import { Lambda, Ref, type Value } from '../../values/types';
import { resolveRef } from '../../model/resolve';
import { functionScope, mayCallFunction } from '../../model/functionCalls';
import { decodeExpr } from '../../wire/decode';

/** Bodies whose positions were rebased (errors in a body point into the function's `@query`). */
const rebased = new WeakSet<Lambda>();

/** Positions inside a function body are relative to its lambda: `["expr", …]`, wherever the
 * function was created (a body compiled in the creating request would carry request positions). */
function rebase(body: Lambda): Lambda {
  if (!rebased.has(body)) {
    body.compiled = decodeExpr(body.body as never, ['expr']);
    rebased.add(body);
  }
  return body;
}

define('call', async (call, env, ctx) => {
  const fnPos = argPos(call, 'call');
  let fn = await evalArg(call, 'call', env, ctx);
  const args: Value = (await evalOptional(call, 'arguments', env, ctx)) ?? [];
  if (typeof fn === 'string') fn = Ref.schema('functions', fn);
  if (!(fn instanceof Ref)) mismatch('Ref', fn, fnPos);
  if (fn.nativeParent !== 'functions') mismatch('User Function Ref', fn, fnPos);
  const target = await resolveRef(ctx, fn, fnPos);
  if (target.kind !== 'schema' || !target.entry)
    throw errors.invalidRef(`Ref refers to undefined function '${fn.id}'`, fnPos);
  const entry = target.entry;
  if (!(await mayCallFunction(ctx, target, entry, args))) throw errors.permissionDenied(call.pos);
  const body = entry.fields.get('body');
  // User-defined roles (names, refs, arrays) run the body with exactly those roles.
  const scope = await functionScope(ctx, target.db, entry);
  // A body written in v10 runs in the v10 language (LambdaWrapper.FQLX applied from v4).
  if (typeof body === 'string' && ctx.lambdaLanguage) {
    const language = ctx.lambdaLanguage;
    return ctx.within({ scope }, () => language.apply(ctx, body, `*udf:${entry.name}*`, [args], true));
  }
  if (!(body instanceof Lambda)) mismatch('Lambda', body ?? null, fnPos);
  try {
    return await ctx.within({ scope }, () => applyLambda(rebase(body), [args], ctx, call.pos));
  } catch (e) {
    if (!(e instanceof QueryError) || e.code === 'stack overflow') throw e;
    const cause = [e, ...e.also];
    e.also = [];
    throw new QueryError('call error', 'Calling the function resulted in an error.', call.pos, 400, undefined, cause);
  }
});
