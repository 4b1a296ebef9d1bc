// `node dist/bench/capacity.js [--seconds 5] [--rounds 3] [--docs 10000] [--connections 32]
//   [--threads 1] [--alone 200] [--only tier|storage] [--cpu-prof DIR]`
// Issue 15: what a tier serves, as ratios measured in one run. The machine is shared and noisy, so
// every part interleaves its targets in rounds (rotating which goes first) and reports medians and
// per-round ratios; around every slice the CPU time of each server's process tree, of the load
// generator and of the whole machine is read from /proc, which says what bounds each figure.
// 1. Capacity: requests/s of point Get (a random existing document) over HTTP/1.1 keep-alive from
//    `wrk` (C, little CPU; Debian: `apt-get install wrk`), 32 connections, against Flora
//    `--workers 1` and `--workers <cores>` (LMDB) and PostgreSQL's own `pgbench -S` (32 clients,
//    select by key) on the embedded PostgreSQL this bench starts; and, as the floor under any Node
//    server, a bare node:http server in as many processes answering with the bytes of a Flora Get
//    (bench/http1Ceiling.ts); and that server made as heavy per request as Flora `--workers 1` (JSON
//    round trips of the body, calibrated in the run) in 1 and <cores> processes: the scaling any
//    Node server of Flora's weight gets from these cores. Every answer must be a 200 or the figures
//    are marked invalid.
// 1b. Creates on both Flora servers the same way (answers must be 201), with the conflicts the
//    server retried (x-txn-retries): what the tier does to writes.
// 2. Flora on PostgreSQL vs on LMDB, one process each, through the faunadb driver (HTTP/2, 32 in
//    flight): point Get and Create, ratio PG/LMDB; and the PostgreSQL round trips per query,
//    counted exactly in the server process (bench/probe.ts preloaded), under load and alone.
// `--cpu-prof DIR` writes a V8 CPU profile of every Flora process over the measured rounds of
// parts 1 and 2 (`<DIR>/<pid>-<n>.cpuprofile`, bench/probe.ts).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, query as q, type ExprArg } from 'faunadb';
import { startFlora, type FloraProcess } from '../test/helpers/server';
import { startPostgres, type Postgres } from '../test/helpers/postgres';
import { DOCUMENT_DATA } from './ceiling';
import { numberArg, printTable, runMain } from './harness';
import { measure, Measurement } from './load';
import type { TraceDump } from './probe';
import { cpuWindow, treeCpu } from './procCpu';
import { runWrk, slice, startHttp1Ceiling, timed, wrkScript, type GenResult, type Slice, type Target } from './wrk';

const PROBE = path.join(__dirname, 'probe.js');
const TARGET_VS_PGBENCH = 1.0;
const TARGET_VS_ONE_WORKER = 1.7;

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}
const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '-');


/** The postmaster the embedded PostgreSQL runs: this process's child named postgres. */
function postmasterPid(): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (s.includes('(postgres)') && Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('postmaster not found');
}


async function runPgbench(pgUrl: URL, seconds: number, clients: number, threads: number): Promise<GenResult> {
  const args = ['-S', '-n', '-c', String(clients), '-j', String(threads), '-T', String(seconds), '-h', pgUrl.hostname, '-p', pgUrl.port, '-U', 'postgres', 'pgbench'];
  const { out, cpu } = await timed('pgbench', args, { PGPASSWORD: decodeURIComponent(pgUrl.password) });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
  const done = /number of transactions actually processed: (\d+)/.exec(out);
  const failed = /number of failed transactions: (\d+)/.exec(out);
  const lat = /latency average = ([\d.]+) ms/.exec(out);
  if (!tps || !done || !lat) throw new Error(`unexpected pgbench output:\n${out}`);
  const requests = Number(done[1]);
  return { requests, seconds: requests / Number(tps[1]), bad: failed ? Number(failed[1]) : 0, retries: 0, latAvgMs: Number(lat[1]), p99Ms: NaN, genCpu: cpu };
}

