// `npm run bench -- --soak [--minutes 60] [--sample-seconds 60] [--rate 300] [--doc-streams 16]
//   [--set-streams 4] [--churn-seconds 15] [--heap-snapshots DIR]`
// (or `node dist/bench/run.js --soak …`)
//
// A soak: one real Flora server process (default configuration, query log on, a temp data dir)
// under a steady mixed load for the whole run, watched for memory growth and latency drift.
//
// Load: open loop at a fixed offered rate (`--rate` requests/s in all, sent on schedule whatever
// the answers do; a latency counts from the scheduled time), mixed as in MIX below:
//   get, page, update, create, delete  FQL through the official driver (HTTP/2);
//   get_h1                             point Gets through the driver's HTTP/1.1 keep-alive transport;
//   gql_query, gql_mutation            GraphQL over plain HTTP/1.1 keep-alive (schema imported first).
// Data stays bounded: Gets and pages read 10,000 documents (an index of 100 terms), Updates rewrite
// the first 100 of them; Creates and Deletes alternate over a rolling window of 500 documents in
// `soak_roll` (and of 50 GraphQL notes), so the live data is constant. What grows is history (old
// versions, trimmed by the background collector after the collection's history_days) and the query
// log on disk: the data directory's size is in the samples.
// Streams: `--doc-streams` document streams on updated documents and `--set-streams`
// Documents(soak_roll) streams, half over the driver, half over plain HTTP/1.1; half of them are
// closed and reopened in turn (one every `--churn-seconds`). Every write to a followed target must
// reach each stream as exactly one event (bench/soakStreams.ts); a mismatch is an error.
//
// Every `--sample-seconds`: the server's VmRSS and RssAnon (/proc/<pid>/status, read once a second:
// each interval's lowest reading is its floor after GC, the highest its peak), its CPU and the
// whole machine's (others benchmark here too: a latency spike with the machine at 200% is theirs),
// the data directory's size, p50/p99/max latency per kind of request in that interval, errors,
// open streams, events received. At the end: the table of samples and the verdict, over the
// samples after a warm-up (10% of the run or 5 minutes, whichever is shorter; bench/soakVerdict.ts):
// RssAnon floors and peaks and RSS peaks less the data file's resident pages (/proc/<pid>/smaps:
// LMDB's map is the kernel's page cache, reclaimable, and follows the data) must not grow
// (linear-fit slope in MB/hour, less twice its standard error, under a limit; median of the last
// third of the samples over the first third under a limit), p99 must not drift (median p99 of the last third against the first third), and
// there must be no error at all (a request refused or failed, one dropped because MAX_IN_FLIGHT were
// unanswered, a stream error or a missing or extra event). Exit code 1 on FAIL.
// `--heap-snapshots DIR` starts the server with --heapsnapshot-signal=SIGUSR2 and takes a heap
// snapshot into DIR at the end of the warm-up and at the end (each stalls the server for a while).

import { readdirSync } from 'node:fs';
import * as http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { query as q, type Client, type ExprArg } from 'faunadb';
import { clients, startFlora, waitFor, type FloraProcess } from '../test/helpers/server';
import { memoryOf } from '../torture/memory';
import { DOCUMENT_DATA } from './ceiling';
import { numberArg } from './harness';
import { percentile } from './load';
import { diskBytes, mappedResidentBytes, procCpuSeconds } from './procStatus';
import { machineBusy } from './procCpu';
import { DELIVERY_US, Streams } from './soakStreams';
import { latencyCheck, memoryCheck, warmupSeconds, type Check, type Point } from './soakVerdict';

const KINDS = ['get', 'get_h1', 'page', 'update', 'create', 'delete', 'gql_query', 'gql_mutation'] as const;
type Kind = (typeof KINDS)[number];
/** Share of the offered rate; create and delete are one "roll" share, alternating. */
const MIX: [Kind | 'roll', number][] = [['get', 25], ['get_h1', 10], ['page', 15], ['update', 15], ['roll', 15], ['gql_query', 12], ['gql_mutation', 8]];

const DOCS = 10_000;
const TERMS = 100;
const HOT = 100;
const ROLL_WINDOW = 500;
const NOTES = 50;
/** More requests than this unanswered: the server has stalled; further ones are dropped (errors). */
const MAX_IN_FLIGHT = 2000;

