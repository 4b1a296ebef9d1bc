// `npm run bench -- --scale [--sizes 10000,100000,1000000] [--seconds 5] [--concurrency 32]
//                           [--load-inflight 4] [--groups 50] [--all-index]`
// (or `node dist/bench/run.js --scale …`; `--help` prints this)
//
// Flat with size (issue 17, item 2). One collection grows in steps (load to 10k, measure, load on to
// 100k, measure, …) with an index on a term and a value (terms [data.group], values [data.n];
// `--groups` distinct groups, so a term has size/groups entries). At each size:
//  - load rate of that stage: `Do` of 1,000 Creates with client-chosen ids per query,
//    `--load-inflight` such queries in flight;
//  - point Get of a random id, `--concurrency` callers, for `--seconds`: ops/s, p50/p99 (each op
//    starts in a macrotask of its own, as over the network, so they rarely overlap and latency is
//    the op's own time rather than a share of 32 interleaved ones);
//  - Paginate(Match(by_group, g), {size: 64}): the first page of a random term, and a page from the
//    middle of a term, reached by an `after` cursor taken from a real page (same load);
//  - full-set operations under the query limits (12,000 compute ops, one unit per element a Count
//    folds; 192 MB of query memory, charged 4× the bytes of every entry a scan reads; the default
//    2-minute timeout): Count(Match(by_group, g)), Count(Documents(coll)), and
//    the way around the limit, counting page by page (Count(Paginate(Documents(coll), {size:
//    100000})) following `after`); each shows its answer or its error, and its time. `--all-index`
//    adds an index with no terms over the collection (loaded along with the other) and
//    Count(Match(it));
//  - data directory size per document (allocated blocks, as du), and this process's RSS and
//    RssAnon (private memory, without LMDB's file-backed map) after a full GC and at peak during
//    the stage. Reads also show this process's CPU per op, steadier than latency on a shared machine.
// Checks as it goes: a Get of known ids returns the right n, pages hold 64 entries of the term in
// order, counts equal the number loaded. Then one table, and the targets: latency at the largest size
// ≤ 1.5× at the smallest for point Get and both pages, load ≥ 20,000 docs/s in process.
//
// Flora runs in this process (its query service on real LMDB storage, no HTTP), so load rate and
// memory are the database's plus this script's load generator.

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { QueryService } from '../src/fql/api';
import { DOCUMENT_DATA } from './ceiling';
import { closedLoop, collectGarbage, mb, printTable, serviceQuery, withService, wrap } from './harness';
import { memoryOf } from '../torture/memory';
import { Measurement, type LoadResult } from './load';

interface Options {
  sizes: number[];
  seconds: number;
  concurrency: number;
  loadInflight: number;
  groups: number;
  allIndex: boolean;
}

const BATCH = 1000;
const PAGE = 64;
const COUNT_PAGE = 100_000; // Fauna's largest page
const FAUNA_TIMEOUT_MS = 120_000; // X-Query-Timeout's default
const TARGET_RATIO = 1.5;
const TARGET_LOAD = 20_000;
const USAGE =
  'usage: run.js --scale [--sizes 10000,100000,1000000] [--seconds N] [--concurrency N] [--load-inflight N] [--groups N] [--all-index]';

function parseArgs(argv: string[]): Options | undefined {
  const opts: Options = { sizes: [10_000, 100_000, 1_000_000], seconds: 5, concurrency: 32, loadInflight: 4, groups: 50, allIndex: false };
  const numeric: Record<string, 'seconds' | 'concurrency' | 'loadInflight' | 'groups'> = {
    '--seconds': 'seconds', '--concurrency': 'concurrency', '--load-inflight': 'loadInflight', '--groups': 'groups',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--scale') continue;
    if (a === '--help' || a === '-h') return undefined;
    if (a === '--all-index') {
      opts.allIndex = true;
      continue;
    }
    const v = argv[++i];
    if (a === '--sizes') {
      opts.sizes = (v ?? '').split(',').map(Number);
      if (!opts.sizes.every((n, j) => Number.isInteger(n) && n >= BATCH && n % BATCH === 0 && (j === 0 || n > opts.sizes[j - 1])))
        throw new Error(`--sizes: increasing multiples of ${BATCH} (got '${v}')\n${USAGE}`);
    } else if (numeric[a] && Number(v) > 0) {
      opts[numeric[a]] = Number(v);
    } else {
      throw new Error(`bad '${a}'\n${USAGE}`);
    }
  }
  if (opts.sizes[0] / opts.groups < 2 * PAGE + 2) throw new Error(`--groups: each term needs ≥ ${2 * PAGE + 2} entries at the smallest size`);
  return opts;
}

