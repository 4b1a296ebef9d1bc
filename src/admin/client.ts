// Queries to Flora's public API (POST / with the FQL v4 wire JSON, POST /query/1 with FQL v10's
// text), with the signed-in secret, so that the key's role limits the dashboard exactly as it limits
// any other client.

import type { JsonValue } from '../wire/expr';
import { parseJson } from '../wire/json';
import { wireText } from '../fqljs/wireText';

/** The response headers that measure a query, by their header name. */
export const METRIC_HEADERS = [
  'x-compute-ops', 'x-byte-read-ops', 'x-byte-write-ops', 'x-query-time', 'x-query-bytes-in',
  'x-query-bytes-out', 'x-storage-bytes-read', 'x-storage-bytes-write', 'x-txn-retries', 'x-txn-time',
] as const;

export interface QueryResult {
  /** The `resource` of the answer, exact (objects are Maps, integers bigints). */
  value: JsonValue;
  metrics: Record<string, string>;
}

/** An FQL v10 answer: the result in FQL syntax (the decorated format), its summary and stats. */
export interface QueryResultV10 {
  fql: string;
  /** Warnings and logs with their source; '' when none. */
  summary: string;
  /** `stats` (compute_ops, read_ops, …) and txn_ts, as text by name. */
  metrics: Record<string, string>;
}

/** An answer with errors (or no answer): what the UI shows. */
export class FloraError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    /** FQL v10: the error with its source and carets, and abort()'s value ('' when the query did not run). */
    readonly summary = '',
  ) {
    super(code ? `${code}: ${description}` : description);
  }

  /** The key's role does not allow what was asked. */
  get forbidden(): boolean {
    return this.status === 403 || this.code === 'permission denied';
  }

  get unauthorized(): boolean {
    return this.status === 401;
  }
}

/**
 * What a bare description leaves out: a validation failure's fields (`privileges.0.actions.write:
 * Found lambda with arity 1 expected 2 or 3`) and a call error's cause.
 */
function errorDetails(error: Map<string, JsonValue>): string {
  const parts: string[] = [];
  for (const key of ['failures', 'cause']) {
    const list = error.get(key);
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!(item instanceof Map)) continue;
      const where = item.get(key === 'failures' ? 'field' : 'position');
      const at = Array.isArray(where) && where.length ? `${where.map(String).join('.')}: ` : '';
      parts.push(`${at}${String(item.get('description') ?? item.get('code') ?? '')}`);
    }
  }
  return parts.join('; ');
}

export class FloraClient {
  /** `secret` as signed in; `path` the database (names from the root) queries run in. */
  constructor(
    readonly secret: string,
    readonly path: readonly string[] = [],
  ) {}

  /** The same key, scoped to a child database with the admin role (`secret:a/b:admin`). */
  in(path: readonly string[]): FloraClient {
    return new FloraClient(this.secret, path);
  }

  /** The Authorization header of this key in this database. */
  private authorization(): string {
    const scoped = this.path.length === 0 ? this.secret : `${this.secret}:${this.path.join('/')}:admin`;
    return `Bearer ${scoped}`;
  }

  /** Runs one query (a wire tree); throws FloraError for an error answer or a failed request. */
  query(expr: JsonValue): Promise<QueryResult> {
    return this.request('/', { method: 'POST', body: wireText(expr) });
  }

  /** Runs FQL v10 text on /query/1; throws FloraError (with the summary) for an error answer or a failed request. */
  async queryV10(text: string): Promise<QueryResultV10> {
    const res = await this.fetch('/query/1', { method: 'POST', body: JSON.stringify({ query: text }), headers: { 'content-type': 'application/json', 'x-format': 'decorated' } });
    const body = await this.json(res);
    const summary = body.get('summary');
    const error = body.get('error');
    if (error instanceof Map) {
      const abort = error.get('abort');
      // abort()'s value follows the summary, as fauna-shell 4 shows it.
      const shown = typeof summary === 'string' && summary !== '' && typeof abort === 'string' ? `${summary}\n\nAbort value:\n${abort}` : summary;
      throw new FloraError(res.status, String(error.get('code') ?? ''), String(error.get('message') ?? ''), typeof shown === 'string' ? shown : '');
    }
    const data = body.get('data');
    if (typeof data !== 'string') throw new FloraError(res.status, 'bad answer', 'The answer has no result in FQL syntax.');
    const metrics: Record<string, string> = {};
    const stats = body.get('stats');
    if (stats instanceof Map) for (const [k, v] of stats) if (typeof v === 'bigint' || typeof v === 'number') metrics[k] = String(v);
    const txnTs = body.get('txn_ts');
    if (txnTs !== undefined) metrics.txn_ts = String(txnTs);
    return { fql: data, summary: typeof summary === 'string' ? summary : '', metrics };
  }

  /** GETs one of the server's JSON endpoints (`/api/v1/…`) that answer as `/` does: `{resource}` or `{errors}`. */
  get(path: string): Promise<QueryResult> {
    return this.request(path, { method: 'GET' });
  }

  /**
   * A request to this server with the key's Authorization; no answer at all is a FloraError. Every
   * call of the dashboard goes through here (queries, the job APIs, /import, /graphql).
   */
  async fetch(path: string, init: { method: string; body?: BodyInit; headers?: Record<string, string> }): Promise<Response> {
    try {
      return await fetch(path, {
        ...init,
        // A refused secret is a 401 with a Basic challenge (as Fauna sends): with credentials the
        // browser would hold the request for a login prompt instead of handing the answer over.
        credentials: 'omit',
        headers: { authorization: this.authorization(), ...init.headers },
      });
    } catch (err) {
      throw new FloraError(0, 'network error', `The server did not answer (${(err as Error).message}).`);
    }
  }

  private async request(path: string, init: { method: string; body?: string }): Promise<QueryResult> {
    const res = await this.fetch(path, { ...init, headers: init.body !== undefined ? { 'content-type': 'application/json' } : {} });
    const body = await this.json(res);
    const errors = body.get('errors');
    if (Array.isArray(errors) && errors.length > 0) {
      const first = errors[0] instanceof Map ? errors[0] : new Map<string, JsonValue>();
      const details = errorDetails(first);
      const description = String(first.get('description') ?? '');
      throw new FloraError(res.status, String(first.get('code') ?? ''), details ? `${description} (${details})` : description);
    }
    if (!res.ok) throw new FloraError(res.status, 'http error', `HTTP ${res.status}`);
    const metrics: Record<string, string> = {};
    for (const name of METRIC_HEADERS) {
      const v = res.headers.get(name);
      if (v !== null) metrics[name] = v;
    }
    return { value: body.get('resource') ?? null, metrics };
  }

  /** The answer's JSON object (integers exact); anything else is a FloraError. */
  private async json(res: Response): Promise<Map<string, JsonValue>> {
    const text = await res.text();
    let body: JsonValue;
    try {
      body = parseJson(text);
    } catch {
      throw new FloraError(res.status, 'bad answer', `The server answered ${res.status} with a body that is not JSON.`);
    }
    if (!(body instanceof Map)) throw new FloraError(res.status, 'bad answer', 'The answer is not a JSON object.');
    return body;
  }
}
