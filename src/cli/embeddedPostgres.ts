// `flora start --storage embedded-postgres[:port]`: Flora on a PostgreSQL of its own, to try the
// PostgreSQL tier with one command. The cluster lives in the data directory (<data>/postgres, its
// superuser's password in <data>/postgres.password, its output in <data>/postgres.log) and is made
// on the first start, kept for the next ones. The server listens on 127.0.0.1 only, on the port given
// or a free one, and runs as this user, or as the OS user postgres when Flora runs as root (made if
// missing: PostgreSQL refuses to run as root).
//
// It stops when Flora does. A crash of Flora must not leave it behind: a small watchdog (sh, in a
// session of its own like the server, so that a terminal's Ctrl-C reaches Flora alone, which stops it
// once drained) holds a pipe from this process and stops the server when that pipe closes, however
// this process ended. A server left running anyway (the watchdog killed too) is stopped at the next
// start, and a postmaster.pid naming another process (a pid reused after kill -9 or a reboot) is
// removed.

import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as PgClient } from 'pg';
import { EMBEDDED_POSTGRES } from '../config';
import { pidExists } from '../pids';
import type { FloraConfig } from '../fql/api';
import { lockDirectory, type DirLock } from '../storage/dirLock';
import { StoreInUse } from '../storage/engine';
import { ensureOsUser, osUserIds } from './osUser';
import { postgresBinaries, PostgresNotInstalled, type PostgresBinaries } from './postgresBinaries';

/** The URL a tier's supervisor hands its workers, which parse the same command line. */
const URL_ENV = 'FLORA_EMBEDDED_POSTGRES_URL';
/** The OS user the server runs as when Flora runs as root. */
const OS_USER = 'postgres';
/** The database Flora's store is in. */
const DATABASE = 'flora';

const INITDB_MS = 120_000;
const START_MS = 60_000;
const STOP_MS = 60_000;
/** A start on a free port that another process took meanwhile is tried again on another. */
const PORT_ATTEMPTS = 3;

/** A failure to start the cluster: the message says which step and why. */
class ClusterError extends Error {}

/** uid/gid for the server's processes (root only), or {} to run as this user. */
type RunAs = { uid: number; gid: number } | Record<string, never>;

/** In a worker of a tier: the URL of the server its supervisor started. */
export function embeddedPostgresUrl(): string {
  const url = process.env[URL_ENV];
  if (!url) throw new Error(`--storage ${EMBEDDED_POSTGRES} in a worker without ${URL_ENV}`);
  return url;
}

/**
 * Starts the cluster of `config.dataDir` (making it first), runs `run` with its URL, and stops it once
 * `run` resolves; resolves with run's exit code, or 2 with a one-line reason when it cannot start.
 */
export async function underEmbeddedPostgres(config: FloraConfig, run: (url: string) => Promise<number>): Promise<number> {
  const dataDir = path.resolve(config.dataDir);
  let lock: DirLock | undefined;
  let server: Server | undefined;
  try {
    try {
      mkdirSync(dataDir, { recursive: true });
    } catch (e) {
      throw new ClusterError(`cannot make the data directory: ${(e as Error).message}`);
    }
    // One Flora per cluster: a second would take the running server for one left behind.
    lock = await lockDirectory(dataDir);
    server = await startCluster(dataDir, config);
  } catch (e) {
    lock?.release();
    if (!(e instanceof ClusterError || e instanceof PostgresNotInstalled || e instanceof StoreInUse)) throw e;
    process.stderr.write(`flora: cannot start the embedded PostgreSQL: ${e.message}\n`);
    return 2;
  }
  process.stderr.write(
    `flora: PostgreSQL (embedded) serves ${server.pgData} on 127.0.0.1:${server.port} ` +
      `(user postgres, its password in ${path.join(dataDir, 'postgres.password')}; its log: ${server.logFile})\n`,
  );
  process.env[URL_ENV] = server.url;
  try {
    return await run(server.url);
  } finally {
    await server.stop();
    lock?.release();
  }
}

interface Server {
  url: string;
  port: number;
  pgData: string;
  logFile: string;
  stop(): Promise<void>;
}

