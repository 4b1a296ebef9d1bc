// `node dist/bench/service.js [--seconds 5] [--concurrency 32]`
// Flora's query service in process, with no HTTP and no driver: what the database itself sustains
// for point Get and Create (real storage, real group commit) when the client costs nothing.

import type { QueryService } from '../src/fql/api';
import { DOCUMENT_DATA } from './ceiling';
import { closedLoop, numberArg, runMain, withService, wrap } from './harness';


/** Ops/s of one query body (a fresh body per call) from `concurrency` callers. */
async function run(service: QueryService, body: () => string, seconds: number, concurrency: number): Promise<number> {
  const { ops, secs } = await closedLoop(async () => {
    const r = await service.query({ body: body(), authorization: 'Bearer secret', timeoutMs: 60_000 });
    if (r.status >= 300) throw new Error(String(r.body));
  }, seconds, concurrency);
  return ops / secs;
}

async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 5);
  const concurrency = numberArg('--concurrency', 32);
  const docs = 10_000;
  await withService('service', async (service) => {
    await service.query({ body: JSON.stringify({ create_collection: wrap({ name: 'bench' }) }), authorization: 'Bearer secret', timeoutMs: 60_000 });
    for (let start = 1; start <= docs; start += 1000) {
      const creates = Array.from({ length: 1000 }, (_, i) => ({
        create: { ref: { collection: 'bench' }, id: String(start + i) },
        params: wrap({ data: { ...DOCUMENT_DATA, n: start + i } }),
      }));
      await service.query({ body: JSON.stringify({ do: creates }), authorization: 'Bearer secret', timeoutMs: 600_000 });
    }
    const get = () => JSON.stringify({ get: { ref: { collection: 'bench' }, id: String(1 + Math.floor(Math.random() * docs)) } });
    const createBody = JSON.stringify({ create: { collection: 'bench' }, params: wrap({ data: DOCUMENT_DATA }) });
    await run(service, get, 1, concurrency); // warm-up
    const getOps = await run(service, get, seconds, concurrency);
    const createOps = await run(service, () => createBody, seconds, concurrency);
    console.log(`service (in process, ${concurrency} in flight, ${seconds}s each): point Get ${getOps.toFixed(0)}/s, Create ${createOps.toFixed(0)}/s`);
  });
}

runMain(main);
