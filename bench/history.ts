// `node dist/bench/history.js [--seconds 2] [--rounds 5] [--versions 10000]`
// History reads on one document with many versions, against a plain Get of it now (same run,
// interleaved rounds, in process: no HTTP, no driver, so the ratio is the storage's): an Events
// page of 64 from the start and from the middle, and Get at a past ts (middle of the history).

import type { QueryService } from '../src/fql/api';
import { closedLoop, numberArg, runMain, withService } from './harness';

const AUTH = 'Bearer secret';
const REF = { ref: { collection: 'hist' }, id: '1' };

async function query(service: QueryService, body: unknown): Promise<string> {
  const r = await service.query({ body: typeof body === 'string' ? body : JSON.stringify(body), authorization: AUTH, timeoutMs: 600_000 });
  if (r.status >= 300) throw new Error(String(r.body));
  return String(r.body);
}

async function rate(service: QueryService, body: string, seconds: number, concurrency: number): Promise<number> {
  const { ops, secs } = await closedLoop(() => query(service, body), seconds, concurrency);
  return ops / secs;
}

async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 2);
  const rounds = numberArg('--rounds', 5);
  const versions = numberArg('--versions', 10_000);
  const concurrency = 8;
  await withService('history', async (service) => {
    await query(service, { create_collection: { object: { name: 'hist', history_days: null } } });
    await query(service, { create: REF, params: { object: { data: { object: { n: 0 } } } } });
    const stamps: bigint[] = [];
    const started = Date.now();
    for (let n = 1; n < versions; n++) {
      const body = await query(service, { select: 'ts', from: { update: REF, params: { object: { data: { object: { n } } } } } });
      stamps.push(BigInt(JSON.parse(body).resource));
    }
    console.log(`${versions} versions written in ${((Date.now() - started) / 1000).toFixed(1)} s (one transaction each)`);
    const middle = stamps[Math.floor(stamps.length / 2)];
    const cases: [string, string][] = [
      ['Get now', JSON.stringify({ get: REF })],
      ['Get at a past ts', JSON.stringify({ get: REF, ts: Number(middle) })],
      ['Events page (64) from the start', JSON.stringify({ paginate: { events: REF }, size: 64 })],
      ['Events page (64) from the middle', JSON.stringify({ paginate: { events: REF }, size: 64, after: Number(middle) })],
    ];
    const totals = new Map<string, number>(cases.map(([name]) => [name, 0]));
    for (const [, body] of cases) await rate(service, body, 0.3, concurrency); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const [name, body] of cases) totals.set(name, totals.get(name)! + (await rate(service, body, seconds, concurrency)));
    }
    const base = totals.get('Get now')! / rounds;
    console.log(`in process, ${concurrency} in flight, ${rounds} interleaved rounds × ${seconds}s:`);
    for (const [name] of cases) {
      const ops = totals.get(name)! / rounds;
      console.log(`  ${name.padEnd(34)} ${ops.toFixed(0).padStart(7)} ops/s  (ratio to Get now ${(ops / base).toFixed(2)})`);
    }
  });
}

runMain(main);
