// Test helpers: a real Flora process on a free port, driver clients for both protocols, and raw
// HTTP/1.1 + HTTP/2 requests.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import { constants, tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, type ClientConfig } from 'faunadb';
import { databaseFor } from './postgres';

/** Project root (this file runs as dist/test/helpers/server.js). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const FLORA_BIN = path.join(ROOT, 'bin', 'flora.js');

export interface FloraProcess {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  port: number;
  dataDir: string;
  /** Root secret. */
  secret: string;
  proc: ChildProcess;
  /** Everything the process wrote to stderr so far (for assertion messages). */
  stderr(): string;
  /** Sends the signal (default SIGTERM), waits for exit, removes a temp data dir; resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  /** Graceful stop, then a new process on the same data dir (and port 0 again: the URL changes). */
  restart(): Promise<FloraProcess>;
}

export interface StartOptions {
  /** Defaults to a fresh temp dir, removed by stop(). */
  dataDir?: string;
  env?: Record<string, string>;
  /** Extra CLI arguments after `start`. */
  args?: string[];
}

const running = new Set<ChildProcess>();
// A test that fails before stop() must not leave servers behind.
process.once('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

export async function startFlora(opts: StartOptions = {}): Promise<FloraProcess> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'flora-test-')));
  try {
    return await launch(opts, dataDir, ownDir);
  } catch (err) {
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function launch(opts: StartOptions, dataDir: string, ownDir: boolean): Promise<FloraProcess> {
  const secret = opts.env?.FLORA_ROOT_SECRET ?? 'secret';
  // npm test's PostgreSQL pass: every server of a test file keeps its store in the cluster it names.
  const pgBase = process.env.FLORA_TEST_PG_URL;
  const storage = pgBase && !opts.args?.includes('--storage') ? ['--storage', await databaseFor(pgBase, dataDir)] : [];
  // One process unless a test asks for a tier (the default is one worker per core), or npm test's
  // tier pass sets FLORA_TEST_WORKERS: every server of a file that names no count is then a tier.
  const workers = opts.args?.includes('--workers') || opts.env?.FLORA_WORKERS ? [] : ['--workers', process.env.FLORA_TEST_WORKERS ?? '1'];
  const proc = spawn(
    process.execPath,
    [FLORA_BIN, 'start', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, ...storage, ...workers, ...(opts.args ?? [])],
    { cwd: ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(proc);

  let stderr = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => (stderr += chunk));

  const exited = new Promise<number>((resolve) => {
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });

  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.setEncoding('utf8');
    const onData = (chunk: string) => {
      out += chunk;
      const m = /^Flora listening on (https?:\/\/\S+)\r?$/m.exec(out);
      if (m) {
        proc.stdout!.off('data', onData);
        proc.stdout!.resume(); // keep draining so the child never blocks on a full pipe
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`flora exited with ${code} before listening:\n${out}${stderr}`)));
  });

  const terminate = (signal: NodeJS.Signals): Promise<number> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return exited;
  };
  let stopped: Promise<number> | undefined;
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    secret,
    proc,
    stderr: () => stderr,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      stopped ??= terminate(signal).then(async (code) => {
        if (ownDir) await rm(dataDir, { recursive: true, force: true });
        return code;
      });
      return stopped;
    },
    async restart() {
      const code = await terminate('SIGTERM');
      if (code !== 0) throw new Error(`flora exited with ${code} on SIGTERM:\n${stderr}`);
      return launch(opts, dataDir, ownDir);
    },
  };
}

type FetchOption = ClientConfig['fetch'];

/** node-fetch (what the driver's own test suite ends up using) or, failing that, Node's fetch: HTTP/1.1. */
function http1Fetch(): FetchOption {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node-fetch') as FetchOption;
  } catch {
    return globalThis.fetch as unknown as FetchOption;
  }
}

export interface DriverClients {
  /** The driver's default transport: HTTP/2 cleartext with prior knowledge. */
  h2: Client;
  /** The driver's fetch adapter: HTTP/1.1. */
  h1: Client;
  close(): Promise<void>;
}

export function clients(url: string, secret: string): DriverClients {
  const h2 = new Client({ secret, endpoint: url });
  const h1 = new Client({ secret, endpoint: url, scheme: 'http', fetch: http1Fetch() });
  return {
    h2,
    h1,
    close: async () => {
      await Promise.all([h2.close({ force: true }), h1.close({ force: true })]);
    },
  };
}

/** One server for a whole test file (started before its tests, stopped after them), with root clients over both protocols. */
export function serverForFile(opts: StartOptions = {}): { readonly flora: FloraProcess; readonly drivers: DriverClients } {
  let flora: FloraProcess | undefined;
  let drivers: DriverClients | undefined;
  before(async () => {
    flora = await startFlora(opts);
    drivers = clients(flora.url, flora.secret);
  });
  after(async () => {
    await drivers?.close();
    await flora?.stop();
  });
  return {
    get flora() {
      return flora!;
    },
    get drivers() {
      return drivers!;
    },
  };
}

export interface RawRequest {
  method?: string;
  /** Path with query string; default `/`. */
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** HTTP/2 cleartext with prior knowledge instead of HTTP/1.1. */
  http2?: boolean;
  /** Aborts the request (e.g. AbortSignal.timeout): the promise rejects. */
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  /** Lower-case names, pseudo-headers removed. */
  headers: Record<string, string>;
  body: string;
}

/** One request on a fresh connection, closed afterwards. */
export function httpRequest(url: string, req: RawRequest = {}): Promise<RawResponse> {
  return req.http2 ? h2Request(url, req) : h1Request(url, req);
}