async function startCluster(dataDir: string, config: FloraConfig): Promise<Server> {
  const bin = postgresBinaries();
  const runAs = await serverUser(dataDir, bin);
  const pgData = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres.password');
  const logFile = path.join(dataDir, 'postgres.log');
  if (!existsSync(path.join(pgData, 'PG_VERSION'))) await initCluster(bin, runAs, pgData, passwordFile, logFile);
  await stopLeftover(pgData);
  const password = readFileSync(passwordFile, 'utf8').trim();
  const configured = Number(/^embedded-postgres:(\d+)$/.exec(config.storage ?? '')?.[1] ?? 0);
  // Every process of the tier keeps up to 20 connections (16 for the store, 4 for the query log).
  const maxConnections = Math.max(100, config.workers * 20 + 10);
  for (let attempt = 1; ; attempt++) {
    const port = configured || (await freePort());
    const logFrom = sizeOf(logFile);
    const log = openSync(logFile, 'a');
    let postmaster: ChildProcess;
    try {
      postmaster = spawn(
        bin.postgres,
        ['-D', pgData, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `max_connections=${maxConnections}`],
        { ...runAs, detached: true, stdio: ['ignore', log, log] },
      );
    } finally {
      closeSync(log);
    }
    const watchdog = watch(postmaster);
    let gone = false;
    const exited = new Promise<number | null>((resolve) => {
      postmaster.once('exit', (code) => resolve(code));
      postmaster.once('error', () => resolve(null)); // not run at all
    }).finally(() => (gone = true));
    const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
    const ready = await whenAccepting(`${base}/postgres`, Date.now() + START_MS, () => gone);
    const stop = stopper(postmaster, exited, watchdog);
    if (ready === true) {
      await createDatabase(`${base}/postgres`).catch(async (e: unknown) => {
        await stop();
        throw new ClusterError(`could not create the database ${DATABASE}: ${(e as Error).message}`);
      });
      void exited.then((code) => {
        if (!stop.called) process.stderr.write(`flora: the embedded PostgreSQL exited (code ${code}); its log: ${logFile}\n`);
      });
      return { url: `${base}/${DATABASE}`, port, pgData, logFile, stop };
    }
    await stop();
    if (typeof ready === 'string') throw new ClusterError(`${ready}; its log (${logFile}) ends:\n${tail(logFile, logFrom)}`);
    const said = tail(logFile, logFrom);
    if (!configured && attempt < PORT_ATTEMPTS && /could not bind|Address already in use/.test(said)) continue;
    throw new ClusterError(`the server exited at start; its log (${logFile}) ends:\n${said}`);
  }
}

/** Stops the server (fast shutdown: sessions end, the data is flushed), and its watchdog first; `called` once asked to. */
function stopper(postmaster: ChildProcess, exited: Promise<unknown>, watchdog: ChildProcess): (() => Promise<void>) & { called: boolean } {
  const stop = async () => {
    stop.called = true;
    watchdog.kill('SIGKILL');
    if (postmaster.exitCode !== null || postmaster.signalCode !== null) return;
    postmaster.kill('SIGINT');
    if ((await Promise.race([exited.then(() => 'exited'), sleep(STOP_MS)])) === 'exited') return;
    process.stderr.write(`flora: the embedded PostgreSQL did not stop within ${STOP_MS / 1000} s: killing it\n`);
    postmaster.kill('SIGKILL');
    await exited;
  };
  stop.called = false;
  return stop;
}

/**
 * A watchdog of the server: once told its pid, it waits for the pipe from this process to close
 * (this process ended, whatever ended it) and then stops the server.
 */
