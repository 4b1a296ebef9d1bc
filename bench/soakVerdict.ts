// The soak benchmark's verdict: does a series sampled over a long run grow after its warm-up?
// Pure functions over (seconds, value) points, so that the thresholds are tested apart from a run.

export interface Point {
  /** Seconds since the load started. */
  t: number;
  v: number;
}

/** Least-squares slope of v per hour; NaN with fewer than two distinct times. */
export function slopePerHour(points: readonly Point[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mv = points.reduce((a, p) => a + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? NaN : (num / den) * 3600;
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

/**
 * Memory (MB) after the warm-up: the slope of a linear fit and the rise of the highest sample
 * over the first one must both stay within their limits. A fit alone misses a late step; the rise
 * alone would fail on one GC peak, so both get a limit well above a GC's swing.
 */
export function memoryCheck(name: string, points: readonly Point[], maxSlopeMbPerHour: number, maxRiseMb: number): Check {
  if (points.length < MIN_SAMPLES) return { name, pass: false, detail: `only ${points.length} samples after warm-up (need ${MIN_SAMPLES})` };
  const slope = slopePerHour(points);
  const first = points[0].v;
  const max = Math.max(...points.map((p) => p.v));
  const last = points[points.length - 1].v;
  const pass = slope <= maxSlopeMbPerHour && max - first <= maxRiseMb;
  return {
    name,
    pass,
    detail:
      `first ${first.toFixed(1)} MB, last ${last.toFixed(1)}, max ${max.toFixed(1)}; ` +
      `slope ${slope.toFixed(1)} MB/h (limit ${maxSlopeMbPerHour}), max - first ${(max - first).toFixed(1)} MB (limit ${maxRiseMb})`,
  };
}

/**
 * Latency (p99 of each interval, ms) after the warm-up: the median over the last third of the
 * samples against the median over the first third. A ratio alone fails on sub-millisecond noise, so
 * a rise up to `slackMs` passes too.
 */
export function latencyCheck(name: string, points: readonly Point[], maxRatio: number, slackMs: number): Check {
  if (points.length < MIN_SAMPLES) return { name, pass: false, detail: `only ${points.length} samples after warm-up (need ${MIN_SAMPLES})` };
  const third = Math.max(1, Math.floor(points.length / 3));
  const early = median(points.slice(0, third).map((p) => p.v));
  const late = median(points.slice(-third).map((p) => p.v));
  const limit = Math.max(early * maxRatio, early + slackMs);
  return {
    name,
    pass: late <= limit,
    detail:
      `median p99 first third ${early.toFixed(2)} ms, last third ${late.toFixed(2)} ms ` +
      `(limit max(${maxRatio} x first, first + ${slackMs} ms) = ${limit.toFixed(2)}); slope ${slopePerHour(points).toFixed(2)} ms/h`,
  };
}