/** A query's outcome without throwing: Count over a large set is expected to fail at a limit. */
interface Outcome {
  ms: number;
  status: number;
  resource?: unknown;
  error?: string;
}

async function attempt(service: QueryService, expr: unknown, timeoutMs = FAUNA_TIMEOUT_MS): Promise<Outcome> {
  const t0 = process.hrtime.bigint();
  const r = await service.query({ body: JSON.stringify(expr), authorization: 'Bearer secret', timeoutMs });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const body = JSON.parse(String(r.body)) as { resource?: unknown; errors?: { code: string; description: string }[] };
  if (r.status < 300) return { ms, status: r.status, resource: body.resource };
  const e = body.errors?.[0];
  return { ms, status: r.status, error: e ? `${r.status} ${e.code}: ${e.description}` : `${r.status}` };
}

const docRef = (id: number) => ({ ref: { collection: 'docs' }, id: String(id) });
const match = (group: number) => ({ match: { index: 'by_group' }, terms: group });
/** Document `id` belongs to group id % groups and has n = id: a term's entries are ids ≡ g, ascending. */
const groupSize = (g: number, loaded: number, groups: number) => Math.floor((loaded - g) / groups) + (g === 0 ? 0 : 1);
const randomInt = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

/**
 * Create(Ref(Collection("docs"), id), {data: {...DOCUMENT_DATA, group, n: id}}) as JSON text, spliced
 * from a template: wrap() and JSON.stringify per document took ~17 µs, a third of the time one
 * document may take at the target rate, and this process is the server too.
 */
const DOC_PREFIX = JSON.stringify(wrap({ data: DOCUMENT_DATA })).replace(/\}\}\}\}$/, '');
function createBody(id: number, groups: number): string {
  return `{"create":{"ref":{"collection":"docs"},"id":"${id}"},"params":${DOC_PREFIX},"group":${id % groups},"n":${id}}}}}}`;
}

/** Loads documents `from+1 … to` (Do of BATCH Creates per query, `inflight` queries at once); seconds. */
async function load(service: QueryService, from: number, to: number, opts: Options): Promise<number> {
  let next = from;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: opts.loadInflight }, async () => {
      while (next < to) {
        const start = next;
        next += BATCH;
        const creates = Array.from({ length: BATCH }, (_, i) => createBody(start + i + 1, opts.groups));
        const r = await service.query({ body: `{"do":[${creates.join(',')}]}`, authorization: 'Bearer secret', timeoutMs: 600_000 });
        if (r.status >= 300) throw new Error(String(r.body));
      }
    }),
  );
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Throws unless `page` is `count` entries of group g, ascending by n, the first being `firstN`. */
function checkPage(page: { data: number[] }, g: number, firstN: number, count: number, groups: number): void {
  const d = page.data;
  const ok =
    d.length === count && d[0] === firstN && d.every((n, i) => n % groups === g && (i === 0 || n > d[i - 1]));
  if (!ok) throw new Error(`wrong page of group ${g}: expected ${count} entries from ${firstN}, got ${JSON.stringify(d.slice(0, 5))}… (${d.length})`);
}

async function checkCorrectness(service: QueryService, loaded: number, opts: Options): Promise<void> {
  for (const id of [1, loaded, randomInt(1, loaded)]) {
    const doc = (await serviceQuery(service, { get: docRef(id) })) as { data: { n: number; group: number } };
    if (doc.data.n !== id || doc.data.group !== id % opts.groups) throw new Error(`Get of id ${id} returned ${JSON.stringify(doc.data)}`);
  }
  const g = randomInt(1, opts.groups - 1);
  const page = (await serviceQuery(service, { paginate: match(g), size: PAGE })) as { data: number[] };
  checkPage(page, g, g, PAGE, opts.groups);
}

/** A read scenario's figures; `cpuUs`: this process's CPU per op, less disturbed than latency by other processes on a shared machine. */
type Timed = LoadResult & { cpuUs: number };

