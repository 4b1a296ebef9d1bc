// Where a node came from: a source (the query, a UDF body, ...) and a half-open range of UTF-16
// offsets into its text. Mirrors the core's fql.ast.Src / fql.ast.Span.

/** A named source. `text` is set when the source carries its own text (the query); sources that
 *  name stored text (a UDF body) are resolved through a render context when an error is rendered. */
export interface Src {
  readonly name: string;
  readonly text?: string;
}

export interface Span {
  readonly start: number;
  readonly end: number;
  readonly src: Src;
}

/** The query's source name, as the core prints it in `at *query*:1:5`. */
export const QUERY_SRC_NAME = '*query*';

/** A source that is no file: spans in it render as `at <no source>`. */
export const NULL_SRC: Src = { name: '*null*' };

export const NULL_SPAN: Span = { start: 0, end: 0, src: NULL_SRC };

export function querySrc(text: string): Src {
  return { name: QUERY_SRC_NAME, text };
}

/** The source of a user function's body (`*udf:name*`). */
export function udfSrc(name: string): Src {
  return { name: `*udf:${name}*` };
}

/** From the start of `a` to the end of `b`. */
export function spanTo(a: Span, b: Span): Span {
  return { start: a.start, end: b.end, src: a.src };
}
