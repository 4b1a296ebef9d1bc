// Control flow and logic (fql-v4.md §2.4, §3.1): if, do, and, or, not, equals, lt/lte/gt/gte,
// abort, query. `var`, `let` and `lambda` are evaluator nodes, not registered functions.

import type { CallExpr } from '../../wire/expr';
import { errors, type Position } from '../../values/errors';
import type { Value } from '../../values/types';
import { compareValues, valuesEqual } from '../../values/order';
import type { EvalContext } from '../context';
import type { Env } from '../env';
import { evalExpr, makeLambda } from '../evaluator';
import { argPos, asBoolean, asString, evalArg, evalList, expectBoolean, lambdaArg } from '../args';
import { define } from '../registry';

define('if', async (call, env, ctx) => {
  const cond = expectBoolean(await evalArg(call, 'if', env, ctx), argPos(call, 'if'));
  return evalArg(call, cond ? 'then' : 'else', env, ctx);
});

define('do', async (call, env, ctx) => {
  const e = call.args.get('do')!;
  // Only a literal list is a sequence; any other expression is simply evaluated.
  if (e.t !== 'array') return evalExpr(e, env, ctx);
  if (e.items.length === 0) throw errors.invalidExpression('Expression list cannot be empty.', argPos(call, 'do'));
  let last: Value = null;
  for (const item of e.items) last = await evalExpr(item, env, ctx);
  return last;
});

/**
 * And/Or: operands are evaluated one by one so that the first deciding operand stops evaluation
 * (`Or(true, Abort('x'))` is true). A non-literal operand is a single Boolean operand.
 */
function shortCircuit(head: 'and' | 'or') {
  const stopOn = head === 'or';
  return async (call: CallExpr, env: Env, ctx: EvalContext): Promise<Value> => {
    const e = call.args.get(head)!;
    if (e.t !== 'array') return expectBoolean(await evalExpr(e, env, ctx), argPos(call, head));
    if (e.items.length === 0) throw errors.invalidExpression('Expression list cannot be empty.', argPos(call, head));
    for (let i = 0; i < e.items.length; i++) {
      const b = expectBoolean(await evalExpr(e.items[i], env, ctx), [...call.pos, head, i]);
      if (b === stopOn) return stopOn;
    }
    return !stopOn;
  };
}
define('and', shortCircuit('and'));
define('or', shortCircuit('or'));

define('not', async (call, env, ctx) => !asBoolean(await evalArg(call, 'not', env, ctx), argPos(call, 'not')));

define('equals', async (call, env, ctx) => {
  const vs = await evalList(call, 'equals', env, ctx);
  for (let i = 1; i < vs.length; i++) if (!valuesEqual(vs[0], vs[i])) return false;
  return true;
});

/** Chain comparison in the index sort order (§5.1), so any two types are comparable. */
function chain(head: string, ok: (c: number) => boolean) {
  define(head, async (call, env, ctx) => {
    const vs = await evalList(call, head, env, ctx, false);
    for (let i = 1; i < vs.length; i++) if (!ok(compareValues(vs[i - 1], vs[i]))) return false;
    return true;
  });
}
chain('lt', (c) => c < 0);
chain('lte', (c) => c <= 0);
chain('gt', (c) => c > 0);
chain('gte', (c) => c >= 0);

define('abort', async (call, env, ctx) => {
  const msg = asString(await evalArg(call, 'abort', env, ctx), argPos(call, 'abort'));
  // Fauna reports the position of the Abort call itself (`[]` at top level).
  const pos: Position = call.pos;
  throw errors.aborted(msg, pos);
});

// The decoder guarantees a literal lambda here; the value closes over the current scope.
define('query', async (call, env) => makeLambda(lambdaArg(call, 'query'), env));
