// Free variables of a lambda body, so a lambda value captures only what it uses.

import type { Expr, LambdaExpr } from '../wire/expr';
import type { LambdaParams } from '../values/types';

export function freeVariables(lambda: LambdaExpr): Set<string> {
  const out = new Set<string>();
  walk(lambda.body, paramNames(lambda.params, new Set()), out);
  return out;
}

function paramNames(p: LambdaParams, into: Set<string>): Set<string> {
  if (typeof p === 'string') into.add(p);
  else for (const q of p) paramNames(q, into);
  return into;
}

function walk(e: Expr, bound: ReadonlySet<string>, out: Set<string>): void {
  switch (e.t) {
    case 'lit':
      return;
    case 'var':
      if (!bound.has(e.name)) out.add(e.name);
      return;
    case 'array':
      for (const x of e.items) walk(x, bound, out);
      return;
    case 'object':
      for (const [, x] of e.entries) walk(x, bound, out);
      return;
    case 'call':
      for (const x of e.args.values()) walk(x, bound, out);
      return;
    case 'lambda':
      walk(e.body, paramNames(e.params, new Set(bound)), out);
      return;
    case 'let': {
      const inner = new Set(bound);
      for (const [name, x] of e.bindings) {
        walk(x, inner, out);
        inner.add(name);
      }
      walk(e.body, inner, out);
      return;
    }
  }
}
