// The `flora` command. `flora start` runs the server until SIGTERM/SIGINT.

import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configHelp, DEFAULT_ROOT_SECRET, EMBEDDED_POSTGRES, loadConfig } from '../config';
import { configureLog, log } from '../diag/log';
import { didYouMean, unknownOption } from '../suggest';
import { failpoint } from '../failpoints';
import { startServer, type RunningServer } from '../server/server';
import { buildGraphqlRouter } from '../server/routes';
import type { FloraConfig } from '../fql/api';
import { fromSupervisor, inTier, tellSupervisor, tierPorts, workerNumber } from '../tier/messages';

const USAGE = `Usage: flora <command> [options]

Commands:
  start        Start the server (HTTP/1.1 and HTTP/2 on one port)
  shell        An interactive FQL shell: v10, and v4 in the JavaScript driver's syntax (see 'flora shell --help')
  eval         Run FQL (v10, or v4 in the driver's syntax) from the command line or a file and print the results (see 'flora eval --help')
  export       Export a database tree at one transaction time (see 'flora export --help')
  export-logs  Export the query log of a time range (see 'flora export-logs --help')
  import       Import a Fauna export, driver dumps or schema files (see 'flora import --help')
  backup       Download a consistent backup of the whole server (see 'flora backup --help')
  restore      Restore a backup into a new store (see 'flora restore --help')
  cert         Make a self-signed certificate and key for --tls-cert/--tls-key (see 'flora cert --help')

Options for start (flags win over environment variables):
${configHelp()}

  -h, --help                Show this help
  -v, --version             Show Flora's version
`;

const COMMANDS = ['start', 'shell', 'eval', 'export', 'export-logs', 'import', 'backup', 'restore', 'cert', 'help'];

/** Runs the CLI; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  // As node and npm answer it.
  if (command === '--version' || command === '-v') {
    process.stdout.write(`flora ${version()}\n`);
    return 0;
  }
  if (command === 'export') return (await import('./export')).exportDatabase(rest); // database export client
  if (command === 'export-logs') return (await import('./exportLogs')).exportLogs(rest); // query-log export client
  if (command === 'import') return (await import('./import')).importCommand(rest);
  if (command === 'shell') return (await import('./shellCommand')).shellCommand(rest);
  if (command === 'eval') return (await import('./eval')).evalCommand(rest);
  if (command === 'backup') return (await import('./backup')).backup(rest);
  if (command === 'cert') return (await import('./cert')).certCommand(rest);
  if (command === 'restore') return (await import('./restore')).restore(rest);
  if (command === undefined) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (command !== 'start') {
    const what = command.startsWith('-') ? unknownOption(command, ['--help', '--version']) : `Unknown command '${command}'.${didYouMean(command, COMMANDS)}`;
    process.stderr.write(`flora: ${what}\n\nRun 'flora --help' for the commands.\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  return start(rest);
}

/**
 * Whether a configuration that failed to load asked for JSON logs (flag, else environment), so that
 * its error reaches a log shipper as JSON too; read leniently, since the configuration did not load.
 */
function asksForJsonLog(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i]!;
    if (a.startsWith('--log-format=')) return a.slice('--log-format='.length).toLowerCase() === 'json';
    if (a === '--log-format') return args[i + 1]?.toLowerCase() === 'json';
  }
  return env.FLORA_LOG_FORMAT?.toLowerCase() === 'json';
}

