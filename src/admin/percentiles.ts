// The numbers behind the query log's chart: requests per second and latency percentiles (p50, p95,
// p99) per time bucket. Pure, so that they are tested without a browser.

/** The p-th percentile (0 < p ≤ 100) of ascending `sorted` by nearest rank; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`a percentile is above 0 and at most 100, not ${p}`);
  if (sorted.length === 0) return NaN;
  return sorted[Math.ceil((p / 100) * sorted.length) - 1];
}

export interface Sample {
  /** When (ms since the epoch). */
  ms: number;
  /** Its latency (ms). */
  value: number;
}

export interface Bucket {
  /** The bucket covers [start, start + width). */
  start: number;
  count: number;
  /** Requests per second. */
  rate: number;
  /** Latency percentiles in ms; null for an empty bucket (a gap in the line, not a zero). */
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * `samples` in buckets of `widthMs` from `fromMs` up to `toMs` (every bucket present, empty ones
 * too, so the chart's time axis is even); samples outside are left out.
 */
export function buckets(samples: readonly Sample[], fromMs: number, toMs: number, widthMs: number): Bucket[] {
  if (!(widthMs > 0)) throw new RangeError('the bucket width must be positive');
  const n = Math.max(0, Math.ceil((toMs - fromMs) / widthMs));
  const values: number[][] = Array.from({ length: n }, () => []);
  for (const s of samples) {
    const i = Math.floor((s.ms - fromMs) / widthMs);
    if (i >= 0 && i < n) values[i].push(s.value);
  }
  return values.map((v, i) => {
    v.sort((a, b) => a - b);
    const at = (p: number) => (v.length ? percentile(v, p) : null);
    return { start: fromMs + i * widthMs, count: v.length, rate: v.length / (widthMs / 1000), p50: at(50), p95: at(95), p99: at(99) };
  });
}
