// HTTP/1.1 load for benchmarks: wrk (C, little CPU) with a Lua script per request kind, the bare
// node:http server that answers with a Flora Get's bytes (http1Ceiling.ts), and measured slices
// with the CPU each target's process tree used meanwhile (procCpu.ts).

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpRequest, type FloraProcess } from '../test/helpers/server';
import { DOCUMENT_DATA } from './ceiling';
import { cpuWindow } from './procCpu';
import { wrap } from './harness';
export interface GenResult {
  requests: number;
  seconds: number;
  /** Answers other than the one expected (200 for a Get, 201 for a Create; pgbench: failed transactions). */
  bad: number;
  /** Conflicts the server retried (x-txn-retries). */
  retries: number;
  latAvgMs: number;
  p99Ms: number;
  /** CPU seconds the load generator used. */
  genCpu: number;
}

/** Runs a command under bash, whose `times` then reports the CPU its child (the command) used. */
export function timed(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ out: string; cpu: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', '"$@"; rc=$?; times; exit $rc', 'bash', cmd, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} exited with ${code}: ${err}${out}`));
      const lines = out.trimEnd().split('\n');
      const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(lines[lines.length - 1]);
      if (!m) return reject(new Error(`no times from ${cmd}: ${out}`));
      resolve({ out, cpu: Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) });
    });
  });
}

/**
 * wrk's Lua script: `get` POSTs a Get of a random id in 1..N (N after `--`) and wants 200; `create`
 * POSTs a Create and wants 201; `v10-get` POSTs to /query/1 what the `fauna` driver sends for
 * fql`bench.byId(${id})` and wants 200. Every other status counts as bad, and the server's
 * x-txn-retries (conflicts it retried) are added up.
 */
export function wrkScript(kind: 'get' | 'create' | 'v10-get'): string {
  const create = JSON.stringify({ create: { collection: 'bench_create' }, params: wrap({ data: DOCUMENT_DATA }) });
  const request =
    kind === 'get'
      ? `function request()
  return wrk.format(nil, nil, nil, '{"get":{"ref":{"collection":"bench"},"id":"' .. math.random(docs) .. '"}}')
end`
      : kind === 'v10-get'
        ? `function request()
  return wrk.format(nil, nil, nil, '{"query":{"fql":["bench.byId(",{"value":"' .. math.random(docs) .. '"},")"]}}')
end`
        : `wrk.body = [==[${create}]==]`;
  const headers =
    kind === 'v10-get'
      ? `wrk.path = "/query/1"
wrk.headers["X-Format"] = "tagged"`
      : `wrk.path = "/"
wrk.headers["X-FaunaDB-API-Version"] = "4"`;
  return `
wrk.method = "POST"
${headers}
wrk.headers["Authorization"] = "Bearer secret"
wrk.headers["Content-Type"] = "application/json; charset=utf-8"
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("seed", #threads)
end
function init(args)
  docs = tonumber(args[1])
  bad = 0
  firstbad = ""
  retries = 0
  math.randomseed(os.time() * 100 + seed)
end
${request}
function response(status, headers, body)
  if status ~= ${kind === 'create' ? 201 : 200} then
    bad = bad + 1
    if firstbad == "" then firstbad = status .. " " .. string.sub(body, 1, 300) end
  end
  retries = retries + tonumber(headers["x-txn-retries"] or "0")
end
function done(summary, latency, requests)
  local nbad, nretries = 0, 0
  for _, t in ipairs(threads) do
    nbad = nbad + t:get("bad")
    nretries = nretries + t:get("retries")
    if t:get("firstbad") ~= "" then io.write("FIRSTBAD " .. t:get("firstbad") .. "\\n") end
  end
  local e = summary.errors
  io.write(string.format("CAPACITY requests=%d duration_us=%d bad=%d socket_errors=%d retries=%d mean_us=%.0f p99_us=%d\\n",
    summary.requests, summary.duration, nbad, e.connect + e.read + e.write + e.timeout, nretries, latency.mean, latency:percentile(99)))
end
`;
}


export async function runWrk(url: string, script: string, docs: number, seconds: number, connections: number, threads: number): Promise<GenResult> {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--timeout', '10s', '-s', script, url, '--', String(docs)];
  const { out, cpu } = await timed('wrk', args);
  const m = /CAPACITY requests=(\d+) duration_us=(\d+) bad=(\d+) socket_errors=(\d+) retries=(\d+) mean_us=(\d+) p99_us=(\d+)/.exec(out);
  if (!m) throw new Error(`unexpected wrk output:\n${out}`);
  const [requests, us, bad, socketErrors, retries, mean, p99] = m.slice(1).map(Number);
  const firstBad = /^FIRSTBAD (.*)$/m.exec(out);
  if (firstBad) console.log(`  first bad answer from ${url}: ${firstBad[1]}`);
  // A connection wrk could not use is a request that got no answer either.
  return { requests, seconds: us / 1e6, bad: bad + socketErrors, retries, latAvgMs: mean / 1000, p99Ms: p99 / 1000, genCpu: cpu };
}

export interface Slice extends GenResult {
  rps: number;
  serverCpu: number;
  machine: number;
  wall: number;
  perPid: Map<number, number>;
}

export interface Target {
  name: string;
  pid: number;
  run(seconds: number): Promise<GenResult>;
  slices: Slice[];
}

export async function slice(t: Target, seconds: number): Promise<Slice> {
  const end = cpuWindow({ server: t.pid });
  const r = await t.run(seconds);
  await sleep(100); // the postmaster reaps pgbench's backends, so their CPU lands in its cutime
  const c = end();
  const s = { ...r, rps: r.requests / r.seconds, serverCpu: c.trees.server, machine: c.machine, wall: c.wall, perPid: c.perPid.server };
  t.slices.push(s);
  return s;
}

/** The bare node:http server of http1Ceiling.ts, answering with what `flora` answers to a Get
 *  (after `work` JSON round trips of it per request). */
export async function startHttp1Ceiling(flora: FloraProcess, processes: number, tmp: string, work = 0): Promise<{ url: string; pid: number; stop(): void }> {
  const res = await httpRequest(flora.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${flora.secret}`, 'content-type': 'application/json; charset=utf-8', 'x-faunadb-api-version': '4' },
    body: JSON.stringify({ get: { ref: { collection: 'bench' }, id: '1' } }),
  });
  if (res.status !== 200) throw new Error(`Get answered ${res.status}: ${res.body}`);
  const hopByHop = new Set(['connection', 'keep-alive', 'content-length', 'transfer-encoding', 'date']);
  const file = path.join(tmp, 'response.json');
  writeFileSync(file, JSON.stringify({ headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => !hopByHop.has(k))), body: res.body }));
  const proc = spawn(process.execPath, [path.join(__dirname, 'http1Ceiling.js'), String(processes), file, String(work)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /Ceiling listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`ceiling exited with ${code}`)));
  });
  return { url, pid: proc.pid!, stop: () => proc.kill('SIGTERM') };
}
