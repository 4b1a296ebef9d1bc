// The torture suite's overload part: measure what a real Flora serves (closed-loop clients sending
// small Gets and Creates, more of them step by step until throughput stops rising), then send ten
// times as many clients for `seconds`. Every request must be answered — a success, or a refusal in
// Fauna's shape (429 with Retry-After, 503) — with no reset and no hang; the latency of the admitted
// requests must stay bounded, memory too, and once the load stops the server must serve as before:
// same throughput and latency, memory back down, no connection left open. One process, then a tier
// of two workers.

import { readdirSync, readFileSync } from 'node:fs';
import { query as q } from 'faunadb';
import { clients as driverClients, startFlora, workerPids, type FloraProcess } from '../test/helpers/server';
import { prng } from '../test/helpers/prng';
import { percentile, runLoad, type LoadResult } from './load';
import { VERDICTS } from './answers';
import { rssOf } from './probes';
import type { Part, PartOptions } from './part';
import { admissionLimits, loadConfig } from '../src/config';
import type { AdmissionLimits } from '../src/model/admission';

export interface OverloadOptions extends PartOptions {
  /** The tiers to run: 1 = one process, N = `--workers N`. */
  tiers?: number[];
  /** How long each capacity step (and each recovery measure) runs (s). */
  stepSeconds?: number;
  /** Extra environment for the servers (limits). */
  env?: Record<string, string>;
  /** Clients are doubled up to this many at most while measuring capacity. */
  maxStepClients?: number;
}

export interface Step {
  clients: number;
  rps: number;
  p99: number;
}

export interface TierReport {
  workers: number;
  /** The server's admission limits (per process). */
  admission: AdmissionLimits;
  /** CPU seconds the server's processes and the load generator used during the overload. */
  cpu: { server: number; generator: number };
  /** 1 client: the unloaded latency. */
  baseline: { p50: number; p99: number };
  steps: Step[];
  capacity: Step;
  overload: LoadResult;
  /** Crashed or replaced processes during the run. */
  crashes: number;
  rssIdle: number;
  rssPeak: number;
  rssAfter: number;
  fdsIdle: number;
  fdsAfter: number;
  /** The same measures once the load has stopped. */
  after: { rps: number; p99: number };
  /** Lines of the server's stderr that report faults. */
  faults: string[];
  /** The fewest clients found that still got a faulty answer (when the overload did), and one such answer. */
  shortest?: { clients: number; seconds: number; sample: string };
}

const answerFaults = (r: LoadResult): number => r.counts.other + r.counts.reset + r.counts.hang;

/** Documents the Gets read. */
const DOCS = 200;
/** Of every 10 queries, this many are Creates, the rest Gets. */
const CREATES_IN_10 = 2;
/** Clients are added in steps up to this many while measuring capacity. */
const MAX_STEP_CLIENTS = 256;
/** Overload is this many times the clients that reached capacity. */
const OVERLOAD_FACTOR = 10;
/** An answer later than this is a hang (ms). */
const DEADLINE_MS = 60_000;
/** Memory one process may reach under the load, and stay above idle after it (MB). */
export const RSS_BOUND_MB = 1024;
export const RSS_AFTER_SLACK_MB = 256;
/** File descriptors a process may hold above idle once the load's connections are closed. */
const FD_SLACK = 8;
/** After the load: at least this share of the capacity, and a p99 within this multiple of the baseline's (plus RECOVERY_SLACK_MS). */
const RECOVERY_RPS = 0.6;
const RECOVERY_P99 = 3;
const RECOVERY_SLACK_MS = 20;
/** Recovery is measured up to this many times. */
const RECOVERY_TRIES = 3;
/** Each run while shrinking a fault to fewer clients lasts this long (s). */
const SHRINK_SECONDS = 5;
/** Under overload the server must keep serving this share of its capacity (the rest may be refused). */
const GOODPUT = 0.25;

