// `node dist/bench/logs.js [--seconds 20] [--rounds 10] [--concurrency 32] [--records 1000000] [--only throughput|export]`
//
// 1. Query throughput with the query log on versus off, in the same run: one Flora in this process
//    behind its HTTP server, its query log switched on and off between slices (on/off, off/on, …,
//    so drift hits both alike); a load generator in a child process (a raw HTTP/2 client, much
//    cheaper than the driver, so that the server is what saturates) sends point Gets with tags and a
//    traceparent. Also reports this process's CPU time per query. Target: on / off >= 0.95.
// 2. Export of --records records: they are written as hour files (through the record builder), then
//    a child process runs one export over all of them (stream → filter → gzip → file) and reports
//    records/s and its peak RSS.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import * as http2 from 'node:http2';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createFlora } from '../src/flora';
import { defaultConfig } from '../src/config';
import { LogSystem, type QueryLog } from '../src/logs/index';
import { JobStore, type ExportJob } from '../src/logs/jobs';
import { buildRecord } from '../src/logs/record';
import { Redactor } from '../src/logs/redact';
import { ExportRunner } from '../src/logs/runner';
import { FileLogSource } from '../src/logs/fileSource';
import { DirExportFiles } from '../src/logs/dirExportFiles';
import { openLmdbEngine } from '../src/storage/lmdbEngine';
import { openStore } from '../src/storage/store';
import { Leases } from '../src/tier/leases';
import { UrlSigner } from '../src/logs/signing';
import { startServer } from '../src/server/server';

const SECRET = 'secret';
const DOCS = 1000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`bad ${name}`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Child: load generator

async function clientMode(url: string, seconds: number, concurrency: number): Promise<void> {
  const session = http2.connect(url);
  session.on('error', () => undefined);
  let n = 0;
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const i = n++;
      const stream = session.request({
        ':method': 'POST',
        ':path': '/',
        authorization: `Bearer ${SECRET}`,
        'x-faunadb-api-version': '4',
        'content-type': 'application/json',
        'user-agent': 'flora-bench/1.0',
        'x-fauna-tags': `route=bench,n=${i % 1000}`,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      });
      let status = 0;
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', () => undefined);
      stream.on('end', () => resolve(status));
      stream.on('error', reject);
      stream.end(JSON.stringify({ get: { ref: { collection: 'bench' }, id: String(1 + (i % DOCS)) } }));
    });
  const runFor = async (ms: number) => {
    const deadline = Date.now() + ms;
    let ops = 0;
    let errors = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          const status = await one();
          if (status === 200) ops++;
          else errors++;
        }
      }),
    );
    return { ops, errors };
  };
  await runFor(300); // warm-up
  const started = process.hrtime.bigint();
  const { ops, errors } = await runFor(seconds * 1000);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  session.close();
  process.stdout.write(JSON.stringify({ ops, errors, seconds: elapsed }));
}

function runClient(url: string, seconds: number, concurrency: number): Promise<{ ops: number; errors: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [__filename, '--client', url, String(seconds), String(concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { ops: number; errors: number; seconds: number }) : reject(new Error(`client exited ${code}`))));
  });
}

// ---------------------------------------------------------------------------------------------
// Parent: logging on vs off

interface Side {
  name: string;
  ops: number;
  seconds: number;
  errors: number;
  /** CPU time (user + system, µs, all threads) this process spent while the side was measured. */
  cpuMicros: number;
}

/**
 * One Flora (one store, one server) whose query log is switched on and off between slices: the two
 * sides differ in nothing else. (Two instances side by side were not comparable: the first one
 * created measured up to 25% slower than the second with logging off in both.)
 */
