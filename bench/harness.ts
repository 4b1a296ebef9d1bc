// What every benchmark script needs: numeric command-line options and a closed-loop load of
// `concurrency` callers repeating one operation for a fixed time; an in-process service.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFlora } from '../src/flora';
import { defaultConfig } from '../src/config';
import type { QueryService } from '../src/fql/api';

export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`bad ${name}`);
  return v;
}

export interface Load {
  ops: number;
  secs: number;
}

/** Runs `op` from `concurrency` callers for `seconds`; any failure aborts the run. */
export async function closedLoop(op: () => Promise<unknown>, seconds: number, concurrency: number): Promise<Load> {
  const deadline = Date.now() + seconds * 1000;
  let ops = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        await op();
        ops++;
      }
    }),
  );
  return { ops, secs: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** Flora's query service in this process, on a fresh temporary data directory removed afterwards. */
export async function withService<T>(name: string, fn: (service: QueryService) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), `flora-bench-${name}-`));
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir: dir });
  try {
    return await fn(service);
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a benchmark's main function; a failure prints and exits with code 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