export const overloadPart: Part = {
  name: 'overload',
  about: `${OVERLOAD_FACTOR}x the clients the server can serve: every request answered (ok, 429 or 503), latency and memory bounded, full recovery`,
  async run(opts) {
    const reports = await runOverload(opts);
    return summarize(reports, opts);
  },
};

export async function runOverload(opts: OverloadOptions): Promise<TierReport[]> {
  const reports: TierReport[] = [];
  for (const workers of opts.tiers ?? [1, 2]) reports.push(await runTier(opts, workers));
  return reports;
}

async function runTier(opts: OverloadOptions, workers: number): Promise<TierReport> {
  const stepSeconds = opts.stepSeconds ?? 3;
  const srv = await startFlora({ env: { ...opts.env }, args: ['--workers', String(workers)] });
  try {
    await setup(srv);
    const pids = () => (workers === 1 ? [srv.proc.pid!] : [srv.proc.pid!, ...workerPids(srv)]);
    const crashes = () => (srv.proc.exitCode !== null || srv.proc.signalCode !== null ? 1 : 0) + (srv.stderr().match(/started worker/g) ?? []).length;
    const rand = prng(opts.seed + workers);
    let draws = 0;
    const load = (clients: number, seconds: number) => {
      // Each load draws its own queries from the seed, in the order its clients ask for them.
      const seed = Math.floor(rand() * 2 ** 31) + draws++;
      const byClient = new Map<number, () => number>();
      return runLoad({
        url: srv.url, secret: srv.secret, clients, seconds, deadlineMs: DEADLINE_MS, rand: prng(seed),
        nextQuery: (client) => {
          let r = byClient.get(client);
          if (!r) byClient.set(client, (r = prng(seed ^ (client * 2654435761))));
          return nextQuery(r);
        },
      });
    };
    const measure = async (clients: number, seconds = stepSeconds): Promise<Step> => {
      const r = await load(clients, seconds);
      return { clients, rps: r.counts.ok / r.elapsed, p99: percentile(r.okMs, 99) };
    };

    await load(2, 1); // warm up (JIT, caches)
    const one = await load(1, stepSeconds);
    const baseline = { p50: percentile(one.okMs, 50), p99: percentile(one.okMs, 99) };
    const steps: Step[] = [{ clients: 1, rps: one.counts.ok / one.elapsed, p99: baseline.p99 }];
    // Clients double until two steps in a row add less than a tenth to the best throughput.
    let capacity = steps[0];
    for (let clients = 2, flat = 0; clients <= (opts.maxStepClients ?? MAX_STEP_CLIENTS) && flat < 2; clients *= 2) {
      const step = await measure(clients);
      steps.push(step);
      opts.log(`  ${workers} worker(s): ${clients} clients: ${step.rps.toFixed(0)} req/s, p99 ${step.p99.toFixed(1)} ms`);
      if (step.rps > capacity.rps * 1.1) {
        capacity = step;
        flat = 0;
      } else {
        if (step.rps > capacity.rps) capacity = step;
        flat++;
      }
    }

    const rssIdle = await settled(() => totalRss(pids()));
    const fdsIdle = totalFds(pids());
    const overloadClients = Math.max(OVERLOAD_FACTOR * capacity.clients, opts.clients);
    opts.log(`  ${workers} worker(s): capacity ${capacity.rps.toFixed(0)} req/s at ${capacity.clients} clients; ${overloadClients} clients for ${opts.seconds} s`);
    let rssPeak = rssIdle;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, totalRss(pids()))), 100);
    let overload: LoadResult;
    const cpuBefore = totalCpu(pids());
    const ownBefore = process.cpuUsage();
    try {
      overload = await load(overloadClients, opts.seconds);
    } finally {
      clearInterval(sampler);
    }
    const own = process.cpuUsage(ownBefore);
    const cpu = { server: totalCpu(pids()) - cpuBefore, generator: (own.user + own.system) / 1e6 };
    opts.log(`  ${workers} worker(s): ${Object.entries(overload.counts).map(([k, n]) => `${k} ${n}`).join(', ')}; admitted p99 ${percentile(overload.okMs, 99).toFixed(0)} ms`);

    // The load's connections are closed: the server must let go of them, and of the memory.
    const fdsAfter = await settled(() => totalFds(pids()), fdsIdle + FD_SLACK);
    const rssAfter = await settled(() => totalRss(pids()));
    // Recovered is as good as before: the best of a few tries, as the machine's other work comes and goes.
    let recovered = await measure(capacity.clients);
    let calm = await measure(1);
    for (let tries = 1; tries < RECOVERY_TRIES && !hasRecovered(recovered, calm, capacity, baseline); tries++) {
      const [again, calmAgain] = [await measure(capacity.clients), await measure(1)];
      if (again.rps > recovered.rps) recovered = again;
      if (calmAgain.p99 < calm.p99) calm = calmAgain;
    }
    // A fault in the answers is shrunk to the fewest clients that still show it, in short runs (a
    // crash is its own reproduction: the server is gone).
    const faultOf = (r: LoadResult) => r.samples.find((s) => s.verdict === 'other' || s.verdict === 'reset' || s.verdict === 'hang')?.detail ?? '';
    let shortest: TierReport['shortest'];
    if (answerFaults(overload) && !crashes()) {
      shortest = { clients: overloadClients, seconds: opts.seconds, sample: faultOf(overload) };
      for (let clients = overloadClients >> 1; clients >= 1; clients >>= 1) {
        const seconds = Math.min(SHRINK_SECONDS, opts.seconds);
        const again = await load(clients, seconds);
        if (!answerFaults(again)) break;
        shortest = { clients, seconds, sample: faultOf(again) };
      }
    }
    return {
      workers, admission: admissionLimits(loadConfig([], { ...opts.env })), baseline, cpu, steps, capacity, overload, crashes: crashes(), rssIdle, rssPeak, rssAfter, fdsIdle, fdsAfter,
      after: { rps: recovered.rps, p99: calm.p99 }, shortest,
      faults: srv.stderr().split('\n').filter((l) => /internal error|uncaught|FATAL|heap out of memory/i.test(l)).slice(0, 5),
    };
  } finally {
    await srv.stop('SIGKILL');
  }
}

