// Leases: which process of a tier does a piece of background work (an index build, the history
// collector, log exports). A lease is a meta record in the store, taken and renewed by transactions,
// so two processes never both believe they hold it (optimistic concurrency makes one of two
// concurrent takes conflict), and it runs out by itself when its holder dies: another process takes
// it over once it has expired. Work done under a lease re-reads it in each of its transactions
// (`check`), which fences a holder that lost it (paused, cut off) from committing anything more.
//
// On a store no other process shares, leases are always this process's (its directory lock already
// makes it the only one), so a restart resumes its work at once.

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Store, Txn } from '../storage/types';

/** Tests shorten leases (FLORA_TEST_LEASE_MS) so that a takeover does not wait 10 s. */
const LEASE_MS = Number(process.env.FLORA_TEST_LEASE_MS ?? 0) || 10_000;
/** How long a lease lasts unless renewed; a dead holder's work is taken over after at most this. */
export const LEASE_US = BigInt(LEASE_MS) * 1000n;
/** Renewed this often while held (well inside LEASE_US, through a slow store). */
export const RENEW_MS = Math.ceil(LEASE_MS / 3);

/** Thrown by `check` inside a transaction when the lease is no longer this process's. */
export class LeaseLost extends Error {
  constructor(readonly lease: string) {
    super(`lease ${lease} is held by another process`);
  }
}

interface Record {
  holder: string;
  until: bigint;
}

const PREFIX = 'lease:';

function leaseKey(name: string): Uint8Array {
  return Buffer.from(PREFIX + name, 'utf8');
}

function encode(r: Record): Uint8Array {
  return Buffer.from(JSON.stringify({ holder: r.holder, until: String(r.until) }), 'utf8');
}

function decode(v: Uint8Array | undefined): Record | undefined {
  if (!v) return undefined;
  try {
    const o = JSON.parse(Buffer.from(v).toString('utf8')) as { holder?: unknown; until?: unknown };
    if (typeof o.holder === 'string' && typeof o.until === 'string') return { holder: o.holder, until: BigInt(o.until) };
  } catch {
    // unreadable: treated as expired
  }
  return undefined;
}

export interface Role {
  held(): boolean;
  stop(): Promise<void>;
}

export class Leases {
  /** This process, as lease records name it. */
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly shared: boolean;

  constructor(private readonly store: Store) {
    this.shared = store.shared;
  }

  /**
   * Takes `name` if it is free or expired, or renews it if this process holds it. True when this
   * process holds it now (until LEASE_US from now).
   */
  async acquire(name: string): Promise<boolean> {
    if (!this.shared) return true;
    const { result } = await this.store.run(async (txn) => {
      const now = txn.snapshotTs;
      const current = decode(await txn.getMeta(leaseKey(name)));
      if (current && current.holder !== this.holder && current.until >= now) return false;
      txn.putMeta(leaseKey(name), encode({ holder: this.holder, until: now + LEASE_US }));
      return true;
    });
    return result;
  }

  /** Gives `name` back (when its work is done or the process stops), if this process holds it. */
  async release(name: string): Promise<void> {
    if (!this.shared) return;
    await this.store.run(async (txn) => {
      const current = decode(await txn.getMeta(leaseKey(name)));
      if (current?.holder === this.holder) txn.putMeta(leaseKey(name), null);
    });
  }

  /**
   * Inside a transaction of the lease's work: throws LeaseLost unless this process holds `name`.
   * The read is conflict-checked, so the transaction commits only if the lease was still held
   * when it committed.
   */
  async check(txn: Txn, name: string): Promise<void> {
    if (!this.shared) return;
    const current = decode(await txn.getMeta(leaseKey(name)));
    if (!current || current.holder !== this.holder || current.until < txn.snapshotTs) throw new LeaseLost(name);
  }

  /** Says, for as long as this process lives, that it does (`alive` in other processes). */
  heartbeat(): Role {
    return this.role(`process:${this.holder}`);
  }

  /** Whether the process `holder` still beats (its heartbeat lease has not run out). */
  async alive(holder: string): Promise<boolean> {
    if (!this.shared) return holder === this.holder;
    const { result } = await this.store.run(async (txn) => {
      const current = decode(await txn.getMeta(leaseKey(`process:${holder}`)));
      return current !== undefined && current.holder === holder && current.until >= txn.snapshotTs;
    });
    return result;
  }

  /**
   * A standing role (the history collector): taken when free, renewed every RENEW_MS while this
   * process lives, given back by `stop`. `held()` says whether this process has it now.
   */
  role(name: string): Role {
    if (!this.shared) return { held: () => true, stop: async () => undefined };
    let held = false;
    let pending: Promise<void> = Promise.resolve();
    const tick = () => {
      pending = this.acquire(name).then(
        (h) => void (held = h),
        () => void (held = false), // the store is unavailable: not sure of it any more
      );
    };
    tick();
    const timer = setInterval(tick, RENEW_MS);
    timer.unref();
    return {
      held: () => held,
      stop: async () => {
        clearInterval(timer);
        await pending;
        if (held) await this.release(name).catch(() => undefined);
        held = false;
      },
    };
  }

  /**
   * Runs `work` while holding `name`, renewing it every RENEW_MS; `work`'s signal aborts when the
   * lease is lost. Resolves false at once when another process holds it, else with true once
   * `work` is done (the lease is then released).
   */
  async holding(name: string, work: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    if (!(await this.acquire(name))) return false;
    const lost = new AbortController();
    let renewing: Promise<void> = Promise.resolve();
    const timer = this.shared
      ? setInterval(() => {
          renewing = this.acquire(name).then(
            (held) => {
              if (!held) lost.abort(new LeaseLost(name));
            },
            () => undefined, // the store is unavailable: try again at the next renewal
          );
        }, RENEW_MS)
      : undefined;
    timer?.unref();
    try {
      await work(lost.signal);
    } finally {
      if (timer) clearInterval(timer);
      await renewing;
      if (!lost.signal.aborted) await this.release(name).catch(() => undefined);
    }
    return true;
  }
}
