// `flora export-logs`: requests an export of the query log, polls it with progress, downloads it.

import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import { runCommand, UsageError } from './flags';
import { unknownOption } from '../suggest';

export const EXPORT_USAGE = `Usage: flora export-logs --start <time> [options]

Requests an export of the query log (POST /api/v1/logs?type=query), polls it until it is done,
and downloads the file (gzip-compressed JSON lines, one record per request).

Options:
  --url <url>              Flora's address (env FLORA_URL, default http://127.0.0.1:8443)
  --secret <secret>        Root secret or admin key secret (env FLORA_SECRET; required)
  --database <path>        Database path with the region group, e.g. us-std/app/tenant1
  --region-group <name>    Export the whole region group instead (default us-std)
  --start <time>           Start of the range, inclusive: ISO 8601 (2024-05-10T18:00:00Z),
                           'now', or relative to now: -30s, -15m, -2h, -7d
  --end <time>             End of the range, exclusive (default now)
  --out <file>             Where to write (default ./<request_id>.jsonl.gz; '-' = stdout)
  --gunzip                 Write plain JSON lines instead of gzip
  --idempotency-token <u>  UUID: the same request within 24 h gives the same export
  --poll-ms <n>            Polling interval (default 1000)
  --timeout <seconds>      Give up waiting after this long (default 600)
  -h, --help               Show this help

Exit codes: 0 downloaded (or no records in the range: nothing written), 1 failed, 2 bad usage.
`;

interface Options {
  url: string;
  secret: string;
  database?: string;
  regionGroup?: string;
  start: string;
  end: string;
  out?: string;
  gunzip: boolean;
  token?: string;
  pollMs: number;
  timeoutMs: number;
}

/** Relative times (`-15m`), `now`, or ISO 8601 text as given. */
export function resolveTime(raw: string, nowMs = Date.now()): string {
  if (raw === 'now') return new Date(nowMs).toISOString();
  const m = /^-(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(raw);
  if (m) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(nowMs - Number(m[1]) * unit).toISOString();
  }
  return raw;
}

const VALUE_FLAGS = ['--url', '--secret', '--database', '--region-group', '--start', '--end', '--out', '--idempotency-token', '--poll-ms', '--timeout'];

function parse(args: readonly string[], env: NodeJS.ProcessEnv): Options {
  const flags = new Map<string, string>();
  let gunzip = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--gunzip') {
      gunzip = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.includes(name)) throw new UsageError(unknownOption(arg, [...VALUE_FLAGS, '--gunzip', '--help']));
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new UsageError(`Option '${name}' needs a value.`);
    flags.set(name, value);
  }
  const secret = flags.get('--secret') ?? env.FLORA_SECRET;
  if (!secret) throw new UsageError('A secret is required (--secret or FLORA_SECRET).');
  const start = flags.get('--start');
  if (!start) throw new UsageError('--start is required.');
  const number = (name: string, fallback: number) => {
    const raw = flags.get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!(n > 0)) throw new UsageError(`${name} must be a positive number.`);
    return n;
  };
  const now = Date.now();
  return {
    url: (flags.get('--url') ?? env.FLORA_URL ?? 'http://127.0.0.1:8443').replace(/\/+$/, ''),
    secret,
    database: flags.get('--database'),
    regionGroup: flags.get('--region-group'),
    start: resolveTime(start, now),
    end: resolveTime(flags.get('--end') ?? 'now', now),
    out: flags.get('--out'),
    gunzip,
    token: flags.get('--idempotency-token'),
    pollMs: number('--poll-ms', 1000),
    timeoutMs: number('--timeout', 600) * 1000,
  };
}

interface Retrieval {
  request_id: string;
  state: string;
  presigned_url?: string;
  records?: number;
  progress?: { bytes_scanned: number; bytes_total: number; records: number };
  error?: string;
  message?: string;
}

async function call(opts: Options, method: string, path: string, body?: unknown): Promise<{ status: number; json: Retrieval }> {
  const res = await fetch(`${opts.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${opts.secret}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: Retrieval;
  try {
    json = JSON.parse(text) as Retrieval;
  } catch {
    throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  return { status: res.status, json };
}

export function exportLogs(args: readonly string[], env: NodeJS.ProcessEnv = process.env, err: Writable = process.stderr, out: Writable = process.stdout): Promise<number> {
  return runCommand({ name: 'export-logs', usage: EXPORT_USAGE, parse: (a) => parse(a, env), run: (opts) => run(opts, err, out) }, args, out, err);
}

async function run(opts: Options, err: Writable, out: Writable): Promise<number> {
  const request = {
    time_start: opts.start,
    time_end: opts.end,
    ...(opts.database ? { database: opts.database } : { region_group: opts.regionGroup ?? 'us-std' }),
    ...(opts.token ? { idempotency_token: opts.token } : {}),
  };
  const created = await call(opts, 'POST', '/api/v1/logs?type=query', request);
  if (created.status !== 200) throw new Error(`request refused (HTTP ${created.status}): ${created.json.message ?? ''}`);
  const id = created.json.request_id;
  err.write(`export ${id}: ${opts.start} .. ${opts.end}\n`);
  const tty = (err as NodeJS.WriteStream).isTTY === true;
  const deadline = Date.now() + opts.timeoutMs;
  let last = '';
  let job = created.json;
  for (;;) {
    const line = describe(job);
    if (line !== last) {
      err.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
      last = line;
    }
    if (['Complete', 'DoesNotExist', 'Failed', 'TimedOut'].includes(job.state)) break;
    if (Date.now() > deadline) throw new Error(`gave up waiting after ${opts.timeoutMs / 1000} s (state ${job.state})`);
    await sleep(opts.pollMs);
    const polled = await call(opts, 'GET', `/api/v1/logs/${id}?type=query`);
    if (polled.status !== 200) throw new Error(`poll failed (HTTP ${polled.status}): ${polled.json.message ?? ''}`);
    job = polled.json;
  }
  if (tty) err.write('\n');
  if (job.state === 'DoesNotExist') {
    err.write('no records in that range: nothing to download\n');
    return 0;
  }
  if (job.state !== 'Complete' || !job.presigned_url) {
    err.write(`export ${job.state}${job.error ? `: ${job.error}` : ''}\n`);
    return 1;
  }
  const res = await fetch(job.presigned_url);
  if (!res.ok || !res.body) throw new Error(`download failed: HTTP ${res.status}`);
  const target = opts.out ?? `${id}.jsonl${opts.gunzip ? '' : '.gz'}`;
  const sink = target === '-' ? out : createWriteStream(target);
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  if (opts.gunzip) await pipeline(body, createGunzip(), sink, { end: target !== '-' });
  else await pipeline(body, sink, { end: target !== '-' });
  err.write(`${job.records ?? '?'} records written to ${target === '-' ? 'stdout' : target}\n`);
  return 0;
}

function describe(job: Retrieval): string {
  const p = job.progress;
  if (job.state === 'Requested' && p) {
    const pct = p.bytes_total > 0 ? Math.floor((100 * p.bytes_scanned) / p.bytes_total) : 100;
    return `state Requested: ${pct}% scanned, ${p.records} records so far`;
  }
  if (job.state === 'Complete') return `state Complete: ${job.records ?? '?'} records`;
  return `state ${job.state}`;
}
