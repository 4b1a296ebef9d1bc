// Helpers of the query-log tests: a Flora process with fast log flushing, the log-export API, and
// downloads of export files.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client as PgClient } from 'pg';
import { databaseFor } from './postgres';
import { query as q } from 'faunadb';
import { ClientPool, httpRequest, startFlora, type FloraProcess, type StartOptions } from './server';

/** Distinctive, so that "no secret in any record" can look for it. */
export const ROOT_SECRET = 'Sup3r-R00t-9f4e17';

export const FIELDS = [
  'API_VERSION', 'BYTES_IN', 'BYTES_OUT', 'BYTE_READ_OPS', 'BYTE_WRITE_OPS', 'COMPUTE_OPS', 'DATABASE', 'FQL_SHAPE',
  'QUERY_TIME_MS', 'RATE_LIMITS_HIT', 'REGION_GROUP', 'REQUEST_HEADERS', 'REQUEST_METHOD', 'RESPONSE_CODE', 'TAGS',
  'TRACEPARENT', 'TS', 'TXN_RETRIES',
];

export interface LogRecord {
  API_VERSION: string;
  BYTES_IN: number;
  BYTES_OUT: number;
  BYTE_READ_OPS: number;
  BYTE_WRITE_OPS: number;
  COMPUTE_OPS: number;
  DATABASE: string[];
  FQL_SHAPE: string;
  QUERY_TIME_MS: number;
  RATE_LIMITS_HIT: string[];
  REGION_GROUP: string;
  REQUEST_HEADERS: string;
  REQUEST_METHOD: string;
  RESPONSE_CODE: string;
  TAGS: Record<string, string>;
  TRACEPARENT: string;
  TS: string;
  TXN_RETRIES: number;
}

export function startLogged(opts: StartOptions = {}): Promise<FloraProcess> {
  return startFlora({ ...opts, env: { FLORA_ROOT_SECRET: ROOT_SECRET, FLORA_LOG_FLUSH_MS: '20', ...opts.env } });
}

export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  json: Record<string, unknown>;
}