function h1Request(url: string, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      new URL(req.path ?? '/', url),
      { method: req.method ?? 'GET', headers: req.headers, agent: false, signal: req.signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: flatten(res.headers), body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

async function h2Request(url: string, req: RawRequest): Promise<RawResponse> {
  const session = http2.connect(url);
  const failed = new Promise<never>((_, reject) => session.on('error', reject));
  const stream = session.request(
    {
      ':method': req.method ?? 'GET',
      ':path': req.path ?? '/',
      ...req.headers,
    },
    { signal: req.signal },
  );
  stream.end(req.body);
  try {
    const answer = await Promise.race([h2Answer(stream), failed]);
    session.close();
    return answer;
  } catch (e) {
    session.destroy();
    throw e;
  }
}

/**
 * The answer on an HTTP/2 stream, once whole. It may come before the request is all sent (a refusal
 * while the client still writes) and the stream be reset after it: it is the answer all the same. A
 * stream closed without one rejects.
 */
export function h2Answer(stream: http2.ClientHttp2Stream): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let error: Error | undefined;
    const answer = () => ({ status, headers, body: Buffer.concat(chunks).toString('utf8') });
    stream.on('response', (h) => {
      status = Number(h[':status']);
      headers = flatten(h);
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', (e) => (error = e));
    stream.once('end', () => resolve(answer()));
    stream.once('close', () => (status ? resolve(answer()) : reject(error ?? new Error(`stream closed without an answer (code ${stream.rstCode})`))));
  });
}

function flatten(headers: http.IncomingHttpHeaders | http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

export interface TimedResponse extends RawResponse {
  /** From sending the request to the whole answer. */
  ms: number;
}

/**
 * POST / of `body` (a cheap query by default) on a fresh connection, with `secret` as the bearer
 * (none when undefined): the answer and how long it took; status 0, the error in `body`, when the
 * connection failed.
 */
export async function timedPost(url: string, secret: string | undefined, opts: { body?: string | Buffer; http2?: boolean } = {}): Promise<TimedResponse> {
  const started = performance.now();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== undefined) headers.authorization = `Bearer ${secret}`;
  try {
    const res = await httpRequest(url, { method: 'POST', headers, body: opts.body ?? '{"add":[1,2]}', http2: opts.http2 });
    return { ...res, ms: performance.now() - started };
  } catch (e) {
    return { status: 0, headers: {}, body: (e as Error).message, ms: performance.now() - started };
  }
}

/** A new key of `role` (client, server, admin) made with the root secret, in child database `database` when given; its secret. */
export async function makeKey(flora: FloraProcess, role: string, database?: string): Promise<string> {
  const object = database === undefined ? { role } : { role, database: { database } };
  const res = await httpRequest(flora.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${flora.secret}` },
    body: JSON.stringify({ create_key: { object } }),
  });
  if (res.status !== 201) throw new Error(`CreateKey answered ${res.status}: ${res.body}`);
  return (JSON.parse(res.body) as { resource: { secret: string } }).resource.secret;
}

export interface FqlAnswer {
  status: number;
  /** The answer's `resource` (JSON as sent: refs stay `{"@ref": …}`). */
  resource?: any;
  errors?: { code: string; description: string }[];
}

/** FQL wire JSON POSTed with `secret` as a plain HTTP client sends it, on a fresh connection. */
export async function postFql(url: string, secret: string, body: unknown): Promise<FqlAnswer> {
  const res = await httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify(body) });
  return { status: res.status, ...(JSON.parse(res.body) as Omit<FqlAnswer, 'status'>) };
}

/** postFql that must succeed (200 or 201): its resource. */
export async function fqlResource(url: string, secret: string, body: unknown): Promise<any> {
  const answer = await postFql(url, secret, body);
  assert.ok(answer.status === 200 || answer.status === 201, JSON.stringify(answer));
  return answer.resource;
}

/** Sends a raw JSON query body (exact Long/Double text the driver cannot express) and returns the body. */
export async function rawQuery(url: string, secret: string, body: string, http2 = false): Promise<string> {
  const res = await httpRequest(url, {
    method: 'POST',
    http2,
    headers: { authorization: `Bearer ${secret}`, 'x-faunadb-api-version': '4', 'content-type': 'application/json' },
    body,
  });
  return res.body;
}

/** Driver clients for any number of secrets; close() closes every one (both protocols of each). */
export class ClientPool {
  private readonly all: DriverClients[] = [];

  constructor(private readonly url: string) {}

  client(secret: string, proto: 'h2' | 'h1' = 'h2'): Client {
    const c = clients(this.url, secret);
    this.all.push(c);
    return c[proto];
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((c) => c.close()));
  }
}

/** Makes `client` send `ts` as the last transaction time it saw (the driver's own method, untyped). */
export function sawTxn(client: Client, ts: number): void {
  (client as unknown as { syncLastTxnTime(t: number): void }).syncLastTxnTime(ts);
}

/** Resolves once `cond` holds; fails naming `what` after `ms`. */
export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The pids of a `--workers` supervisor's workers, as its stderr names them (started and replaced). */
export function workerPids(flora: FloraProcess): number[] {
  const pids = new Set<number>();
  for (const m of flora.stderr().matchAll(/pids ([\d, ]+)\)/g)) for (const p of m[1].split(', ')) pids.add(Number(p));
  for (const m of flora.stderr().matchAll(/worker (\d+) [^;]*; started worker (\d+)/g)) {
    pids.delete(Number(m[1]));
    pids.add(Number(m[2]));
  }
  return [...pids];
}

/** kill -9 of the workers `pids` of a supervisor; resolves once as many replacements serve. */
export async function killWorkers(flora: FloraProcess, pids: number[]): Promise<void> {
  const serving = () => (flora.stderr().match(/serves again/g) ?? []).length;
  const before = serving();
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await waitFor('replacement workers', () => serving() >= before + pids.length);
}
