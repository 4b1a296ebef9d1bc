// Work the server does beside the writers, interrupted by the kill: an index build, a GraphQL schema
// import, a log export, the history collector, and (after the kill) a torn last write of the query
// log. Each starts during a trial and, after the restart, says whether the work finished or can be
// finished, and left nothing broken.

import { query as q, type Client } from 'faunadb';
import * as http from 'node:http';
import { readdirSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { httpRequest } from '../../test/helpers/server';
import type { Data } from './model';
import { COLLECTION } from './observe';
import { checkAll } from './indexes';

/** What each trial interrupts, in turn; on PostgreSQL the torn query log (kept in tables there) gives way to a crash of PostgreSQL itself. */
export const BACKGROUND = ['index-build', 'graphql-import', 'log-export', 'collector', 'torn-log'] as const;
export const BACKGROUND_PG = ['index-build', 'graphql-import', 'log-export', 'collector', 'postgres-crash'] as const;
export type Background = (typeof BACKGROUND)[number] | (typeof BACKGROUND_PG)[number];

export interface Server {
  url: string;
  secret: string;
  client: Client;
  dataDir: string;
}

/** How long background work may take to finish after a restart. */
const RESUME_MS = 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + RESUME_MS;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not finish within ${RESUME_MS / 1000} s of the restart`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---- index build: a background build over the whole collection, killed half-way.

export const buildName = (trial: number): string => `crash_build_${trial}`;

export function startIndexBuild(s: Server, trial: number): Promise<unknown> {
  return s.client
    .query(q.CreateIndex({ name: buildName(trial), source: q.Collection(COLLECTION), values: [{ field: ['data', 'key'] }, { field: ['data', 'n'] }, { field: ['ref'] }] }))
    .catch(() => undefined);
}

/**
 * The build, if its creation committed, resumes, goes active and agrees with a scan; then it is
 * dropped. `resumed`: the kill had left it half-way.
 */
export async function finishIndexBuild(s: Server, trial: number, docs: Map<string, Data>): Promise<{ problems: string[]; resumed: boolean }> {
  const name = buildName(trial);
  if (!(await s.client.query(q.Exists(q.Index(name))))) return { problems: [], resumed: false };
  const resumed = !(await s.client.query(q.Select('active', q.Get(q.Index(name)))));
  await until(`index build ${name}`, async () => ((await s.client.query(q.Select('active', q.Get(q.Index(name))))) ? true : undefined));
  const problems = await checkAll(s.client, docs, undefined, name);
  await s.client.query(q.Delete(q.Index(name)));
  return { problems, resumed };
}

// ---- GraphQL import: several transactions (collections, then indexes and the schema), killed between them.

const SDL = `type CrashThing { name: String! n: Int }
type CrashOwner { label: String things: [CrashThing] }
type Query { allCrashThings: [CrashThing!] crashThingsByName(name: String!): [CrashThing!] }`;

async function importSchema(s: Server): Promise<{ status: number; body: string }> {
  return httpRequest(s.url, { method: 'POST', path: '/import?mode=merge', headers: { authorization: `Bearer ${s.secret}` }, body: SDL });
}

export function startGraphqlImport(s: Server): Promise<unknown> {
  return importSchema(s).catch(() => undefined);
}

/** Whatever the kill left of an import, importing again succeeds and the API answers. */
export async function finishGraphqlImport(s: Server): Promise<string[]> {
  const again = await importSchema(s);
  if (again.status !== 200) return [`re-import after the crash: ${again.status} ${again.body.slice(0, 300)}`];
  const res = await httpRequest(s.url, {
    method: 'POST',
    path: '/graphql',
    headers: { authorization: `Bearer ${s.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ allCrashThings { data { name } } crashThingsByName(name: "x") { data { n } } }' }),
  });
  const body = JSON.parse(res.body) as { errors?: unknown[] };
  return res.status === 200 && !body.errors ? [] : [`GraphQL after re-import: ${res.status} ${res.body.slice(0, 300)}`];
}

// ---- log export: requested before the kill, run (or taken over) after the restart.

