// Entry points of the FQL v10 parser. Each answers the tree or the errors the core would report
// (rendered with ../diagnostic.ts; the endpoint's code for them is `invalid_query`).
//
// Templated queries: the driver sends `{"fql": ["text", {"value": v}, {"fql": [...]}, ...]}`.
// wire/v10/request.ts assembles those fragments into one text in which each `{"value": ...}` is the
// placeholder VALUE_SIGIL (NUL then `value>`, shown as `<value>` in errors), as the core's FQL2Query
// does. `parseQueryTemplate` reads the placeholders as variables `$0`, `$1`, ... in the order they
// appear, which is the order of the request's `query.values`: the evaluator binds `$i` to the i-th
// value. No identifier a user can write starts with `$`.

import type { Expr, LongLambda, ShortLambda, TypeExpr } from '../ast';
import type { Diagnostic } from '../diagnostic';
import { querySrc, type Src } from '../span';
import { ABORT, Cursor, MAX_DEPTH } from './cursor';
import { expected } from './errors';
import { lambdaBody, loneExpr, queryBody } from './exprs';
import { typeExpr } from './types';

export { OPERATOR_PRECEDENCE } from './exprs';
export { MAX_DEPTH };

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: Diagnostic[] };

/** A query's text: a block of statements (its span covers them). */
export function parseQuery(text: string, src: Src = querySrc(text)): ParseResult<Expr> {
  return run(text, src, false, queryBody);
}

/** A query assembled from template fragments: placeholders are variables `$0`, `$1`, ... */
export function parseQueryTemplate(text: string, src: Src = querySrc(text)): ParseResult<Expr> {
  return run(text, src, true, queryBody);
}

/** One expression (no top-level statements); `shortLambda` allows `.foo` at the top. */
export function parseExpr(text: string, src: Src = querySrc(text), shortLambda = false): ParseResult<Expr> {
  return run(text, src, false, (c) => loneExpr(c, shortLambda));
}

/** A user function's body, which must be one lambda (`(x) => ...` or `(.foo)`). */
export function parseLambda(text: string, src: Src): ParseResult<LongLambda | ShortLambda> {
  return run(text, src, false, lambdaBody);
}

/** A type alone (Parser.typeExpr): a stored signature. */
export function parseTypeExpr(text: string, src: Src = querySrc(text)): ParseResult<TypeExpr> {
  return run(text, src, false, (c) => {
    c.nl();
    const t = typeExpr(c) ?? c.abort();
    if (!c.atEnd()) {
      c.note('end-of-input');
      c.abort();
    }
    return t;
  });
}

/** Runs a grammar entry over `text`: its value, or the errors the core would report (a failure
 *  names what could have come where it happened). FSL (../fsl) reads files through it. */
export function run<T>(text: string, src: Src, isTemplate: boolean, entry: (c: Cursor) => T): ParseResult<T> {
  const c = new Cursor(text, src, isTemplate);
  try {
    const value = entry(c);
    return c.errors.length > 0 ? { ok: false, errors: c.errors } : { ok: true, value };
  } catch (e) {
    if (e !== ABORT) throw e;
  }
  if (c.errors.length > 0) return { ok: false, errors: c.errors };
  // As fastparse does, parse again to learn what could have come where the parse failed.
  const at = c.abortAt;
  const trace = new Cursor(text, src, isTemplate, at);
  try {
    entry(trace);
  } catch (e) {
    if (e !== ABORT) throw e;
  }
  return { ok: false, errors: [expected(trace.traced, c.span(at, at + 1))] };
}