/** `storage`: the URL of the embedded PostgreSQL this process started, in place of `--storage embedded-postgres`. */
async function start(args: readonly string[], storage?: string): Promise<number> {
  let config;
  try {
    config = loadConfig(args, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      if (asksForJsonLog(args, process.env)) {
        configureLog({ format: 'json', worker: 'main', secrets: [] });
        log.error(err.message, { help: "Run 'flora --help' for the options." });
      } else process.stderr.write(`flora: ${err.message}\n\nRun 'flora --help' for the options.\n`);
      return err.exitCode;
    }
    throw err;
  }
  configureLog({
    format: config.logFormat ?? 'text',
    worker: inTier() ? String(workerNumber()) : config.workers > 1 ? 'supervisor' : 'main',
    // The default root secret is printed in the README and --help: hiding the word helps no one.
    secrets: config.rootSecret === DEFAULT_ROOT_SECRET ? [] : [config.rootSecret],
  });
  if (config.tlsCert && config.tlsKey && !inTier()) {
    // Checked once, before any store opens or worker starts: a typo in a path is said plainly.
    const { readTlsPair, TlsFilesError } = await import('../server/tlsFiles');
    try {
      readTlsPair({ cert: config.tlsCert, key: config.tlsKey });
    } catch (err) {
      if (!(err instanceof TlsFilesError)) throw err;
      log.error(err.message);
      return 1;
    }
  }
  if (!inTier()) {
    // Before the data directory is created or a worker starts.
    const { unlistenable } = await import('./portCheck');
    const refused = await unlistenable(config);
    if (refused) {
      process.stderr.write(`flora: ${refused}\n`);
      return 1;
    }
  }
  // After the port check, so that a port in use starts no PostgreSQL and makes no cluster.
  if (storage !== undefined) config = { ...config, storage };
  else if (config.storage?.startsWith(EMBEDDED_POSTGRES)) {
    const embedded = await import('./embeddedPostgres');
    if (!inTier()) return embedded.underEmbeddedPostgres(config, (url) => start(args, url));
    config = { ...config, storage: embedded.embeddedPostgresUrl() };
  }
  if (config.workers > 1 && !inTier()) return superviseTier(config, args);
  const ports = tierPorts();
  if (ports) {
    const { metricsPort, ...served } = ports;
    config = { ...config, ...served, ...(config.metricsListen && metricsPort !== undefined ? { metricsListen: { ...config.metricsListen, port: metricsPort } } : {}) };
  }

  // A worker that cannot start, for the supervisor's test (a port in use is found before any starts).
  if (inTier()) failpoint('tier.worker-start');
  // Loaded here so that `flora --help` and config errors never open the storage stack.
  const { createFlora } = await import('../flora');
  let service;
  try {
    service = await createFlora(config, { worker: inTier() });
  } catch (err) {
    const code = await openingFailure(err);
    if (code === undefined) throw err;
    return code;
  }
  let server;
  const { LogSystem } = await import('../logs/index'); // query log + log-export API
  let logs;
  try {
    logs = await LogSystem.open(config, service);
  } catch (err) {
    await service.close().catch(() => undefined);
    log.error(`cannot open the query log: ${(err as Error).message}`);
    return 1;
  }
  const jobLimits = { running: config.jobsRunning, kept: config.jobsKept, retentionMs: config.jobRetentionDays * 86_400_000 };
  const { BackupApi } = await import('../server/backupApi');
  const backups = new BackupApi(service, service.tier.store, config.dataDir, config.storage ? 'postgres' : 'lmdb', jobLimits);
  const { TransferApi } = await import('../server/transferApi');
  const transfers = new TransferApi(service, { dataDir: config.dataDir, importDir: config.importDir, limits: jobLimits });
  const { JobHousekeeping } = await import('../server/jobHousekeeping');
  // LMDB workers share one data directory: one of them at a time prunes it. On PostgreSQL each machine has its own.
  const sharedDir = service.tier.store.shared && !config.storage ? service.tier.leases : undefined;
  const housekeeping = new JobHousekeeping(service, config.rootSecret, transfers.jobs, backups.jobs, sharedDir);
  const { Health } = await import('../server/health');
  const health = new Health();
  // /metrics: this process's registry; in a tier, a scrape answers for every worker (tier/metricsTier.ts).
  const { ServerMetrics } = await import('../server/serverMetrics');
  const { metricsRegistry } = await import('../server/metricsRegistry');
  const metrics = new ServerMetrics();
  const registry = metricsRegistry({ requests: metrics, service, logs });
  const scrape = inTier() ? (await import('../tier/metricsTier')).workerScrape(registry) : () => registry.metrics();
  try {
    // The log system and the service are closed here once every listener has drained and the
    // housekeeping pass under way has ended (running.close), not by the listener.
    server = await startServer(service, config, { logs, ownsService: false, backups, transfers, admin: config.admin, health, metrics, scrape });
  } catch (err) {
    await logs.close().catch(() => undefined);
    await service.close().catch(() => undefined);
    log.error(`cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
    return 1;
  }
  // GraphQL-only port (DECISIONS #6), when configured.
  let graphqlServer: RunningServer | undefined;
  if (config.graphqlPort !== undefined) {
    try {
      graphqlServer = await startServer(service, { ...config, port: config.graphqlPort }, { router: buildGraphqlRouter(service, health), ownsService: false, logs, metrics });
    } catch (err) {
      await server.close().catch(() => undefined);
      await logs.close().catch(() => undefined);
      await service.close().catch(() => undefined);
      log.error(`cannot listen on ${config.host}:${config.graphqlPort}: ${(err as Error).message}`);
      return 1;
    }
  }

  // /metrics without a secret, in cleartext, on its own address (--metrics-listen), when configured.
  let metricsServer: RunningServer | undefined;
  if (config.metricsListen) {
    const { metricsOnlyRouter } = await import('../server/metricsApi');
    const { host, port } = config.metricsListen;
    try {
      metricsServer = await startServer(service, { host, port }, { router: metricsOnlyRouter(scrape), ownsService: false, metrics });
    } catch (err) {
      await Promise.all([server.close(), graphqlServer?.close()]).catch(() => undefined);
      await logs.close().catch(() => undefined);
      await service.close().catch(() => undefined);
      log.error(`cannot listen on ${host}:${port} (--metrics-listen): ${(err as Error).message}`);
      return 1;
    }
  }

  const main = server;
  housekeeping.start();
  const stopWatchingTls = config.tlsCert && config.tlsKey ? watchTls(config.tlsCert, config.tlsKey, [main, graphqlServer]) : () => undefined;
  const running = {
    close: async () => {
      stopWatchingTls();
      const sweeping = housekeeping.close(); // first: no sweep starts while the store closes
      await Promise.all([graphqlServer?.close(), metricsServer?.close(), main.close(), sweeping]);
      await logs.close();
      await service.close();
    },
    forceClose: () => {
      graphqlServer?.forceClose();
      metricsServer?.forceClose();
      main.forceClose();
    },
  };
  return new Promise<number>((resolve) => {
    let closing: Promise<void> | undefined;
    let cutDrain: () => void = () => undefined;
    const stop = (force: boolean) => {
      if (closing) {
        // Second request: stop draining, and stop waiting for in-flight requests.
        if (force) {
          cutDrain();
          queueMicrotask(() => running.forceClose()); // after the close that the cut drain starts
        }
        return;
      }
      // Draining: /readyz answers 503 while requests are still served, so a balancer stops sending
      // before the port closes (--drain-ms; a second signal cuts it short).
      health.drain();
      let cut: () => void = () => undefined;
      const drained = force || !config.drainMs ? Promise.resolve() : new Promise<void>((done) => {
        const t = setTimeout(done, config.drainMs);
        cut = () => {
          clearTimeout(t);
          done();
        };
      });
      cutDrain = cut;
      closing = drained.then(() => {
        const closed = running.close();
        // The listening socket is closed by now; tests wait for this line before finishing in-flight requests.
        if (inTier()) tellSupervisor({ type: 'stopping' });
        else log.milestone(STOPPING, `Flora ${STOPPING}`);
        return closed;
      });
      if (force) running.forceClose();
      closing.then(
        () => {
          log.milestone('stopped', undefined);
          resolve(0);
        },
        (err: unknown) => {
          log.error(`error during shutdown: ${(err as Error).message}`);
          resolve(1);
        },
      );
    };
    if (inTier()) {
      // The supervisor stops the tier (a terminal's Ctrl-C reaches every process of the group: the
      // supervisor's word is the one that counts); a SIGTERM sent to this worker stops it alone.
      process.on('SIGINT', () => undefined);
      process.on('SIGTERM', () => stop(closing !== undefined));
      fromSupervisor(
        (m) => m.type === 'stop' && stop(m.force),
        () => {
          // The supervisor died: no one hands this worker connections any more, and a new owner of
          // the data directory waits for it to go (dirLock.ts). It goes as its supervisor did, at
          // once: the store is safe from a kill at any moment, while an exit with a write in flight
          // never ends (process.exit joins lmdb-js's write thread, which waits for this thread to
          // run the transaction's callback: 3 of 8 orphaned tiers hung so in the crash part).
          process.kill(process.pid, 'SIGKILL');
        },
      );
      log.milestone('listening', undefined, { address: main.address, graphqlAddress: graphqlServer?.address, metricsAddress: metricsServer?.address });
      tellSupervisor({ type: 'listening', address: main.address, graphqlAddress: graphqlServer?.address, metricsAddress: metricsServer?.address });
    } else {
      // Signals are handled before the line is out: whoever reads it may stop the server at once.
      const onSignal = () => stop(closing !== undefined);
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      if (graphqlServer) process.stdout.write(`Flora GraphQL listening on ${graphqlServer.address}\n`);
      if (metricsServer) process.stdout.write(`Flora metrics listening on ${metricsServer.address}/metrics\n`);
      log.milestone('listening', undefined, { address: main.address, graphqlAddress: graphqlServer?.address, metricsAddress: metricsServer?.address });
      // Tests and scripts wait for exactly this line.
      process.stdout.write(`Flora listening on ${main.address}\n${readyNotes(config, args, main.address)}`);
    }
  });
}

/**
 * The lines after the one scripts wait for: where the dashboard is, and which root secret signs in
 * to it (named only when it is the default, which anyone may know; otherwise where it came from).
 */
function readyNotes(config: FloraConfig, args: readonly string[], address: string): string {
  const secret =
    config.rootSecret === DEFAULT_ROOT_SECRET
      ? `the default '${DEFAULT_ROOT_SECRET}' (set your own with --root-secret or FLORA_ROOT_SECRET)`
      : args.some((a) => a === '--root-secret' || a.startsWith('--root-secret='))
        ? 'from --root-secret'
        : 'from FLORA_ROOT_SECRET';
  return `${config.admin ? `Dashboard: ${address}/admin\n` : ''}Root secret: ${secret}\n`;
}

/** package.json's version (dist/src/cli/main.js → the project root). */
function version(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Rereads the certificate and key on SIGHUP and when either file changes (a renewal): new connections
 * get the new pair; one that does not load is reported and the previous pair kept. Returns the undo.
 */
function watchTls(cert: string, key: string, servers: (RunningServer | undefined)[]): () => void {
  const reload = (why: string) => {
    try {
      for (const s of servers) s?.reloadTls();
      log.info(`TLS certificate reloaded (${why})`);
    } catch (err) {
      log.warn(`${(err as Error).message}; still serving the previous certificate`);
    }
  };
  const onHangup = () => reload('SIGHUP');
  process.on('SIGHUP', onHangup);
  const onChange = (curr: Stats, prev: Stats) => {
    if (curr.mtimeMs !== prev.mtimeMs || curr.size !== prev.size || curr.ino !== prev.ino) reload('the files changed');
  };
  for (const f of [cert, key]) watchFile(f, { interval: TLS_WATCH_MS, persistent: false }, onChange);
  return () => {
    process.off('SIGHUP', onHangup);
    for (const f of [cert, key]) unwatchFile(f, onChange);
  };
}

/** How often the certificate files are looked at for a renewal. */
const TLS_WATCH_MS = 2_000;

/** The exit code and message for a store that cannot be opened; undefined for other errors. */
async function openingFailure(err: unknown): Promise<number | undefined> {
  const { FormatError } = await import('../storage/format');
  const { StorageUnavailable, StoreInUse } = await import('../storage/engine');
  if (err instanceof FormatError) {
    log.error(err.message);
    return 1;
  }
  if (err instanceof StorageUnavailable || err instanceof StoreInUse) {
    log.error(`cannot open the store: ${err.message}`);
    return 2;
  }
  return undefined;
}

/** Said once the listening sockets are closed (tests wait for its text line before finishing in-flight requests). */
const STOPPING = 'stopping: finishing in-flight requests';

/** `--workers N` (N > 1): this process supervises N workers running this same command. */
async function superviseTier(config: FloraConfig, args: readonly string[]): Promise<number> {
  const { supervise } = await import('../tier/supervisor');
  try {
    const code = await supervise(config, {
      listening: (address, { graphqlAddress, metricsAddress }, pids) => {
        log.info(`${pids.length} worker processes serve this port (pids ${pids.join(', ')})`, { address, pids });
        if (graphqlAddress) process.stdout.write(`Flora GraphQL listening on ${graphqlAddress}\n`);
        if (metricsAddress) process.stdout.write(`Flora metrics listening on ${metricsAddress}/metrics\n`);
        process.stdout.write(`Flora listening on ${address}\n${readyNotes(config, args, address)}`);
      },
      stopping: () => log.milestone(STOPPING, `Flora ${STOPPING}`),
    });
    log.milestone('stopped', undefined, { code });
    return code;
  } catch (err) {
    const code = await openingFailure(err);
    if (code === undefined) throw err;
    return code;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      log.error('unexpected error', { err });
      process.exit(1);
    },
  );
}
