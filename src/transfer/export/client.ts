// Queries to a Flora (or Fauna v4) endpoint over the public HTTP API, in the v4 wire JSON: a query
// is sent as JSON text, the response parsed with the wire parser so that longs beyond 2^53 and
// Doubles such as 1.0 stay what they are. The official driver is not used (a devDependency only).

import type { JsonValue } from '../../wire/expr';
import { parseJson } from '../../wire/json';

/** A query the server refused, or an endpoint that does not answer as Flora does: the message says which. */
export class QueryFailed extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface QueryClient {
  /** The secret's database, as a path (empty: the secret's own database). */
  readonly path: readonly string[];
  /** Runs one query (its wire JSON text); resolves with the `resource`. */
  query(expr: string): Promise<JsonValue>;
  /** A client for the child database `name`, through the scoped secret `<secret>:<path>:admin`. */
  child(name: string): QueryClient;
}

export function httpClient(url: string, secret: string, path: readonly string[] = []): QueryClient {
  const base = url.replace(/\/+$/, '');
  const scoped = path.length > 0 ? `${secret}:${path.join('/')}:admin` : secret;
  return {
    path,
    child: (name) => httpClient(url, secret, [...path, name]),
    async query(expr) {
      let res: Response;
      try {
        res = await fetch(`${base}/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scoped}`, 'x-faunadb-api-version': '4', 'content-type': 'application/json' },
          body: expr,
        });
      } catch (err) {
        const cause = (err as { cause?: Error }).cause;
        throw new QueryFailed(`cannot reach ${base}: ${cause?.message ?? (err as Error).message}`, 0);
      }
      const text = await res.text();
      let body: JsonValue;
      try {
        body = parseJson(text);
      } catch {
        throw new QueryFailed(`${base} answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, res.status);
      }
      if (!(body instanceof Map)) throw new QueryFailed(`${base} answered HTTP ${res.status} with ${text.slice(0, 200)}`, res.status);
      const errors = body.get('errors');
      if (res.status !== 200 || Array.isArray(errors)) {
        const first = Array.isArray(errors) && errors[0] instanceof Map ? errors[0] : undefined;
        const code = typeof first?.get('code') === 'string' ? (first.get('code') as string) : undefined;
        const description = typeof first?.get('description') === 'string' ? (first.get('description') as string) : text.slice(0, 200);
        const where = path.length > 0 ? ` (database ${path.join('/')})` : '';
        throw new QueryFailed(`query refused${where}: HTTP ${res.status} ${code ?? ''}: ${description}`, res.status, code);
      }
      if (!body.has('resource')) throw new QueryFailed(`${base} answered without a "resource": ${text.slice(0, 200)}`, res.status);
      return body.get('resource')!;
    },
  };
}
