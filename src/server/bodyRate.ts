// The minimum rate of a request body: one that arrives slower than this, on average since the route
// began to read it, is cut off with 408 once a grace has passed. It frees what a trickle holds (a
// stream, its bytes, a place in the client's share) long before the body deadline, while any real
// uplink passes: like Kestrel's MinRequestBodyDataRate, which this follows (average, after a grace).

export interface BodyRate {
  /** Bytes a second; 0 = no minimum. */
  minBytesPerSecond: number;
  /** No verdict before the body has been read this long (ms): slow starts are not trickles. */
  graceMs: number;
}

/** After the grace, the rate is looked at this often (ms): a trickle is cut within grace + this. */
export const BODY_RATE_CHECK_MS = 1_000;

/** True when `bytes` brought in `elapsedMs` since the read began are too few. */
export function tooSlow(rate: BodyRate, bytes: number, elapsedMs: number): boolean {
  if (rate.minBytesPerSecond <= 0 || elapsedMs < rate.graceMs) return false;
  return bytes < (rate.minBytesPerSecond * elapsedMs) / 1000;
}

/** When to look next, `elapsedMs` into the read: at the end of the grace, then every check. */
export function nextCheckMs(rate: BodyRate, elapsedMs: number): number {
  return elapsedMs < rate.graceMs ? rate.graceMs - elapsedMs : BODY_RATE_CHECK_MS;
}