const LIMITS = { anonSlope: 16, anonRise: 32, rssSlope: 32, rssRise: 64, p99Ratio: 1.5, p99SlackMs: 2 };

const SCHEMA = `
type Note { title: String!  n: Int }
type Query { allNotes: [Note!] }
`;

interface Options {
  minutes: number;
  sampleSeconds: number;
  rate: number;
  docStreams: number;
  setStreams: number;
  churnSeconds: number;
  heapSnapshots?: string;
}

function parseOptions(argv: string[]): Options {
  const i = argv.indexOf('--heap-snapshots');
  return {
    minutes: numberArg('--minutes', 60),
    sampleSeconds: numberArg('--sample-seconds', 60),
    rate: numberArg('--rate', 300),
    docStreams: numberArg('--doc-streams', 16),
    setStreams: numberArg('--set-streams', 4),
    churnSeconds: numberArg('--churn-seconds', 15),
    heapSnapshots: i >= 0 ? argv[i + 1] : undefined,
  };
}

/** Latencies and errors of one kind of request, for one interval and for the run after warm-up. */
class KindStats {
  interval: number[] = [];
  run: number[] = [];
  errors = 0;
  intervalErrors = 0;
  firstError?: string;

  ok(ms: number, measured: boolean): void {
    this.interval.push(ms);
    if (measured) this.run.push(ms);
  }

  fail(err: unknown): void {
    this.errors++;
    this.intervalErrors++;
    this.firstError ??= String((err as Error)?.message ?? err).slice(0, 500);
  }
}

interface Sample {
  t: number;
  /** VmRSS and RssAnon, MB: the highest and the lowest of the interval's once-a-second readings. */
  rssMax: number;
  rssMin: number;
  /** The highest VmRSS less the data directory's mapped file pages (the store's page cache). */
  ownMax: number;
  anonMax: number;
  anonMin: number;
  /** CPU of the server, and busy CPU of the whole machine (100 = one core), over the interval. */
  cpuPct: number;
  machinePct: number;
  reqPerSec: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  byKind: Record<Kind, { n: number; p50: number; p99: number; max: number }>;
  clientLagP99Ms: number;
  streamsOpen: number;
  events: number;
  dataMb: number;
}

const mb = (bytes: number) => bytes / 1024 / 1024;
const nowUs = () => Date.now() * 1000;