async function setup(srv: FloraProcess): Promise<void> {
  const { h2, close } = driverClients(srv.url, srv.secret);
  try {
    await h2.query(q.CreateCollection({ name: 'things' }));
    const ids = Array.from({ length: DOCS }, (_, i) => String(i + 1));
    await h2.query(q.Do(...ids.map((id) => q.Create(q.Ref(q.Collection('things'), id), { data: { n: Number(id), label: `thing ${id}` } }))));
  } finally {
    await close();
  }
}

// The bodies are made once: the load generator shares the machine's cores with the server, so what
// it spends per request is taken from the server.
const GETS = Array.from({ length: DOCS }, (_, i) => JSON.stringify(q.Get(q.Ref(q.Collection('things'), String(i + 1)))));
const CREATES = Array.from({ length: 256 }, (_, i) => JSON.stringify(q.Create(q.Collection('things'), { data: { n: i, label: 'made under load' } })));

function nextQuery(rand: () => number): string {
  const bodies = rand() * 10 < CREATES_IN_10 ? CREATES : GETS;
  return bodies[Math.floor(rand() * bodies.length)];
}

function totalRss(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + rssOf(pid), 0);
}

/** CPU seconds (user + system) the processes have used. */
function totalCpu(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / 100; // USER_HZ
}

/** Open file descriptors (sockets included) of the processes. */
function totalFds(pids: number[]): number {
  let n = 0;
  for (const pid of pids) {
    try {
      n += readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      // gone
    }
  }
  return n;
}

