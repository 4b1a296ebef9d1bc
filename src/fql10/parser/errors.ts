// The core's parse failures (fql/shared/.../parser/Errors.scala and package.scala `Failure`),
// with its exact messages. All are rendered by ../diagnostic.ts; the endpoint answers them with
// code `invalid_query`.

import { error, type Diagnostic } from '../diagnostic';
import type { Name } from '../ast';
import type { Span } from '../span';

export function unexpectedEndOfQuery(sp: Span): Diagnostic {
  return error('Unexpected end of query. Expected statement or expression', sp);
}

export function unexpectedEndOfBlock(sp: Span): Diagnostic {
  return error('Unexpected end of block. Expected statement or expression', sp);
}

export function missingReturn(block: Span, stmt: Span): Diagnostic {
  return error('Missing return expression', block, undefined, [{ message: 'Statement does not return a value', span: stmt, hintType: 'cause' }]);
}

export function invalidShortLambda(sp: Span): Diagnostic {
  return error('Invalid anonymous field access', sp);
}

export function duplicateLambdaArgument(original: Span, duplicate: Span): Diagnostic {
  return error('Duplicate lambda argument', duplicate, undefined, [{ message: 'Argument originally defined here', span: original }]);
}

export function duplicateObjectKey(original: Span, duplicate: Span): Diagnostic {
  return error('Duplicate key', duplicate, undefined, [{ message: 'Key originally used here', span: original }]);
}

export function invalidIdent(name: Name): Diagnostic {
  return error('Invalid identifier', name.span, `\`${name.str}\` is a keyword`);
}

export function invalidEscape(sp: Span, annotation: string): Diagnostic {
  return error('Invalid escape', sp, annotation);
}

export function invalidVariadic(sp: Span): Diagnostic {
  return error('Invalid variadic argument', sp);
}

export function invalidNamedType(sp: Span): Diagnostic {
  return error('Only lambda argument types may be named', sp);
}

export function interpolatedObjectKey(interpolated: Span, backslashAt: Span, key: Span): Diagnostic {
  return error('Object keys do not support interpolation', interpolated, undefined, [
    { message: 'Add a backslash to ignore the interpolation', span: backslashAt, suggestion: '\\' },
    { message: 'Use Object.fromEntries if you need a dynamic key', span: key },
  ]);
}

export function bodyMustBeALambda(sp: Span, suggestArrow: boolean): Diagnostic {
  const hints = suggestArrow ? [{ message: 'Declare a lambda.', span: { start: sp.start, end: sp.start, src: sp.src }, suggestion: '() => ' }] : undefined;
  return error('Body must be a lambda expression.', sp, 'Expression is not a lambda.', hints);
}

/** fastparse's failure message: the names of what could have come at the failure point,
 *  sorted, as `Expected a`, `Expected a or b`, `Expected a, b, or c`; `expression` when none. */
export function expected(names: ReadonlyArray<string>, sp: Span): Diagnostic {
  const ns = [...new Set(names)].sort();
  let msg: string;
  if (ns.length === 0) msg = 'expression';
  else if (ns.length === 1) msg = ns[0];
  else if (ns.length === 2) msg = `${ns[0]} or ${ns[1]}`;
  else msg = `${ns.slice(0, -1).join(', ')}, or ${ns[ns.length - 1]}`;
  return error(`Expected ${msg}`, sp);
}
