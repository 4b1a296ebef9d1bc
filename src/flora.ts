// Composition root: storage engine → store → query service.

import { mkdirSync } from 'node:fs';
import type { FloraConfig } from './fql/api';
import { Executor } from './fql/executor';
import { openLmdbEngine } from './storage/lmdbEngine';
import { openStore } from './storage/store';

export async function createFlora(config: FloraConfig): Promise<Executor> {
  mkdirSync(config.dataDir, { recursive: true });
  const engine = await openLmdbEngine(config.dataDir);
  const store = await openStore(engine);
  const executor = new Executor(store, config.rootSecret);
  await executor.start();
  return executor;
}