/** POST over plain HTTP/1.1 keep-alive; resolves the status and body. */
function post(agent: http.Agent, url: string, path: string, secret: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method: 'POST', agent, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The mutable state of the workload: rolling windows and the in-flight writes. */
class Workload {
  readonly stats = Object.fromEntries(KINDS.map((k) => [k, new KindStats()])) as Record<Kind, KindStats>;
  /** Refs (ids) of soak_roll documents, oldest first. */
  readonly roll: string[] = [];
  /** GraphQL note ids, oldest first. */
  readonly notes: string[] = [];
  private rollCreate = true;
  private noteCreate = true;
  private gqlFind = true;
  private counter = 0;
  /** Send times (µs) of unanswered writes to followed targets, oldest first (a Map keeps order). */
  private readonly writesInFlight = new Map<number, number>();
  private nextWrite = 0;
  inFlight = 0;
  dropped = 0;
  measured = false;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  constructor(
    private readonly flora: FloraProcess,
    private readonly h2: Client,
    private readonly h1: Client,
    private readonly streams: Streams,
  ) {}

  /** Below this ts every write to a followed target is known, and old enough to have been delivered. */
  horizon(): number {
    const oldest = this.writesInFlight.values().next();
    const bound = nowUs() - DELIVERY_US;
    return oldest.done ? bound : Math.min(bound, oldest.value - 1000);
  }

  pick(): Kind {
    let r = Math.random() * 100;
    for (const [kind, weight] of MIX) {
      if ((r -= weight) < 0) {
        if (kind !== 'roll') return kind;
        this.rollCreate = !this.rollCreate;
        return !this.rollCreate || this.roll.length === 0 ? 'create' : 'delete';
      }
    }
    return 'get';
  }

  /** Sends one request of `kind`, scheduled at `scheduled` (performance.now() ms). */
  fire(kind: Kind, scheduled: number): void {
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.dropped++;
      this.stats[kind].fail(new Error(`dropped: ${MAX_IN_FLIGHT} requests in flight`));
      return;
    }
    this.inFlight++;
    const measured = this.measured;
    this.run(kind).then(
      () => this.stats[kind].ok(performance.now() - scheduled, measured),
      (err: unknown) => this.stats[kind].fail(err),
    ).finally(() => this.inFlight--);
  }

  private async run(kind: Kind): Promise<void> {
    const doc = (id: number) => q.Ref(q.Collection('soak'), String(id));
    const rand = (n: number) => 1 + Math.floor(Math.random() * n);
    switch (kind) {
      case 'get':
        return void (await this.h2.query(q.Get(doc(rand(DOCS)))));
      case 'get_h1':
        return void (await this.h1.query(q.Get(doc(rand(DOCS)))));
      case 'page': {
        const page = await this.h2.query<{ data: unknown[] }>(q.Paginate(q.Match(q.Index('soak_by_k'), rand(TERMS) - 1), { size: 64 }));
        if (page.data.length !== 64) throw new Error(`page of ${page.data.length}, expected 64`);
        return;
      }
      case 'update': {
        const id = rand(HOT);
        return void (await this.write(`doc:${id}`, q.Update(doc(id), { data: { v: ++this.counter } })));
      }
      case 'create': {
        const created = (await this.write('set', q.Select(['ref', 'id'], q.Create(q.Collection('soak_roll'), { data: DOCUMENT_DATA })))) as string;
        return void this.roll.push(created);
      }
      case 'delete':
        return void (await this.write('set', q.Delete(q.Ref(q.Collection('soak_roll'), this.roll.shift()!))));
      case 'gql_query': {
        this.gqlFind = !this.gqlFind;
        const id = this.notes[Math.floor(Math.random() * this.notes.length)];
        const query = this.gqlFind && id ? `{ findNoteByID(id: "${id}") { _id title n } }` : '{ allNotes(_size: 20) { data { _id title n } } }';
        await this.graphql(query);
        return;
      }
      case 'gql_mutation': {
        this.noteCreate = !this.noteCreate;
        if (this.noteCreate || this.notes.length === 0) {
          const data = await this.graphql(`mutation { createNote(data: {title: "note ${++this.counter}", n: ${this.counter}}) { _id } }`);
          return void this.notes.push((data.createNote as { _id: string })._id);
        }
        await this.graphql(`mutation { deleteNote(id: "${this.notes.shift()!}") { _id } }`);
        return;
      }
    }
  }

  /** A write to a followed target: its commit ts (x-txn-time) is recorded for the streams' check. */
  private async write(key: string, expr: ExprArg): Promise<unknown> {
    const w = this.nextWrite++;
    this.writesInFlight.set(w, nowUs());
    try {
      let ts = NaN;
      const result = await this.h2.query(expr, { observer: (res) => (ts = Number((res.responseHeaders as Record<string, string>)['x-txn-time'])) });
      if (!Number.isFinite(ts)) throw new Error('write answered without x-txn-time');
      this.streams.recordWrite(key, ts);
      return result;
    } finally {
      this.writesInFlight.delete(w);
    }
  }

  async graphql(query: string): Promise<Record<string, unknown>> {
    const res = await post(this.agent, this.flora.url, '/graphql', this.flora.secret, JSON.stringify({ query }));
    const parsed = JSON.parse(res.body) as { data?: Record<string, unknown>; errors?: unknown[] };
    if (res.status !== 200 || parsed.errors || !parsed.data) throw new Error(`graphql ${res.status}: ${res.body.slice(0, 300)}`);
    return parsed.data;
  }

  async importSchema(): Promise<void> {
    const res = await post(this.agent, this.flora.url, '/import', this.flora.secret, SCHEMA);
    if (res.status !== 200) throw new Error(`import ${res.status}: ${res.body}`);
  }

  close(): void {
    this.agent.destroy();
  }
}

