// `npm run bench -- --requests [--seconds 3] [--rounds 3] [--concurrency 32] [--connections 32]
//   [--only service,http1]`
// Issue 17, per-request cost. Two parts, each interleaving its scenarios in rounds (this machine is
// shared and noisy: only same-run figures compare):
// 1. service: Flora's query service in this process (no HTTP), real LMDB and group commit, 10,000
//    documents and an index (terms [data.g], 100 documents per term; values [data.n, ref]): point
//    Get, Create, Paginate(Match(index, term), {size: 64}). Next to each, the store's own floor:
//    the same reads done straight on lmdb-js (a point read; a range of 65 entries) over a copy of
//    the same shape of data, so the figure says how far Flora is above what the store costs.
// 2. http1: one Flora process against a bare node:http server in one process answering with the
//    bytes of a Flora Get (http1Ceiling.ts), both under wrk over HTTP/1.1 keep-alive; ratio of
//    requests/s, and the CPU each server spent per request.
// The third target (the official driver over HTTP/2 against bench/ceiling.ts) is `npm run bench`.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { Client, query as q } from 'faunadb';
import type { QueryService } from '../src/fql/api';
import { startFlora } from '../test/helpers/server';
import { DOCUMENT_DATA } from './ceiling';
import { closedLoop, numberArg, printTable, withService, wrap } from './harness';
import { runWrk, slice, startHttp1Ceiling, wrkScript, type Slice, type Target } from './wrk';

const DOCS = 10_000;
const GROUPS = 100;
const PAGE = 64;
const TARGETS = { get: 150_000, create: 30_000, page: 20_000, http1: 0.5 };