// ---- part 1: capacity ------------------------------------------------------------------------


async function populate(client: Client, docs: number): Promise<void> {
  await client.query(q.CreateCollection({ name: 'bench' }));
  await client.query(q.CreateCollection({ name: 'bench_create' }));
  for (let start = 1; start <= docs; start += 1000) {
    const creates = [];
    for (let id = start; id < Math.min(docs + 1, start + 1000); id++) creates.push(q.Create(q.Ref(q.Collection('bench'), String(id)), { data: { ...DOCUMENT_DATA, n: id } }));
    await client.query(q.Do(...creates), { queryTimeout: 600_000 });
  }
}

interface Opts {
  seconds: number;
  rounds: number;
  docs: number;
  connections: number;
  threads: number;
  alone: number;
  cores: number;
}

/** Signals every process of the servers, whose bench/probe.ts starts or stops its profiler. */
async function toggleProfiles(servers: FloraProcess[], dir: string, stop: boolean): Promise<void> {
  const pids = servers.flatMap((f) => [...treeCpu(f.proc.pid!).keys()]);
  const profiles = (pid: number) => readdirSync(dir).filter((f) => f.startsWith(`${pid}-`) && f.endsWith('.cpuprofile')).sort();
  const before = new Map(pids.map((pid) => [pid, profiles(pid).length]));
  for (const pid of pids) process.kill(pid, 'SIGWINCH');
  if (!stop) return;
  for (let i = 0; i < 300 && pids.some((pid) => profiles(pid).length === before.get(pid)); i++) await sleep(100);
  console.log(`CPU profiles: ${pids.map((pid) => path.join(dir, profiles(pid).at(-1) ?? `${pid}: none`)).join(', ')}`);
}

/** Interleaved rounds over `targets` (rotating which goes first), a line per slice. */
async function rounds(targets: Target[], opts: Opts): Promise<void> {
  for (let round = 0; round < opts.rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(i + round) % targets.length];
      const s = await slice(t, opts.seconds);
      console.log(
        `round ${round + 1}: ${t.name.padEnd(42)} ${fmt(s.rps).padStart(6)} req/s, bad ${s.bad}, retries ${s.retries}, ` +
          `server ${fmt(s.serverCpu / s.seconds, 2)} cores, load generator ${fmt(s.genCpu / s.seconds, 2)}, machine ${fmt(s.machine / s.wall, 2)} busy, load ${loadavg()[0].toFixed(2)}`,
      );
    }
  }
}