/** A measure once it stops falling (or reaches `enough`): sampled every 250 ms, 10 s at most. */
async function settled(measure: () => number, enough = 0): Promise<number> {
  let last = measure();
  for (let waited = 0; waited < 10_000 && last > enough; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
    const now = measure();
    if (now >= last * 0.99 && waited >= 2000) return now;
    last = Math.min(last, now);
  }
  return last;
}

const mb = (bytes: number): string => (bytes / 1048576).toFixed(0);
const ms = (x: number): string => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/**
 * How long an admitted request may take: its wait in line (the server refuses new ones once the line
 * has stood still for queueMs) and its turn among the `running` others, never a wait behind every
 * client there is. Twice that, and ten unloaded p99s, for a noisy machine; plus the longest the load
 * generator itself was late reading answers (it shares the machine).
 */
export function admittedBoundMs(r: TierReport): number {
  const { queueMs, running } = r.admission;
  return 2 * (queueMs + (1000 * running) / r.capacity.rps) + 10 * r.baseline.p99 + r.overload.lagMax;
}

function hasRecovered(recovered: Step, calm: Step, capacity: Step, baseline: { p99: number }): boolean {
  return recovered.rps >= RECOVERY_RPS * capacity.rps && calm.p99 <= RECOVERY_P99 * baseline.p99 + RECOVERY_SLACK_MS;
}

/** What a tier's run must show: the part fails on faults and on slowness alike. */
export function overloadVerdict(r: TierReport): string[] {
  return [...overloadFaults(r), ...overloadSlowness(r)];
}

/** The must-be-0 figures: answers that are not ok or a refusal, cut or missing answers, crashes, memory and connections kept. */
export function overloadFaults(r: TierReport): string[] {
  const p: string[] = [];
  const who = `${r.workers} worker(s)`;
  const c = r.overload.counts;
  if (c.other) p.push(`${who}: ${c.other} answers neither ok nor a refusal in Fauna's shape`);
  if (c.reset) p.push(`${who}: ${c.reset} requests cut off without an answer`);
  if (c.hang) p.push(`${who}: ${c.hang} requests unanswered after ${DEADLINE_MS} ms`);
  if (r.crashes) p.push(`${who}: ${r.crashes} processes crashed`);
  const processes = r.workers === 1 ? 1 : r.workers + 1;
  if (r.rssPeak > processes * RSS_BOUND_MB * 1048576) p.push(`${who}: RSS peaked at ${mb(r.rssPeak)} MB (bound ${processes * RSS_BOUND_MB} MB)`);
  if (r.rssAfter > r.rssIdle + processes * RSS_AFTER_SLACK_MB * 1048576) p.push(`${who}: RSS stayed at ${mb(r.rssAfter)} MB after the load (idle ${mb(r.rssIdle)} MB)`);
  if (r.fdsAfter > r.fdsIdle + FD_SLACK) p.push(`${who}: ${r.fdsAfter - r.fdsIdle} file descriptors (connections) left open after the load`);
  for (const f of r.faults) p.push(`${who}: server reported: ${f.slice(0, 300)}`);
  return p;
}

/** The timing figures, measured against the same server unloaded: they depend on the machine, generously bounded. */
export function overloadSlowness(r: TierReport): string[] {
  const p: string[] = [];
  const who = `${r.workers} worker(s)`;
  const goodput = r.overload.counts.ok / r.overload.elapsed;
  if (goodput < GOODPUT * r.capacity.rps) p.push(`${who}: served ${goodput.toFixed(0)} req/s under overload, below ${GOODPUT} of its capacity (${r.capacity.rps.toFixed(0)} req/s)`);
  const p99 = percentile(r.overload.okMs, 99);
  if (p99 > admittedBoundMs(r)) p.push(`${who}: admitted p99 ${p99.toFixed(0)} ms, over the bound ${admittedBoundMs(r).toFixed(0)} ms (baseline p99 ${ms(r.baseline.p99)} ms)`);
  if (r.after.rps < RECOVERY_RPS * r.capacity.rps) p.push(`${who}: ${r.after.rps.toFixed(0)} req/s after the load, below ${RECOVERY_RPS} of the ${r.capacity.rps.toFixed(0)} before`);
  if (r.after.p99 > RECOVERY_P99 * r.baseline.p99 + RECOVERY_SLACK_MS) p.push(`${who}: p99 ${ms(r.after.p99)} ms after the load (baseline ${ms(r.baseline.p99)} ms)`);
  return p;
}