async function setUp(h2: Client, work: Workload): Promise<void> {
  // history_days 0: old versions go once the background collector passes (after its grace), so
  // updates and deletes do not pile up history on disk for the length of the run.
  await h2.query(q.CreateCollection({ name: 'soak', history_days: 0 }));
  await h2.query(q.CreateCollection({ name: 'soak_roll', history_days: 0 }));
  await h2.query(q.CreateIndex({ name: 'soak_by_k', source: q.Collection('soak'), terms: [{ field: ['data', 'k'] }], values: [{ field: ['data', 'n'] }] }));
  for (let start = 0; start < DOCS; start += 1000) {
    const creates = Array.from({ length: 1000 }, (_, i) =>
      q.Create(q.Ref(q.Collection('soak'), String(start + i + 1)), { data: { ...DOCUMENT_DATA, k: (start + i) % TERMS, n: start + i } }),
    );
    await h2.query(q.Do(...creates), { queryTimeout: 600_000 });
  }
  const ids = await h2.query<string[]>(
    q.Map(Array.from({ length: ROLL_WINDOW }, (_, i) => i), q.Lambda('i', q.Select(['ref', 'id'], q.Create(q.Collection('soak_roll'), { data: DOCUMENT_DATA })))),
  );
  work.roll.push(...ids);
  await work.importSchema();
  for (let i = 0; i < NOTES; i++) {
    const data = await work.graphql(`mutation { createNote(data: {title: "note ${i}", n: ${i}}) { _id } }`);
    work.notes.push((data.createNote as { _id: string })._id);
  }
}

function summarize(values: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = values.sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1] : NaN };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i])).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

const clock = (t: number) => `${Math.floor(t / 60)}:${String(Math.round(t % 60)).padStart(2, '0')}`;
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

const SAMPLE_HEADER = ['t', 'rss MB min-max', 'rss less data file MB max', 'anon MB min-max', 'cpu %', 'machine %', 'req/s', 'errors', 'p50 ms', 'p99 ms', 'max ms', 'client lag p99', 'streams', 'events', 'data MB'];
const sampleRow = (s: Sample) => [
  clock(s.t), `${f(s.rssMin, 0)}-${f(s.rssMax, 0)}`, f(s.ownMax, 0), `${f(s.anonMin, 0)}-${f(s.anonMax, 0)}`, f(s.cpuPct, 0), f(s.machinePct, 0), f(s.reqPerSec, 0), String(s.errors), f(s.p50, 2), f(s.p99, 2), f(s.max, 0), f(s.clientLagP99Ms, 1),
  String(s.streamsOpen), String(s.events), f(s.dataMb),
];
const kindRow = (s: Sample) => [clock(s.t), ...KINDS.map((k) => `${f(s.byKind[k].p99, 1)}/${f(s.byKind[k].max, 0)}`)];