async function capacity(opts: Opts, pg: Postgres, one: FloraProcess, tier: FloraProcess, tmp: string, profileDir: string | undefined): Promise<void> {
  const getScript = path.join(tmp, 'get.lua');
  const createScript = path.join(tmp, 'create.lua');
  writeFileSync(getScript, wrkScript('get'));
  writeFileSync(createScript, wrkScript('create'));
  console.log('\n## 1. Capacity: point Get, HTTP/1.1 keep-alive, wrk');
  console.log('pgbench: initialising (-i -s 10: 1,000,000 accounts)…');
  const pgbenchUrl = new URL(await pg.newDatabase('pgbench'));
  await timed('pgbench', ['-i', '-q', '-s', '10', '-h', pgbenchUrl.hostname, '-p', pgbenchUrl.port, '-U', 'postgres', 'pgbench'], {
    PGPASSWORD: decodeURIComponent(pgbenchUrl.password),
  });
  const { connections: c, threads: j, docs, cores: n } = opts;
  const ceiling = await startHttp1Ceiling(one, n, tmp);
  const wrk = (name: string, pid: number, url: string, script: string): Target => ({ name, pid, run: (s) => runWrk(url, script, docs, s, c, j), slices: [] });
  const gets: Target[] = [
    wrk('Flora --workers 1 (LMDB)', one.proc.pid!, one.url, getScript),
    wrk(`Flora --workers ${n} (LMDB)`, tier.proc.pid!, tier.url, getScript),
    { name: `pgbench -S (PostgreSQL 18, -c ${c} -j ${j})`, pid: postmasterPid(), run: (s) => runPgbench(pgbenchUrl, s, c, j), slices: [] },
    wrk(`ceiling: bare node:http, ${n} processes`, ceiling.pid, ceiling.url, getScript),
  ];
  const heavy: { stop(): void }[] = [];
  const creates: Target[] = [
    wrk('Create, Flora --workers 1 (LMDB)', one.proc.pid!, one.url, createScript),
    wrk(`Create, Flora --workers ${n} (LMDB)`, tier.proc.pid!, tier.url, createScript),
  ];
  try {
    // Warm-up (JIT, LMDB pages, PostgreSQL's buffers), 2 s per process of the tier: each worker
    // compiles its own code from its share of the requests. With 2 s in all, the tier's first round
    // still ran 30–100 % more CPU per request than its later ones, its V8 threads busy compiling.
    for (const t of gets) await t.run(2 * n);
    // A Node server as heavy per request as Flora, in 1 and n processes: how far any server of
    // that weight scales on these cores, measured beside the tier.
    const work = await sameWeight(gets[0], one, tmp, (url, pid) => wrk('probe', pid, url, getScript));
    for (const procs of [1, n]) {
      const h = await startHttp1Ceiling(one, procs, tmp, work);
      heavy.push(h);
      gets.push(wrk(`same weight: node:http, ${work} JSON round trips, ${procs} process${procs > 1 ? 'es' : ''}`, h.pid, h.url, getScript));
      await gets.at(-1)!.run(2 * procs);
    }
    if (profileDir) await toggleProfiles([one, tier], profileDir, false);
    await rounds(gets, opts);
    if (profileDir) await toggleProfiles([one, tier], profileDir, true);
  } finally {
    ceiling.stop();
    for (const h of heavy) h.stop();
  }
  report(opts, gets, tier.proc.pid!);

  // Not a target of the issue, but what a tier does to writes: the same load of Creates.
  console.log(`\n## 1b. Create (collection-generated ids), HTTP/1.1 keep-alive, wrk, ${c} connections`);
  for (const t of creates) await t.run(1);
  await rounds(creates, opts);
  const [c1, cn] = creates.map((t) => median(t.slices.map((s) => s.rps)));
  for (const t of creates) {
    const reqs = t.slices.reduce((a, s) => a + s.requests, 0);
    const retries = t.slices.reduce((a, s) => a + s.retries, 0);
    console.log(
      `${t.name}: median ${fmt(median(t.slices.map((s) => s.rps)))} creates/s, ${fmt(median(t.slices.map((s) => (s.serverCpu / s.requests) * 1e6)))} server µs/create, ` +
        `retries ${retries} for ${reqs} creates (${fmt((100 * retries) / reqs, 1)} %), bad ${t.slices.reduce((a, s) => a + s.bad, 0)}`,
    );
  }
  console.log(`Create, --workers ${n} / --workers 1: ${fmt(cn / c1, 2)}`);
}

/** Server CPU per request of `t` over a slice not kept in its figures. */
async function cpuPerRequest(t: Target, seconds: number): Promise<number> {
  const s = await slice({ ...t, slices: [] }, seconds);
  return s.serverCpu / s.requests;
}

/** How many JSON round trips per request make one process of http1Ceiling.ts spend what Flora
 *  `--workers 1` spends per request: its cost is linear in the round trips, fitted on two. */
async function sameWeight(flora: Target, one: FloraProcess, tmp: string, target: (url: string, pid: number) => Target): Promise<number> {
  const goal = await cpuPerRequest(flora, 3);
  const cost: number[] = [];
  for (const work of [10, 60]) {
    const h = await startHttp1Ceiling(one, 1, tmp, work);
    try {
      await target(h.url, h.pid).run(1);
      cost.push(await cpuPerRequest(target(h.url, h.pid), 3));
    } finally {
      h.stop();
    }
  }
  const perTrip = (cost[1] - cost[0]) / 50;
  const work = Math.max(1, Math.round(10 + (goal - cost[0]) / perTrip));
  console.log(`same weight: Flora --workers 1 spends ${fmt(goal * 1e6)} µs/request; node:http ${fmt(cost[0] * 1e6)} µs with 10 JSON round trips, ${fmt(cost[1] * 1e6)} with 60: ${work}`);
  return work;
}

