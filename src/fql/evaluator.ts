// Evaluates an expression tree inside one transaction.

import type { CallExpr, Expr, LambdaExpr } from '../wire/expr';
import { decodeExpr } from '../wire/decode';
import { errors, QueryError, type Position } from '../values/errors';
import { Lambda, type LambdaParams, type Value } from '../values/types';
import { EvalContext, MAX_CALL_DEPTH } from './context';
import { Env } from './env';
import { lookup } from './registry';
import { freeVariables } from './freeVars';

export async function evalExpr(e: Expr, env: Env, ctx: EvalContext): Promise<Value> {
  switch (e.t) {
    case 'lit':
      return e.v;
    case 'var': {
      const b = env.lookup(e.name);
      if (!b.found) throw errors.invalidExpression(`Variable '${e.name}' is not defined.`, e.pos);
      return b.value;
    }
    case 'array': {
      ctx.budget.alloc(64 + 8 * e.items.length); // a JS array: header, backing store, slots
      const out: Value[] = new Array(e.items.length);
      let failed: QueryError[] | undefined;
      for (let i = 0; i < e.items.length; i++) {
        try {
          out[i] = await evalExpr(e.items[i], env, ctx);
        } catch (err) {
          (failed ??= []).push(elementError(err));
        }
      }
      if (failed) throw QueryError.accumulate(failed);
      return ctx.built(out);
    }
    case 'object': {
      ctx.budget.alloc(128 + 48 * e.entries.length); // a Map: header, hash table, entries
      const out = new Map<string, Value>();
      let failed: QueryError[] | undefined;
      for (const [k, x] of e.entries) {
        try {
          out.set(k, await evalExpr(x, env, ctx));
        } catch (err) {
          (failed ??= []).push(elementError(err));
        }
      }
      if (failed) throw QueryError.accumulate(failed);
      return ctx.built(out);
    }
    case 'let': {
      let scope = env;
      for (const [name, x] of e.bindings) scope = scope.bind(name, await evalExpr(x, scope, ctx));
      return evalExpr(e.body, scope, ctx);
    }
    case 'lambda':
      return makeLambda(e, env);
    case 'call':
      return evalCall(e, env, ctx);
  }
}

/** Errors of literal elements accumulate (fql-v4.md §1.7); anything else (a timeout) stops at once. */
function elementError(err: unknown): QueryError {
  if (err instanceof QueryError) return err;
  throw err;
}

function evalCall(call: CallExpr, env: Env, ctx: EvalContext): Promise<Value> {
  const impl = lookup(call.fn);
  if (!impl) throw errors.notImplemented(call.fn, call.pos);
  ctx.tick();
  // The query's slice of the event loop is used up: let other requests run first.
  if (ctx.budget.yieldDue) return ctx.budget.pause().then(() => impl(call, env, ctx));
  return impl(call, env, ctx);
}

/** A lambda value closes over the free variables of its body that are bound where it is made. */
export function makeLambda(e: LambdaExpr, env: Env): Lambda {
  let closure: Map<string, Value> | undefined;
  for (const name of freeVariables(e)) {
    const b = env.lookup(name);
    if (b.found) (closure ??= new Map()).set(name, b.value);
  }
  const lambda = new Lambda(e.params, e.raw, '4', closure);
  lambda.compiled = e.body;
  return lambda;
}

/** Applies a literal lambda (Map, Filter, …) in the caller's environment. */
export function applyLambdaExpr(
  e: LambdaExpr,
  args: Value[],
  env: Env,
  ctx: EvalContext,
): Promise<Value> {
  ctx.tick();
  // A lambda whose body makes no call (Map(xs, x => [x])) still lets other requests in.
  if (ctx.budget.yieldDue) return ctx.budget.pause().then(() => evalExpr(e.body, bindParams(e.params, args, env, e.pos), ctx));
  return evalExpr(e.body, bindParams(e.params, args, env, e.pos), ctx);
}

/** Applies a lambda value (a UDF body, a stored predicate, a Var holding a lambda). */
export async function applyLambda(
  lambda: Lambda,
  args: Value[],
  ctx: EvalContext,
  pos: Position,
): Promise<Value> {
  if (ctx.callDepth >= MAX_CALL_DEPTH)
    throw new QueryError('stack overflow', 'Call stack reached the maximum limit of 200.', pos);
  ctx.tick();
  if (ctx.budget.yieldDue) await ctx.budget.pause();
  const body = (lambda.compiled ??= decodeExpr(lambda.body as never)) as Expr;
  ctx.callDepth++;
  try {
    return await evalExpr(body, bindParams(lambda.params, args, Env.from(lambda.closure), pos), ctx);
  } finally {
    ctx.callDepth--;
  }
}

/**
 * Binds lambda parameters. One argument to an array pattern destructures it; several arguments
 * bind positionally (Reduce passes [acc, value]).
 */
export function bindParams(params: LambdaParams, args: Value[], env: Env, pos: Position): Env {
  if (typeof params === 'string') {
    const v = args.length === 1 ? args[0] : args;
    return params === '_' ? env : env.bind(params, v);
  }
  let values: Value[];
  if (args.length === params.length && args.length !== 1) values = args;
  else if (args.length === 1 && Array.isArray(args[0])) values = args[0];
  else if (args.length === 1 && params.length === 1) values = args;
  else values = args;
  if (values.length !== params.length)
    throw errors.invalidArgument(
      `Lambda expects an array with ${params.length} elements. Array contains ${values.length}.`,
      pos,
    );
  let scope = env;
  for (let i = 0; i < params.length; i++) scope = bindParams(params[i], [values[i]], scope, pos);
  return scope;
}
