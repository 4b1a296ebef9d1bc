// Token buckets by name (an identity, a client address, a key id), refilled continuously, with a
// bounded number of names kept: a full bucket is the same as none, so those go first, then the
// least recently used. State is per process.

export interface BucketRate {
  /** Tokens a bucket holds when full: what a name may spend at once. */
  burst: number;
  /** Tokens a bucket gains per minute, up to `burst`. */
  perMinute: number;
}

/** The share of maxNames kept when room is made. */
const KEPT_AFTER_EVICTION = 0.9;

interface Bucket {
  tokens: number;
  /** Date.now() of `tokens`. */
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  /** Names kept at most (memory stays bounded however many an attacker makes up). */
  private readonly maxNames: number;
  private readonly clock: () => number;

  constructor(
    private readonly rate: BucketRate,
    opts: { maxNames?: number; clock?: () => number } = {},
  ) {
    this.perMs = rate.perMinute / 60_000;
    this.maxNames = opts.maxNames ?? 10_000;
    this.clock = opts.clock ?? Date.now;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Takes a token of `name`: 0 when taken, else the milliseconds until one is there (nothing taken). */
  take(name: string): number {
    const now = this.clock();
    const b = this.current(name, now);
    if (b.tokens < 1) return Math.ceil((1 - b.tokens) / this.perMs);
    b.tokens -= 1;
    this.keep(name, b);
    return 0;
  }

  /** Gives a token taken by `take` back (a bucket never holds more than its burst). */
  give(name: string): void {
    const b = this.buckets.get(name);
    if (!b) return;
    b.tokens = Math.min(this.rate.burst, b.tokens + 1);
  }

  private current(name: string, now: number): Bucket {
    const b = this.buckets.get(name);
    if (!b) return { tokens: this.rate.burst, at: now };
    b.tokens = Math.min(this.rate.burst, b.tokens + Math.max(0, now - b.at) * this.perMs);
    b.at = now;
    return b;
  }

  /** Stores `b` as the most recently used, making room first when it is new. */
  private keep(name: string, b: Bucket): void {
    if (this.buckets.delete(name)) {
      this.buckets.set(name, b);
      return;
    }
    if (this.buckets.size >= this.maxNames) this.makeRoom(b.at);
    this.buckets.set(name, b);
  }

  /**
   * Drops the full buckets, then the least recently used, down to KEPT_AFTER_EVICTION of maxNames:
   * the scan over every name is paid once per tenth of them, not once per new name.
   */
  private makeRoom(now: number): void {
    const keep = Math.floor(this.maxNames * KEPT_AFTER_EVICTION);
    for (const [name, b] of this.buckets)
      if (b.tokens + (now - b.at) * this.perMs >= this.rate.burst) this.buckets.delete(name);
    for (const name of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(name);
    }
  }
}
