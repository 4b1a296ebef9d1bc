// `npm run bench -- --deletes [--live 500] [--steps 0,5000,10000,20000]`
// Flat with deletes (issue 17): the time of a page of 20 from an index and from Documents(coll) as
// documents are created and deleted past it, `--live` documents live at any time. Flora's query
// service in this process on LMDB; each figure is the mean of 50 pages, with the query's
// x-byte-read-ops (records read), which should not grow with what was deleted.

import type { QueryService } from '../src/fql/api';
import { printTable, withService } from './harness';

async function query(service: QueryService, body: unknown): Promise<{ ms: number; reads: number }> {
  const t0 = process.hrtime.bigint();
  const r = await service.query({ body: JSON.stringify(body), authorization: 'Bearer secret', timeoutMs: 600_000 });
  if (r.status >= 300) throw new Error(String(r.body));
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, reads: r.metrics?.byteReadOps ?? 0 };
}

async function meanOf(service: QueryService, body: unknown, n = 50): Promise<string> {
  let ms = 0;
  let reads = 0;
  for (let i = 0; i < n; i++) {
    const r = await query(service, body);
    ms += r.ms;
    reads = r.reads;
  }
  return `${(ms / n).toFixed(2)} ms (${reads})`;
}

export async function main(argv: string[]): Promise<void> {
  const at = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const live = Number(at('--live') ?? 500);
  const steps = (at('--steps') ?? '0,5000,10000,20000').split(',').map(Number);
  await withService('deletes', async (service) => {
    await query(service, { create_collection: { object: { name: 'roll' } } });
    await query(service, { create_index: { object: { name: 'all_roll', source: { collection: 'roll' } } } });
    let next = 1;
    const create = async () => {
      const ids = Array.from({ length: live }, () => String(next++));
      await query(service, { do: ids.map((id) => ({ create: { ref: { collection: 'roll' }, id }, params: { object: {} } })) });
      return ids;
    };
    let current = await create();
    let deleted = 0;
    const rows: string[][] = [];
    for (const target of steps) {
      while (deleted < target) {
        const fresh = await create();
        await query(service, { do: current.map((id) => ({ delete: { ref: { collection: 'roll' }, id } })) });
        deleted += current.length;
        current = fresh;
      }
      rows.push([
        String(deleted),
        await meanOf(service, { paginate: { match: { index: 'all_roll' } }, size: 20 }),
        await meanOf(service, { paginate: { documents: { collection: 'roll' } }, size: 20 }),
      ]);
    }
    console.log(`deletes: ${live} documents live, a page of 20, mean of 50 (records read)`);
    printTable(['deleted so far', 'Paginate(Match(all))', 'Paginate(Documents(coll))'], rows);
  });
}
