// FQL v10 for `flora eval` and `flora shell`: a query's text POSTed to /query/1 as fauna-shell 4
// sends it (`{"query": "<text>"}`, `x-format: decorated` for results in FQL syntax, `simple` for
// JSON), the answer read back as its text (data) or a QueryFailedV10 (its code, message and summary).

import { ServerUnreachable } from '../../transfer/queryClient';
import type { JsonObject, JsonValue } from '../../wire/expr';
import { parseJson } from '../../wire/json';
import type { Connection } from './connection';

/** decorated: `data` is FQL text in a JSON string; simple: plain JSON. */
export type V10Format = 'decorated' | 'simple';

export interface V10Answer {
  /** decorated: the FQL text; simple: the value's JSON exactly as the server wrote it. */
  data: string;
  /** `stats` of the answer (compute_ops, read_ops, write_ops, query_time_ms…), numbers by name. */
  stats: ReadonlyMap<string, JsonValue>;
  /** The body as the server wrote it. */
  body: string;
}

/** An answer with `{"error": …}`: a query that failed, or a request the server refused. */
export class QueryFailedV10 extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    /** The diagnostics with their source and carets; '' for a request that did not run. */
    readonly summary: string,
    /** abort()'s value as the server encoded it: FQL text (decorated), else its JSON. */
    readonly abort: string | undefined,
    /** `constraint_failures` as JSON text. */
    readonly constraintFailures: string | undefined,
    readonly body: string,
    readonly stats: ReadonlyMap<string, JsonValue>,
  ) {
    super(`${code}: ${description}`);
  }
}

export class V10Client {
  constructor(
    readonly url: string,
    private readonly secret: string,
    /** The database queries run in, below the secret's. */
    readonly path: readonly string[],
  ) {}

  static of(connection: Connection, path: readonly string[]): V10Client {
    return new V10Client(connection.url, connection.secret, path);
  }

  async query(text: string, format: V10Format): Promise<V10Answer> {
    const secret = this.path.length ? `${this.secret}:${this.path.join('/')}:admin` : this.secret;
    let res: Response;
    try {
      res = await fetch(new URL('/query/1', this.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-format': format },
        body: JSON.stringify({ query: text }),
      });
    } catch (e) {
      throw new ServerUnreachable(`cannot reach ${this.url}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
    const body = await res.text();
    let json: JsonValue;
    try {
      json = parseJson(body);
    } catch {
      throw new ServerUnreachable(`${this.url} answered ${res.status} with a body that is not JSON: ${body.slice(0, 200)}`);
    }
    if (!(json instanceof Map)) throw new ServerUnreachable(`${this.url} answered ${res.status} with unexpected JSON`);
    const stats = json.get('stats');
    const statsMap = stats instanceof Map ? stats : new Map<string, JsonValue>();
    const error = json.get('error');
    if (error instanceof Map) {
      const summary = json.get('summary');
      const abort = error.get('abort');
      const failures = error.get('constraint_failures');
      throw new QueryFailedV10(
        res.status,
        String(error.get('code') ?? 'unknown'),
        String(error.get('message') ?? ''),
        typeof summary === 'string' ? summary : '',
        abort === undefined ? undefined : typeof abort === 'string' && format === 'decorated' ? abort : memberText(body, error, 'abort'),
        failures === undefined ? undefined : memberText(body, error, 'constraint_failures'),
        body,
        statsMap,
      );
    }
    if (!json.has('data')) throw new ServerUnreachable(`${this.url} answered ${res.status} without data`);
    const data = json.get('data')!;
    return { data: format === 'decorated' && typeof data === 'string' ? data : memberText(body, json, 'data'), stats: statsMap, body };
  }
}

/**
 * A member's value as the body spells it (a Long keeps its digits, a Double its `.0`): the text
 * after the member's key, re-encoded only if the key cannot be found as written.
 */
function memberText(body: string, parent: JsonObject, key: string): string {
  const at = new RegExp(`"${key}"\\s*:\\s*`, 'g');
  for (let m = at.exec(body); m !== null; m = at.exec(body)) {
    const start = m.index + m[0].length;
    const end = valueEnd(body, start);
    try {
      if (end > start && sameValue(parseJson(body.slice(start, end)), parent.get(key)!)) return body.slice(start, end);
    } catch {
      // a string that merely contains the key: look further
    }
  }
  return JSON.stringify(parent.get(key), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Map ? Object.fromEntries(v) : v));
}

/** Where the JSON value starting at `i` ends (brackets matched, strings skipped). */
function valueEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      for (j++; j < text.length && text[j] !== '"'; j++) if (text[j] === '\\') j++;
      if (depth === 0) return j + 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return j;
      if (--depth === 0) return j + 1;
    } else if (c === ',' && depth === 0) return j;
  }
  return text.length;
}

function sameValue(a: JsonValue, b: JsonValue): boolean {
  if (a instanceof Map && b instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && sameValue(v, b.get(k)!));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  return a === b;
}
