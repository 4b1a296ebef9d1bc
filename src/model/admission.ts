// How many queries a process evaluates at once, and how long the others wait for their turn.
//
// A process serves every query on one event loop: past a few at once, more only interleave, each
// taking longer, and without a bound on the wait every query queues behind every client there is —
// latency and memory then grow with the load instead of the throughput. So at most `running`
// queries evaluate at once and the rest wait in line, first come first served, `queueMs` at most: a
// query whose turn has not come by then is refused (429 `too many requests`, Retry-After), and so is
// one that arrives while the line is `queued` long or its oldest query that could run has already
// waited `queueMs` (it would wait as long): at once, so that its client can retry while the queries
// admitted keep a bounded wait. A query whose client is gone leaves the line without running
// (QueryCancelled): when its turn comes, or at the next sweep if sooner.
//
// One client (a secret, a client address: its ClientKeys) may hold only a share of the turns and of
// the line (issue 30): a client key is public, and 64 long queries sent with it must not make every
// other client wait for one of them to end. Its queries beyond the share wait while others' pass
// them; beyond its share of the line it is refused. Below its share and `running`, nothing waits.

import { QueryCancelled, TooBusy, type ClientLink } from './budget';

export interface AdmissionLimits {
  /** Queries evaluating at once. */
  running: number;
  /** Queries waiting for a turn; beyond it they are refused. */
  queued: number;
  /** Longest a query waits for its turn (ms). */
  queueMs: number;
  /** Share (0–1] of `running` and of `queued` one owner may take; 1 (or absent) = no share. */
  ownerShare?: number;
}

interface Waiter {
  since: number;
  admit: () => void;
  refuse: (err: Error) => void;
  client: ClientLink | undefined;
  owners: ClientKeys;
}

/**
 * Who a query counts against: its secret (a scoped secret as its key) and its client's address key
 * (none for this machine's own: a proxy in front of Flora is every client at once). Absent: no share
 * of that kind applies.
 */
export interface ClientKeys {
  readonly secret?: string;
  readonly address?: string;
}

const KINDS = ['secret', 'address'] as const;

/** What one owner holds: turns and places in line. */
interface Held {
  running: number;
  queued: number;
}

/** Waiters past their time are found when the line moves, and at least this often (ms), as are those whose client is gone. */
const SWEEP_MS = 100;
const NO_OWNERS: ClientKeys = {};

