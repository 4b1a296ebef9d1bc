// What every benchmark script needs: numeric command-line options and a closed-loop load of
// `concurrency` callers repeating one operation for a fixed time; an in-process service, queries to
// it in the driver's wire form, and the process's memory as Linux sees it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { createFlora } from '../src/flora';
import { defaultConfig } from '../src/config';
import type { QueryService } from '../src/fql/api';
import type { Measurement } from './load';

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

export interface LoopOptions {
  /** Adds each op's latency (ms) and the elapsed time. */
  into?: Measurement;
  /**
   * Starts every op in a macrotask of its own (setImmediate), as a request arriving over the
   * network does. In-process ops otherwise chain on microtasks alone, and a query that yields its
   * turn (Budget.pause, a setImmediate) then waits until every caller has stopped. Latency is
   * then the op's own time, not a share of the others' (they rarely overlap).
   */
  ownTask?: boolean;
}

/** Runs `op` from `concurrency` callers for `seconds`; any failure aborts the run. */
export async function closedLoop(
  op: () => Promise<unknown>,
  seconds: number,
  concurrency: number,
  { into, ownTask = false }: LoopOptions = {},
): Promise<Load> {
  const deadline = Date.now() + seconds * 1000;
  let ops = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        if (ownTask) await new Promise<void>((resolve) => setImmediate(resolve));
        const t0 = into ? process.hrtime.bigint() : 0n;
        await op();
        if (into) into.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        ops++;
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - started) / 1e9;
  if (into) into.seconds += secs;
  return { ops, secs };
}

/** Flora's query service in this process, on a fresh temporary data directory removed afterwards. */
export async function withService<T>(name: string, fn: (service: QueryService, dataDir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), `flora-bench-${name}-`));
  const service = await createFlora({ ...defaultConfig(), port: 0, dataDir: dir });
  try {
    return await fn(service, dir);
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The driver's wire form of a plain object: {"object": …} all the way down. */
export function wrap(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(wrap);
  if (v && typeof v === 'object') return { object: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)])) };
  return v;
}

/** Runs one query (wire-form expression) as root; an error status throws with the body. */
export async function serviceQuery(service: QueryService, expr: unknown, timeoutMs = 600_000): Promise<unknown> {
  const r = await service.query({ body: JSON.stringify(expr), authorization: 'Bearer secret', timeoutMs });
  if (r.status >= 300) throw new Error(String(r.body));
  return JSON.parse(String(r.body)).resource;
}

export const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);


/**
 * A full garbage collection, so memory readings show what is retained: global.gc under
 * --expose-gc, else the same function enabled at run time (as src/model/memoryPool.ts does).
 */
export function collectGarbage(): void {
  if (typeof global.gc === 'function') return void global.gc();
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** Runs a benchmark's main function; a failure prints and exits with code 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/** Prints a Markdown table (as bench/RESULTS.md keeps them). */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