async function logsCall(s: Server, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await httpRequest(s.url, {
    method,
    path: p,
    headers: { authorization: `Bearer ${s.secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
}

/** Requests an export of the last minute; resolves with its request id once the request is acknowledged. */
export async function startLogExport(s: Server): Promise<string | undefined> {
  const end = new Date();
  const start = new Date(end.getTime() - 60_000);
  try {
    const a = await logsCall(s, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start.toISOString(), time_end: end.toISOString() });
    return a.status === 200 ? (a.json.request_id as string) : undefined;
  } catch {
    return undefined;
  }
}

/** An acknowledged export completes after the restart, and its file is whole gzip NDJSON. */
export async function finishLogExport(s: Server, id: string | undefined): Promise<string[]> {
  if (id === undefined) return [];
  const final = await until(`log export ${id}`, async () => {
    const a = await logsCall(s, 'GET', `/api/v1/logs/${id}?type=query&regionGroup=us-std`);
    return ['Complete', 'DoesNotExist', 'Failed', 'TimedOut'].includes(a.json.state as string) ? a : undefined;
  });
  if (final.json.state === 'DoesNotExist') return [];
  if (final.json.state !== 'Complete') return [`log export ${id} ended ${String(final.json.state)} after the restart`];
  return checkDownload(final.json.presigned_url as string);
}

function getBytes(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function checkDownload(url: string): Promise<string[]> {
  const res = await getBytes(url);
  if (res.status !== 200) return [`log export download: ${res.status}`];
  const lines = gunzipSync(res.body).toString('utf8').split('\n').filter(Boolean);
  const bad = lines.filter((l) => {
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
  return bad.length ? [`log export holds ${bad.length} lines that are not JSON, e.g. ${bad[0].slice(0, 200)}`] : [];
}

// ---- torn last write: the newest query-log file loses the end of its last record, as a crash mid-append would leave it.

/** Cuts the newest query-log file inside its last line; returns the bytes cut (0: no file to tear). */
export function tearQueryLog(dataDir: string, rand: () => number): number {
  const dir = path.join(dataDir, 'logs');
  let newest: { file: string; size: number; mtime: number } | undefined;
  try {
    for (const name of readdirSync(dir)) {
      if (!/^query-.*\.ndjson$/.test(name)) continue;
      const st = statSync(path.join(dir, name));
      if (st.size > 2 && (!newest || st.mtimeMs > newest.mtime)) newest = { file: path.join(dir, name), size: st.size, mtime: st.mtimeMs };
    }
  } catch {
    return 0;
  }
  if (!newest) return 0;
  const cut = 1 + Math.floor(rand() * Math.min(200, newest.size - 1));
  truncateSync(newest.file, newest.size - cut);
  return cut;
}

/** After a torn log: the server took new records, and an export of the hour reads back as whole JSON lines. */
export async function checkTornLog(s: Server): Promise<string[]> {
  const id = await startLogExport(s);
  if (id === undefined) return ['log export request refused after a torn query log'];
  return finishLogExport(s, id);
}

// ---- the history collector: one document of a collection that keeps no history, updated without
// pause while the collector (every 200 ms, no grace) removes its old versions.

export const CHURN = 'crash_churn';
const CHURN_DOC = '1';

export interface Churn {
  acked: number;
  pending: number | undefined;
}

/** Updates the churn document until `killed`; `state` follows what was acknowledged. */
export async function runChurn(s: Server, state: Churn, killed: Promise<void>): Promise<void> {
  const ref = q.Ref(q.Collection(CHURN), CHURN_DOC);
  let stop = false;
  void killed.then(() => (stop = true));
  while (!stop) {
    const n = state.acked + 1;
    state.pending = n;
    const ok = await Promise.race([
      s.client.query(q.If(q.Exists(ref), q.Update(ref, { data: { n } }), q.Create(ref, { data: { n } }))).then(
        () => true,
        () => false,
      ),
      killed.then(() => undefined),
    ]);
    if (ok !== true) return;
    state.acked = n;
    state.pending = undefined;
  }
}

/** The churn document holds what was acknowledged (or the unanswered update), and the collector runs again. */
export async function finishChurn(s: Server, state: Churn): Promise<string[]> {
  if (state.acked === 0 && state.pending === undefined) return [];
  const ref = q.Ref(q.Collection(CHURN), CHURN_DOC);
  const n = (await s.client.query(q.If(q.Exists(ref), q.Select(['data', 'n'], q.Get(ref)), null))) as number | null;
  const problems: string[] = [];
  if (n !== state.acked && n !== state.pending) problems.push(`${CHURN}: acknowledged n ${state.acked}, found ${n}`);
  else state.acked = n;
  state.pending = undefined;
  // Versions beyond the current one are collected again once the collector runs after the restart.
  await until('history collection after the restart', async () => {
    const events = (await s.client.query(q.Select('data', q.Paginate(q.Events(ref), { size: 100 })))) as unknown[];
    return events.length <= 2 ? true : undefined;
  });
  return problems;
}