/** A closed loop of `op` after a short warm-up: ops/s, latency percentiles, CPU per op. */
async function timed(op: () => Promise<void>, opts: Options): Promise<Timed> {
  await closedLoop(op, Math.min(1, opts.seconds / 5), opts.concurrency, { ownTask: true });
  const m = new Measurement();
  const cpu0 = process.cpuUsage();
  await closedLoop(op, opts.seconds, opts.concurrency, { into: m, ownTask: true });
  const cpu = process.cpuUsage(cpu0);
  const r = m.result();
  return { ...r, cpuUs: (cpu.user + cpu.system) / r.ops };
}

/** An op that runs one query body (fresh per call) and fails on an error status. */
function queryOp(service: QueryService, body: () => string): () => Promise<void> {
  return async () => {
    const r = await service.query({ body: body(), authorization: 'Bearer secret', timeoutMs: 60_000 });
    if (r.status >= 300) throw new Error(String(r.body));
  };
}

/**
 * `after` cursors from the middle of random terms, each taken from a real page (Paginate with a size
 * that ends halfway), with the n the page after it must start at.
 */
async function middleCursors(service: QueryService, loaded: number, opts: Options): Promise<{ g: number; after: unknown; firstN: number }[]> {
  const out = [];
  for (let i = 0; i < 16; i++) {
    const g = randomInt(1, opts.groups - 1);
    const skip = Math.min(Math.floor(groupSize(g, loaded, opts.groups) / 2), groupSize(g, loaded, opts.groups) - PAGE);
    const page = (await serviceQuery(service, { paginate: match(g), size: skip })) as { data: number[]; after: unknown[] };
    const firstN = g + skip * opts.groups;
    if (!Array.isArray(page.after) || page.after[0] !== firstN) throw new Error(`cursor of group ${g} after ${skip}: ${JSON.stringify(page.after)}`);
    const next = (await serviceQuery(service, { paginate: match(g), size: PAGE, after: page.after })) as { data: number[] };
    checkPage(next, g, firstN, PAGE, opts.groups);
    out.push({ g, after: page.after, firstN });
  }
  return out;
}

interface FullSet {
  /** Count(Match(by_group, g)): the answer (checked) and the median time of a few terms. */
  termCount: Outcome;
  documents: Outcome;
  /** Count(Match(all_docs)) with --all-index. */
  all?: Outcome;
  /** Counting page by page: total, time, number of queries. */
  byPages: { total: number; ms: number; queries: number };
}

async function fullSet(service: QueryService, loaded: number, opts: Options): Promise<FullSet> {
  const terms: Outcome[] = [];
  for (let i = 0; i < 5; i++) {
    const g = randomInt(1, opts.groups - 1);
    const o = await attempt(service, { count: match(g) });
    if (o.error === undefined && o.resource !== groupSize(g, loaded, opts.groups))
      throw new Error(`Count of group ${g}: ${String(o.resource)}, expected ${groupSize(g, loaded, opts.groups)}`);
    terms.push(o);
  }
  terms.sort((a, b) => a.ms - b.ms);
  const documents = await attempt(service, { count: { documents: { collection: 'docs' } } });
  if (documents.error === undefined && documents.resource !== loaded) throw new Error(`Count(Documents) = ${String(documents.resource)}, expected ${loaded}`);
  const all = opts.allIndex ? await attempt(service, { count: { match: { index: 'all_docs' } } }) : undefined;
  if (all && all.error === undefined && all.resource !== loaded) throw new Error(`Count(Match(all_docs)) = ${String(all.resource)}, expected ${loaded}`);

  let total = 0;
  let queries = 0;
  let after: unknown;
  const t0 = process.hrtime.bigint();
  do {
    const page = (await serviceQuery(service, {
      count: { paginate: { documents: { collection: 'docs' } }, size: COUNT_PAGE, ...(after === undefined ? {} : { after }) },
    })) as { data: [number]; after?: unknown };
    total += page.data[0];
    after = page.after;
    queries++;
  } while (after !== undefined);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (total !== loaded) throw new Error(`counting by pages: ${total}, expected ${loaded}`);
  return { termCount: terms[Math.floor(terms.length / 2)], documents, all, byPages: { total, ms, queries } };
}

/** Allocated size of a directory tree in bytes (what du reports). */
function diskUsage(dir: string): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    bytes += e.isDirectory() ? diskUsage(p) : statSync(p).blocks * 512;
  }
  return bytes;
}

