// The `fauna` driver's side of the FQL v10 suites: clients that are all closed at the end, and the
// error a query that must fail was answered with.

import assert from 'node:assert/strict';
import { Client, ServiceError } from 'fauna';

/** Clients on one server (no retries, so a 409 or 429 shows), closed together. */
export class V10Clients {
  private readonly opened: Client[] = [];
  constructor(private readonly url: () => string) {}

  client(secret: string): Client {
    const c = new Client({ secret, endpoint: new URL(this.url()), max_attempts: 1 });
    this.opened.push(c);
    return c;
  }

  closeAll(): void {
    for (const c of this.opened.splice(0)) c.close();
  }
}

/** The ServiceError (or the subclass `kind`) `work` fails with (it must fail). */
export async function serviceFailure<E extends ServiceError = ServiceError>(
  work: Promise<unknown>,
  kind: abstract new (...args: never[]) => E = ServiceError as unknown as abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await work;
  } catch (e) {
    assert.ok(e instanceof kind, `expected a ${kind.name}, got ${String(e)}`);
    return e;
  }
  assert.fail('the query succeeded');
}

/** What the schema API (/schema/1/…) answered: its status and JSON body. */
export interface SchemaAnswer {
  status: number;
  json: Record<string, unknown>;
}

/**
 * One call of the schema API at `url` as `secret`: `body` files (name → FSL) go as the multipart
 * form fauna-shell sends; a string goes as it is.
 */
export async function schemaCall(url: string, secret: string, method: string, path: string, body?: string | Record<string, string>): Promise<SchemaAnswer> {
  let payload: string | FormData | undefined;
  if (typeof body === 'object') {
    payload = new FormData();
    for (const [file, text] of Object.entries(body)) payload.set(file, new Blob([text]));
  } else payload = body;
  const res = await fetch(new URL(path, url), { method, headers: { authorization: `Bearer ${secret}` }, body: payload });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
