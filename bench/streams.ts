// `node dist/bench/streams.js [--seconds 2] [--rounds 5] [--streams 100] [--concurrency 32]
//   [--only none,documents,none-create,collection] [--driver-clients] [--same-priority]`
//
// Write throughput with open streams listening versus none, in one run, in interleaved rounds.
// Flora runs in this process (query service + HTTP server on a free port); the writes go through
// the query service in process (32 in flight), so the database's own cost is what is measured,
// and the event delivery (rendering, permission checks, socket writes) shares the process with
// them. The stream clients run in a child process at the lowest CPU priority, as if on another
// machine (the bench has 2 CPUs for everything): plain HTTP/2 requests that count the event lines,
// so that they take as little CPU as possible from the server. `--driver-clients` uses the
// official driver (`client.stream`) instead, which parses every event; `--same-priority` leaves
// the clients at normal priority.
//
// Phases of each round, `--seconds` each:
//   none        no stream open; Update of one of 100 documents (each writer has its own)
//   documents   100 document streams, one per document; the same Updates (each write → 1 event)
//   none-create no stream open; Create in a collection
//   collection  100 Documents(collection) streams; the same Creates (each write → 100 events)
// Every event is counted by the clients and checked against the writes made; after each phase the
// server's count of open streams must be back to zero.

import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http2 from 'node:http2';
import * as os from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFlora } from '../src/flora';
import type { QueryService } from '../src/fql/api';
import { startServer } from '../src/server/server';
import { defaultConfig } from '../src/config';
import { numberArg } from './harness';

const AUTH = 'Bearer secret';
const RAW = !process.argv.includes('--driver-clients');
const NICE = !process.argv.includes('--same-priority');
const DOCS = 100;
const refJson = (coll: string, id: number) =>
  ({ ref: { collection: coll }, id: String(id) }) as const;

async function q(service: QueryService, body: unknown): Promise<void> {
  const r = await service.query({ body: JSON.stringify(body), authorization: AUTH, timeoutMs: 60_000 });
  if (r.status >= 300) throw new Error(String(r.body));
}

/** Runs `concurrency` writers for `seconds`; returns ops/s and the number of writes. */
async function write(service: QueryService, body: (writer: number) => string, seconds: number, concurrency: number): Promise<{ rate: number; ops: number }> {
  const deadline = Date.now() + seconds * 1000;
  let ops = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, writer) => {
      while (Date.now() < deadline) {
        const r = await service.query({ body: body(writer), authorization: AUTH, timeoutMs: 60_000 });
        if (r.status >= 300) throw new Error(String(r.body));
        ops++;
      }
    }),
  );
  return { rate: ops / (Number(process.hrtime.bigint() - started) / 1e9), ops };
}

// ---- the stream clients (child process) -----------------------------------------------------

interface ChildReport {
  events: number;
  errors: string[];
  /** CPU time (user + system) of the client process since it was ready, µs. */
  cpuUs: number;
}

/**
 * The same streams without the driver: one HTTP/2 session; each line is checked by its prefix
 * (the event type) rather than parsed, so the clients cost as little CPU as possible.
 */
function rawClients(url: string, n: number, expr: (i: number) => unknown, onStart: () => void, cpu0: () => NodeJS.CpuUsage | undefined): void {
  let events = 0;
  const errors: string[] = [];
  const session = http2.connect(url);
  session.on('error', (e) => errors.push(e.message));
  const reqs = Array.from({ length: n }, (_, i) => {
    const req = session.request({ ':method': 'POST', ':path': '/stream', authorization: AUTH });
    req.setEncoding('utf8');
    let buffer = '';
    let first = true;
    req.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (first) {
          first = false;
          onStart();
        } else if (line.startsWith('{"type":"version"') || line.startsWith('{"type":"set"')) events++;
        else errors.push(line);
      }
    });
    req.on('error', (e) => errors.push(e.message));
    req.end(JSON.stringify(expr(i)));
    return req;
  });
  process.on('message', async (msg: { expect: number }) => {
    const deadline = Date.now() + 30_000;
    while (events < msg.expect && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    const cpu = process.cpuUsage(cpu0());
    for (const r of reqs) r.close();
    session.destroy();
    process.send!({ events, errors, cpuUs: cpu.user + cpu.system } satisfies ChildReport, () => process.exit(0));
  });
}

