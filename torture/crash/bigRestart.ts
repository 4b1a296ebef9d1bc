// Restart time of a large store: fill a fresh data directory with `gb` GB of documents, kill the
// server with SIGKILL while it writes, and time the restart (until it listens, and until its first
// query is answered). The documents acknowledged must all be there, whole transactions only.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { query as q, type Expr } from 'faunadb';
import { everything } from './observe';
import { clients, startFlora } from '../../test/helpers/server';
import { prng } from '../../test/helpers/prng';

const DOC_BYTES = 128 * 1024;
const DOCS_PER_QUERY = 32;

export async function fillAndRestart(gb: number, seed: number, log: (line: string) => void): Promise<{ gb: number; restartMs: number; firstQueryMs: number; problems: string[] }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'flora-big-'));
  const rand = prng(seed);
  const problems: string[] = [];
  try {
    let srv = await startFlora({ dataDir, env: { FLORA_LOG_QUERIES: 'false' } });
    let drivers = clients(srv.url, srv.secret);
    await drivers.h1.query(q.CreateCollection({ name: 'bulk' }));
    const queries = Math.ceil((gb * 1024 ** 3) / (DOC_BYTES * DOCS_PER_QUERY));
    let acked = 0;
    let sent = 0;
    let killing = false;
    let stopped: Promise<number> | undefined;
    // Once the store holds the size, the kill lands while the other writer's transaction is in flight.
    const target = queries - 4;
    const started = Date.now();
    // Random text per document, so nothing below could make the store smaller than its data.
    const chunk = () => Array.from({ length: 64 }, () => String.fromCharCode(33 + Math.floor(rand() * 90))).join('');
    const writer = async () => {
      while (!killing && sent < queries) {
        sent++;
        const docs = Array.from({ length: DOCS_PER_QUERY }, () => q.Create(q.Collection('bulk'), { data: { s: q.Repeat(chunk(), DOC_BYTES / 64) } }));
        try {
          await drivers.h2.query(docs);
          acked++;
          if (acked >= target && !killing) {
            killing = true;
            stopped = srv.stop('SIGKILL');
          }
        } catch (e) {
          if (!killing) throw e;
        }
        if (acked % 32 === 0) log(`  filling: ${((acked * DOC_BYTES * DOCS_PER_QUERY) / 1024 ** 3).toFixed(2)} GB in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
    };
    await Promise.all([writer(), writer()]);
    await (stopped ?? srv.stop('SIGKILL'));
    await drivers.close();

    const t0 = Date.now();
    srv = await startFlora({ dataDir, env: { FLORA_LOG_QUERIES: 'false' } });
    const restartMs = Date.now() - t0;
    drivers = clients(srv.url, srv.secret);
    await drivers.h1.query(q.Exists(q.Collection('bulk')));
    const firstQueryMs = Date.now() - t0;
    // Refs a page at a time: a count in one query would read a GB of documents, past a query's memory.
    const count = (await everything<unknown>(drivers.h1, (after) => q.Paginate(q.Documents(q.Collection('bulk')), after === undefined ? { size: 256 } : { size: 256, after: after as Expr }))).length;
    if (count < acked * DOCS_PER_QUERY || count > sent * DOCS_PER_QUERY || count % DOCS_PER_QUERY !== 0)
      problems.push(`${count} documents after the restart: ${acked} transactions of ${DOCS_PER_QUERY} acknowledged, ${sent} sent`);
    log(`  ${gb} GB: restart ${restartMs} ms, first query ${firstQueryMs} ms; ${count} documents (${acked} × ${DOCS_PER_QUERY} acknowledged)`);
    await drivers.close();
    await srv.stop('SIGKILL');
    return { gb, restartMs, firstQueryMs, problems };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