function report(opts: Opts, targets: Target[], supervisor: number): void {
  const m = (t: Target, f: (s: Slice) => number) => median(t.slices.map(f));
  printTable(
    ['target', 'req/s per round', 'median req/s', 'avg ms', 'p99 ms', 'bad', 'server µs/req', 'req/s per server core', 'generator µs/req', 'server cores', 'generator cores', 'machine busy cores'],
    targets.map((t) => [
      t.name,
      t.slices.map((s) => fmt(s.rps)).join(' / '),
      fmt(m(t, (s) => s.rps)),
      fmt(m(t, (s) => s.latAvgMs), 2),
      fmt(m(t, (s) => s.p99Ms), 2),
      String(t.slices.reduce((a, s) => a + s.bad, 0)),
      fmt(m(t, (s) => (s.serverCpu / s.requests) * 1e6)),
      fmt(m(t, (s) => s.requests / s.serverCpu)),
      fmt(m(t, (s) => (s.genCpu / s.requests) * 1e6)),
      fmt(m(t, (s) => s.serverCpu / s.seconds), 2),
      fmt(m(t, (s) => s.genCpu / s.seconds), 2),
      fmt(m(t, (s) => s.machine / s.wall), 2),
    ]),
  );
  const [one, tier, pgbench, ceiling, heavyOne, heavyN] = targets;
  // How evenly round-robin spread the connections: CPU per process of the tier.
  console.log(
    `tier CPU per process, mean over the rounds (cores): ${[...tier.slices[0].perPid.keys()]
      .map((p) => `${p === supervisor ? 'supervisor' : 'worker'} ${p} ${fmt(tier.slices.reduce((a, s) => a + (s.perPid.get(p) ?? 0) / s.seconds, 0) / tier.slices.length, 2)}`)
      .join(', ')}`,
  );
  const rps = (t: Target) => m(t, (s) => s.rps);
  const invalid = targets.some((t) => t.slices.some((s) => s.bad > 0));
  const verdict = (ok: boolean) => (invalid ? 'INVALID (answers other than 200)' : ok ? 'PASS' : 'FAIL');
  const perRound = (a: Target, b: Target) => a.slices.map((s, i) => fmt(s.rps / b.slices[i].rps, 2)).join(' / ');
  const ratio = (a: Target, b: Target) => `${fmt(rps(a) / rps(b), 2)} (per round ${perRound(a, b)})`;
  const n = opts.cores;
  console.log(`cores (os.availableParallelism()): ${n}`);
  console.log(`Flora --workers ${n} / pgbench -S: ${ratio(tier, pgbench)}; target >= ${TARGET_VS_PGBENCH}: ${verdict(rps(tier) / rps(pgbench) >= TARGET_VS_PGBENCH)}`);
  console.log(
    `Flora --workers ${n} / --workers 1: ${ratio(tier, one)}; target >= ${TARGET_VS_ONE_WORKER} on 2 cores: ` +
      `${n === 2 ? verdict(rps(tier) / rps(one) >= TARGET_VS_ONE_WORKER) : `not judged on ${n} cores`}`,
  );
  console.log(`Flora --workers ${n} / bare node:http (${n} processes): ${ratio(tier, ceiling)}`);
  console.log(`pgbench -S / bare node:http (${n} processes): ${ratio(pgbench, ceiling)}`);
  console.log(`same weight node:http, ${n} processes / 1 process: ${ratio(heavyN, heavyOne)}`);
  console.log(
    `Flora's scaling against the same-weight server's: ${fmt(rps(tier) / rps(one) / (rps(heavyN) / rps(heavyOne)), 2)} ` +
      `(per round ${tier.slices.map((s, i) => fmt(s.rps / one.slices[i].rps / (heavyN.slices[i].rps / heavyOne.slices[i].rps), 2)).join(' / ')})`,
  );
}

