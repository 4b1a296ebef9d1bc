// `node dist/bench/twoProcesses.js [--seconds 5] [--rounds 5] [--docs 10000]`
// Issue 31: is what a tier loses against one worker the tier's (its shared LMDB, head reads, ticks,
// the supervisor) or any second Flora process's? Point Gets from wrk (32 connections in all), in
// interleaved rounds with a rotating first, against: one Flora `--workers 1`; two independent Flora
// `--workers 1` processes (their own data folders and ports, nothing shared), 16 connections each
// from two wrk; and the tier `--workers 2`. Server CPU is read from /proc around every slice.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client, query as q } from 'faunadb';
import { startFlora, type FloraProcess } from '../test/helpers/server';
import { DOCUMENT_DATA } from './ceiling';
import { numberArg, runMain } from './harness';
import { cpuWindow } from './procCpu';
import { runWrk, wrkScript } from './wrk';

async function populate(f: FloraProcess, docs: number): Promise<void> {
  const client = new Client({ secret: f.secret, endpoint: f.url });
  await client.query(q.CreateCollection({ name: 'bench' }));
  for (let start = 1; start <= docs; start += 1000) {
    const creates = [];
    for (let id = start; id < Math.min(docs + 1, start + 1000); id++) creates.push(q.Create(q.Ref(q.Collection('bench'), String(id)), { data: { ...DOCUMENT_DATA, n: id } }));
    await client.query(q.Do(...creates), { queryTimeout: 600_000 });
  }
  await client.close({ force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fmt = (x: number, d = 0) => x.toFixed(d);

async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 5);
  const rounds = numberArg('--rounds', 5);
  const docs = numberArg('--docs', 10_000);
  process.env.FLORA_NO_BUILD_CHECK = '1';
  const tmp = mkdtempSync(path.join(tmpdir(), 'flora-two-'));
  const script = path.join(tmp, 'get.lua');
  writeFileSync(script, wrkScript('get'));
  const servers: FloraProcess[] = [];
  try {
    for (const args of [[], [], ['--workers', '2']]) servers.push(await startFlora({ args }));
    const [a, b, tier] = servers;
    for (const f of servers) await populate(f, docs);
    for (const f of servers) await runWrk(f.url, script, docs, 3, 32, 1); // JIT, LMDB pages
    const get = async (f: FloraProcess, connections: number) => {
      const g = await runWrk(f.url, script, docs, seconds, connections, 1);
      if (g.bad > 0) throw new Error(`${g.bad} answers from ${f.url} were not 200`);
      return g.requests / g.seconds;
    };
    const targets: { name: string; pids: number[]; run(): Promise<number>; rps: number[]; us: number[] }[] = [
      { name: 'one Flora --workers 1', pids: [a.proc.pid!], run: () => get(a, 32), rps: [], us: [] },
      { name: 'two independent Flora --workers 1', pids: [a.proc.pid!, b.proc.pid!], run: async () => (await Promise.all([get(a, 16), get(b, 16)])).reduce((x, y) => x + y), rps: [], us: [] },
      { name: 'Flora --workers 2 (the tier)', pids: [tier.proc.pid!], run: () => get(tier, 32), rps: [], us: [] },
    ];
    console.log(`two processes: ${rounds} interleaved rounds of ${seconds}s, ${docs} documents, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(i + round) % targets.length];
        const end = cpuWindow(Object.fromEntries(t.pids.map((p) => [String(p), p])));
        const rps = await t.run();
        const c = end();
        const cpu = Object.values(c.trees).reduce((x, y) => x + y, 0);
        t.rps.push(rps);
        t.us.push((cpu / (rps * c.wall)) * 1e6);
        console.log(
          `round ${round + 1}: ${t.name.padEnd(34)} ${fmt(rps).padStart(6)} req/s, server ${fmt(cpu / c.wall, 2)} cores, ` +
            `${fmt(t.us.at(-1)!)} µs/req, machine ${fmt(c.machine / c.wall, 2)} busy, load ${loadavg()[0].toFixed(2)}`,
        );
      }
    }
    const [one, two, tierT] = targets;
    const ratio = (x: (typeof targets)[number]) =>
      `${fmt(median(x.rps) / median(one.rps), 2)} (per round ${x.rps.map((r, i) => fmt(r / one.rps[i], 2)).join(' / ')})`;
    for (const t of targets) console.log(`${t.name}: median ${fmt(median(t.rps))} req/s, ${fmt(median(t.us))} server µs/req`);
    console.log(`two independent / one: ${ratio(two)}`);
    console.log(`tier / one: ${ratio(tierT)}`);
  } finally {
    for (const f of servers) await f.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) runMain(main);
