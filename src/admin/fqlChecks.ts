// Checks of FQL typed in the driver's syntax that the server would only make after the request:
// a stored lambda (a function's body, a role's or an access provider's predicate) must be
// Query(Lambda(...)) taking as many parameters as the server passes, and a call's arguments are a
// comma-separated list. Mistakes are Errors with a message a user can act on.

import type { JsonValue } from '../wire/expr';
import { FqlJsError } from '../fqljs/errors';
import { parseFqlJs } from '../fqljs/parse';

/** The `{lambda, expr}` inside `Query(…)` (or a bare Lambda), else undefined. */
function lambdaIn(wire: JsonValue): Map<string, JsonValue> | undefined {
  if (!(wire instanceof Map)) return undefined;
  const inner = wire.size === 1 && wire.has('query') ? wire.get('query') : wire;
  return inner instanceof Map && inner.size === 2 && inner.has('lambda') && inner.has('expr') ? inner : undefined;
}

/** How many parameters a lambda takes: 1 for `Lambda("x", …)`, n for `Lambda(["a", "b"], …)`. */
function arity(lambda: Map<string, JsonValue>): number {
  const params = lambda.get('lambda');
  return Array.isArray(params) ? params.length : 1;
}

const count = (n: number): string => `${n} parameter${n === 1 ? '' : 's'}`;

/**
 * `wire` as the driver's `Query(Lambda(…))` (a bare `Lambda(…)` is wrapped, as `Query` would), or an
 * Error naming what is expected; `arities` lists the parameter counts the server accepts (any when
 * undefined) and `example` shows one that fits.
 */
export function asQueryLambda(wire: JsonValue, arities: readonly number[] | undefined, example: string): JsonValue {
  const lambda = lambdaIn(wire);
  if (!lambda) throw new Error(`Expected a lambda written as Query(Lambda(…)), e.g. ${example}`);
  const n = arity(lambda);
  if (arities && !arities.includes(n))
    throw new Error(`This lambda takes ${count(n)}; here it must take ${arities.map(count).join(' or ')}, e.g. ${example}`);
  return new Map([['query', lambda]]);
}

/**
 * The arguments of a call typed as a comma-separated list (`1, "two", [3]`): each one's wire form,
 * in order; a syntax error points into `text` itself.
 */
export function parseArguments(text: string): JsonValue[] {
  if (text.trim() === '') return [];
  try {
    // The new line keeps the bracket out of a trailing // comment.
    return parseFqlJs(`[${text}\n]`) as JsonValue[];
  } catch (err) {
    if (err instanceof FqlJsError) throw new FqlJsError(err.reason, text, err.offset - 1);
    throw err;
  }
}

/** `Call`'s `arguments` as the driver sends them: one argument alone, several as an array. */
export function callArguments(args: JsonValue[]): JsonValue {
  return args.length === 1 ? args[0] : args;
}
