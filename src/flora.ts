// Composition root: storage engine → store → query service.

import { mkdirSync } from 'node:fs';
import type { FloraConfig } from './fql/api';
import { Executor } from './fql/executor';
import { openLmdbEngine } from './storage/lmdbEngine';
import { openPgEngine } from './storage/pgEngine';
import type { Engine } from './storage/engine';
import { openStore } from './storage/store';
import { upgradeStorage } from './upgrade';
import { retention } from './model/retention';
import { admissionLimits, loginThrottleLimits, queryLimits } from './config';
import { Admission } from './model/admission';
import { MemoryPool } from './model/budget';
import { onSiblingDeath } from './tier/messages';
import { log } from './diag/log';

export interface FloraRole {
  /** One of a `--workers` tier: LMDB is shared with the tier's other processes (its supervisor holds the directory). */
  worker?: boolean;
}

/** The configured engine, upgraded to this release's storage format. */
export async function openEngine(config: FloraConfig, role: FloraRole = {}): Promise<Engine> {
  mkdirSync(config.dataDir, { recursive: true });
  const engine = config.storage ? await openPgEngine(config.storage) : await openLmdbEngine(config.dataDir, { shared: role.worker });
  try {
    await engine.startup(() => upgradeStorage(engine, (line) => log.info(line)));
  } catch (err) {
    await engine.close();
    throw err;
  }
  return engine;
}

export async function createFlora(config: FloraConfig, role: FloraRole = {}): Promise<Executor> {
  const engine = await openEngine(config, role);
  if (role.worker) onSiblingDeath(() => engine.checkReaders());
  const store = await openStore(engine, { maxStalenessMs: config.maxStalenessMs });
  retention.graceMicros = BigInt(config.historyGraceSeconds) * 1_000_000n;
  const executor = new Executor(store, config.rootSecret, {
    collectIntervalMs: config.collectIntervalMs,
    limits: queryLimits(config),
    pool: new MemoryPool(config.memoryMb * 1024 * 1024).watch(),
    admission: new Admission(admissionLimits(config)),
    jwks: { allowPrivate: config.jwksAllowPrivate ?? false },
    loginThrottle: loginThrottleLimits(config),
  });
  await executor.start();
  return executor;
}