/** Peak RSS and RssAnon since the last reset, sampled every 100 ms. */
class MemorySampler {
  peakRss = 0;
  peakAnon = 0;
  private readonly timer = setInterval(() => this.sample(), 100);
  sample(): { rss: number; anon: number; heap: number } {
    const m = process.memoryUsage();
    const now = { rss: m.rss, anon: memoryOf(process.pid).anon, heap: m.heapUsed + m.external };
    this.peakRss = Math.max(this.peakRss, now.rss);
    this.peakAnon = Math.max(this.peakAnon, now.anon);
    return now;
  }
  reset(): void {
    this.peakRss = this.peakAnon = 0;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

interface SizeRow {
  size: number;
  /** Docs/s of the stage that loaded up to this size, and its seconds. */
  loadRate: number;
  loadSeconds: number;
  get: Timed;
  first: Timed;
  middle: Timed;
  full: FullSet;
  bytesPerDoc: number;
  rss: number;
  anon: number;
  /** Live JS heap plus external memory (Buffers) after a full GC: what the process holds. */
  heap: number;
  peakRss: number;
  peakAnon: number;
}

async function measureSize(
  service: QueryService,
  dir: string,
  size: number,
  load: { rate: number; seconds: number },
  opts: Options,
  mem: MemorySampler,
): Promise<SizeRow> {
  await checkCorrectness(service, size, opts);
  const get = await timed(queryOp(service, () => JSON.stringify({ get: docRef(randomInt(1, size)) })), opts);
  const first = await timed(
    queryOp(service, () => JSON.stringify({ paginate: match(randomInt(0, opts.groups - 1)), size: PAGE })),
    opts,
  );
  const cursors = await middleCursors(service, size, opts);
  const bodies = cursors.map((c) => JSON.stringify({ paginate: match(c.g), size: PAGE, after: c.after }));
  const middle = await timed(queryOp(service, () => bodies[randomInt(0, bodies.length - 1)]), opts);
  const full = await fullSet(service, size, opts);
  collectGarbage(); // what is retained, not what the last scan left for the collector
  const now = mem.sample();
  return {
    size, loadRate: load.rate, loadSeconds: load.seconds, get, first, middle, full,
    bytesPerDoc: diskUsage(dir) / size,
    rss: now.rss, anon: now.anon, heap: now.heap, peakRss: mem.peakRss, peakAnon: mem.peakAnon,
  };
}

const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0));
const lat = (r: Timed) => `${r.p50Ms.toFixed(2)}/${r.p99Ms.toFixed(2)} ${r.cpuUs.toFixed(0)}µs`;
const outcome = (o: Outcome) => `${o.error === undefined ? String(o.resource) : 'error'} ${(o.ms / 1000).toFixed(2)}s`;

function printSizes(rows: SizeRow[]): void {
  const header = [
    'docs', 'load docs/s', 'Get/s', 'Get p50/p99 ms CPU/op', 'page1/s', 'page1 p50/p99 CPU', 'mid page/s', 'mid p50/p99 CPU',
    'Count(term)', 'Count(Documents)', ...(rows[0].full.all ? ['Count(Match(all))'] : []), 'count by pages', 'disk B/doc',
    'RSS MB (peak)', 'RssAnon MB (peak)',
  ];
  const cells = rows.map((r) => [
    String(r.size), k(r.loadRate), k(r.get.opsPerSecond), lat(r.get), k(r.first.opsPerSecond), lat(r.first),
    k(r.middle.opsPerSecond), lat(r.middle),
    `${outcome(r.full.termCount)}`, outcome(r.full.documents), ...(r.full.all ? [outcome(r.full.all)] : []),
    `${r.full.byPages.total} ${(r.full.byPages.ms / 1000).toFixed(2)}s/${r.full.byPages.queries}q`,
    r.bytesPerDoc.toFixed(0), `${mb(r.rss)} (${mb(r.peakRss)})`, `${mb(r.anon)} (${mb(r.peakAnon)})`,
  ]);
  printTable(header, cells);
}

