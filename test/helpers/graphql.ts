// Plain-HTTP helpers for the GraphQL tests: /import and /graphql as any GraphQL client sends them.

import assert from 'node:assert/strict';
import { httpRequest, type RawResponse } from './server';

export interface GqlError {
  message: string;
  locations?: { line: number; column: number }[];
  path?: (string | number)[];
  extensions?: { code: string };
}

export interface GqlResponse<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string>;
  raw: string;
  data?: T | null;
  errors?: GqlError[];
}

export async function importSchema(url: string, secret: string | undefined, sdl: string, mode?: string): Promise<RawResponse> {
  return httpRequest(url, {
    method: 'POST',
    path: mode ? `/import?mode=${mode}` : '/import',
    headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
    body: sdl,
  });
}

/** Imports and asserts success. */
export async function mustImport(url: string, secret: string, sdl: string, mode?: string): Promise<void> {
  const res = await importSchema(url, secret, sdl, mode);
  assert.equal(res.status, 200, `import failed: ${res.body}`);
  assert.equal(res.body.split('\n')[0], 'Schema imported successfully.');
}

export async function gql<T = Record<string, any>>(
  url: string,
  secret: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  opts: { operationName?: string; headers?: Record<string, string>; http2?: boolean } = {},
): Promise<GqlResponse<T>> {
  return gqlBody<T>(url, secret, JSON.stringify({ query, variables, operationName: opts.operationName }), opts);
}

/** POST /graphql with a body as given (for JSON that JSON.stringify cannot write, or not JSON at all). */
export async function gqlBody<T = Record<string, any>>(
  url: string,
  secret: string | undefined,
  body: string,
  opts: { headers?: Record<string, string>; http2?: boolean } = {},
): Promise<GqlResponse<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (secret !== undefined) headers.authorization = `Bearer ${secret}`;
  const res = await httpRequest(url, { method: 'POST', path: '/graphql', headers, http2: opts.http2, body });
  let parsed: { data?: T | null; errors?: GqlError[] } = {};
  try {
    parsed = JSON.parse(res.body);
  } catch {
    // left empty: the test looks at raw
  }
  return { status: res.status, headers: res.headers, raw: res.body, data: parsed.data, errors: parsed.errors };
}

/** Runs an operation that must succeed; returns its data. */
export async function ok<T = Record<string, any>>(url: string, secret: string, query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await gql<T>(url, secret, query, variables);
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.errors, undefined, `unexpected errors: ${res.raw}`);
  return res.data as T;
}

/** Runs an operation that must fail with GraphQL errors (HTTP 200); returns the first error and the response. */
export async function fails(url: string, secret: string, query: string, variables?: Record<string, unknown>): Promise<GqlError & { response: GqlResponse }> {
  const res = await gql(url, secret, query, variables);
  assert.equal(res.status, 200, res.raw);
  assert.ok(res.errors && res.errors.length > 0, `expected errors: ${res.raw}`);
  return { ...res.errors[0], response: res };
}

/** A TCP port nobody listens on right now. */
export { freePort } from './ports';