export function summarize(reports: TierReport[], opts: Pick<PartOptions, 'seconds' | 'clients' | 'seed'>): { row: Record<string, string>; details: string[]; problems: string[] } {
  const each = (f: (r: TierReport) => string) => reports.map(f).join(' / ');
  const row = {
    seconds: String(opts.seconds),
    seed: String(opts.seed),
    workers: each((r) => String(r.workers)),
    'capacity req/s (clients)': each((r) => `${r.capacity.rps.toFixed(0)} (${r.capacity.clients})`),
    'overload clients': each((r) => String(r.overload.clients)),
    'ok/429/503/other': each((r) => `${r.overload.counts.ok}/${r.overload.counts['429']}/${r.overload.counts['503']}/${r.overload.counts.other}`),
    hangs: each((r) => String(r.overload.counts.hang)),
    resets: each((r) => String(r.overload.counts.reset)),
    'admitted p50/p99 ms (baseline p99)': each((r) => `${ms(percentile(r.overload.okMs, 50))}/${ms(percentile(r.overload.okMs, 99))} (${ms(r.baseline.p99)})`),
    'RSS idle/peak/after MB': each((r) => `${mb(r.rssIdle)}/${mb(r.rssPeak)}/${mb(r.rssAfter)}`),
    recovery: each((r) => `${(r.after.rps / r.capacity.rps).toFixed(2)}`),
  };
  const details: string[] = [];
  const problems: string[] = [];
  for (const r of reports) {
    const answered = VERDICTS.filter((v) => v !== 'hang').reduce((n, v) => n + r.overload.counts[v], 0) / r.overload.elapsed;
    details.push(`overload ${r.workers} worker(s): answered ${answered.toFixed(0)} req/s under overload (${(answered / r.capacity.rps).toFixed(1)}x capacity), admitted p99 bound ${admittedBoundMs(r).toFixed(0)} ms; steps ${r.steps.map((s) => `${s.clients}:${s.rps.toFixed(0)}/s p99 ${ms(s.p99)}`).join(', ')}; admitted p99 over HTTP/1.1 ${ms(percentile(r.overload.okMsBy.h1, 99))} ms, over HTTP/2 ${ms(percentile(r.overload.okMsBy.h2, 99))} ms (of which the server evaluated p99 ${ms(percentile(r.overload.okQueryMs, 99))} ms); 429 answered in p50 ${ms(percentile(r.overload.refusedMs, 50))} ms; generator loop delay p99 ${ms(r.overload.lagP99)} ms, max ${ms(r.overload.lagMax)} ms; CPU s server ${r.cpu.server.toFixed(1)}, generator ${r.cpu.generator.toFixed(1)}; fds idle ${r.fdsIdle} after ${r.fdsAfter}; after the load ${r.after.rps.toFixed(0)} req/s, p99 ${ms(r.after.p99)} ms`);
    for (const s of r.overload.samples) details.push(`  ${s.verdict}: ${s.detail}`);
    if (r.shortest)
      details.push(`  shortest reproduction (seed ${opts.seed}): ${r.shortest.clients} clients for ${r.shortest.seconds} s against ${r.workers === 1 ? 'one process' : `--workers ${r.workers}`}: ${r.shortest.sample}`);
    problems.push(...overloadVerdict(r));
  }
  if (problems.length) details.push(`reproduce: npm run torture -- --part overload --seconds ${opts.seconds} --clients ${opts.clients} --seed ${opts.seed}`);
  return { row, details, problems };
}
