// What the isolation workloads run against: one Flora process, `--workers 2` on one LMDB data
// directory, or three independent processes over one PostgreSQL database. Each hands out driver
// clients spread over its processes, and clients that carry a time already seen (read-your-writes).

import { Client } from 'faunadb';
import { Client as PgClient } from 'pg';
import { killWorkers, startFlora, sawTxn, workerPids, type FloraProcess } from '../../test/helpers/server';
import { startPostgres, type Postgres } from '../../test/helpers/postgres';

export type Mode = 'one process' | 'LMDB --workers 2' | 'PostgreSQL, 3 processes' | 'PostgreSQL serializable, 3 processes';
/** The modes a run goes through by default. */
export const MODES: readonly Mode[] = ['one process', 'LMDB --workers 2', 'PostgreSQL, 3 processes', 'PostgreSQL serializable, 3 processes'];
export const isPostgres = (mode: Mode): boolean => mode.startsWith('PostgreSQL');

export interface Target {
  mode: Mode;
  /**
   * A driver client on its own connection to the next process in turn: HTTP/2 (the driver's
   * default) or HTTP/1.1 (its fetch adapter), alternately. `headers` go with every request.
   */
  client(headers?: Record<string, string>): Client;
  /** A client that has seen `ts`: its first read includes every commit up to it. */
  clientAfter(ts: number, headers?: Record<string, string>): Client;
  /** The next process's address in turn, for plain HTTP requests (each on a fresh connection). */
  endpoint(): string;
  secret: string;
  /**
   * kill -9 of one process of a tier (in turn), which is replaced; resolves once the tier serves
   * again. Absent for one process (its restart is the crash part's business).
   */
  killOne?(): Promise<void>;
  /** Why a process is down that nobody killed (a crash fails the run), or undefined. */
  alive(): string | undefined;
  stop(): Promise<void>;
}

const SERVER_ENV = { FLORA_LOG_QUERIES: 'false' };

function spread(urls: () => string[], secret: string, procs: () => FloraProcess[], stopAll: () => Promise<void>, mode: Mode, killOne?: () => Promise<void>): Target {
  const opened: Client[] = [];
  let n = 0;
  /** The next process's address in turn; every other call's client goes over HTTP/1.1. */
  const next = () => {
    const list = urls();
    return { endpoint: list[n % list.length], http1: n++ % 2 === 1 };
  };
  const client = (headers: Record<string, string> = {}) => {
    const { endpoint, http1 } = next();
    const c = new Client({ secret, endpoint, headers, ...(http1 ? { fetch: globalThis.fetch as never } : {}) });
    opened.push(c);
    return c;
  };
  return {
    mode,
    client,
    killOne,
    secret,
    endpoint: () => next().endpoint,
    clientAfter(ts, headers) {
      const c = client(headers);
      if (ts > 0) sawTxn(c, ts);
      return c;
    },
    alive() {
      const dead = procs().find((p) => p.proc.exitCode !== null || p.proc.signalCode !== null);
      return dead ? `a Flora process exited (${dead.proc.exitCode ?? dead.proc.signalCode}): ${dead.stderr().slice(-1500)}` : undefined;
    },
    async stop() {
      // (The fetch adapter can throw synchronously when aborting a request to a stopped process.)
      await Promise.all(opened.splice(0).map((c) => Promise.resolve().then(() => c.close({ force: true })).catch(() => undefined)));
      await stopAll();
    },
  };
}

let pg: Promise<Postgres> | undefined;

/** The embedded PostgreSQL of this run, started on first use; stopped by stopPostgres(). */
async function postgres(): Promise<Postgres> {
  pg ??= startPostgres();
  return pg;
}

export async function stopPostgres(): Promise<void> {
  const started = pg;
  pg = undefined;
  if (started) await (await started).stop();
}

export async function startTarget(mode: Mode): Promise<Target> {
  if (mode === 'one process') {
    const p = await startFlora({ env: SERVER_ENV });
    return spread(() => [p.url], p.secret, () => [p], async () => void (await p.stop()), mode);
  }
  if (mode === 'LMDB --workers 2') {
    const p = await startFlora({ env: SERVER_ENV, args: ['--workers', '2'] });
    let kills = 0;
    // (The supervisor replaces a killed worker; the supervisor itself must stay up.)
    const killOne = () => killWorkers(p, [workerPids(p)[kills++ % 2]]);
    return spread(() => [p.url], p.secret, () => [p], async () => void (await p.stop()), mode, killOne);
  }
  const name = `iso_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const url = await (await postgres()).newDatabase(name);
  if (mode === 'PostgreSQL serializable, 3 processes') {
    // The database's default isolation (PostgreSQL's own is read committed): the commit protocol must hold under any.
    const admin = new PgClient({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${name} SET default_transaction_isolation = 'serializable'`);
    await admin.end();
  }
  const settled = await Promise.allSettled([0, 1, 2].map(() => startFlora({ env: SERVER_ENV, args: ['--storage', url] })));
  const procs = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    throw failed.reason;
  }
  let kills = 0;
  const killOne = async () => {
    const i = kills++ % procs.length;
    await procs[i].stop('SIGKILL');
    procs[i] = await startFlora({ env: SERVER_ENV, args: ['--storage', url] });
  };
  return spread(() => procs.map((p) => p.url), procs[0].secret, () => procs, async () => void (await Promise.all(procs.map((p) => p.stop()))), mode, killOne);
}
