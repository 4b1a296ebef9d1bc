// `node dist/bench/indexes.js [--sizes 10000,100000,1000000] [--seconds 5]`
// Index benchmarks (issue 3), each collection size in its own process so memory readings are its own:
//  1. Paginate(Match(index, term), {size: 64}) latency and throughput at each size; the ratio of
//     the largest to the smallest must stay ≤ 1.5 (a page is a range scan, not a filter);
//  2. the background build of an index over the whole collection: documents/s and peak RSS during
//     the build (it must not grow with the collection's size);
//  3. Create throughput into a collection with 3 indexes against one with none (same run).
// Runs Flora's query service in process (real storage, no HTTP): these measure the database.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFlora } from '../src/flora';
import { defaultConfig } from '../src/config';
import type { QueryService } from '../src/fql/api';
import { mb, serviceQuery, wrap } from './harness';
import { memoryOf } from '../torture/memory';

interface SizeResult {
  size: number;
  populateSeconds: number;
  buildDocsPerSecond: number;
  rssBeforeBuildMb: number;
  peakRssDuringBuildMb: number;
  /** Process-private memory (heap, buffers): RSS minus the pages of LMDB's file mapping. */
  anonBeforeBuildMb: number;
  peakAnonDuringBuildMb: number;
  pageP50Ms: number;
  pageP99Ms: number;
  pagesPerSecond: number;
}

const q = serviceQuery;

const TERMS = 100;

async function populate(service: QueryService, coll: string, n: number): Promise<void> {
  const BATCH = 1000;
  for (let start = 0; start < n; start += BATCH) {
    const count = Math.min(BATCH, n - start);
    await q(service, {
      // Foreach(ids, i => Create(coll, {data: {k: i % TERMS, n: i}}))
      foreach: { lambda: 'i', expr: { create: { collection: coll }, params: { object: { data: { object: { k: { modulo: [{ var: 'i' }, TERMS] }, n: { var: 'i' } } } } } } },
      collection: Array.from({ length: count }, (_, i) => start + i),
    });
  }
}

