// A latency histogram with fixed buckets that costs no allocation to feed: what a hot path (every
// request, every commit) records, and what /metrics reads at a scrape (server/metricsRegistry.ts).

/** Upper bounds in seconds: from half a millisecond (a point read) to ten seconds (a time out). */
export const LATENCY_BOUNDS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Timings {
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[] = LATENCY_BOUNDS) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(seconds: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && seconds > b[i]) i++;
    this.counts[i]++;
    this.sum += seconds;
    this.count++;
  }
}
