// Composition root: storage engine → store → query service.

import { mkdirSync } from 'node:fs';
import type { FloraConfig } from './fql/api';
import { Executor } from './fql/executor';
import { openLmdbEngine } from './storage/lmdbEngine';
import { openPgEngine } from './storage/pgEngine';
import { openStore } from './storage/store';
import { upgradeStorage } from './upgrade';
import { retention } from './model/retention';
import { queryLimits } from './config';
import { MemoryPool } from './fql/budget';

export async function createFlora(config: FloraConfig): Promise<Executor> {
  mkdirSync(config.dataDir, { recursive: true });
  const engine = config.storage ? await openPgEngine(config.storage) : await openLmdbEngine(config.dataDir);
  try {
    await upgradeStorage(engine, (line) => process.stderr.write(`flora: ${line}\n`));
  } catch (err) {
    await engine.close();
    throw err;
  }
  const store = await openStore(engine);
  retention.graceMicros = BigInt(config.historyGraceSeconds) * 1_000_000n;
  const executor = new Executor(store, config.rootSecret, {
    collectIntervalMs: config.collectIntervalMs,
    limits: queryLimits(config),
    pool: new MemoryPool(config.memoryMb * 1024 * 1024).watch(),
  });
  await executor.start();
  return executor;
}
