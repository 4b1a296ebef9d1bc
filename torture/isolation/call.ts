// One query through the driver, classified as the checkers need it: ok (committed, with its value),
// fail (the server answered that it did not run it: 4xx, 409 contended transaction included) or
// info (no answer in time, a dropped connection or a 5xx: it may or may not have committed).

import http from 'node:http';
import { parseJSON, type Client, type Expr } from 'faunadb';
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

export async function call<T>(client: Client, expr: Expr, deadlineMs: number): Promise<Answer<T>> {
  let seen: DriverResult | undefined;
  const observer = (r: unknown) => {
    seen = r as DriverResult;
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  try {
    const value = await Promise.race([client.query<T>(expr, { observer } as never), late]);
    const ts = Number(header(seen?.responseHeaders, 'x-txn-time'));
    const retries = Number(header(seen?.responseHeaders, 'x-txn-retries') ?? 0);
    if (value === 'late') return { outcome: 'info', retries: 0, error: `no answer within ${deadlineMs} ms` };
    return { outcome: 'ok', value: value as T, ts: Number.isFinite(ts) ? ts : undefined, retries };
  } catch (e) {
    const result = (e as { requestResult?: DriverResult }).requestResult ?? seen;
    const status = result?.statusCode;
    const first = result?.responseContent?.errors?.[0];
    const retries = Number(header(result?.responseHeaders, 'x-txn-retries') ?? 0);
    const error = first ? `${status} ${first.code}: ${first.description}` : String(e).slice(0, 300);
    if (status === undefined || status >= 500) return { outcome: 'info', status, code: first?.code, retries, error };
    return { outcome: 'fail', status, code: first?.code, retries, error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same query as a plain HTTP client sends it (curl, `fetch`, a GraphQL server's resolvers): on a
 * fresh connection (a tier's port hands it to its next process) and with no X-Last-Seen-Txn, so that
 * nothing but the server's own order makes it see what was acknowledged before.
 */
export function callHttp<T>(endpoint: string, secret: string, expr: Expr, deadlineMs: number, headers: Record<string, string> = {}): Promise<Answer<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ outcome: 'info', retries: 0, error: `no answer within ${deadlineMs} ms` });
    }, deadlineMs);
    const settle = (a: Answer<T>) => {
      clearTimeout(timer);
      resolve(a);
    };
    const req = http.request(
      endpoint,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => settle({ outcome: 'info', retries: 0, error: String(e) }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const single = (name: string) => [res.headers[name]].flat()[0];
          const ts = Number(single('x-txn-time'));
          const retries = Number(single('x-txn-retries') ?? 0);
          let body: { resource?: T; errors?: { code?: string; description?: string }[] } = {};
          try {
            body = parseJSON(Buffer.concat(chunks).toString('utf8')) as typeof body;
          } catch {
            // not JSON: classified by the status alone
          }
          const first = body.errors?.[0];
          if (status >= 200 && status < 300) settle({ outcome: 'ok', value: body.resource, ts: Number.isFinite(ts) ? ts : undefined, retries });
          else settle({ outcome: status >= 500 ? 'info' : 'fail', status, code: first?.code, retries, error: `${status} ${first?.code}: ${first?.description}` });
        });
      },
    );
    req.on('error', (e) => settle({ outcome: 'info', retries: 0, error: String(e) }));
    req.end(JSON.stringify(expr));
  });
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