async function clientMain(url: string, mode: string, n: number, raw: boolean): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client, query: fq } = require('faunadb') as typeof import('faunadb');
  const client = new Client({ secret: 'secret', endpoint: url });
  let events = 0;
  let startedCount = 0;
  let cpu0: NodeJS.CpuUsage | undefined;
  const errors: string[] = [];
  const onStart = () => {
    if (++startedCount === n) {
      cpu0 = process.cpuUsage();
      process.send!({ ready: true });
    }
  };
  const expr = (i: number) => (mode === 'documents' ? fq.Ref(fq.Collection('bench_docs'), String(i + 1)) : fq.Documents(fq.Collection('bench_new')));
  if (raw) return rawClients(url, n, expr, onStart, () => cpu0);
  const subs = Array.from({ length: n }, (_, i) =>
    client
      .stream(expr(i))
      .on('start', onStart)
      .on('version', () => events++)
      .on('set', () => events++)
      .on('error', (e: unknown) => errors.push(String((e as Error)?.message ?? JSON.stringify(e))))
      .start(),
  );
  process.on('message', async (msg: { expect: number }) => {
    const deadline = Date.now() + 30_000;
    while (events < msg.expect && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100)); // anything beyond the expected count shows too
    const cpu = process.cpuUsage(cpu0);
    for (const s of subs) s.close();
    await client.close({ force: true });
    process.send!({ events, errors, cpuUs: cpu.user + cpu.system } satisfies ChildReport, () => process.exit(0));
  });
}

function spawnClients(url: string, mode: string, n: number): Promise<{ child: ChildProcess; report: (expect: number) => Promise<ChildReport> }> {
  const child = fork(__filename, ['--client', url, mode, String(n), RAW ? 'raw' : 'driver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (NICE) os.setPriority(child.pid!, 19);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stream clients exited with ${code}`)));
    child.once('message', () => {
      child.removeAllListeners('exit');
      resolve({
        child,
        report: (expect) =>
          new Promise<ChildReport>((done, fail) => {
            child.once('message', (m) => done(m as ChildReport));
            child.once('exit', (code) => fail(new Error(`stream clients exited with ${code}`)));
            child.send({ expect });
          }),
      });
    });
  });
}

/** The server's count of open streams, read from a probe stream's header (minus the probe). */
async function openStreams(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on('error', reject);
    const req = session.request({ ':method': 'POST', ':path': '/stream', authorization: AUTH });
    req.on('response', (h) => {
      resolve(Number(h['x-flora-open-streams']) - 1);
      session.destroy();
    });
    req.on('error', reject);
    req.end(JSON.stringify(refJson('bench_docs', 1)));
  });
}