/** One call of the log-export API (HTTP/1.1 unless http2). `secret` null = no Authorization. */
export async function logsApi(
  srv: { url: string },
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  secret: string | null,
  http2 = false,
): Promise<ApiAnswer> {
  const res = await httpRequest(srv.url, {
    method,
    path,
    http2,
    headers: { ...(secret === null ? {} : { authorization: `Bearer ${secret}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    assert.fail(`not JSON (${res.status}): ${res.body}`);
  }
  return { status: res.status, headers: res.headers, json };
}

export const TERMINAL = ['Complete', 'DoesNotExist', 'Failed', 'TimedOut'];

/** Polls GET /api/v1/logs/<id> until `done` accepts the answer. */
export async function pollUntil(
  srv: { url: string },
  id: string,
  secret: string,
  done: (a: ApiAnswer) => boolean = (a) => TERMINAL.includes(a.json.state as string),
  timeoutMs = 60_000,
): Promise<ApiAnswer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const a = await logsApi(srv, 'GET', `/api/v1/logs/${id}?type=query&regionGroup=us-std`, undefined, secret);
    if (done(a)) return a;
    if (Date.now() > deadline) assert.fail(`export ${id} did not get there: ${JSON.stringify(a.json)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Downloads a presigned URL and parses the gzip JSON lines. Resolves only once the server has finished
 * the transfer, and so logged it (a download's record carries the time its transfer ended): a time
 * window opened afterwards cannot catch it.
 */
export async function download(url: string): Promise<{ text: string; records: LogRecord[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let res: Awaited<ReturnType<typeof get>>;
  try {
    res = await get(url, agent);
    // Answered on the same connection only after the download's response has finished.
    assert.equal((await get(new URL('/ping', url).toString(), agent)).status, 200);
  } finally {
    agent.destroy();
  }
  assert.equal(res.status, 200, `download ${url}: ${res.status} ${res.body.toString('utf8')}`);
  assert.equal(res.headers['content-type'], 'application/gzip');
  const text = gunzipSync(res.body).toString('utf8');
  assert.ok(text.endsWith('\n'), 'the file ends with a newline');
  const records = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LogRecord);
  for (const r of records) assert.deepEqual(Object.keys(r), FIELDS, 'fields in alphabetical order');
  return { text, records };
}

function get(url: string, agent: http.Agent): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Requests an export, waits for it and downloads it (an empty list when it is DoesNotExist). */
export async function exportLogs(
  srv: { url: string },
  secret: string,
  body: Record<string, unknown>,
): Promise<{ id: string; final: ApiAnswer; records: LogRecord[]; text: string }> {
  const created = await logsApi(srv, 'POST', '/api/v1/logs?type=query', body, secret);
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const id = created.json.request_id as string;
  const final = await pollUntil(srv, id, secret);
  if (final.json.state === 'DoesNotExist') return { id, final, records: [], text: '' };
  assert.equal(final.json.state, 'Complete', JSON.stringify(final.json));
  const { text, records } = await download(final.json.presigned_url as string);
  return { id, final, records, text };
}

/**
 * A time window of its own for the requests `fn` makes. A record's TS is taken when its response is
 * computed, on this machine's clock, so it lies between sending the request and receiving the answer —
 * except a download's, taken when the server sees its transfer end, which on a busy machine can be a
 * few milliseconds after the client has it all. So the window starts `margin` ms after everything
 * before and ends `margin` ms after the last answer, and the clock is past it before anything else is
 * sent. Nothing else may run meanwhile.
 */
export async function window<T>(fn: () => Promise<T>, margin = 25): Promise<{ start: string; end: string; result: T }> {
  const start = Date.now() + margin;
  await clockPast(start);
  const result = await fn();
  const end = Date.now() + margin;
  await clockPast(end);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString(), result };
}

/** Resolves once the clock has reached `ms`. */
export async function clockPast(ms: number): Promise<void> {
  while (Date.now() < ms) await new Promise((r) => setTimeout(r, Math.max(1, ms - Date.now())));
}

/** Peak resident memory of a process (VmHWM, bytes), from /proc. */
export async function peakRss(pid: number): Promise<number | undefined> {
  try {
    const { readFile } = await import('node:fs/promises');
    const m = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a server keeps of its query log, as text by place: its hour files, or, when it runs on
 * PostgreSQL (npm test's PostgreSQL pass), the rows of its log table.
 */
export async function storedLog(srv: FloraProcess): Promise<{ where: string; text: string }[]> {
  const pgBase = process.env.FLORA_TEST_PG_URL;
  if (pgBase) {
    const client = new PgClient({ connectionString: await databaseFor(pgBase, srv.dataDir) });
    await client.connect();
    try {
      const rows = (await client.query<{ line: string }>('SELECT line FROM flora_query_log')).rows;
      return [{ where: 'flora_query_log', text: rows.map((r) => r.line).join('\n') }];
    } finally {
      await client.end();
    }
  }
  const dir = path.join(srv.dataDir, 'logs', 'query');
  return Promise.all((await readdir(dir)).map(async (name) => ({ where: name, text: await readFile(path.join(dir, name), 'utf8') })));
}

/** `n` queries through `srv`, tagged p=<name>, i=<n>. */
export async function tagged(srv: FloraProcess, name: string, n: number): Promise<void> {
  const pool = new ClientPool(srv.url);
  try {
    const c = pool.client(ROOT_SECRET);
    for (let i = 0; i < n; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => c.query(q.Add(i + k, 1), { tags: { p: name, i: String(i + k) } })));
    }
  } finally {
    await pool.close();
  }
}

/** Every (p, i) of `records` once, and nothing else of the window. */
export function assertEachOnce(records: LogRecord[], expected: Record<string, number>): void {
  const seen = records.map((r) => `${r.TAGS.p}-${r.TAGS.i}`);
  const want = Object.entries(expected).flatMap(([p, n]) => Array.from({ length: n }, (_, i) => `${p}-${i}`));
  assert.equal(seen.length, want.length, 'as many records as requests');
  assert.deepEqual([...seen].sort(), [...want].sort());
}
