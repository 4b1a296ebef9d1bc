// What one query may spend, and the process-wide pool its memory comes out of.
//
// Each process serves every request on one event loop, so a query is bounded three ways:
//  - compute, counted in Fauna's units (fql-v4.md §9: 12,000 ops of 50 units per transaction);
//  - memory: the values it builds (strings, arrays, objects), the documents it reads and its decoded
//    request are charged to the query (one value may not exceed the value cap, all of them together
//    not the query's share) and reserved from a pool shared by every request in flight, so the
//    process's memory stays bounded however many requests arrive at once;
//  - time on the loop: the evaluator yields every `sliceMs` so no query holds the others up.
// Sizes are estimates of what the values cost in V8's heap, not of their JSON.

import { firstSliceEnd, nextTurn } from '../loop/turns';
import { ProtocolError } from '../values/errors';
import { UNBOUNDED_POOL, type MemoryPool } from './memoryPool';

export { MemoryPool, UNBOUNDED_POOL } from './memoryPool';

/** Fauna counts 50 compute units per billed compute op; each call and lambda application is a unit. */
export const UNITS_PER_COMPUTE_OP = 50;

const MiB = 1024 * 1024;

export interface QueryLimits {
  /** Compute ops per transaction (Fauna's 12,000). */
  computeOps: number;
  /**
   * Largest value a query may build, as its JSON would be (a string: its characters). Arrays and
   * objects are also refused before they are allocated when their slots alone (8 bytes an element,
   * 16 a field) would exceed it.
   */
  maxValueBytes: number;
  /** Largest response body, in bytes. */
  maxResponseBytes: number;
  /** What one query may allocate: values it builds, documents it reads, its decoded request. */
  queryMemoryBytes: number;
  /** Longest the evaluator runs before it lets other requests in, in ms. */
  sliceMs: number;
  /** Largest request body (413 beyond it). */
  maxBodyBytes: number;
  /**
   * Longest timeout (ms) of a query whose secret does not act as admin (client and server keys,
   * tokens, user-role keys, JWTs): a longer X-Query-Timeout is lowered to it, not refused, since
   * drivers send the timeout they were configured with.
   */
  maxNonAdminTimeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<QueryLimits> = Object.freeze({
  computeOps: 12_000,
  maxValueBytes: 64 * MiB,
  maxResponseBytes: 64 * MiB,
  queryMemoryBytes: 192 * MiB,
  sliceMs: 10,
  maxBodyBytes: 8 * MiB,
  maxNonAdminTimeoutMs: 30_000,
});

/** X-Query-Timeout when a request sends none (fql-v4.md §1.4). */
export const DEFAULT_QUERY_TIMEOUT_MS = 120_000;

/** A query went over one of its limits: 400 `bad request`, as Fauna reports its own (no position). */
export class LimitExceeded extends ProtocolError {
  constructor(description: string) {
    super(400, 'bad request', description);
  }
}

/** Seconds a refused client is told to wait before it retries (Retry-After). */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The process has no memory or turn left for this request right now: 429, retryable (Fauna's
 * wording), with a Retry-After.
 */
export class TooBusy extends ProtocolError {
  constructor() {
    super(429, 'too many requests', 'Too many pending requests', { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }
}

export function tooMuchCompute(units: number, limitOps: number): LimitExceeded {
  return new LimitExceeded(
    `Transaction does too much compute: got ${Math.ceil(units / UNITS_PER_COMPUTE_OP)}, limit: ${limitOps}`,
  );
}

/**
 * Native loops over arrays (merges, distinct, …) charge one compute unit per this many elements, so
 * that compute follows work where no evaluator call is made. Fauna charges its folds (Count, Sum, …)
 * one unit per element; the others nothing, so this is kept well below anything an application hits.
 */
const ELEMENTS_PER_UNIT = 64;

/** Pool reservations are taken in steps of this size, so a query charging small amounts touches it rarely. */
const RESERVE_STEP = 256 * 1024;
/** Heap bytes a value read from storage takes per stored byte (decoded Maps, strings, refs). */
const READ_EXPANSION = 4;
/** Charges this large read the clock at once (the work behind them takes time). */
const LARGE_ALLOC = 64 * 1024;
/** Native loops look at the clock once per this many elements (stride()). */
const STRIDE_MASK = 4095;
/** The clock is read once per this many compute units. */
const CLOCK_EVERY = 64;

export class QueryTimeout extends Error {
  constructor(message = 'Read timed out') {
    super(message);
  }
}

/**
 * Whoever waits for a query's answer (server/: the request): once it is gone, the query is
 * cancelled at its next look at the clock. A getter polled there, so that a request costs no
 * listener or timer.
 */
export interface ClientLink {
  /** True once nobody can receive the answer (the connection closed, the HTTP/2 stream reset). */
  readonly clientGone: boolean;
}

/** nginx's 'client closed request': what the query log records for a query cancelled so (never sent). */
export const CLIENT_CLOSED_STATUS = 499;

/**
 * The query's client is gone: the query stops where it stands and its transaction is not committed.
 * A QueryTimeout, so that every path that stops on a timeout (predicates, GraphQL resolvers) stops
 * on it too; those that answer tell it apart (CLIENT_CLOSED_STATUS).
 */
export class QueryCancelled extends QueryTimeout {
  constructor() {
    super('Client closed the request');
  }
}

/**
 * One query's spending: compute units, memory charged, and its slice of the event loop. Shared by
 * every evaluation context of the query (a UDF's role, index bindings, predicates).
 */
export class Budget {
  units = 0;
  /** Bytes charged so far (values built, documents read, decoded request). */
  memory = 0;
  private reserved = 0;
  private readonly unitLimit: number;
  private sliceEnd: number;
  private clockIn = CLOCK_EVERY;
  /** Set once the slice is used up: the evaluator yields at its next call. */
  yieldDue = false;
  /** Until the first look at the clock: the first slice is shared with the queries started in the same turn of the loop. */
  private firstSlice = true;
  /** Memory charged before the first transaction attempt (the decoded request). */
  private baseline: number | undefined;

  constructor(
    readonly limits: QueryLimits,
    /** Date.now() after which the query times out (capDeadline may bring it forward). */
    private deadlineAt: number,
    private readonly pool: MemoryPool = UNBOUNDED_POOL,
    /** The query is cancelled once its client is gone. */
    private readonly client?: ClientLink,
  ) {
    this.unitLimit = limits.computeOps * UNITS_PER_COMPUTE_OP;
    this.sliceEnd = performance.now() + limits.sliceMs;
  }

  /** Starts a transaction attempt: compute from zero, memory from what was charged before the first. */
  startAttempt(): void {
    this.baseline ??= this.memory;
    this.units = 0;
    this.memory = this.baseline;
  }

  get sliceMs(): number {
    return this.limits.sliceMs;
  }

  /** One compute unit (a call, a lambda application, an element folded). */
  tick(): void {
    if (++this.units > this.unitLimit) throw tooMuchCompute(this.units, this.limits.computeOps);
    if (--this.clockIn === 0) this.readClock();
  }

  /** `n` compute units at once (the elements an aggregate folded). */
  charge(n: number): void {
    this.units += n;
    if (this.units > this.unitLimit) throw tooMuchCompute(this.units, this.limits.computeOps);
    this.clockIn -= n;
    if (this.clockIn <= 0) this.readClock();
  }

  /** `ops` compute ops at once: work whose cost is known in ops (a BCrypt run, model/secrets.ts). */
  chargeOps(ops: number): void {
    this.charge(ops * UNITS_PER_COMPUTE_OP);
  }

  /** A native loop over `elements` elements (merges, distinct): one unit per ELEMENTS_PER_UNIT. */
  elements(elements: number): void {
    this.charge(Math.ceil(elements / ELEMENTS_PER_UNIT));
  }

  /**
   * Reads the clock now rather than after CLOCK_EVERY units: for loops whose steps take time their
   * units do not show (one regex search), so `breathe()` and the deadline see it.
   */
  poll(): void {
    this.readClock();
  }

  private readClock(): void {
    this.clockIn = CLOCK_EVERY;
    this.checkDeadline();
    if (this.firstSlice) {
      // Here rather than in the constructor: a query that never looks at the clock (a point read) costs nothing more.
      this.firstSlice = false;
      this.sliceEnd = firstSliceEnd(this.sliceEnd);
    }
    if (performance.now() >= this.sliceEnd) this.yieldDue = true;
  }

  /** Date.now() after which the query times out. */
  get deadline(): number {
    return this.deadlineAt;
  }

  /** Brings the deadline forward to `at` (a secret allowed a shorter timeout than it asked for). */
  capDeadline(at: number): void {
    if (at < this.deadlineAt) this.deadlineAt = at;
  }

  checkDeadline(): void {
    if (Date.now() > this.deadlineAt) this.stop(new QueryTimeout());
    if (this.client?.clientGone) this.stop(new QueryCancelled());
  }

  /** The next charge looks at the clock again: the query stops there too if something catches this. */
  private stop(reason: QueryTimeout): never {
    this.clockIn = 1;
    throw reason;
  }

  /** True once the query would stop at its next look at the clock (timed out, client gone). */
  get stopDue(): boolean {
    return Date.now() > this.deadlineAt || this.client?.clientGone === true;
  }

  /**
   * Lets the rest of the process run (I/O, other requests), then starts a new slice. The paused
   * queries of the process take turns, one slice per turn of the loop (loop/turns.ts); one that
   * stopDue is woken out of turn and stops here.
   */
  async pause(): Promise<void> {
    await nextTurn(this);
    this.firstSlice = false;
    this.yieldDue = false;
    this.clockIn = CLOCK_EVERY;
    this.sliceEnd = performance.now() + this.limits.sliceMs;
    this.checkDeadline();
  }

  /**
   * For loops that make no evaluator calls (scans, long native loops): keeps the clock (timeout,
   * slice) without counting compute, and yields when the slice is used up.
   */
  breathe(): Promise<void> | undefined {
    if (--this.clockIn <= 0) this.readClock();
    return this.yieldDue ? this.pause() : undefined;
  }

  /**
   * For native loops over large collections (merges, conversions, multiset counting): every
   * STRIDE elements, reads the clock and yields if the slice is used up.
   */
  stride(i: number): Promise<void> | undefined {
    if ((i & STRIDE_MASK) !== STRIDE_MASK) return undefined;
    this.readClock();
    return this.yieldDue ? this.pause() : undefined;
  }

  /** A read of `bytes` from storage (TxnMetrics.reader): what it decodes to is charged. */
  read(bytes: number): void {
    this.alloc(bytes * READ_EXPANSION);
  }

  /**
   * Gives back what was charged since `mark` (a value of `memory`): for a fold that streams a set and
   * keeps none of what it read (Count, Sum, …), whose reads would otherwise add up to the query's
   * limit long before the compute limit that Fauna documents for it. The pool reservation stays.
   */
  rewind(mark: number): void {
    if (this.memory > mark) this.memory = mark;
  }

  /** Charges `bytes` of memory to the query and reserves them from the pool. */
  alloc(bytes: number): void {
    // Large allocations take time their compute units do not show: look at the clock.
    if (bytes >= LARGE_ALLOC) this.readClock();
    this.memory += bytes;
    if (this.memory > this.limits.queryMemoryBytes)
      throw new LimitExceeded(
        `Query uses too much memory: got ${this.memory} bytes, limit ${this.limits.queryMemoryBytes} bytes`,
      );
    if (this.memory > this.reserved) {
      const step = Math.max(RESERVE_STEP, this.memory - this.reserved);
      if (!this.pool.tryReserve(step)) throw new TooBusy();
      this.reserved += step;
    }
  }

  /** A string the query is about to build: within the value cap, and charged. */
  string(length: number): void {
    if (length > this.limits.maxValueBytes) throw valueTooLarge(length, this.limits.maxValueBytes);
    this.alloc(length);
  }

  /** An array of `length` elements the query is about to build: within the value cap, and charged. */
  array(length: number): void {
    const bytes = length * 8;
    if (bytes > this.limits.maxValueBytes) throw valueTooLarge(bytes, this.limits.maxValueBytes);
    this.alloc(bytes);
  }

  /** An object of `fields` fields the query is about to build: within the value cap, and charged. */
  object(fields: number): void {
    const bytes = fields * 16;
    if (bytes > this.limits.maxValueBytes) throw valueTooLarge(bytes, this.limits.maxValueBytes);
    this.alloc(bytes * 3); // a Map entry costs about three times its slot
  }

  /** Gives the query's reservation back to the pool (once, when the request is done). */
  release(): void {
    this.pool.release(this.reserved);
    this.reserved = 0;
  }
}

export function valueTooLarge(bytes: number, limit: number): LimitExceeded {
  return new LimitExceeded(`Value exceeds the size limit: got ${bytes} bytes, limit ${limit} bytes`);
}