async function waitNoStreams(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const n = await openStreams(url);
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} streams still open after the clients left`);
  }
}

// ---- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 2);
  const rounds = numberArg('--rounds', 5);
  const streams = numberArg('--streams', 100);
  const concurrency = numberArg('--concurrency', 32);
  const o = process.argv.indexOf('--only'); // e.g. --only none,documents (for profiling)
  const only = o >= 0 ? process.argv[o + 1].split(',') : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-streams-'));
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir: dir });
  const server = await startServer(service, { host: '127.0.0.1', port: 0 });
  try {
    await q(service, { create_collection: { object: { name: 'bench_docs' } } });
    await q(service, { create_collection: { object: { name: 'bench_new' } } });
    await q(service, {
      do: Array.from({ length: DOCS }, (_, i) => ({ create: refJson('bench_docs', i + 1), params: { object: { data: { object: { n: 0 } } } } })),
    });
    let n = 0;
    // Writer w updates the documents w+1, w+1+C, … in turn (C writers): no write conflicts, whose
    // serialized retries would otherwise dominate the variance.
    const turn = new Map<number, number>();
    const update = (w: number) => {
      const mine = Math.ceil((DOCS - w) / concurrency);
      const k = turn.get(w) ?? 0;
      turn.set(w, k + 1);
      const id = 1 + w + (k % mine) * concurrency;
      return JSON.stringify({ update: refJson('bench_docs', id), params: { object: { data: { object: { n: ++n } } } } });
    };
    const create = () => JSON.stringify({ create: { collection: 'bench_new' }, params: { object: { data: { object: { n: ++n } } } } });

    const totals: Record<string, { ops: number; secs: number }> = {};
    const add = (phase: string, r: { rate: number; ops: number }) => {
      const t = (totals[phase] ??= { ops: 0, secs: 0 });
      t.ops += r.ops;
      t.secs += r.ops / r.rate;
    };
    const problems: string[] = [];
    // Round 0 warms every path up (the JIT, the stream code) and is not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const [phase, body, mode, fanout] of [
        ['none', update, undefined, 0],
        ['documents', update, 'documents', 1],
        ['none-create', create, undefined, 0],
        ['collection', create, 'collection', streams],
      ] as const) {
        if (only && !only.includes(phase)) continue;
        const clients = mode ? await spawnClients(server.address, mode, streams) : undefined;
        const cpu0 = process.cpuUsage();
        const r = await write(service, body, round === 0 ? 1 : seconds, concurrency);
        const cpu = process.cpuUsage(cpu0);
        if (round > 0) add(phase, r);
        const perWrite = (cpu.user + cpu.system) / r.ops;
        let line = `${round === 0 ? 'warm-up' : `round ${round}`} ${phase.padEnd(11)} ${r.rate.toFixed(0).padStart(6)} writes/s, server ${perWrite.toFixed(0)} µs CPU/write`;
        if (clients) {
          const expect = r.ops * fanout;
          const rep = await clients.report(expect);
          await waitNoStreams(server.address);
          line += `, ${rep.events}/${expect} events, clients ${(rep.cpuUs / r.ops).toFixed(0)} µs CPU/write`;
          if (rep.events !== expect) problems.push(`${phase} round ${round}: ${rep.events} events for ${expect} expected`);
          if (rep.errors.length) problems.push(`${phase} round ${round}: errors ${rep.errors.slice(0, 3).join('; ')}`);
        }
        console.log(line);
      }
    }
    const rate = (p: string) => (totals[p] ? totals[p].ops / totals[p].secs : NaN);
    console.log('');
    console.log(`stream clients: ${RAW ? 'plain HTTP/2, counting lines' : 'the official driver'}, ${NICE ? 'lowest CPU priority' : 'normal CPU priority'}`);
    console.log(`| phase | writes/s | vs none |`);
    console.log(`|---|---|---|`);
    console.log(`| none (Update) | ${rate('none').toFixed(0)} | 1.000 |`);
    console.log(`| ${streams} document streams (Update, 1 event per write) | ${rate('documents').toFixed(0)} | ${(rate('documents') / rate('none')).toFixed(3)} |`);
    console.log(`| none (Create) | ${rate('none-create').toFixed(0)} | 1.000 |`);
    console.log(
      `| ${streams} Documents(coll) streams (Create, ${streams} events per write) | ${rate('collection').toFixed(0)} | ${(rate('collection') / rate('none-create')).toFixed(3)} |`,
    );
    const ratio = rate('documents') / rate('none');
    console.log('');
    console.log(`ratio with ${streams} streams listening (documents): ${ratio.toFixed(3)} (target >= 0.8: ${ratio >= 0.8 ? 'PASS' : 'FAIL'})`);
    if (problems.length) {
      console.log(`delivery problems:\n  ${problems.join('\n  ')}`);
      process.exitCode = 1;
    } else console.log('every event delivered exactly once; no stream left open after its clients left');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--client') {
  void clientMain(process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6] === 'raw');
} else {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