interface Opts {
  seconds: number;
  rounds: number;
  concurrency: number;
  connections: number;
  only: string[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');


// ---- part 1: the query service in process ---------------------------------------------------

const AUTH = 'Bearer secret';

async function populate(service: QueryService): Promise<void> {
  const run = async (body: unknown) => {
    const r = await service.query({ body: JSON.stringify(body), authorization: AUTH, timeoutMs: 600_000 });
    if (r.status >= 300) throw new Error(String(r.body));
  };
  await run({ create_collection: wrap({ name: 'bench' }) });
  await run({ create_collection: wrap({ name: 'bench_create' }) });
  await run({
    create_index: {
      object: {
        name: 'by_g',
        source: { collection: 'bench' },
        terms: [{ object: { field: ['data', 'g'] } }],
        values: [{ object: { field: ['data', 'n'] } }, { object: { field: ['ref'] } }],
      },
    },
  });
  for (let start = 1; start <= DOCS; start += 1000) {
    await run({
      do: Array.from({ length: 1000 }, (_, i) => ({
        create: { ref: { collection: 'bench' }, id: String(start + i) },
        params: wrap({ data: { ...DOCUMENT_DATA, n: start + i, g: (start + i) % GROUPS } }),
      })),
    });
  }
}

/** Ops/s of one query body per call from `concurrency` callers; any error answer aborts. */
async function serviceRate(service: QueryService, body: () => string, seconds: number, concurrency: number): Promise<number> {
  const { ops, secs } = await closedLoop(async () => {
    const r = await service.query({ body: body(), authorization: AUTH, timeoutMs: 60_000 });
    if (r.status >= 300) throw new Error(String(r.body));
  }, seconds, concurrency, { ownTask: true }); // each query in a task of its own, as from the network
  return ops / secs;
}

/**
 * lmdb-js alone over data shaped like Flora's: 10,000 values of a stored document's size under
 * 24-byte keys, and index entries of the same size as Flora's (key ~40 bytes, value ~30 bytes).
 * Returns the ops/s of a point read and of a 65-entry range (what a page of 64 reads).
 */
async function storeFloor(seconds: number): Promise<{ get: number; page: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-floor-'));
  const db = open<Buffer, Buffer>({ path: dir, keyEncoding: 'binary', encoding: 'binary' });
  try {
    const docKey = (i: number) => {
      const k = Buffer.alloc(24, 1);
      k.writeUInt32BE(i, 20);
      return k;
    };
    const entryKey = (g: number, n: number) => {
      const k = Buffer.alloc(40, 2);
      k.writeUInt32BE(g, 16);
      k.writeUInt32BE(n, 36);
      return k;
    };
    const doc = Buffer.alloc(263, 7);
    const payload = Buffer.alloc(30, 9);
    await db.transaction(() => {
      for (let i = 1; i <= DOCS; i++) {
        db.put(docKey(i), doc);
        db.put(entryKey(i % GROUPS, i), payload);
      }
    });
    const timed = (op: () => void): number => {
      const end = Date.now() + seconds * 1000;
      let ops = 0;
      const t0 = process.hrtime.bigint();
      while (Date.now() < end) {
        for (let i = 0; i < 100; i++) op();
        ops += 100;
      }
      return ops / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    let sink = 0;
    const get = timed(() => {
      sink += db.getBinary(docKey(1 + Math.floor(Math.random() * DOCS)))?.length ?? 0;
    });
    const page = timed(() => {
      const g = Math.floor(Math.random() * GROUPS);
      for (const kv of db.getRange({ start: entryKey(g, 0), end: entryKey(g + 1, 0), limit: PAGE + 1 })) sink += kv.value.length;
    });
    if (sink === 0) throw new Error('store floor read nothing');
    return { get, page };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function servicePart(opts: Opts): Promise<void> {
  console.log(`\n## 1. Query service in process (${opts.concurrency} in flight, ${opts.rounds} interleaved rounds of ${opts.seconds}s)`);
  await withService('requests', async (service) => {
    await populate(service);
    const first = await service.query({ body: JSON.stringify({ get: { ref: { collection: 'bench' }, id: '77' } }), authorization: AUTH, timeoutMs: 60_000 });
    if (!String(first.body).includes('"n":77')) throw new Error(`unexpected Get answer: ${String(first.body)}`);
    const pageBody = (g: number) => JSON.stringify({ paginate: { match: { index: 'by_g' }, terms: g }, size: PAGE });
    const firstPage = await service.query({ body: pageBody(7), authorization: AUTH, timeoutMs: 60_000 });
    const entries = (String(firstPage.body).match(/"@ref"/g) ?? []).length;
    if (!String(firstPage.body).includes('"after"') || entries < PAGE) throw new Error(`unexpected page: ${String(firstPage.body).slice(0, 300)}`);

    const createBody = JSON.stringify({ create: { collection: 'bench_create' }, params: wrap({ data: DOCUMENT_DATA }) });
    const scenarios = [
      { name: 'point Get', key: 'get' as const, body: () => JSON.stringify({ get: { ref: { collection: 'bench' }, id: String(1 + Math.floor(Math.random() * DOCS)) } }) },
      { name: 'Create (group commit)', key: 'create' as const, body: () => createBody },
      { name: `Paginate(Match(index, term)), ${PAGE} per page`, key: 'page' as const, body: () => pageBody(Math.floor(Math.random() * GROUPS)) },
    ];
    const rates = new Map<string, number[]>(scenarios.map((s) => [s.key, []]));
    for (const s of scenarios) await serviceRate(service, s.body, 1, opts.concurrency); // warm-up
    for (let round = 0; round < opts.rounds; round++) {
      for (let i = 0; i < scenarios.length; i++) {
        const s = scenarios[(i + round) % scenarios.length];
        const r = await serviceRate(service, s.body, opts.seconds, opts.concurrency);
        rates.get(s.key)!.push(r);
        console.log(`round ${round + 1}: ${s.name.padEnd(44)} ${r.toFixed(0).padStart(7)}/s`);
      }
    }
    const floor = await storeFloor(Math.max(1, opts.seconds / 2));
    const floors: Record<string, number | undefined> = { get: floor.get, create: undefined, page: floor.page };
    printTable(
      ['operation', 'ops/s (median)', 'µs per op', 'lmdb-js alone, same reads', 'Flora / store time', 'target', ''],
      scenarios.map((s) => {
        const ops = median(rates.get(s.key)!);
        const f = floors[s.key];
        return [
          s.name,
          ops.toFixed(0),
          (1e6 / ops).toFixed(1),
          f === undefined ? '–' : `${f.toFixed(0)}/s (${(1e6 / f).toFixed(2)} µs)`,
          f === undefined ? '–' : (f / ops).toFixed(1),
          `>= ${TARGETS[s.key]}/s`,
          verdict(ops >= TARGETS[s.key]),
        ];
      }),
    );
  });
}

// ---- part 2: HTTP/1.1 under wrk, Flora against a bare node:http server ----------------------

async function http1Part(opts: Opts): Promise<void> {
  console.log(`\n## 2. HTTP/1.1 keep-alive, wrk -c ${opts.connections}: one Flora process vs one bare node:http process`);
  const tmp = mkdtempSync(path.join(tmpdir(), 'flora-bench-http1-'));
  // One process, with the young-generation size the tier's workers get (tier/supervisor.ts).
  const flora = await startFlora({ env: { FLORA_NO_BUILD_CHECK: '1', NODE_OPTIONS: '--max-semi-space-size=32' } });
  try {
    const client = new Client({ secret: flora.secret, endpoint: flora.url });
    await client.query(q.CreateCollection({ name: 'bench' }));
    for (let start = 1; start <= DOCS; start += 1000) {
      await client.query(q.Do(...Array.from({ length: 1000 }, (_, i) => q.Create(q.Ref(q.Collection('bench'), String(start + i)), { data: { ...DOCUMENT_DATA, n: start + i } }))));
    }
    await client.close();
    const ceiling = await startHttp1Ceiling(flora, 1, tmp);
    try {
      const script = path.join(tmp, 'get.lua');
      writeFileSync(script, wrkScript('get'));
      const target = (name: string, pid: number, url: string): Target => ({ name, pid, run: (s) => runWrk(url, script, DOCS, s, opts.connections, 1), slices: [] });
      const targets = [target('Flora, one process', flora.proc.pid!, flora.url), target('bare node:http, one process', ceiling.pid, ceiling.url)];
      for (const t of targets) await t.run(2); // warm-up
      for (let round = 0; round < opts.rounds; round++) {
        for (let i = 0; i < targets.length; i++) {
          const t = targets[(i + round) % targets.length];
          const s = await slice(t, opts.seconds);
          console.log(`round ${round + 1}: ${t.name.padEnd(30)} ${s.rps.toFixed(0).padStart(6)} req/s, bad ${s.bad}, server ${(s.serverCpu / s.seconds).toFixed(2)} cores`);
        }
      }
      const row = (t: Target) => {
        const rps = median(t.slices.map((s: Slice) => s.rps));
        const us = median(t.slices.map((s: Slice) => (s.serverCpu / s.requests) * 1e6));
        const bad = t.slices.reduce((a, s) => a + s.bad, 0);
        return { rps, us, bad };
      };
      const [f, b] = targets.map(row);
      const ratios = targets[0].slices.map((s, i) => s.rps / targets[1].slices[i].rps);
      printTable(
        ['server', 'req/s (median)', 'server CPU µs/req', 'bad answers'],
        [
          ['Flora, one process', f.rps.toFixed(0), f.us.toFixed(0), String(f.bad)],
          ['bare node:http, one process', b.rps.toFixed(0), b.us.toFixed(0), String(b.bad)],
        ],
      );
      const ratio = f.rps / b.rps;
      console.log(
        `Flora / bare node:http: ${ratio.toFixed(2)} (per round ${ratios.map((r) => r.toFixed(2)).join(' / ')}); ` +
          `target >= ${TARGETS.http1}: ${verdict(ratio >= TARGETS.http1)}`,
      );
    } finally {
      ceiling.stop();
    }
  } finally {
    await flora.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function main(argv: string[]): Promise<void> {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : ['service', 'http1'];
  const opts: Opts = {
    seconds: numberArg('--seconds', 3),
    rounds: numberArg('--rounds', 3),
    concurrency: numberArg('--concurrency', 32),
    connections: numberArg('--connections', 32),
    only,
  };
  console.log(`requests: node ${process.version}, ${DOCS} documents`);
  if (only.includes('service')) await servicePart(opts);
  if (only.includes('http1')) await http1Part(opts);
}
