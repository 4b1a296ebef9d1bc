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
  ) {
    super(`${code}: ${description}${position.length ? ` (at ${position.join('.')})` : ''}`);
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
  constructor(
    readonly url: string,
    private readonly secret: string,
  ) {}

  /** The same server, with the secret scoped to `path` (a child database of the secret's, as `a/b`). */
  scoped(path: string): QueryClient {
    return path === '' ? this : new QueryClient(this.url, `${this.secret}:${path}:admin`);
  }

  async query(body: string): Promise<QueryAnswer> {
    let res: Response;
    try {
      res = await fetch(new URL('/', this.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${this.secret}`, 'content-type': 'application/json', 'x-faunadb-api-version': '4' },
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
      throw new QueryFailed(res.status, String(e.get('code') ?? 'unknown'), String(e.get('description') ?? ''), position);
    }
    if (!json.has('resource')) throw new ServerUnreachable(`${this.url} answered ${res.status} without a resource`);
    return { resource: json.get('resource')!, txnTs: BigInt(res.headers.get('x-txn-time') ?? '0') };
  }
}
