// GraphQL errors as the API returns them (graphql.md A.5): Sangria-style messages for syntax and
// validation errors (single quotes, `(line L, column C):` and an excerpt), FQL codes in
// `extensions.code` for resolver errors, `locations` and `path` wherever graphql-js knows them.

import { GraphQLError } from 'graphql';
import { ProtocolError, QueryError } from '../values/errors';
import { excerpt } from './sdl';
import { GqlError } from './values';
import { log } from '../diag/log';

export interface ErrorJson {
  message: string;
  locations?: { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions?: { code: string };
}

/** graphql-js quotes names with `"`; Fauna's (Sangria's) messages used `'`. */
export function sangriaQuotes(message: string): string {
  return message.replace(/"/g, "'");
}

function withExcerpt(message: string, e: GraphQLError): string {
  if (!e.source || !e.positions?.length) return message;
  return message + excerpt(e.source, e.positions[0]);
}

export function syntaxError(e: GraphQLError): ErrorJson {
  const detail = sangriaQuotes(e.message.replace(/^Syntax Error: /, ''));
  return {
    message: withExcerpt(`Syntax error while parsing GraphQL query. ${detail}`, e),
    ...(e.locations ? { locations: [...e.locations] } : {}),
  };
}

export function validationError(e: GraphQLError): ErrorJson {
  return { message: withExcerpt(sangriaQuotes(e.message), e), ...(e.locations ? { locations: [...e.locations] } : {}) };
}

/** The innermost error of a function call (`call error` wraps what the body raised). */
export function unwrapCall(e: QueryError): QueryError {
  let cur = e;
  while (cur.code === 'call error' && cur.cause?.length) cur = cur.cause[0];
  return cur;
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** An error raised while executing (a resolver, a value that does not fit its type, …). */
export function executionError(e: GraphQLError): ErrorJson {
  const out: ErrorJson = { message: sangriaQuotes(e.message) };
  const original = e.originalError;
  if (original instanceof QueryError) {
    const inner = unwrapCall(original);
    out.message = upperFirst(inner.description);
    out.extensions = { code: inner.code };
  } else if (original instanceof GqlError) {
    out.message = original.message;
    if (original.code) out.extensions = { code: original.code };
  } else if (original instanceof ProtocolError) {
    out.message = original.description;
    out.extensions = { code: original.code };
  } else if (original && !(original instanceof GraphQLError)) {
    // Not an error of the request: a bug. Say what it was, and log it.
    log.error('unexpected error in a GraphQL resolver', { err: original });
    out.message = original.message;
  }
  if (e.locations) out.locations = [...e.locations];
  if (e.path) out.path = e.path;
  return out;
}
