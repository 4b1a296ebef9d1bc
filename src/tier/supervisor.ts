// `flora start --workers N`: a supervisor process and N workers (node:cluster) that share the port
// (the supervisor hands each accepted connection to a worker in turn) and the store. With LMDB the
// supervisor owns the data directory (its lock) and upgrades it before any worker opens it; the
// workers commit through the store's shared mode. With PostgreSQL it checks the store is reachable
// and upgraded first, so a bad URL is one message and exit 2, not N.
//
// A worker that dies (a crash, kill -9) is replaced; the others keep serving, and are told to free
// the LMDB reader slot it may have left. Acknowledged writes are durable before they are
// acknowledged, so a dead worker loses none. SIGTERM or SIGINT stop every worker gracefully (a second
// one drops in-flight requests), then the supervisor exits.

import cluster, { type Worker } from 'node:cluster';
import { mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import type { FloraConfig } from '../fql/api';
import { openEngine } from '../flora';
import { log } from '../diag/log';
import { lockDirectory, type DirLock } from '../storage/dirLock';
import { isWorkerMessage, TIER_PORTS_ENV, type SupervisorMessage, type WorkerMessage } from './messages';
import { tierMetrics } from './metricsTier';

/** More restarts than this within RESTART_WINDOW_MS: the workers cannot run; the tier stops. */
const MAX_RESTARTS = 10;
const RESTART_WINDOW_MS = 60_000;

export interface Announce {
  /** Once every worker listens (the line tests and scripts wait for); `pids` are the workers'. */
  listening(address: string, extra: { graphqlAddress?: string; metricsAddress?: string }, pids: number[]): void;
  /** Once every worker has closed its listeners. */
  stopping(): void;
}

/**
 * Runs the tier until a signal stops it; resolves with the exit code. Throws what opening the store
 * throws (StoreInUse, StorageUnavailable, FormatError) before any worker starts.
 */
export async function supervise(config: FloraConfig, announce: Announce): Promise<number> {
  let lock: DirLock | undefined;
  if (!config.storage) {
    mkdirSync(config.dataDir, { recursive: true });
    lock = await lockDirectory(config.dataDir);
  }
  try {
    // The workers are forked only onto a store that opens and is in this release's format.
    await (await openEngine(config, { worker: true })).close();
    return await new Tier(config, announce, await concretePorts(config), lock).run();
  } finally {
    lock?.release();
  }
}

class Tier {
  private readonly workers = new Set<Worker>();
  private readonly listening = new Set<Worker>();
  private readonly stopped = new Set<Worker>();
  private started = false;
  private stopping = false;
  private exitCode = 0;
  private restarts: number[] = [];

  private done!: (code: number) => void;

  constructor(
    private readonly config: FloraConfig,
    private readonly announce: Announce,
    /** `port,graphqlPort,metricsPort` every worker listens on (tierPorts() reads it in the worker). */
    private readonly ports: string,
    /** The data directory's lock, which names the workers so that none outlives it unseen. */
    private readonly lock: DirLock | undefined,
  ) {}

  run(): Promise<number> {
    const finished = new Promise<number>((resolve) => (this.done = resolve));
    // Workers run the same command line; the build was checked once, by this process.
    cluster.setupPrimary({ silent: false, execArgv: workerExecArgv(process.execArgv, process.env.NODE_OPTIONS) });
    for (let i = 0; i < this.config.workers; i++) this.fork();
    let signals = 0;
    const onSignal = () => this.stop(++signals > 1);
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // With TLS, SIGHUP rereads the certificate: every worker serves it (each also watches the files).
    const onHangup = () => {
      for (const w of this.workers) w.process.kill('SIGHUP');
    };
    if (this.config.tlsCert) process.on('SIGHUP', onHangup);
    return finished.finally(() => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('SIGHUP', onHangup);
    });
  }

  private fork(): Worker {
    const worker = cluster.fork({ FLORA_NO_BUILD_CHECK: '1', [TIER_PORTS_ENV]: this.ports });
    this.workers.add(worker);
    worker.on('message', (m: unknown) => {
      if (isWorkerMessage(m)) this.onMessage(worker, m);
    });
    worker.on('exit', (code, signal) => this.onExit(worker, code, signal));
    this.recordMembers();
    return worker;
  }

  private onMessage(worker: Worker, m: WorkerMessage): void {
    if (m.type === 'metrics-request') {
      const id = m.id;
      tierMetrics().then(
        (text) => this.send(worker, { type: 'metrics', id, text }),
        (err: unknown) => this.send(worker, { type: 'metrics', id, error: (err as Error).message }),
      );
    } else if (m.type === 'listening') {
      this.listening.add(worker);
      if (this.stopping) this.send(worker, { type: 'stop', force: false });
      else if (this.started) log.info(`worker ${worker.process.pid} serves again`, { workerPid: worker.process.pid });
      else if (this.listening.size === this.config.workers) {
        this.started = true;
        this.announce.listening(m.address, { graphqlAddress: m.graphqlAddress, metricsAddress: m.metricsAddress }, [...this.workers].map((w) => w.process.pid!));
      }
    } else {
      this.stopped.add(worker);
      if (this.stopping && [...this.workers].every((w) => this.stopped.has(w))) this.announce.stopping();
    }
  }

  private recordMembers(): void {
    this.lock?.members([...this.workers].map((w) => w.process.pid!).filter(Boolean));
  }

  private onExit(worker: Worker, code: number | null, signal: string | null): void {
    this.workers.delete(worker);
    this.recordMembers();
    this.listening.delete(worker);
    this.stopped.delete(worker);
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (this.stopping) {
      if (code !== 0) this.exitCode = code ?? 1;
      if (this.workers.size === 0) this.done(this.exitCode);
      return;
    }
    if (!this.started) {
      // A worker that cannot start (its reason is on stderr already): none of them will.
      log.error(`a worker ${how} while starting; stopping`, { workerPid: worker.process.pid, code, signal });
      this.exitCode = code && code > 0 ? code : 1;
      this.stop(true);
      return;
    }
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    if (this.restarts.length >= MAX_RESTARTS) {
      log.error(`worker ${worker.process.pid} ${how}; workers keep failing, stopping`, { workerPid: worker.process.pid, code, signal });
      this.exitCode = 1;
      this.stop(false);
      return;
    }
    this.restarts.push(now);
    for (const w of this.workers) this.send(w, { type: 'reader-check' });
    const next = this.fork();
    log.warn(`worker ${worker.process.pid} ${how}; started worker ${next.process.pid}`, { workerPid: worker.process.pid, code, signal, newWorkerPid: next.process.pid });
  }

  /** Graceful stop of every worker; `force` drops their in-flight requests. */
  private stop(force: boolean): void {
    this.stopping = true;
    if (this.workers.size === 0) this.done(this.exitCode);
    for (const w of this.workers) this.send(w, { type: 'stop', force });
  }

  private send(worker: Worker, m: SupervisorMessage): void {
    // A worker killed a moment ago can still look connected: the write then fails (EPIPE), and
    // without a callback that failure is an 'error' event that would bring the supervisor down.
    // Its exit is handled on its own.
    if (worker.isConnected()) worker.send(m, () => undefined);
  }
}

