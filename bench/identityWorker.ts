// One side of bench/identity.ts: the query service of the build under `--root` (a compiled tree's
// dist/ folder), in this process, measured for point Get, Create and a 64-entry Paginate(Match).
// Documents hold a ref each, so reads pay for naming stored refs. Prints one JSON line.

import path from 'node:path';
import type { QueryService } from '../src/fql/api';
import { DOCUMENT_DATA } from './ceiling';

const AUTH = 'Bearer secret';
const DOCS = 10_000;
const GROUPS = Math.ceil(DOCS / 64); // 64 entries per term

function arg(name: string): string {
  const i = process.argv.indexOf(name);
  if (i < 0 || process.argv[i + 1] === undefined) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
}

function wrap(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(wrap);
  if (v && typeof v === 'object' && !('@ref' in v) && !('collection' in v)) return { object: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)])) };
  return v;
}

async function main(): Promise<void> {
  const root = path.resolve(arg('--root'));
  const seconds = Number(arg('--seconds'));
  const concurrency = 32;
  // The harness of the measured build, so each side runs its own code.
  const { withService, closedLoop } = require(path.join(root, 'bench', 'harness')) as typeof import('./harness');
  const q = (service: QueryService, body: string) =>
    service.query({ body, authorization: AUTH, timeoutMs: 600_000 }).then((r) => {
      if (r.status >= 300) throw new Error(String(r.body));
      return r;
    });
  const rate = async (service: QueryService, body: () => string) => {
    const { ops, secs } = await closedLoop(() => q(service, body()), seconds, concurrency);
    return ops / secs;
  };
  const result = await withService('identity', async (service) => {
    await q(service, JSON.stringify({ create_collection: wrap({ name: 'bench' }) }));
    await q(service, JSON.stringify({ create_index: wrap({ name: 'by_group', source: { collection: 'bench' }, terms: [{ field: ['data', 'group'] }] }) }));
    for (let start = 1; start <= DOCS; start += 1000) {
      const creates = Array.from({ length: 1000 }, (_, i) => ({
        create: { ref: { collection: 'bench' }, id: String(start + i) },
        params: wrap({ data: { ...DOCUMENT_DATA, n: start + i, group: (start + i) % GROUPS, owner: { ref: { collection: 'bench' }, id: '1' } } }),
      }));
      await q(service, JSON.stringify({ do: creates }));
    }
    const get = () => JSON.stringify({ get: { ref: { collection: 'bench' }, id: String(1 + Math.floor(Math.random() * DOCS)) } });
    const create = JSON.stringify({ create: { collection: 'bench' }, params: wrap({ data: { ...DOCUMENT_DATA, owner: { ref: { collection: 'bench' }, id: '1' } } }) });
    const match = () => JSON.stringify({ paginate: { match: { index: 'by_group' }, terms: Math.floor(Math.random() * GROUPS) }, size: 64 });
    await rate(service, get); // warm-up
    return { get: await rate(service, get), create: await rate(service, () => create), match: await rate(service, match) };
  });
  console.log(JSON.stringify(result));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
