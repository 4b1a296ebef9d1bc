// The soak benchmark's verdict: does a series sampled over a long run grow after its warm-up?
// Pure functions over (seconds, value) points, so that the thresholds are tested apart from a run.

export interface Point {
  /** Seconds since the load started. */
  t: number;
  v: number;
}

export interface Fit {
  /** Least-squares slope of v per hour (NaN with fewer than two distinct times). */
  slope: number;
  /** Its standard error (NaN with fewer than three points). */
  se: number;
}

export function linearFit(points: readonly Point[]): Fit {
  const n = points.length;
  if (n < 2) return { slope: NaN, se: NaN };
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mv = points.reduce((a, p) => a + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  if (den === 0) return { slope: NaN, se: NaN };
  const b = num / den;
  const residuals = points.reduce((a, p) => a + (p.v - mv - b * (p.t - mt)) ** 2, 0);
  const se = n > 2 ? Math.sqrt(residuals / (n - 2) / den) : NaN;
  return { slope: b * 3600, se: se * 3600 };
}

export function slopePerHour(points: readonly Point[]): number {
  return linearFit(points).slope;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Warm-up: the first 10% of the run or its first 5 minutes, whichever is shorter. */
export function warmupSeconds(runSeconds: number): number {
  return Math.min(runSeconds * 0.1, 300);
}

export interface Check {
  name: string;
  pass: boolean;
  /** What was measured, against what threshold. */
  detail: string;
}

/** At least this many samples after the warm-up, or a trend says nothing. */
export const MIN_SAMPLES = 3;

/** Medians of the first and of the last third of the points (at least one point each). */
function thirds(points: readonly Point[]): { early: number; late: number } {
  const third = Math.max(1, Math.floor(points.length / 3));
  return { early: median(points.slice(0, third).map((p) => p.v)), late: median(points.slice(-third).map((p) => p.v)) };
}

/**
 * Memory (MB) after the warm-up. Two limits, both robust to GC's sawtooth (tens of MB, whatever
 * the phase of the first sample): the slope of a linear fit, less twice its standard error, must
 * stay under `maxSlopeMbPerHour` (growth faster than that must stand out of the noise: a short run
 * proves less than a long one), and the median of the last third of the samples may exceed the
 * median of the first third by at most `maxRiseMb`. Max minus first is printed too.
 */
export function memoryCheck(name: string, points: readonly Point[], maxSlopeMbPerHour: number, maxRiseMb: number): Check {
  if (points.length < MIN_SAMPLES) return { name, pass: false, detail: `only ${points.length} samples after warm-up (need ${MIN_SAMPLES})` };
  const { slope, se } = linearFit(points);
  const { early, late } = thirds(points);
  const first = points[0].v;
  const max = Math.max(...points.map((p) => p.v));
  const pass = slope - 2 * se <= maxSlopeMbPerHour && late - early <= maxRiseMb;
  return {
    name,
    pass,
    detail:
      `slope ${slope.toFixed(1)} ± ${(2 * se).toFixed(1)} MB/h (limit: slope - 2 se <= ${maxSlopeMbPerHour}); ` +
      `median ${early.toFixed(1)} MB in the first third, ${late.toFixed(1)} in the last (rise limit ${maxRiseMb}); ` +
      `first ${first.toFixed(1)}, max ${max.toFixed(1)}, last ${points[points.length - 1].v.toFixed(1)}`,
  };
}

/**
 * Latency (p99 of each interval, ms) after the warm-up: the median over the last third of the
 * samples against the median over the first third. A ratio alone fails on sub-millisecond noise, so
 * a rise up to `slackMs` passes too.
 */
export function latencyCheck(name: string, points: readonly Point[], maxRatio: number, slackMs: number): Check {
  if (points.length < MIN_SAMPLES) return { name, pass: false, detail: `only ${points.length} samples after warm-up (need ${MIN_SAMPLES})` };
  const { early, late } = thirds(points);
  const limit = Math.max(early * maxRatio, early + slackMs);
  return {
    name,
    pass: late <= limit,
    detail:
      `median p99 first third ${early.toFixed(2)} ms, last third ${late.toFixed(2)} ms ` +
      `(limit max(${maxRatio} x first, first + ${slackMs} ms) = ${limit.toFixed(2)}); slope ${slopePerHour(points).toFixed(2)} ms/h`,
  };
}