// ---- part 2: PostgreSQL vs LMDB through the driver, and round trips -------------------------

interface Trips {
  store: number;
  log: number;
  /** Store statements and their calls. */
  statements: Map<string, number>;
}

class Tracer {
  private last = 0;
  constructor(
    private readonly pid: number,
    private readonly file: string,
  ) {}

  async dump(): Promise<TraceDump> {
    process.kill(this.pid, 'SIGUSR2');
    for (let i = 0; i < 500; i++) {
      await sleep(10);
      try {
        const d = JSON.parse(readFileSync(this.file, 'utf8')) as TraceDump;
        if (d.dump > this.last) {
          this.last = d.dump;
          return d;
        }
      } catch {
        // not written yet
      }
    }
    throw new Error('no trace dump from the PostgreSQL server');
  }

  /** Round trips between two dumps: the store's connections (any statement on flora_kv) apart from the rest (the query log's pool). */
  static diff(a: TraceDump, b: TraceDump): Trips {
    const out: Trips = { store: 0, log: 0, statements: new Map() };
    for (const [id, after] of Object.entries(b.clients)) {
      const isStore = Object.keys(after).some((s) => s.includes('flora_kv'));
      for (const [stmt, n] of Object.entries(after)) {
        const d = n - (a.clients[id]?.[stmt] ?? 0);
        if (d === 0) continue;
        if (isStore) {
          out.store += d;
          out.statements.set(stmt, (out.statements.get(stmt) ?? 0) + d);
        } else out.log += d;
      }
    }
    return out;
  }
}

function describeTrips(label: string, t: Trips, ops: number): void {
  console.log(`${label}: ${fmt(t.store / ops, 2)} store round trips per query (${t.store} for ${ops}), query log ${t.log} in all`);
  for (const [stmt, n] of [...t.statements].sort((a, b) => b[1] - a[1])) console.log(`    ${fmt(n / ops, 3).padStart(7)} × ${stmt}`);
}