async function throughput(seconds: number, rounds: number, concurrency: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-logs-'));
  const config = { ...defaultConfig(), port: 0, dataDir: dir, rootSecret: SECRET, logQueries: true };
  const service = await createFlora(config);
  const logs = await LogSystem.open(config, service);
  const server = await startServer(service, config, { logs });
  const queryLog = logs.logger as QueryLog;
  try {
    const auth = `Bearer ${SECRET}`;
    await service.query({ body: JSON.stringify({ create_collection: { object: { name: 'bench' } } }), authorization: auth, timeoutMs: 60_000 });
    const creates = Array.from({ length: DOCS }, (_, i) => ({
      create: { ref: { collection: 'bench' }, id: String(i + 1) },
      params: { object: { data: { object: { n: i, title: 'A document of some size', tags: ['a', 'b', 'c'] } } } },
    }));
    await service.query({ body: JSON.stringify({ do: creates }), authorization: auth, timeoutMs: 600_000 });

    const on: Side = { name: 'on', ops: 0, seconds: 0, errors: 0, cpuMicros: 0 };
    const off: Side = { name: 'off', ops: 0, seconds: 0, errors: 0, cpuMicros: 0 };
    const slice = seconds / rounds;
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 ? [off, on] : [on, off]) {
        queryLog.enabled = side === on;
        await logs.flush(); // the other side's records are written before this slice starts
        const cpu = process.cpuUsage();
        const res = await runClient(server.address, slice, concurrency);
        const used = process.cpuUsage(cpu);
        side.cpuMicros += used.user + used.system; // includes the client's 0.3 s warm-up
        side.ops += res.ops;
        side.seconds += res.seconds;
        side.errors += res.errors;
      }
    }
    queryLog.enabled = true;
    await logs.flush();
    const rate = (s: Side) => s.ops / s.seconds;
    const cpuPerQuery = (s: Side) => s.cpuMicros / s.ops;
    const ratio = rate(on) / rate(off);
    const cpuRatio = cpuPerQuery(off) / cpuPerQuery(on);
    const stats = logs.writerStats()!;
    console.log(`query throughput, ${concurrency} in flight, ${seconds}s each in ${rounds} interleaved slices (one server, logging switched per slice; raw HTTP/2 client in a child process):`);
    console.log(`  logging off: ${rate(off).toFixed(0)} queries/s, server CPU ${cpuPerQuery(off).toFixed(0)} µs/query (${off.errors} errors)`);
    console.log(`  logging on:  ${rate(on).toFixed(0)} queries/s, server CPU ${cpuPerQuery(on).toFixed(0)} µs/query (${on.errors} errors)`);
    console.log(`  records written ${stats.written} (queries while on: ${on.ops} + warm-ups), dropped ${stats.dropped}, failed ${stats.failed}, peak buffer ${(stats.peakBufferedBytes / 1024).toFixed(0)} KiB`);
    console.log(`  throughput on / off = ${ratio.toFixed(3)} (target >= 0.95: ${ratio >= 0.95 ? 'PASS' : 'FAIL'})`);
    console.log(`  server CPU per query, off / on = ${cpuRatio.toFixed(3)}`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Export of many records

const HOUR = 3_600_000;

async function writeRecords(logDir: string, count: number, startMs: number, hours: number): Promise<number> {
  const opts = { regionGroup: 'us-std', redactor: new Redactor([SECRET]) };
  const perHour = Math.ceil(count / hours);
  const headers = { 'user-agent': 'faunadb-js/4.8.0', 'x-forwarded-for': '10.0.0.1', 'x-faunadb-api-version': '4', 'x-driver-env': 'driver=javascript-4.8.0; runtime=nodejs-v20.20.2; env=unknown; os=linux-6.1' };
  let bytes = 0;
  let written = 0;
  for (let h = 0; h < hours && written < count; h++) {
    const hourStart = startMs + h * HOUR;
    const out = createWriteStream(path.join(logDir, `query-${new Date(hourStart).toISOString().slice(0, 13)}.ndjson`));
    const n = Math.min(perHour, count - written);
    let buf = '';
    for (let i = 0; i < n; i++) {
      const line = buildRecord(
        {
          method: 'POST', headers, status: 200, bytesIn: 80, bytesOut: 310, queryTimeMs: 3,
          metrics: { computeOps: 1, byteReadOps: 2, byteWriteOps: 0, storageBytesRead: 512, storageBytesWrite: 0, txnRetries: 0 },
          database: { id: BigInt(1000 + (i % 7)), path: ['app', `tenant${i % 7}`] },
          fql: JSON.stringify({ get: { match: { index: 'users_by_email' }, terms: `user${i}@example.com` } }),
          tags: [['route', 'checkout'], ['n', String(i % 100)]],
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        },
        hourStart + Math.floor((i * HOUR) / n),
        opts,
      );
      buf += `${line}\n`;
      if (buf.length > 1 << 20) {
        bytes += buf.length;
        if (!out.write(buf)) await once(out, 'drain');
        buf = '';
      }
    }
    bytes += buf.length;
    out.end(buf);
    await once(out, 'finish');
    written += n;
  }
  return bytes;
}

/** Child: one export over everything in `logDir`; prints records, seconds and peak RSS. */
async function exportMode(dir: string, startMs: number, endMs: number): Promise<void> {
  const baseline = process.memoryUsage().rss;
  // Requests live in a store (src/logs/jobs.ts): one in the bench's folder, alone.
  const store = await openStore(await openLmdbEngine(path.join(dir, 'store')));
  const jobs = new JobStore(store);
  const runner = new ExportRunner(jobs, {
    source: new FileLogSource(path.join(dir, 'query')),
    files: new DirExportFiles(path.join(dir, 'files')),
    leases: new Leases(store),
    shared: false,
    signer: new UrlSigner(Buffer.alloc(32, 1)),
    urlTtlMs: 3_600_000,
    timeoutMs: 3_600_000,
    flushLog: async () => undefined,
    subtree: async () => new Set(),
  });
  await runner.start();
  const now = Date.now();
  const job: ExportJob = {
    request_id: '00000000-0000-4000-8000-000000000001', state: 'Pending', time_start: '', time_end: '', start_ms: startMs, end_ms: endMs,
    region_group: 'us-std', scope_db: null, owner_db: '0', created_ms: now, updated_ms: now, version: 0, attempts: 0,
  };
  await jobs.put(job);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = process.hrtime.bigint();
  runner.submitted();
  while (!['Complete', 'DoesNotExist', 'Failed', 'TimedOut'].includes((await jobs.get(job.request_id))!.state)) await new Promise((r) => setTimeout(r, 10));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  await runner.close();
  const done = (await jobs.get(job.request_id))!;
  await store.close();
  process.stdout.write(JSON.stringify({
    state: done.state, records: done.records, bytes: done.bytes, seconds,
    baselineRss: baseline, peakRss: Math.max(peak, process.resourceUsage().maxRSS * 1024),
  }));
}

async function exportBench(records: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-export-'));
  try {
    const hours = Math.max(1, Math.ceil(records / 100_000));
    const startMs = Date.UTC(2024, 4, 10, 0);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(dir, 'query'), { recursive: true });
    const t0 = Date.now();
    const bytes = await writeRecords(path.join(dir, 'query'), records, startMs, hours);
    const writeSeconds = (Date.now() - t0) / 1000;
    const res = await new Promise<{ state: string; records: number; bytes: number; seconds: number; baselineRss: number; peakRss: number }>((resolve, reject) => {
      const child = spawn(process.execPath, [__filename, '--export-child', dir, String(startMs), String(startMs + hours * HOUR)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as never) : reject(new Error(`export child exited ${code}`))));
    });
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    console.log(`export of ${records} records (${hours} hour files, ${mb(bytes)} MiB of NDJSON, written in ${writeSeconds.toFixed(1)}s):`);
    console.log(`  ${res.state}: ${res.records} records in ${res.seconds.toFixed(2)}s = ${(res.records / res.seconds).toFixed(0)} records/s; gzip file ${mb(res.bytes)} MiB`);
    console.log(`  peak RSS ${mb(res.peakRss)} MiB (process baseline ${mb(res.baselineRss)} MiB)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--client') {
    await clientMode(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
    return;
  }
  if (process.argv[2] === '--export-child') {
    await exportMode(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
    return;
  }
  const seconds = arg('--seconds', 20);
  const rounds = arg('--rounds', 10);
  const concurrency = arg('--concurrency', 32);
  const records = arg('--records', 1_000_000);
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  if (only !== 'export') await throughput(seconds, rounds, concurrency);
  if (only !== 'throughput') await exportBench(records);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
