// A small FQL v4 client over HTTP for the transfer commands (import, export): JSON bodies built
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
  ) {
    super(`query refused${database ? ` (database ${database})` : ''}: HTTP ${status} ${code}: ${description}${position.length ? ` (at ${position.join('.')})` : ''}`);
  }
}

/** The server could not be reached, or answered something that is not Flora's JSON. */
export class ServerUnreachable extends Error {}

export interface QueryAnswer {
  resource: JsonValue;
  /** x-txn-time: the transaction's time in µs. */
  txnTs: bigint;
}

export class QueryClient {
  /** The database queries run in, below the secret's. */
  readonly path: readonly string[];

  constructor(
    readonly url: string,
    private readonly secret: string,
    path: readonly string[] = [],
  ) {
    this.path = path;
  }

  /** The same server, with the secret scoped to `path` (a child database of this client's, as `a/b`). */
  scoped(path: string): QueryClient {
    return path === '' ? this : new QueryClient(this.url, this.secret, [...this.path, ...path.split('/')]);
  }

  /** The client of child database `name`. */
  child(name: string): QueryClient {
    return new QueryClient(this.url, this.secret, [...this.path, name]);
  }

  /** The query's resource alone. */
  async resource(body: string): Promise<JsonValue> {
    return (await this.query(body)).resource;
  }

  async query(body: string): Promise<QueryAnswer> {
    let res: Response;
    try {
      res = await fetch(new URL('/', this.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${this.path.length ? `${this.secret}:${this.path.join('/')}:admin` : this.secret}`, 'content-type': 'application/json', 'x-faunadb-api-version': '4' },
        body,
      });
    } catch (e) {
      throw new ServerUnreachable(`cannot reach ${this.url}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
    const text = await res.text();
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
      throw new QueryFailed(res.status, String(e.get('code') ?? 'unknown'), String(e.get('description') ?? ''), position, this.path.join('/'));
    }
    if (!json.has('resource')) throw new ServerUnreachable(`${this.url} answered ${res.status} without a resource`);
    return { resource: json.get('resource')!, txnTs: BigInt(res.headers.get('x-txn-time') ?? '0') };
  }
}