async function storage(opts: Opts, pg: Postgres, lmdb: FloraProcess, tmp: string, profileDir: string | undefined): Promise<void> {
  console.log('\n## 2. Flora on PostgreSQL vs on LMDB, one process each, faunadb driver (HTTP/2)');
  const traceFile = path.join(tmp, 'pg-trace.json');
  const pgFlora = await startFlora({
    args: ['--storage', await pg.newDatabase('flora_capacity')],
    env: {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PROBE}`.trim(),
      FLORA_BENCH_PG_TRACE: traceFile,
      ...(profileDir ? { FLORA_BENCH_CPU_PROFILE: profileDir } : {}),
    },
  });
  const tracer = new Tracer(pgFlora.proc.pid!, traceFile);
  const lmdbClient = new Client({ secret: lmdb.secret, endpoint: lmdb.url });
  const pgClient = new Client({ secret: pgFlora.secret, endpoint: pgFlora.url });
  try {
    const t0 = Date.now();
    await populate(pgClient, opts.docs);
    console.log(`PostgreSQL: created ${opts.docs} documents in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    const postmaster = postmasterPid();
    const get = (): ExprArg => q.Get(q.Ref(q.Collection('bench'), String(1 + Math.floor(Math.random() * opts.docs))));
    const create = (): ExprArg => q.Create(q.Collection('bench_create'), { data: DOCUMENT_DATA });
    type Run = { store: 'LMDB' | 'PostgreSQL'; op: 'Get' | 'Create'; client: Client; flora: FloraProcess; next: () => ExprArg; m: Measurement; rates: number[]; cpu: { flora: number; pg: number; driver: number; ops: number }[]; trips: Trips[]; ops: number[] };
    const runs: Run[] = [];
    for (const op of ['Get', 'Create'] as const)
      for (const [store, client, flora] of [['LMDB', lmdbClient, lmdb], ['PostgreSQL', pgClient, pgFlora]] as const)
        runs.push({ store, op, client, flora, next: op === 'Get' ? get : create, m: new Measurement(), rates: [], cpu: [], trips: [], ops: [] });
    const load = { concurrency: opts.connections, warmupSeconds: 0 };
    if (profileDir) await toggleProfiles([lmdb, pgFlora], profileDir, false);
    for (let round = 0; round < opts.rounds; round++) {
      for (let i = 0; i < runs.length; i++) {
        const r = runs[(i + round) % runs.length];
        await measure(r.client, r.next, { ...load, seconds: round === 0 ? 1 : 0.2 }, new Measurement()); // warm-up
        const ops0 = r.m.latencies.length + r.m.stats.errors;
        const secs0 = r.m.seconds;
        const before = r.store === 'PostgreSQL' ? await tracer.dump() : undefined;
        const end = cpuWindow({ flora: r.flora.proc.pid!, pg: postmaster });
        await measure(r.client, r.next, { ...load, seconds: opts.seconds }, r.m);
        const c = end();
        const ops = r.m.latencies.length + r.m.stats.errors - ops0;
        if (before) r.trips.push(Tracer.diff(before, await tracer.dump()));
        r.ops.push(ops);
        r.rates.push(ops / (r.m.seconds - secs0));
        r.cpu.push({ flora: c.trees.flora, pg: c.trees.pg, driver: c.self, ops });
        console.log(
          `round ${round + 1}: ${r.op.padEnd(6)} ${r.store.padEnd(10)} ${fmt(r.rates[round]).padStart(6)} ops/s, errors ${r.m.stats.errors}, ` +
            `CPU per op: Flora ${fmt((c.trees.flora / ops) * 1e6)} µs, PostgreSQL ${fmt((c.trees.pg / ops) * 1e6)} µs, driver ${fmt((c.self / ops) * 1e6)} µs; machine ${fmt(c.machine / c.wall, 2)} busy cores`,
        );
      }
    }
    if (profileDir) await toggleProfiles([lmdb, pgFlora], profileDir, true);
    const rows: string[][] = [];
    for (const op of ['Get', 'Create'] as const) {
      const [l, p] = (['LMDB', 'PostgreSQL'] as const).map((s) => runs.find((r) => r.op === op && r.store === s)!);
      const perOp = (r: Run, k: 'flora' | 'pg' | 'driver') => fmt(median(r.cpu.map((c) => (c[k] / c.ops) * 1e6)));
      const trips = p.trips.reduce((a, t) => a + t.store, 0) / p.ops.reduce((a, b) => a + b, 0);
      const lr = l.m.result();
      const pr = p.m.result();
      rows.push([
        op,
        `${l.rates.map((x) => fmt(x)).join(' / ')} → ${fmt(median(l.rates))}`,
        `${p.rates.map((x) => fmt(x)).join(' / ')} → ${fmt(median(p.rates))}`,
        fmt(median(p.rates) / median(l.rates), 2),
        `${fmt(lr.p50Ms, 1)} / ${fmt(pr.p50Ms, 1)}`,
        `${lr.errors} / ${pr.errors}`,
        `${perOp(l, 'flora')} / ${perOp(p, 'flora')} + ${perOp(p, 'pg')}`,
        `${perOp(l, 'driver')} / ${perOp(p, 'driver')}`,
        fmt(trips, 2),
      ]);
      if (lr.firstError) console.log(`first LMDB ${op} error: ${lr.firstError}`);
      if (pr.firstError) console.log(`first PostgreSQL ${op} error: ${pr.firstError}`);
    }
    printTable(
      ['op', 'LMDB ops/s (rounds → median)', 'PostgreSQL ops/s', 'ratio PG/LMDB', 'p50 ms LMDB / PG', 'errors', 'server µs/op LMDB / Flora + PG', 'driver µs/op', 'PG round trips/op under load'],
      rows,
    );
    for (const op of ['Get', 'Create'] as const) {
      const p = runs.find((r) => r.op === op && r.store === 'PostgreSQL')!;
      const all: Trips = { store: 0, log: 0, statements: new Map() };
      for (const t of p.trips) {
        all.store += t.store;
        all.log += t.log;
        for (const [s, n] of t.statements) all.statements.set(s, (all.statements.get(s) ?? 0) + n);
      }
      describeTrips(`${op}, ${opts.connections} in flight`, all, p.ops.reduce((a, b) => a + b, 0));
    }

    // Alone: one query at a time, back to back, then each after a pause longer than a snapshot may
    // be stale (store.ts HARD_STALE_US, 50 ms).
    console.log(`\nround trips of a query alone (one at a time, ${opts.alone} in a row; PostgreSQL server):`);
    const alone = async (label: string, n: number, next: () => ExprArg, pauseMs: number) => {
      const before = await tracer.dump();
      let ms = 0;
      for (let i = 0; i < n; i++) {
        if (pauseMs) await sleep(pauseMs);
        const t0 = process.hrtime.bigint();
        await pgClient.query(next());
        ms += Number(process.hrtime.bigint() - t0) / 1e6;
      }
      describeTrips(`${label} (mean ${fmt(ms / n, 2)} ms)`, Tracer.diff(before, await tracer.dump()), n);
    };
    await alone('point Get, back to back', opts.alone, get, 0);
    await alone('Create, back to back', opts.alone, create, 0);
    await alone('point Get, each after 100 ms idle', 20, get, 100);
    await alone('Create, each after 100 ms idle', 20, create, 100);
  } finally {
    await lmdbClient.close({ force: true });
    await pgClient.close({ force: true });
    await pgFlora.stop();
  }
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  const opts: Opts = {
    seconds: numberArg('--seconds', 5),
    rounds: numberArg('--rounds', 3),
    docs: numberArg('--docs', 10_000),
    connections: numberArg('--connections', 32),
    threads: numberArg('--threads', 1),
    alone: numberArg('--alone', 200),
    cores,
  };
  const only = stringArg('--only');
  const cpuProf = stringArg('--cpu-prof');
  // The servers run the build this script is part of; npm test's PostgreSQL pass must not move them.
  process.env.FLORA_NO_BUILD_CHECK = '1';
  delete process.env.FLORA_TEST_PG_URL;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (e) {
    // wrk prints its version and exits 1; only a missing binary is a failure.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('wrk is not installed (Debian: apt-get install -y wrk)');
  }
  console.log(
    `capacity: ${cores} cores (os.availableParallelism()), nproc ${execFileSync('nproc', { encoding: 'utf8' }).trim()}, node ${process.version}, ` +
      `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${opts.rounds} interleaved rounds of ${opts.seconds}s, ${opts.connections} connections, ` +
      `${opts.docs} documents; load generator: wrk -t ${opts.threads} / pgbench -j ${opts.threads}`,
  );
  const tmp = mkdtempSync(path.join(tmpdir(), 'flora-capacity-'));
  const profileDir = cpuProf ? path.resolve(cpuProf) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const env = profileDir ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PROBE}`.trim(), FLORA_BENCH_CPU_PROFILE: profileDir } : undefined;
  const started: FloraProcess[] = [];
  let pg: Postgres | undefined;
  try {
    pg = await startPostgres();
    const one = await startFlora({ env });
    started.push(one);
    const oneClient = new Client({ secret: one.secret, endpoint: one.url });
    await populate(oneClient, opts.docs);
    await oneClient.close({ force: true });
    if (only !== 'storage') {
      const tier = await startFlora({ args: ['--workers', String(cores)], env });
      started.push(tier);
      const tierClient = new Client({ secret: tier.secret, endpoint: tier.url });
      await populate(tierClient, opts.docs);
      await tierClient.close({ force: true });
      await capacity(opts, pg, one, tier, tmp, profileDir);
      await tier.stop();
    }
    if (only !== 'tier') await storage(opts, pg, one, tmp, profileDir);
    console.log(`\nload average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    for (const f of started) await f.stop();
    await pg?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

runMain(main);