async function measureSize(size: number, seconds: number): Promise<SizeResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-idx-'));
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir: dir });
  try {
    await q(service, { create_collection: wrap({ name: 'docs' }) });
    const t0 = Date.now();
    await populate(service, 'docs', size);
    const populateSeconds = (Date.now() - t0) / 1000;

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const anonBefore = memoryOf(process.pid).anon;
    let peak = rssBefore;
    let peakAnon = anonBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
      peakAnon = Math.max(peakAnon, memoryOf(process.pid).anon);
    }, 20);
    const b0 = Date.now();
    await q(service, {
      create_index: { object: { name: 'by_k', source: { collection: 'docs' }, terms: [{ object: { field: ['data', 'k'] } }], values: [{ object: { field: ['data', 'n'] } }] } },
    });
    for (;;) {
      const index = (await q(service, { get: { index: 'by_k' } })) as { active: boolean };
      if (index.active) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const buildSeconds = (Date.now() - b0) / 1000;
    clearInterval(sampler);

    const page = () => ({ paginate: { match: { index: 'by_k' }, terms: Math.floor(Math.random() * TERMS) }, size: 64 });
    for (let i = 0; i < 200; i++) await q(service, page()); // warm-up
    const latencies: number[] = [];
    const deadline = Date.now() + seconds * 1000;
    const s0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < deadline) {
          const t = process.hrtime.bigint();
          const p = (await q(service, page())) as { data: unknown[] };
          if (p.data.length !== 64) throw new Error(`short page: ${p.data.length}`);
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - s0) / 1e9;
    latencies.sort((a, b) => a - b);
    return {
      size,
      populateSeconds,
      buildDocsPerSecond: Math.round(size / buildSeconds),
      rssBeforeBuildMb: mb(rssBefore),
      peakRssDuringBuildMb: mb(peak),
      anonBeforeBuildMb: mb(anonBefore),
      peakAnonDuringBuildMb: mb(peakAnon),
      pageP50Ms: latencies[Math.floor(latencies.length / 2)],
      pageP99Ms: latencies[Math.floor(latencies.length * 0.99)],
      pagesPerSecond: Math.round(latencies.length / elapsed),
    };
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Create with 3 indexes on the collection against Create with none, interleaved. */
async function measureCreates(seconds: number): Promise<{ none: number; three: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-idx-'));
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir: dir });
  try {
    for (const name of ['plain', 'indexed']) await q(service, { create_collection: wrap({ name }) });
    for (const [name, field] of [['ix_a', 'a'], ['ix_b', 'b'], ['ix_c', 'c']])
      await q(service, { create_index: { object: { name, source: { collection: 'indexed' }, terms: [{ object: { field: ['data', field] } }], values: [{ object: { field: ['data', 'n'] } }] } } });
    const body = (coll: string) => JSON.stringify({ create: { collection: coll }, params: wrap({ data: { a: 'x', b: 42, c: ['p', 'q'], n: 1 } }) });
    const rate = async (coll: string, secs: number) => {
      const text = body(coll);
      let ops = 0;
      const deadline = Date.now() + secs * 1000;
      const t0 = process.hrtime.bigint();
      await Promise.all(Array.from({ length: 32 }, async () => {
        while (Date.now() < deadline) {
          const r = await service.query({ body: text, authorization: 'Bearer secret', timeoutMs: 60_000 });
          if (r.status !== 201) throw new Error(String(r.body));
          ops++;
        }
      }));
      return { ops, secs: Number(process.hrtime.bigint() - t0) / 1e9 };
    };
    const totals = { plain: { ops: 0, secs: 0 }, indexed: { ops: 0, secs: 0 } };
    for (let round = 0; round < 4; round++) {
      for (const coll of ['plain', 'indexed'] as const) {
        const r = await rate(coll, seconds / 4);
        totals[coll].ops += r.ops;
        totals[coll].secs += r.secs;
      }
    }
    return { none: totals.plain.ops / totals.plain.secs, three: totals.indexed.ops / totals.indexed.secs };
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function child(args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', __filename, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (c: string) => (out += c));
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`child exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const seconds = Number(arg('--seconds') ?? 5);
  if (arg('--child-size')) {
    console.log(JSON.stringify(await measureSize(Number(arg('--child-size')), seconds)));
    return;
  }
  if (process.argv.includes('--child-creates')) {
    console.log(JSON.stringify(await measureCreates(seconds)));
    return;
  }
  const sizes = (arg('--sizes') ?? '10000,100000,1000000').split(',').map(Number);
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const r = (await child(['--child-size', String(size), '--seconds', String(seconds)])) as SizeResult;
    console.log(`size ${size}: populated in ${r.populateSeconds.toFixed(1)}s; build ${r.buildDocsPerSecond} docs/s, RSS ${r.rssBeforeBuildMb} MB before → peak ${r.peakRssDuringBuildMb} MB (private ${r.anonBeforeBuildMb} → ${r.peakAnonDuringBuildMb} MB); page p50 ${r.pageP50Ms.toFixed(2)} ms p99 ${r.pageP99Ms.toFixed(2)} ms, ${r.pagesPerSecond} pages/s`);
    results.push(r);
  }
  const first = results[0];
  const last = results[results.length - 1];
  const ratio = last.pageP50Ms / first.pageP50Ms;
  console.log(`page latency p50 ratio ${last.size}/${first.size}: ${ratio.toFixed(2)} (target <= 1.5: ${ratio <= 1.5 ? 'PASS' : 'FAIL'})`);
  const creates = (await child(['--child-creates', '--seconds', String(seconds)])) as { none: number; three: number };
  console.log(`create: no index ${creates.none.toFixed(0)}/s, 3 indexes ${creates.three.toFixed(0)}/s, ratio ${(creates.three / creates.none).toFixed(2)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
