// A small FQL v4 client over HTTP for the transfer commands (import, export) and the shell: JSON bodies built
// as text, responses read with the wire's own parser (64-bit integers stay exact bigints), Fauna's
// error answers turned into QueryFailed with their code, description and position.

import { parseJson } from '../wire/json';
import type { JsonObject, JsonValue } from '../wire/expr';

export class QueryFailed extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly position: readonly (string | number)[],
    /** The database the query ran in, as a path below the secret's ('' = the secret's own). */
    readonly database = '',
    /** The whole answer: the body's text (`{"errors": […]}`, for showing every error) and the headers. */
    readonly answer: { readonly body: string; readonly headers: ResponseHeaders } = { body: '', headers: {} },
  ) {
    super(`query refused${database ? ` (database ${database})` : ''}: HTTP ${status} ${code}: ${description}${position.length ? ` (at ${position.join('.')})` : ''}`);
  }
}

/** The server could not be reached, or answered something that is not Flora's JSON. */
export class ServerUnreachable extends Error {}

/** Response headers by lower-case name. */
export type ResponseHeaders = Readonly<Record<string, string>>;

export interface QueryAnswer {
  resource: JsonValue;
  /** x-txn-time: the transaction's time in µs. */
  txnTs: bigint;
  /** The response body as the server wrote it (`{"resource": …}`). */
  body: string;
  /** The response headers (metrics: x-query-time, x-compute-ops, …); empty when the transport has none. */
  headers: ResponseHeaders;
}

/** What a query's HTTP exchange came to. */
export interface Exchange {
  status: number;
  text: string;
  txnTs: bigint;
  headers?: ResponseHeaders;
}

/** How a query reaches the server: over HTTP, or in process (the server's own transfer jobs). */
export type Transport = (body: string, authorization: string) => Promise<Exchange>;

/** POST / of `url`; a network failure is ServerUnreachable. */
export function httpTransport(url: string): Transport {
  return async (body, authorization) => {
    let res: Response;
    try {
      res = await fetch(new URL('/', url), {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'x-faunadb-api-version': '4' },
        body,
      });
    } catch (e) {
      throw new ServerUnreachable(`cannot reach ${url}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    return { status: res.status, text: await res.text(), txnTs: BigInt(res.headers.get('x-txn-time') ?? '0'), headers };
  };
}

export class QueryClient {
  /** The database queries run in, below the secret's. */
  readonly path: readonly string[];

  constructor(
    /** The server's address, as messages name it. */
    readonly url: string,
    private readonly secret: string,
    path: readonly string[] = [],
    private readonly transport: Transport = httpTransport(url),
  ) {
    this.path = path;
  }

  /** The same server, with the secret scoped to `path` (a child database of this client's, as `a/b`). */
  scoped(path: string): QueryClient {
    return path === '' ? this : new QueryClient(this.url, this.secret, [...this.path, ...path.split('/')], this.transport);
  }

  /** The client of child database `name`. */
  child(name: string): QueryClient {
    return new QueryClient(this.url, this.secret, [...this.path, name], this.transport);
  }

  /** The query's resource alone. */
  async resource(body: string): Promise<JsonValue> {
    return (await this.query(body)).resource;
  }

  async query(body: string): Promise<QueryAnswer> {
    const res = await this.transport(body, `Bearer ${this.path.length ? `${this.secret}:${this.path.join('/')}:admin` : this.secret}`);
    const text = res.text;
    let json: JsonValue;
    try {
      json = parseJson(text);
    } catch {
      throw new ServerUnreachable(`${this.url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (!(json instanceof Map)) throw new ServerUnreachable(`${this.url} answered ${res.status} with unexpected JSON`);
    const errors = json.get('errors');
    if (Array.isArray(errors) && errors[0] instanceof Map) {
      const e = errors[0] as JsonObject;
      const position = Array.isArray(e.get('position')) ? (e.get('position') as JsonValue[]).map((p) => (typeof p === 'bigint' ? Number(p) : String(p))) : [];
      throw new QueryFailed(res.status, String(e.get('code') ?? 'unknown'), String(e.get('description') ?? ''), position, this.path.join('/'), { body: text, headers: res.headers ?? {} });
    }
    if (!json.has('resource')) throw new ServerUnreachable(`${this.url} answered ${res.status} without a resource`);
    return { resource: json.get('resource')!, txnTs: res.txnTs, body: text, headers: res.headers ?? {} };
  }
}