function printVerdicts(rows: SizeRow[]): void {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  for (const [name, pick] of [
    ['point Get', (r: SizeRow) => r.get],
    ['first page of 64', (r: SizeRow) => r.first],
    ['middle page of 64 (cursor)', (r: SizeRow) => r.middle],
  ] as const) {
    const p50 = pick(last).p50Ms / pick(first).p50Ms;
    const p99 = pick(last).p99Ms / pick(first).p99Ms;
    const cpu = pick(last).cpuUs / pick(first).cpuUs;
    console.log(
      `${name}: p50 latency ${last.size}/${first.size} ratio ${p50.toFixed(2)} (target <= ${TARGET_RATIO}: ${verdict(p50 <= TARGET_RATIO)}); ` +
        `p99 ratio ${p99.toFixed(2)}; CPU per op ratio ${cpu.toFixed(2)}`,
    );
  }
  const overall = last.size / rows.reduce((s, r) => s + r.loadSeconds, 0);
  console.log(
    `load: ${rows.map((r) => `${k(r.loadRate)}/s to ${r.size}`).join(', ')}; ${overall.toFixed(0)} docs/s over all ${last.size} ` +
      `(target >= ${TARGET_LOAD} in process: ${verdict(overall >= TARGET_LOAD)})`,
  );
  console.log(
    `memory after a full GC: live heap + external ${rows.map((r) => `${mb(r.heap)}`).join(' / ')} MB, ` +
      `RssAnon ${rows.map((r) => `${mb(r.anon)}`).join(' / ')} MB (peak ${mb(Math.max(...rows.map((r) => r.peakAnon)))} MB) at ${rows.map((r) => r.size).join(' / ')}; ` +
      `RSS includes LMDB's file-backed pages, which the kernel may drop`,
  );
  for (const r of rows) {
    for (const [name, o] of [['Count(Match(by_group, g))', r.full.termCount], ['Count(Documents)', r.full.documents], ['Count(Match(all_docs))', r.full.all]] as const) {
      if (o?.error !== undefined) console.log(`${name} at ${r.size}: ${o.error} after ${(o.ms / 1000).toFixed(2)}s`);
    }
  }
}

export async function main(argv: string[]): Promise<void> {
  const opts = parseArgs(argv);
  if (!opts) {
    console.log(USAGE);
    return;
  }
  console.log(
    `scale: sizes ${opts.sizes.join(', ')}; ${opts.groups} groups; load Do of ${BATCH} Creates, ${opts.loadInflight} in flight; ` +
      `${opts.concurrency} in flight for ${opts.seconds}s per read scenario; node ${process.version}`,
  );
  console.log(
    'scale: Flora in this process (query service, LMDB, no HTTP): memory is this process\'s, load generator included; ' +
      'each read starts in a macrotask of its own, as a request from the network does, so its latency is its own time',
  );
  await withService('scale', async (service, dir) => {
    await serviceQuery(service, { create_collection: wrap({ name: 'docs' }) });
    await serviceQuery(service, {
      create_index: {
        object: { name: 'by_group', source: { collection: 'docs' }, terms: [wrap({ field: ['data', 'group'] })], values: [wrap({ field: ['data', 'n'] })] },
      },
    });
    if (opts.allIndex) await serviceQuery(service, { create_index: { object: { name: 'all_docs', source: { collection: 'docs' } } } });
    const mem = new MemorySampler();
    const rows: SizeRow[] = [];
    try {
      let loaded = 0;
      for (const size of opts.sizes) {
        mem.reset();
        const seconds = await load(service, loaded, size, opts);
        const rate = (size - loaded) / seconds;
        loaded = size;
        const row = await measureSize(service, dir, size, { rate, seconds }, opts, mem);
        rows.push(row);
        console.log(
          `scale: ${size} docs: load ${rate.toFixed(0)}/s; Get ${row.get.opsPerSecond.toFixed(0)}/s ${lat(row.get)}; ` +
            `page1 ${row.first.opsPerSecond.toFixed(0)}/s ${lat(row.first)}; mid ${row.middle.opsPerSecond.toFixed(0)}/s ${lat(row.middle)}; ` +
            `Count(term) ${outcome(row.full.termCount)}; Count(Documents) ${outcome(row.full.documents)}; ` +
            (row.full.all ? `Count(Match(all)) ${outcome(row.full.all)}; ` : '') +
            `${row.bytesPerDoc.toFixed(0)} B/doc; RSS ${mb(row.rss)} MB, RssAnon ${mb(row.anon)} MB, heap ${mb(row.heap)} MB`,
        );
      }
    } finally {
      mem.stop();
    }
    printSizes(rows);
    printVerdicts(rows);
  });
}
