// Closed-loop load generator: N workers, each with one query in flight, for a fixed duration.

import type { Client, ExprArg } from 'faunadb';

export interface LoadResult {
  ops: number;
  seconds: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
}

export interface LoadOptions {
  concurrency: number;
  seconds: number;
  /** Unmeasured run-in (JIT, connection set-up, caches). */
  warmupSeconds: number;
}

export async function drive(client: Client, nextQuery: () => ExprArg, opts: LoadOptions): Promise<LoadResult> {
  await runFor(client, nextQuery, opts.concurrency, opts.warmupSeconds, undefined);
  const latencies: number[] = [];
  const stats = { errors: 0, firstError: undefined as string | undefined };
  const started = process.hrtime.bigint();
  await runFor(client, nextQuery, opts.concurrency, opts.seconds, { latencies, stats });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    seconds,
    opsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: stats.errors,
    firstError: stats.firstError,
  };
}

async function runFor(
  client: Client,
  nextQuery: () => ExprArg,
  concurrency: number,
  seconds: number,
  record: { latencies: number[]; stats: { errors: number; firstError?: string } } | undefined,
): Promise<void> {
  if (seconds <= 0) return;
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      const t0 = process.hrtime.bigint();
      try {
        await client.query(nextQuery());
        record?.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch (err) {
        if (record) {
          record.stats.errors++;
          record.stats.firstError ??= String((err as Error).message ?? err);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
