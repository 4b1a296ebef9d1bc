// A stand-in for one worker of `flora start --workers N` (its supervisor is being built elsewhere),
// for the query-log tests: what a single process runs (Executor, LogSystem.open, startServer, with
// the same config), but on the data directory's LMDB opened in shared mode, so that several of these
// processes serve one directory as workers will. Prints `Flora listening on <url>` like `flora
// start`, and stops gracefully on SIGTERM. Run as `node dist/test/helpers/lmdbWorker.js <start options>`.

import { mkdirSync } from 'node:fs';
import { loadConfig, queryLimits } from '../../src/config';
import { Executor } from '../../src/fql/executor';
import { MemoryPool } from '../../src/fql/budget';
import { LogSystem } from '../../src/logs/index';
import { retention } from '../../src/model/retention';
import { startServer } from '../../src/server/server';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import { upgradeStorage } from '../../src/upgrade';

async function worker(args: readonly string[]): Promise<void> {
  const config = loadConfig(args, process.env);
  mkdirSync(config.dataDir, { recursive: true });
  const engine = await openLmdbEngine(config.dataDir, { shared: true });
  await upgradeStorage(engine, () => undefined);
  const store = await openStore(engine);
  retention.graceMicros = BigInt(config.historyGraceSeconds) * 1_000_000n;
  const service = new Executor(store, config.rootSecret, {
    collectIntervalMs: config.collectIntervalMs,
    limits: queryLimits(config),
    pool: new MemoryPool(config.memoryMb * 1024 * 1024).watch(),
  });
  await service.start();
  const logs = await LogSystem.open(config, service);
  const server = await startServer(service, config, { logs });
  process.stdout.write(`Flora listening on ${server.address}\n`);
  process.once('SIGTERM', () => {
    process.stderr.write('Flora stopping: finishing in-flight requests\n');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`flora: error during shutdown: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  });
}

if (require.main === module) {
  worker(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`flora worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
