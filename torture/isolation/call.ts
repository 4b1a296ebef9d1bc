// One query through the driver, classified as the checkers need it: ok (committed, with its value),
// fail (the server answered that it did not run it: 4xx, 409 contended transaction included) or
// info (no answer in time, a dropped connection or a 5xx: it may or may not have committed).

import { parseJSON, type Client, type Expr } from 'faunadb';
import { httpRequest, type RawResponse } from '../../test/helpers/server';
import type { Outcome } from '../checker/history';

export interface Answer<T> {
  outcome: Outcome;
  value?: T;
  /** X-Txn-Time (µs): the commit time of a write, the snapshot time of a read. */
  ts?: number;
  /** X-Txn-Retries: how often the server re-ran the transaction after a conflict. */
  retries: number;
  status?: number;
  /** The first error code of an error answer (e.g. `contended transaction`). */
  code?: string;
  /** What went wrong, for reports. */
  error?: string;
}

interface DriverResult {
  statusCode?: number;
  responseHeaders?: Record<string, string | string[] | undefined>;
  responseContent?: { errors?: { code?: string; description?: string }[] };
}

const header = (h: DriverResult['responseHeaders'], name: string): string | undefined => {
  const v = h?.[name];
  return Array.isArray(v) ? v[0] : v;
};

type Errors = { code?: string; description?: string }[] | undefined;

/** X-Txn-Time (µs), when the answer has one. */
function txnTs(value: string | undefined): number | undefined {
  const ts = Number(value);
  return value !== undefined && Number.isFinite(ts) ? ts : undefined;
}

/** An answer that is not a success: fail when the server says it did not run it (4xx), else info. */
function unsuccessful<T>(status: number | undefined, errors: Errors, retries: number, otherwise: string): Answer<T> {
  const first = errors?.[0];
  const error = first ? `${status} ${first.code}: ${first.description}` : otherwise;
  return { outcome: status === undefined || status >= 500 ? 'info' : 'fail', status, code: first?.code, retries, error };
}

const noAnswer = <T>(deadlineMs: number): Answer<T> => ({ outcome: 'info', retries: 0, error: `no answer within ${deadlineMs} ms` });

export async function call<T>(client: Client, expr: Expr, deadlineMs: number): Promise<Answer<T>> {
  let seen: DriverResult | undefined;
  const observer = (r: unknown) => {
    seen = r as DriverResult;
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  try {
    const value = await Promise.race([client.query<T>(expr, { observer } as never), late]);
    if (value === 'late') return noAnswer(deadlineMs);
    const h = seen?.responseHeaders;
    return { outcome: 'ok', value: value as T, ts: txnTs(header(h, 'x-txn-time')), retries: Number(header(h, 'x-txn-retries') ?? 0) };
  } catch (e) {
    const result = (e as { requestResult?: DriverResult }).requestResult ?? seen;
    const retries = Number(header(result?.responseHeaders, 'x-txn-retries') ?? 0);
    return unsuccessful(result?.statusCode, result?.responseContent?.errors, retries, String(e).slice(0, 300));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same query as a plain HTTP client sends it (curl, `fetch`, a GraphQL server's resolvers): on a
 * fresh connection (a tier's port hands it to its next process) and with no X-Last-Seen-Txn, so that
 * nothing but the server's own order makes it see what was acknowledged before.
 */
export async function callHttp<T>(endpoint: string, secret: string, expr: Expr, deadlineMs: number): Promise<Answer<T>> {
  const signal = AbortSignal.timeout(deadlineMs);
  let res: RawResponse;
  try {
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    res = await httpRequest(endpoint, { method: 'POST', headers, body: JSON.stringify(expr), signal });
  } catch (e) {
    return signal.aborted ? noAnswer(deadlineMs) : { outcome: 'info', retries: 0, error: String(e).slice(0, 300) };
  }
  let body: { resource?: T; errors?: Errors } = {};
  try {
    body = parseJSON(res.body) as typeof body;
  } catch {
    // not JSON: classified by the status alone
  }
  const retries = Number(res.headers['x-txn-retries'] ?? 0);
  if (res.status >= 200 && res.status < 300) return { outcome: 'ok', value: body.resource, ts: txnTs(res.headers['x-txn-time']), retries };
  return unsuccessful(res.status, body.errors, retries, `${res.status} ${res.body.slice(0, 300)}`);
}

/**
 * A read that must get an answer (the final reads): run again through a fresh client while the
 * outcome is indeterminate (a process killed under it, being replaced).
 */
export async function readSurely<T>(client: () => Client, expr: Expr, deadlineMs: number, tries = 10): Promise<Answer<T>> {
  for (let i = 1; ; i++) {
    const a = await call<T>(client(), expr, deadlineMs);
    if (a.outcome !== 'info' || i >= tries) return a;
  }
}
