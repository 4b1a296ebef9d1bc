// How many queries a process evaluates at once, and how long the others wait for their turn.
//
// A process serves every query on one event loop: past a few at once, more only interleave, each
// taking longer, and without a bound on the wait every query queues behind every client there is —
// latency and memory then grow with the load instead of the throughput. So at most `running`
// queries evaluate at once and the rest wait in line, first come first served, `queueMs` at most: a
// query whose turn has not come by then is refused (429 `too many requests`, Retry-After), and so is
// one that arrives while the line is `queued` long or its head has already waited `queueMs` (it
// would wait as long): at once, so that its client can retry while the queries admitted keep a
// bounded wait. Below `running`, nothing is ever refused. A query whose client is gone leaves the
// line without running (QueryCancelled): when its turn comes, or at the next sweep if sooner.

import { QueryCancelled, TooBusy, type ClientLink } from './budget';

export interface AdmissionLimits {
  /** Queries evaluating at once. */
  running: number;
  /** Queries waiting for a turn; beyond it they are refused. */
  queued: number;
  /** Longest a query waits for its turn (ms). */
  queueMs: number;
}

interface Waiter {
  since: number;
  admit: () => void;
  refuse: (err: Error) => void;
  client: ClientLink | undefined;
}

/** Waiters past their time are found when the line moves, and at least this often (ms), as are those whose client is gone. */
const SWEEP_MS = 100;

export class Admission {
  private active = 0;
  /** The line: `waiting[head…]` (a ring would save the occasional compaction; this is simpler). */
  private waiting: Waiter[] = [];
  private head = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    readonly limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Queries evaluating now. */
  get running(): number {
    return this.active;
  }

  /** Queries waiting for a turn now. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** True when a query arriving now would be refused: every turn taken and the line full or standing still. */
  get full(): boolean {
    if (this.active < this.limits.running) return false;
    if (this.queued >= this.limits.queued) return true;
    return this.queued > 0 && this.now() - this.waiting[this.head].since >= this.limits.queueMs;
  }

  /**
   * A turn at once when one is free (no promise: this is every request's path), else a wait in line:
   * resolves once the query may run, with the function that ends its turn (call it once, when the
   * query is done); throws TooBusy when the process is full, or when the turn did not come in time,
   * and QueryCancelled when `client` left before it came.
   */
  enter(client?: ClientLink): (() => void) | Promise<() => void> {
    if (this.active < this.limits.running && this.queued === 0) {
      this.active++;
      return this.turn();
    }
    return this.wait(client);
  }

  private async wait(client: ClientLink | undefined): Promise<() => void> {
    this.refuseLate();
    if (this.full) throw new TooBusy();
    const admitted = new Promise<void>((admit, refuse) => this.waiting.push({ since: this.now(), admit, refuse, client }));
    // When no turn ends for a while (long queries), the line is still looked at.
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    await admitted;
    return this.turn();
  }

  private turn(): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.leave();
    };
  }

  /** A turn ends: it passes to the first in line still in time and still awaited, if any. */
  private leave(): void {
    this.refuseLate();
    while (this.queued > 0) {
      const next = this.shift();
      if (!next.client?.clientGone) {
        next.admit();
        return;
      }
      next.refuse(new QueryCancelled());
    }
    this.active--;
  }

  private sweep(): void {
    this.dropAbandoned();
    this.refuseLate();
  }

  /** Waiters whose client is gone leave the line (in place, keeping its order). */
  private dropAbandoned(): void {
    let kept = this.head;
    for (let i = this.head; i < this.waiting.length; i++) {
      const w = this.waiting[i];
      if (w.client?.clientGone) w.refuse(new QueryCancelled());
      else this.waiting[kept++] = w;
    }
    this.waiting.length = kept;
  }

  /** Refuses the waiters at the head of the line whose time is up. */
  private refuseLate(): void {
    const now = this.now();
    while (this.queued > 0 && now - this.waiting[this.head].since >= this.limits.queueMs) this.shift().refuse(new TooBusy());
    if (this.queued === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private shift(): Waiter {
    const next = this.waiting[this.head++];
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    return next;
  }
}

/** No bound: every query runs at once (tests and tools that build a service of their own). */
export const UNBOUNDED_ADMISSION = new Admission({ running: Number.MAX_SAFE_INTEGER, queued: 0, queueMs: 0 });