function watch(postmaster: ChildProcess): ChildProcess {
  const dog = spawn('sh', ['-c', 'read -r pid && read -r rest; kill -INT "$pid" 2>/dev/null'], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  dog.once('error', () => undefined); // no sh: the next start stops a server left running
  dog.stdin!.on('error', () => undefined);
  dog.stdin!.write(`${postmaster.pid}\n`);
  dog.unref();
  return dog;
}

/**
 * true once `url` accepts a session; false once the server is `gone`; else why not (it refused the
 * password, or was not ready by `deadline`).
 */
async function whenAccepting(url: string, deadline: number, gone: () => boolean): Promise<boolean | string> {
  for (;;) {
    if (gone()) return false;
    const client = new PgClient({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return true;
    } catch (e) {
      await client.end().catch(() => undefined);
      const code = (e as { code?: unknown }).code;
      if (code === '28P01' || code === '28000') return `the server refused the password in its password file: ${(e as Error).message}`;
    }
    if (Date.now() > deadline) return `the server did not accept connections within ${START_MS / 1000} s`;
    await sleep(100);
  }
}

async function createDatabase(url: string): Promise<void> {
  const client = new PgClient({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/**
 * Makes the cluster: initdb into <data>/postgres.init, renamed once complete, so that an interrupted
 * one is simply made again. Its superuser postgres gets a random password (scram-sha-256 over TCP).
 */
async function initCluster(bin: PostgresBinaries, runAs: RunAs, pgData: string, passwordFile: string, logFile: string): Promise<void> {
  const making = `${pgData}.init`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { mode: 0o700 });
  writeFileSync(passwordFile, `${randomBytes(18).toString('hex')}\n`, { mode: 0o600 });
  if ('uid' in runAs) {
    chownSync(making, runAs.uid, runAs.gid);
    chownSync(passwordFile, runAs.uid, runAs.gid);
  }
  process.stderr.write(`flora: making the embedded PostgreSQL's cluster in ${pgData}\n`);
  const args = [`--pgdata=${making}`, '--username=postgres', `--pwfile=${passwordFile}`, '--auth-host=scram-sha-256', '--auth-local=scram-sha-256', '--encoding=UTF8', '--no-locale'];
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    execFile(bin.initdb, args, { ...runAs, timeout: INITDB_MS, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout, stderr) => {
      writeFileSync(logFile, `${stdout}${stderr}`, { flag: 'a' });
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, text: `${stderr}${error && typeof error.code !== 'number' ? error.message : ''}` });
    });
  });
  if (out.code !== 0) {
    rmSync(making, { recursive: true, force: true });
    throw new ClusterError(`initdb failed (${out.code === null ? 'killed or not run' : `exit ${out.code}`}): ${out.text.trim().split('\n').slice(-5).join('\n')}`);
  }
  renameSync(making, pgData);
}

/**
 * A server of this cluster still running (its Flora and watchdog were killed) is stopped; a
 * postmaster.pid naming a process that is not one is removed, so that PostgreSQL does not take that
 * process for a server of its own.
 */
async function stopLeftover(pgData: string): Promise<void> {
  const pidFile = path.join(pgData, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').split('\n', 1)[0]);
  } catch {
    return;
  }
  if (!(pid > 0) || !pidExists(pid)) return; // PostgreSQL takes over a lock file of a dead process itself
  const command = commandLine(pid);
  if (command === undefined || !command.includes(pgData)) {
    unlinkSync(pidFile);
    return;
  }
  process.stderr.write(`flora: stopping the embedded PostgreSQL (pid ${pid}) an earlier Flora left running\n`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_MS;
  while (pidExists(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(50);
  }
}

/** The command line of `pid` as one string (/proc, else ps), or undefined if it cannot be told. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    // no /proc (macOS): ps below
  }
  try {
    return execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
  } catch {
    return undefined;
  }
}

/**
 * As root: the OS user the server runs as (made if missing), which must reach the data directory
 * and the programs; otherwise {} (this user).
 */
async function serverUser(dataDir: string, bin: PostgresBinaries): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  try {
    await ensureOsUser(OS_USER);
  } catch (e) {
    throw new ClusterError(`PostgreSQL refuses to run as root, and the OS user ${OS_USER} to run it as could not be made: ${(e as Error).message}`);
  }
  const ids = await osUserIds(OS_USER);
  for (const [what, target] of [['the data directory', dataDir], ['PostgreSQL\'s programs', bin.postgres]] as const) {
    if (!(await canReach(target, ids)))
      throw new ClusterError(
        `PostgreSQL runs as the OS user ${OS_USER} when Flora runs as root, and that user cannot reach ${what} (${target}): ` +
          `use a path it can reach (e.g. --data-dir /var/lib/flora; a home folder such as /root is closed to it), or run Flora as another user`,
      );
  }
  return ids;
}

/** Whether the user `ids` may enter (a folder) or run (a program) `target`: the kernel's answer, ACLs included. */
function canReach(target: string, ids: { uid: number; gid: number }): Promise<boolean> {
  return new Promise((resolve) => execFile('test', ['-x', target], { ...ids, timeout: 10_000 }, (error) => resolve(error === null)));
}

/** A port nothing listens on now (another process may take it before the server does: tried again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The last lines of `file` written after its first `from` bytes. */
function tail(file: string, from: number): string {
  try {
    return readFileSync(file).subarray(from).toString('utf8').trimEnd().split('\n').slice(-10).join('\n') || '(nothing)';
  } catch {
    return '(nothing)';
  }
}
