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

/** Latencies and errors gathered over one or more measured slices of the same scenario. */
export class Measurement {
  readonly latencies: number[] = [];
  readonly stats = { errors: 0, firstError: undefined as string | undefined };
  seconds = 0;

  result(): LoadResult {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      ops: sorted.length,
      seconds: this.seconds,
      opsPerSecond: sorted.length / this.seconds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      errors: this.stats.errors,
      firstError: this.stats.firstError,
    };
  }
}

/** Runs a warm-up (unmeasured) and then a measured slice, adding it to `into`. */
export async function measure(client: Client, nextQuery: () => ExprArg, opts: LoadOptions, into: Measurement): Promise<void> {
  await runFor(client, nextQuery, opts.concurrency, opts.warmupSeconds, undefined);
  const started = process.hrtime.bigint();
  await runFor(client, nextQuery, opts.concurrency, opts.seconds, into);
  into.seconds += Number(process.hrtime.bigint() - started) / 1e9;
}

export async function drive(client: Client, nextQuery: () => ExprArg, opts: LoadOptions): Promise<LoadResult> {
  const m = new Measurement();
  await measure(client, nextQuery, opts, m);
  return m.result();
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

/** The p-quantile (0..1) of an ascending array; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