/**
 * The tier's ports as numbers: port 0 is resolved here, once. Workers share the supervisor's
 * listening socket only while they all ask for the same address and port, and a replacement must
 * find the port the others serve (with 0 it would get another one once all had died).
 */
async function concretePorts(config: FloraConfig): Promise<string> {
  const resolve = async (port: number | undefined, host = config.host): Promise<string> => {
    if (port === undefined) return '';
    if (port !== 0) return String(port);
    const probe = createServer();
    await new Promise<void>((ok, fail) => probe.once('error', fail).listen(0, host, ok));
    const free = (probe.address() as AddressInfo).port;
    await new Promise((ok) => probe.close(ok));
    return String(free);
  };
  const metrics = config.metricsListen;
  return `${await resolve(config.port)},${await resolve(config.graphqlPort)},${await resolve(metrics?.port, metrics?.host)}`;
}

/**
 * The workers' Node options: the supervisor's, with a young-generation semi-space of 32 MiB unless
 * one is set, and never smaller than its maximum. Every request allocates short-lived objects; at
 * Node's default (16 MiB) a worker under load spent up to a third of its CPU in scavenges
 * (bench/RESULTS.md, issue 17). A maximum alone is not enough: V8 starts the semi-space small, grows
 * it only as scavenges find survivors, and shrinks it again when the process idles; bench rounds on
 * a tier then began with 7–16 MiB and up to 3.5× the scavenges per request (issue 31). V8 reads the
 * sizes only at start, hence here rather than in the worker.
 */
export function workerExecArgv(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)];
  const flag = (name: string) => given.find((a) => new RegExp(`^--${name}[-_]semi[-_]space[-_]size\\b`).test(a));
  if (flag('min')) return [...execArgv];
  const max = flag('max');
  const mb = max ? /=(\d+)$/.exec(max)?.[1] : String(YOUNG_SEMI_SPACE_MB);
  if (!mb) return [...execArgv]; // `--max-semi-space-size 64` (a separate value): left as given
  return [...execArgv, ...(max ? [] : [`--max-semi-space-size=${mb}`]), `--min-semi-space-size=${mb}`];
}

export const YOUNG_SEMI_SPACE_MB = 32;