export async function main(argv: string[]): Promise<void> {
  const opts = parseOptions(argv);
  const runSeconds = opts.minutes * 60;
  const warmup = warmupSeconds(runSeconds);
  console.log(
    `soak: ${opts.minutes} min at ${opts.rate} requests/s (open loop), samples every ${opts.sampleSeconds} s, warm-up ${clock(warmup)}; ` +
      `${opts.docStreams} document + ${opts.setStreams} set streams (one reopened every ${opts.churnSeconds} s); node ${process.version}`,
  );
  const env: Record<string, string> = { FLORA_NO_BUILD_CHECK: '1' };
  if (opts.heapSnapshots) env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${opts.heapSnapshots}`.trim();
  const flora = await startFlora({ env });
  const pid = flora.proc.pid!;
  const { h2, h1, close } = clients(flora.url, flora.secret);
  const streams = new Streams(flora.url, flora.secret, h2, (key) =>
    key === 'set' ? q.Documents(q.Collection('soak_roll')) : q.Ref(q.Collection('soak'), key.slice('doc:'.length)),
  );
  const work = new Workload(flora, h2, h1, streams);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const timers: NodeJS.Timeout[] = [];
  try {
    const t0 = Date.now();
    await setUp(h2, work);
    console.log(`soak: set up in ${((Date.now() - t0) / 1000).toFixed(1)} s (${DOCS} documents, ${ROLL_WINDOW} rolling, ${NOTES} notes); server pid ${pid}`);
    for (let i = 0; i < opts.docStreams; i++) streams.open(`doc:${1 + (i % HOT)}`, i % 2 ? 'h1' : 'driver', i % 4 >= 2);
    for (let i = 0; i < opts.setStreams; i++) streams.open('set', i % 2 ? 'h1' : 'driver', i % 4 >= 2);
    await waitFor('streams to start', () => streams.allStarted() || streams.errors.length > 0);

    const samples: Sample[] = [];
    const start = performance.now();
    const elapsed = () => (performance.now() - start) / 1000;
    let issued = 0;
    let lastCpu = procCpuSeconds(pid);
    let lastMachine = machineBusy();
    // Memory once a second: an interval's lowest reading is its floor after GC, its highest the peak.
    let range = { rssMin: Infinity, rssMax: 0, ownMax: 0, anonMin: Infinity, anonMax: 0 };
    const readMemory = () => {
      const m = memoryOf(pid);
      const own = m.rss - mappedResidentBytes(pid, flora.dataDir);
      range = {
        rssMin: Math.min(range.rssMin, mb(m.rss)), rssMax: Math.max(range.rssMax, mb(m.rss)), ownMax: Math.max(range.ownMax, mb(own)),
        anonMin: Math.min(range.anonMin, mb(m.anon)), anonMax: Math.max(range.anonMax, mb(m.anon)),
      };
    };
    timers.push(setInterval(readMemory, 1000));
    let lastT = 0;
    let lastEvents = 0;
    let lastStreamErrors = 0;
    let snapshots = 0;
    const snapshot = (when: string) => {
      if (!opts.heapSnapshots) return;
      process.kill(pid, 'SIGUSR2');
      snapshots++;
      console.log(`soak: heap snapshot ${snapshots} (${when}) requested into ${opts.heapSnapshots}`);
    };
    lag.enable();
    timers.push(setInterval(() => {
      const due = Math.floor(elapsed() * opts.rate);
      for (; issued < due; issued++) work.fire(work.pick(), start + (issued * 1000) / opts.rate);
    }, 5));
    timers.push(setInterval(() => streams.churnOne(work.horizon()), opts.churnSeconds * 1000));
    const takeSample = () => {
      const t = elapsed();
      streams.check(work.horizon());
      readMemory();
      const cpu = procCpuSeconds(pid);
      const machine = machineBusy();
      let all: number[] = [];
      const byKind = {} as Sample['byKind'];
      let errors = 0;
      for (const k of KINDS) {
        const st = work.stats[k];
        all = all.concat(st.interval); // not push(...): a long interval would pass too many arguments
        byKind[k] = summarize(st.interval);
        errors += st.intervalErrors;
        st.interval = [];
        st.intervalErrors = 0;
      }
      const totals = streams.totals();
      const overall = summarize(all);
      const s: Sample = {
        t, ...range, cpuPct: ((cpu - lastCpu) / (t - lastT)) * 100, machinePct: ((machine - lastMachine) / (t - lastT)) * 100, reqPerSec: overall.n / (t - lastT),
        errors: errors + totals.errors - lastStreamErrors, p50: overall.p50, p99: overall.p99, max: overall.max,
        byKind, clientLagP99Ms: lag.percentile(99) / 1e6, streamsOpen: totals.open, events: totals.events - lastEvents, dataMb: mb(diskBytes(flora.dataDir)),
      };
      lag.reset();
      lastCpu = cpu;
      lastMachine = machine;
      range = { rssMin: Infinity, rssMax: 0, ownMax: 0, anonMin: Infinity, anonMax: 0 };
      lastT = t;
      lastEvents = totals.events;
      lastStreamErrors = totals.errors;
      samples.push(s);
      if (samples.length === 1) console.log(table(SAMPLE_HEADER, []));
      console.log(table(SAMPLE_HEADER, [sampleRow(s)]).split('\n')[1]);
      if (!work.measured && t >= warmup) {
        work.measured = true;
        snapshot('end of warm-up');
      }
    };
    timers.push(setInterval(takeSample, opts.sampleSeconds * 1000));
    await new Promise((r) => setTimeout(r, runSeconds * 1000 + 50));
    for (const t of timers) clearInterval(t);
    timers.length = 0;
    // The last interval's timer may lose the race with the end of the run on a busy machine.
    if (samples.length < Math.floor(runSeconds / opts.sampleSeconds)) takeSample();

    // Drain: every request answered, then every event delivered, then the last check.
    await waitFor('requests in flight to finish', () => work.inFlight === 0, 60_000).catch((e: Error) => work.stats.get.fail(e));
    await new Promise((r) => setTimeout(r, DELIVERY_US / 1000 + 500));
    const checkedAtEnd = streams.check(work.horizon());
    snapshot('end of run');
    if (snapshots) await new Promise((r) => setTimeout(r, 1000));
    report(samples, warmup, work, streams, checkedAtEnd, dirSummary(flora.dataDir), opts);
  } finally {
    for (const t of timers) clearInterval(t);
    lag.disable();
    streams.closeAll();
    work.close();
    await close();
    if (opts.heapSnapshots) await waitForSnapshots(opts.heapSnapshots);
    const code = await flora.stop();
    if (code !== 0) console.log(`soak: the server exited with code ${code}:\n${flora.stderr().slice(-2000)}`);
  }
}

/** `name size MB, …` of the top-level entries of a data directory, largest first. */
function dirSummary(dir: string): string {
  const entries = readdirSync(dir).map((name) => [name, diskBytes(path.join(dir, name))] as const);
  const total = entries.reduce((a, [, b]) => a + b, 0);
  return `${f(mb(total))} MB: ${entries.sort((a, b) => b[1] - a[1]).map(([n, b]) => `${n} ${f(mb(b))} MB`).join(', ')}`;
}

/** A heap snapshot is written in the background of a signal: wait until no file is still growing. */
async function waitForSnapshots(dir: string): Promise<void> {
  let last = -1;
  for (let i = 0; i < 600; i++) {
    const size = diskBytes(dir);
    if (size === last && size > 0) return;
    last = size;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

function report(samples: Sample[], warmup: number, work: Workload, streams: Streams, checkedAtEnd: number, dataDir: string, opts: Options): void {
  console.log(`\nsamples (every ${opts.sampleSeconds} s; latency from the scheduled send time, all kinds):`);
  console.log(table(SAMPLE_HEADER, samples.map(sampleRow)));
  console.log('\np99/max ms by kind of request, per interval:');
  console.log(table(['t', ...KINDS], samples.map(kindRow)));

  console.log(`\nafter warm-up (${clock(warmup)}), by kind of request:`);
  console.log(table(['kind', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'errors (whole run)'],
    KINDS.map((k) => {
      const s = summarize(work.stats[k].run);
      return [k, String(s.n), f(s.p50, 2), f(s.p99, 2), f(s.max, 1), String(work.stats[k].errors)];
    })));
  const totals = streams.totals();
  console.log(
    `streams: ${totals.opened} opened in all, ${totals.open} open at the end; ${totals.events} events received, ${totals.checked} checked against the writes ` +
      `(${checkedAtEnd} in the last window), ${totals.errors} stream errors`,
  );
  console.log(`data directory at the end: ${dataDir}`);
  for (const k of KINDS) if (work.stats[k].firstError) console.log(`first ${k} error: ${work.stats[k].firstError}`);
  for (const e of streams.errors.slice(0, 10)) console.log(`stream error: ${e}`);
  if (streams.errors.length > 10) console.log(`… and ${streams.errors.length - 10} more stream errors`);

  const after = samples.filter((s) => s.t > warmup);
  const pts = (v: (s: Sample) => number): Point[] => after.map((s) => ({ t: s.t, v: v(s) }));
  const requestErrors = KINDS.reduce((a, k) => a + work.stats[k].errors, 0);
  const checks: Check[] = [
    memoryCheck('RssAnon floor (interval minima)', pts((s) => s.anonMin), LIMITS.anonSlope, LIMITS.anonRise),
    memoryCheck('RssAnon peak (interval maxima)', pts((s) => s.anonMax), LIMITS.anonSlope, LIMITS.anonRise),
    memoryCheck("RSS peak less the data file's mapped pages (interval maxima)", pts((s) => s.ownMax), LIMITS.rssSlope, LIMITS.rssRise),
    latencyCheck('p99 (all requests)', pts((s) => s.p99), LIMITS.p99Ratio, LIMITS.p99SlackMs),
    { name: 'errors', pass: requestErrors === 0 && streams.errors.length === 0, detail: `${requestErrors} request errors (${work.dropped} dropped), ${streams.errors.length} stream errors (limit 0)` },
  ];
  console.log(`\nverdict (${after.length} samples after the warm-up of ${clock(warmup)}):`);
  for (const c of checks) console.log(`  ${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
  const pass = checks.every((c) => c.pass);
  console.log(`soak: ${pass ? 'PASS: no growth after warm-up' : 'FAIL'}`);
  if (!pass) process.exitCode = 1;
}