export class Admission {
  private active = 0;
  /** The line, oldest first. A waiter whose owner is at its share is passed by later ones. */
  private waiting: Waiter[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  /** Per owner, only while it holds something. */
  private readonly held = { secret: new Map<string, Held>(), address: new Map<string, Held>() };
  private readonly ownerRunning: number;
  private readonly ownerQueued: number;

  constructor(
    readonly limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    const share = limits.ownerShare ?? 1;
    this.ownerRunning = share >= 1 ? Infinity : Math.max(1, Math.floor(limits.running * share));
    this.ownerQueued = share >= 1 ? Infinity : Math.max(1, Math.floor(limits.queued * share));
  }

  /** Queries evaluating now. */
  get running(): number {
    return this.active;
  }

  /** Queries waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** True when a query arriving now would be refused whoever sent it: every turn taken and the line full or standing still. */
  get full(): boolean {
    if (this.active < this.limits.running) return false;
    if (this.queued >= this.limits.queued) return true;
    const oldest = this.oldestRunnable();
    return oldest !== undefined && this.now() - oldest.since >= this.limits.queueMs;
  }

  /**
   * A turn at once when one is free (no promise: this is every request's path), else a wait in line:
   * resolves once the query may run, with the function that ends its turn (call it once, when the
   * query is done); throws TooBusy when the process is full, or the owners' share of the line is, or
   * when the turn did not come in time, and QueryCancelled when `client` left before it came.
   * `owners`: who the query counts against.
   */
  enter(client?: ClientLink, owners: ClientKeys = NO_OWNERS): (() => void) | Promise<() => void> {
    // A free turn goes to the query at once even with others in line: those are held back by their
    // owners' share (a turn's end admits every waiter that may run), not ahead of this one.
    if (this.active < this.limits.running && this.mayRun(owners)) {
      this.start(owners);
      return this.turn(owners);
    }
    return this.wait(client, owners);
  }

  private async wait(client: ClientLink | undefined, owners: ClientKeys): Promise<() => void> {
    this.refuseLate();
    if (this.full || !this.mayQueue(owners)) throw new TooBusy();
    this.count(owners, 'queued', 1);
    const admitted = new Promise<void>((admit, refuse) => this.waiting.push({ since: this.now(), admit, refuse, client, owners }));
    // When no turn ends for a while (long queries), the line is still looked at.
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    // A free turn its owners' share kept it from (a share held by queries still running) comes at a leave.
    await admitted;
    return this.turn(owners);
  }

  private turn(owners: ClientKeys): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active--;
      this.count(owners, 'running', -1);
      this.refuseLate();
      this.admitWaiting();
    };
  }

  /** Free turns pass to the oldest waiters whose owners are within their share and whose client still waits. */
  private admitWaiting(): void {
    for (let i = 0; i < this.waiting.length && this.active < this.limits.running; ) {
      const w = this.waiting[i];
      if (w.client?.clientGone) {
        this.remove(i).refuse(new QueryCancelled());
      } else if (this.mayRun(w.owners)) {
        this.remove(i);
        this.start(w.owners);
        w.admit();
      } else i++;
    }
    this.stopSweeperIfIdle();
  }

  private start(owners: ClientKeys): void {
    this.active++;
    this.count(owners, 'running', 1);
  }

  private mayRun(owners: ClientKeys): boolean {
    return this.within(owners, 'running', this.ownerRunning);
  }

  private mayQueue(owners: ClientKeys): boolean {
    return this.within(owners, 'queued', this.ownerQueued);
  }

  private within(owners: ClientKeys, what: keyof Held, share: number): boolean {
    for (const kind of KINDS) {
      const key = owners[kind];
      if (key !== undefined && (this.held[kind].get(key)?.[what] ?? 0) >= share) return false;
    }
    return true;
  }

  /** The oldest waiter that a free turn would go to (its owners within their share). */
  private oldestRunnable(): Waiter | undefined {
    for (const w of this.waiting) if (this.mayRun(w.owners)) return w;
    return undefined;
  }

  private count(owners: ClientKeys, what: keyof Held, by: 1 | -1): void {
    if (this.ownerRunning === Infinity) return; // no share: nothing to count
    for (const kind of KINDS) {
      const key = owners[kind];
      if (key === undefined) continue;
      const held = this.held[kind];
      const h = held.get(key) ?? { running: 0, queued: 0 };
      h[what] += by;
      if (h.running === 0 && h.queued === 0) held.delete(key);
      else held.set(key, h);
    }
  }

  private remove(i: number): Waiter {
    const [w] = this.waiting.splice(i, 1);
    this.count(w.owners, 'queued', -1);
    return w;
  }

  private sweep(): void {
    for (let i = 0; i < this.waiting.length; ) {
      if (this.waiting[i].client?.clientGone) this.remove(i).refuse(new QueryCancelled());
      else i++;
    }
    this.refuseLate();
  }

  /** Refuses the waiters whose time is up: the oldest, at the front (the line keeps arrival order; passing a waiter only takes a later one out). */
  private refuseLate(): void {
    const now = this.now();
    while (this.waiting.length > 0 && now - this.waiting[0].since >= this.limits.queueMs) this.remove(0).refuse(new TooBusy());
    this.stopSweeperIfIdle();
  }

  private stopSweeperIfIdle(): void {
    if (this.waiting.length === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}

/** No bound: every query runs at once (tests and tools that build a service of their own). */
export const UNBOUNDED_ADMISSION = new Admission({ running: Number.MAX_SAFE_INTEGER, queued: 0, queueMs: 0 });
