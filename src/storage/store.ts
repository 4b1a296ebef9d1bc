// MVCC store with optimistic concurrency and group commit, on top of any Engine.
//
// Two modes. An engine only this process writes (LMDB, one process) runs the local mode below. An
// engine other processes write too (PostgreSQL, LMDB with workers) runs the shared mode further down.
//
// Local mode invariants (one Node process, so the commit critical section is one synchronous block):
//  - The engine holds durable commits only (plus, briefly, commits being flushed, whose ts is above
//    every snapshot that can read them), so snapshot reads go straight to the engine, bounded by ts.
//  - A snapshot S is taken so that every commit with ts ≤ S is durable and every later commit gets
//    ts > S: S = max(issued, now) when nothing is pending, else (oldest pending commit ts) − 1.
//  - A read-write txn commits at ts > S after checking that no commit in (S, ts) wrote what it read.
//  - Commits validated while a flush is in flight (or in the same tick) share one engine.write, and
//    `run` resolves only once its commit is durable.
//
// Shared mode: every commit of every process goes through `engine.exclusive`, one critical section
// at a time across the tier (LMDB's writer lock, a PostgreSQL row lock). Inside it a process
// reads the issued ts and the commit log records (commitLog.ts) it has not seen, validates its batch
// against every commit after each transaction's snapshot (its own and the others', now all in
// `log`), gives each commit ts = max(clock, previous + 1) above everything issued, and writes the
// versions, the log records and the new issued ts in one durable write. So:
//  - commit ts are strictly increasing in commit order across processes (each section starts from
//    the issued ts the previous one wrote), and a commit that completed before another started has
//    the smaller ts: read-write transactions are strictly serializable;
//  - `known` is a ts such that every commit ≤ known is durable and this process has applied its log
//    record, and every later commit gets ts > known. Snapshots are taken at `known`, so they are
//    consistent. Before each snapshot the process learns the store's head (`learnHead`: one
//    synchronous read of LMDB's shared memory, or a round trip shared by the transactions that
//    start meanwhile), so a snapshot holds every commit acknowledged, by any process, before its
//    transaction began: read-only transactions are strictly serializable too. With a
//    `maxStalenessMs` (opt-in) they skip that read and are fresh within that bound instead,
//    unless the run asks to be `linearized` (FQL v10's x-linearized);
//  - a snapshot's time stays within HARD_STALE_US of the clock (what Now() answers): an idle tier
//    is moved up by a "tick", a section with no commits, started in the background past
//    SOFT_STALE_US; a snapshot waits for `minSnapshotTs` (X-Last-Seen-Txn) to be known;
//  - one section or asynchronous head read runs at a time in a process (`sequence`); a synchronous
//    head read may come between a section's write and its end, and skips the section's own records
//    (`ownInFlight`), so a process's own commits never come back to it as another process's.

import { ProtocolError, QueryError } from '../values/errors';
import { FIRST_USER_COLLECTION_ID, type Obj } from '../values/types';
import { EngineConflict, type Engine, type EngineSnapshot, type Head, type HeadQuery, type WriteOp } from './engine';
import {
  decodeFloor,
  decodeLogRecord,
  encodeLogRecord,
  feedEvent,
  LOG_FLOOR_KEY,
  LOG_RETENTION_US,
  logKey,
  logKeyTs,
  logRange,
  type LogRecord,
} from './commitLog';
import {
  collectionPrefix,
  databaseRange,
  decodeU64Value,
  historyKeyEntry,
  historyKeyTs,
  encodeU64Value,
  indexKey,
  indexRemovalKey,
  inKeyspace,
  KeyTag,
  systemKey,
  versionKey,
  versionKeyId,
  versionKeyTs,
} from './keys';
import {
  ConflictError,
  type DocKey,
  type RunOptions,
  type RunResult,
  type Store,
  type Txn,
  type CommitListener,
  } from './types';
import { decodeValue } from './valueCodec';
import { isRemoveEvent } from './indexTxn';
import { prefixEnd } from './tuple';
import { isDeletion, TxnImpl, type CommitRecord } from './txn';
import { deletionsThrough, keepsDeleted } from './deletions';
import { Timings } from './timings';
import { log } from '../diag/log';

/** The store's issued transaction time: every commit at or below it is written, every later one gets more. */
export const ISSUED_TS_KEY = systemKey('issuedTs');
/** The issued ts alone: whether anything was committed since a process last looked. */
const ISSUED_QUERY: HeadQuery = { keys: [ISSUED_TS_KEY], ranges: [] };
const DEFAULT_MAX_RETRIES = 7; // 8 attempts in all
/**
 * Shared mode, when the client set no limit: losses to another process's commit allowed before 409.
 * Each such loss is the tier's progress, but a process's retry queue orders only its own contenders,
 * so on a hot document one process's queue can beat another's waiting transaction many times in a row.
 */
const DEFAULT_MAX_FOREIGN_LOSSES = 4 * DEFAULT_MAX_RETRIES;
const MAX_WRITES_IN_FLIGHT = 4;
/**
 * Shared mode: a snapshot time further behind the clock starts a tick in the background. Ticks are
 * synced LMDB sections: at 10 ms a read-only tier ran ~50 a second, and its workers spent 15–25 %
 * more CPU per Get than two Flora processes sharing nothing; at 40 ms the two match (bench/RESULTS.md,
 * issue 31, bench/twoProcesses.ts).
 */
const SOFT_STALE_US = 40_000n;
/** Shared mode: a snapshot time is never further behind the clock (it waits for a head read or a tick). */
const HARD_STALE_US = 100_000n;
/** Shared mode: while streams listen, how often other processes' commits are looked for. */
const FEED_POLL_MS = 20;
/** Shared mode: old commit log records deleted per section, plus two per commit (the log stays bounded). */
const LOG_TRIM_PER_SECTION = 8;
/** Shared mode: most commit log records read at once (a process far behind catches up in steps). */
const LOG_READ_LIMIT = 4096;
/** Shared mode: reads of another process's versions for the feed are tried this often before giving up. */
const FEED_LOAD_ATTEMPTS = 5;
/** Shared mode: a purge waits this long past the deletion for other processes' snapshots. */
const SHARED_PURGE_DELAY_MS = 130_000;

/** Wall clock in µs: Date.now() for the time, hrtime for the digits below the millisecond. */
function wallClockMicros(): () => bigint {
  let baseUs = BigInt(Date.now()) * 1000n;
  let baseMono = process.hrtime.bigint();
  return () => {
    const mono = process.hrtime.bigint();
    const wall = BigInt(Date.now()) * 1000n;
    const est = baseUs + (mono - baseMono) / 1000n;
    if (est >= wall && est < wall + 1000n) return est;
    baseUs = wall; // drifted off the wall clock's millisecond: follow the wall clock
    baseMono = mono;
    return wall;
  };
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** Shared mode: the longest first pause before a retry lost to another process (ms); it doubles with each retry. */
const CONTENTION_PAUSE_MS = 4;
/** …up to this (ms). */
const CONTENTION_PAUSE_MAX_MS = 100;

function contentionPause(retries: number): Promise<void> {
  const ms = Math.random() * Math.min(CONTENTION_PAUSE_MAX_MS, CONTENTION_PAUSE_MS * 2 ** (retries - 1));
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Thrown at commit; carries the commit we lost to (if known) so the retry can wait for it. */
class StoreConflict extends ConflictError {
  constructor(readonly winner: CommitRecord | undefined) {
    super();
  }
}

interface SharedState {
  known: bigint;
  floor: bigint;
  /** Most commit log records read at once. */
  readLimit: number;
  /** The last head read did not bring every record: catch up before the next snapshot. */
  behind: boolean;
  /** Every snapshot learns the head first (no `maxStalenessMs`). */
  learnsHead: boolean;
  /** A snapshot's time is never further behind the clock than this (it waits for a tick). */
  hardStaleUs: bigint;
  /** A snapshot's time further behind the clock than this starts a tick in the background. */
  softStaleUs: bigint;
}

/** A shared-mode transaction waiting for its critical section. */
interface Waiting {
  txn: TxnImpl;
  /** Conflicts its run has lost so far: the section validates those that lost more first. */
  retries: number;
  resolve(ts: bigint): void;
  reject(e: unknown): void;
}

const resolvedDurable = Promise.resolve();

export interface StoreOptions {
  /** Wall clock in µs (tests inject one). */
  clock?: () => bigint;
  /** Shared mode: most commit log records read at once (tests make it small). */
  logReadLimit?: number;
  /**
   * Shared mode: 0 (the default) makes every snapshot learn the store's head first, so it holds
   * every commit acknowledged before its transaction began. More lets a read-only transaction miss
   * other processes' commits of up to about this many milliseconds, sparing that read.
   */
  maxStalenessMs?: number;
}

export async function openStore(engine: Engine, opts: StoreOptions = {}): Promise<Store> {
  const clock = opts.clock ?? wallClockMicros();
  if (engine.shared) {
    // Every commit ≤ the issued ts is durable and later ones get more: the first horizon.
    const head = await engine.readHead({ keys: [ISSUED_TS_KEY, LOG_FLOOR_KEY], ranges: [] });
    const issued = head.values[0] ? decodeU64Value(head.values[0]) : 0n;
    const stalenessUs = BigInt(Math.round((opts.maxStalenessMs ?? 0) * 1000));
    return new MvccStore(engine, clock, issued, {
      known: issued,
      floor: decodeFloor(head.values[1]),
      readLimit: opts.logReadLimit ?? LOG_READ_LIMIT,
      behind: false,
      learnsHead: stalenessUs === 0n,
      hardStaleUs: stalenessUs === 0n ? HARD_STALE_US : stalenessUs,
      softStaleUs: stalenessUs === 0n ? SOFT_STALE_US : stalenessUs / 5n,
    });
  }
  const raw = await engine.get(ISSUED_TS_KEY);
  const persisted = raw ? decodeU64Value(raw) : 0n;
  return new MvccStore(engine, clock, max(persisted, clock()));
}

class MvccStore implements Store {
  /** Max of every snapshot and commit ts handed out; persisted with each flush. */
  private issuedTs: bigint;
  /** Validated commits not yet durable, in ts order. */
  private pending: CommitRecord[] = [];
  /** The tail of `pending` not yet handed to the engine. */
  private queued: CommitRecord[] = [];
  /** Recent commits in ts order (pending and durable) for validation; pruned by `prune`. */
  private log: CommitRecord[] = [];
  /** Snapshot ts of running transactions → count. */
  private active = new Map<bigint, number>();
  private flushing = false;
  private flushScheduled = false;
  private idle: Promise<void> = Promise.resolve();
  private signalIdle: () => void = () => {};
  /** Serializes retried attempts so a hot spot drains one txn at a time instead of thrashing. */
  private retryQueue: Promise<void> = Promise.resolve();
  private closed = false;
  /** Commit feed (streams): listeners, and commits with changes not yet delivered, in ts order. */
  private readonly commitListeners = new Set<CommitListener>();
  private feed: CommitRecord[] = [];

  private readonly nativeListeners: ((ts: bigint, docs: DocKey[] | 'all') => void)[] = [];

  // Shared mode (undefined in local mode).
  private readonly sharing: SharedState | undefined;
  /** Commits waiting for the next critical section. */
  private waiting: Waiting[] = [];
  private sectionScheduled = false;
  /** The chain of sections and head reads: one at a time. */
  private sequencer: Promise<void> = Promise.resolve();
  private ticking = false;
  /** A head read asked for and not started yet: transactions starting meanwhile share it. */
  private queuedHead: Promise<void> | undefined;
  /** Ts of this process's commits in a section that has not ended (their writes may be visible). */
  private readonly ownInFlight = new Set<bigint>();
  private feedTimer: NodeJS.Timeout | undefined;
  /** Aborted by close() and by stopPurges() (a shutdown): waits for other processes' snapshots end. */
  private readonly closing = new AbortController();
  /** How long this process's durable commit writes took (a group commit is one), for /metrics. */
  readonly commitTimes = new Timings();

  constructor(
    readonly engine: Engine,
    private readonly clock: () => bigint,
    issuedTs: bigint,
    shared?: SharedState,
  ) {
    this.issuedTs = issuedTs;
    this.sharing = shared;
  }

  now(): bigint {
    return max(this.clock(), this.sharing ? this.sharing.known : this.issuedTs);
  }

  get shared(): boolean {
    return this.sharing !== undefined;
  }

  sizeBytes(): Promise<number> {
    return this.engine.sizeBytes();
  }

  openSnapshot(): Promise<EngineSnapshot> {
    if (this.closed) throw new Error('store is closed');
    return this.engine.snapshot();
  }

  onNativeWrites(listener: (ts: bigint, docs: DocKey[] | 'all') => void): void {
    this.nativeListeners.push(listener);
  }

  /** Tells the listeners what a commit (validated, own or another process's) wrote to native collections. */
  private nativeWrites(ts: bigint, docs: DocKey[]): void {
    let native: DocKey[] | undefined;
    for (const d of docs) if (d.coll < FIRST_USER_COLLECTION_ID) (native ??= []).push(d);
    if (!native) return;
    for (const l of this.nativeListeners) l(ts, native);
  }

  // ---- commit feed -----------------------------------------------------------------------

  onCommit(listener: CommitListener): () => void {
    const entry: CommitListener = (c) => listener(c); // one registration per call, even of one function
    this.commitListeners.add(entry);
    this.pollFeed();
    return () => {
      this.commitListeners.delete(entry);
    };
  }

  /** Whether commits must record their changes for the feed. */
  get feedActive(): boolean {
    return this.commitListeners.size > 0;
  }

  /** Hands durable commits to the listeners, oldest first, stopping at the first one not yet durable. */
  private deliverCommits(): void {
    let n = 0;
    while (n < this.feed.length && this.feed[n].isDurable && !this.feed[n].loading) {
      const rec = this.feed[n++];
      const changes = rec.changes!;
      rec.changes = undefined;
      for (const listener of this.commitListeners) {
        try {
          listener(changes);
        } catch (e) {
          log.error('commit listener failed', { err: e });
        }
      }
    }
    if (n > 0) this.feed.splice(0, n);
  }

  /**
   * Note: `fn` must not await a nested `run` on the same store: a retried attempt holds the retry
   * queue, which a nested retried attempt would wait for.
   */
  async run<T>(fn: (txn: Txn) => Promise<T>, opts: RunOptions = {}): Promise<RunResult<T>> {
    const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    let retries = 0;
    let foreignLosses = 0; // counted apart only under the default limit
    let releaseRetryQueue: (() => void) | undefined;
    try {
      for (;;) {
        if (this.closed) throw new Error('store is closed');
        const snapshot = await this.takeSnapshot(opts.minSnapshotTs, opts.linearized === true);
        const txn = new TxnImpl(this, snapshot);
        let winner: CommitRecord | undefined;
        try {
          const result = await fn(txn);
          let ts = snapshot;
          if (txn.hasWrites) ts = await this.commit(txn, retries);
          else if (txn.writeIntended || txn.metaReads) await this.validateReads(txn, !txn.writeIntended);
          return { result, ts, retries, metrics: txn.metrics };
        } catch (e) {
          if (!(e instanceof StoreConflict) && !(await this.answeredFromStaleReads(txn, e))) throw e;
          winner = e instanceof StoreConflict ? e.winner : undefined;
        } finally {
          txn.finish();
          this.release(snapshot);
        }
        const foreign = this.sharing && opts.maxRetries === undefined && winner?.foreign === true;
        if (foreign ? foreignLosses >= DEFAULT_MAX_FOREIGN_LOSSES : retries - foreignLosses >= maxRetries) {
          throw new ProtocolError(
            409,
            'contended transaction',
            'Transaction was aborted due to detection of concurrent modification.',
          );
        }
        retries++;
        if (foreign) foreignLosses++;
        // A fresh snapshot only sees the winner once it is durable.
        await winner?.durable.catch(() => {});
        releaseRetryQueue ??= await this.enterRetryQueue();
        // The retry queue drains this process's contenders one at a time; another process's drain
        // in step with this one would win every other time. A random pause that doubles with each
        // loss to another process breaks the step (the winner may be unknown: a section refused).
        if (this.sharing && (winner === undefined || winner.foreign)) await contentionPause(retries);
      }
    } finally {
      releaseRetryQueue?.();
    }
  }

  /**
   * Shared mode: whether a transaction that failed (`error`, an answer to the client such as "invalid
   * ref" or 401) read something another process had changed since its snapshot: then the failure may
   * not hold now, and it runs again from a fresh snapshot, as a commit that conflicted would. A
   * snapshot may be a moment behind other processes' commits; a success is checked at commit, and
   * this holds a failure to the same standard. Failures of the store itself are not answers.
   */
  private async answeredFromStaleReads(txn: TxnImpl, error: unknown): Promise<boolean> {
    const sh = this.sharing;
    if (!sh || !(error instanceof QueryError || error instanceof ProtocolError) || this.closed) return false;
    try {
      await this.learnHead(sh);
    } catch {
      return false; // the store cannot be read: the failure stands
    }
    return this.conflictOf(txn) !== undefined;
  }

  /**
   * A transaction that wrote nothing, checked against the commits after its snapshot up to the head
   * as a commit would be. One that set out to write and found nothing to write (an Update of a
   * document its snapshot lacks, answered as null by GraphQL): all its reads, so that its answer
   * holds at a time after it began. One that read meta keys (`metaOnly`): those reads, which may
   * have seen a commit after its snapshot (a build list emptied by the commit that activated its
   * index, its documents read before it). Throws the conflict (the transaction runs again, once
   * the commit it lost to is durable); its time stays its snapshot's.
   */
  private async validateReads(txn: TxnImpl, metaOnly: boolean): Promise<void> {
    const sh = this.sharing;
    if (sh) await this.learnHead(sh);
    const conflict = this.conflictOf(txn, metaOnly);
    if (conflict) throw conflict;
  }

  /**
   * The conflict `txn` would commit with: a commit after its snapshot that wrote what it read (only
   * its meta reads with `metaOnly`), or (shared mode) a snapshot older than the commit log still
   * holds. Undefined when there is none.
   */
  private conflictOf(txn: TxnImpl, metaOnly = false): StoreConflict | undefined {
    if (this.sharing && txn.snapshotTs < this.sharing.floor) return new StoreConflict(undefined);
    for (let i = this.log.length - 1; i >= 0 && this.log[i].ts > txn.snapshotTs; i--) {
      const rec = this.log[i];
      if (metaOnly ? txn.metaConflictsWith(rec) : txn.conflictsWith(rec)) return new StoreConflict(rec);
    }
    return undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    if (this.feedTimer) clearTimeout(this.feedTimer);
    if (this.sharing) {
      // Every commit already writes the issued ts; other processes may have issued more since.
      while (this.waiting.length > 0 || this.sectionScheduled) {
        await new Promise((r) => setImmediate(r));
        await this.sequencer;
      }
      await this.sequencer;
    } else {
      while (this.pending.length > 0) await this.pending[this.pending.length - 1].durable.catch(() => {});
      await this.idle;
      await this.engine.write([{ key: ISSUED_TS_KEY, value: encodeU64Value(this.issuedTs) }]);
    }
    await this.engine.close();
  }

  // ---- snapshots -------------------------------------------------------------------------

  private async takeSnapshot(minTs: bigint | undefined, linearized: boolean): Promise<bigint> {
    if (this.sharing) return this.sharedSnapshot(this.sharing, minTs, linearized);
    // X-Last-Seen-Txn: wait until every commit up to minTs is durable (and so visible). A minTs
    // beyond everything issued is reserved first, so commits arriving meanwhile land above it and
    // the wait ends.
    if (minTs !== undefined && minTs > this.issuedTs) this.issuedTs = minTs;
    while (minTs !== undefined && this.pending.length > 0 && minTs >= this.pending[0].ts) {
      await this.pending[0].durable.catch(() => {});
    }
    let s: bigint;
    if (this.pending.length === 0) {
      s = max(this.issuedTs, this.clock());
      this.issuedTs = s;
    } else {
      s = this.pending[0].ts - 1n;
    }
    this.active.set(s, (this.active.get(s) ?? 0) + 1);
    return s;
  }

  private release(snapshot: bigint): void {
    const n = this.active.get(snapshot)! - 1;
    if (n === 0) this.active.delete(snapshot);
    else this.active.set(snapshot, n);
    this.prune();
    this.wakeSnapshotWaiters();
  }

  // ---- purges ----------------------------------------------------------------------------

  /** Waiters for "every running snapshot is at least ts". */
  private snapshotWaiters: { ts: bigint; resolve: () => void }[] = [];

  private minActiveSnapshot(): bigint | undefined {
    let min: bigint | undefined;
    for (const s of this.active.keys()) if (min === undefined || s < min) min = s;
    return min;
  }

  private wakeSnapshotWaiters(): void {
    if (this.snapshotWaiters.length === 0) return;
    const min = this.minActiveSnapshot();
    this.snapshotWaiters = this.snapshotWaiters.filter((w) => {
      if (min !== undefined && min < w.ts) return true;
      w.resolve();
      return false;
    });
  }

  private snapshotsReach(ts: bigint): Promise<void> {
    const min = this.minActiveSnapshot();
    if (min === undefined || min >= ts) return Promise.resolve();
    return new Promise((resolve) => this.snapshotWaiters.push({ ts, resolve }));
  }

  /**
   * Shared mode: other processes' snapshots are not known here; a transaction never runs longer
   * than the query timeout, so past that delay none is older than the deletion.
   */
  private otherSnapshotsReach(): Promise<void> {
    if (!this.sharing || this.closing.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, SHARED_PURGE_DELAY_MS);
      t.unref();
      this.closing.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  stopPurges(): void {
    this.closing.abort();
  }

  async purgeDatabase(db: bigint, deletedAt: bigint): Promise<void> {
    await this.snapshotsReach(deletedAt);
    await this.otherSnapshotsReach();
    if (this.closing.signal.aborted) return; // a shutdown: other processes' snapshots may still read it
    for (const tag of [KeyTag.Version, KeyTag.Latest, KeyTag.Deletion, KeyTag.IndexEntry, KeyTag.IndexHistory, KeyTag.IndexRemoval])
      await this.purgeRange(databaseRange(tag, db));
  }

  async purgeCollection(db: bigint, coll: number, deletedAt: bigint): Promise<void> {
    await this.snapshotsReach(deletedAt);
    await this.otherSnapshotsReach();
    if (this.closing.signal.aborted) return; // a shutdown: other processes' snapshots may still read it
    for (const tag of [KeyTag.Version, KeyTag.Latest, KeyTag.Deletion]) {
      const start = inKeyspace(tag, collectionPrefix(db, coll));
      await this.purgeRange({ start, end: prefixEnd(start) });
    }
  }

  async purgeIndex(db: bigint, index: number, deletedAt: bigint): Promise<void> {
    await this.snapshotsReach(deletedAt);
    await this.otherSnapshotsReach();
    if (this.closing.signal.aborted) return; // a shutdown: other processes' snapshots may still read it
    for (const tag of [KeyTag.IndexEntry, KeyTag.IndexHistory, KeyTag.IndexRemoval]) {
      const start = indexKey(tag, db, index);
      await this.purgeRange({ start, end: prefixEnd(start) });
    }
  }

  async collectHistory(db: bigint, coll: number, mvt: bigint, batchSize = 1000): Promise<number> {
    let start = inKeyspace(KeyTag.Version, collectionPrefix(db, coll));
    const end = prefixEnd(start);
    const dropsDeleted = !keepsDeleted(coll);
    let removed = 0;
    // The newest version ≤ mvt seen of the current document: superseded by a newer one ≤ mvt, and
    // not needed at all when it is a deletion (the document is absent at the MVT either way), but
    // in the schema collections, whose deleted documents the catalog reads (keys.ts).
    let kept: { id: bigint; ts: bigint; deletion: boolean } | undefined;
    const settle = (victims: { id: bigint; ts: bigint }[]) => {
      if (kept?.deletion && dropsDeleted) victims.push(kept);
      kept = undefined;
    };
    for (;;) {
      if (this.closed) return removed;
      const victims: { id: bigint; ts: bigint }[] = [];
      let last: Uint8Array | undefined;
      for await (const kv of this.engine.range({ start, end, limit: batchSize })) {
        last = kv.key;
        const id = versionKeyId(kv.key);
        const ts = versionKeyTs(kv.key);
        if (kept && kept.id !== id) settle(victims);
        if (ts > mvt) continue;
        if (kept) victims.push(kept);
        kept = { id, ts, deletion: isDeletion(kv.value) };
      }
      if (last === undefined) settle(victims);
      if (victims.length > 0) {
        await this.run(async (txn) => {
          (txn as TxnImpl).unreported = true; // retention is not a history rewrite (commit feed)
          for (const v of victims) await txn.removeVersionAt({ db, coll, id: v.id }, v.ts);
        });
        removed += victims.length;
      }
      if (last === undefined) {
        // Deletions at or below the MVT: a scan at or above it finds those documents absent
        // without them. Only a history edit writes one at a past time (this run's, when a deletion
        // stays the newest version), so they go last, directly.
        if (dropsDeleted) removed += await this.purgeRange(deletionsThrough(db, coll, mvt));
        return removed;
      }
      start = new Uint8Array(last.length + 1);
      start.set(last);
      await new Promise((r) => setImmediate(r));
    }
  }

  async collectIndexHistory(db: bigint, index: number, mvt: bigint, batchSize = 1000): Promise<number> {
    // Removals at or below the MVT: a read at or above it finds those entries absent without them.
    // No commit writes one any more (new ones are later), so they go directly, like the events below.
    const removals = { start: indexKey(KeyTag.IndexRemoval, db, index), end: indexRemovalKey(db, index, mvt + 1n) };
    let removed = await this.purgeRange(removals);
    let start = indexKey(KeyTag.IndexHistory, db, index);
    const end = prefixEnd(start);
    // The newest event ≤ mvt seen of the current entry: superseded by a newer one ≤ mvt, and not
    // needed at all when it is a remove (the entry is absent at the MVT either way).
    let newest: { entry: string; key: Uint8Array; remove: boolean } | undefined;
    const settle = (ops: WriteOp[]) => {
      if (newest?.remove) ops.push({ key: newest.key, value: null });
      newest = undefined;
    };
    for (;;) {
      if (this.closed) return removed;
      const ops: WriteOp[] = [];
      let last: Uint8Array | undefined;
      for await (const kv of this.engine.range({ start, end, limit: batchSize })) {
        last = kv.key;
        const entry = Buffer.from(historyKeyEntry(kv.key)).toString('latin1');
        if (newest && newest.entry !== entry) settle(ops);
        if (historyKeyTs(kv.key) > mvt) {
          if (newest) settle(ops);
          continue;
        }
        if (newest) ops.push({ key: newest.key, value: null });
        newest = { entry, key: new Uint8Array(kv.key), remove: isRemoveEvent(kv.value) };
      }
      if (last === undefined) settle(ops);
      // Events below the MVT are never read (such reads are refused) nor written again, so they
      // are removed directly rather than through conflict-checked transactions.
      if (ops.length > 0) await this.engine.write(ops);
      removed += ops.length;
      if (last === undefined) return removed;
      start = new Uint8Array(last.length + 1);
      start.set(last);
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Deletes a key range in batches, yielding between them so queries are not blocked; the count deleted. */
  private async purgeRange(range: { start: Uint8Array; end: Uint8Array }): Promise<number> {
    const BATCH = 1000;
    let deleted = 0;
    for (;;) {
      if (this.closing.signal.aborted) return deleted; // closed, or a shutdown (stopPurges)
      const ops: WriteOp[] = [];
      for await (const kv of this.engine.range({ ...range, limit: BATCH })) ops.push({ key: kv.key, value: null });
      if (ops.length === 0) return deleted;
      await this.engine.write(ops);
      deleted += ops.length;
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Drops durable commits that no running snapshot can conflict with. */
  private prune(): void {
    let minActive: bigint | undefined;
    for (const s of this.active.keys()) if (minActive === undefined || s < minActive) minActive = s;
    let n = 0;
    while (n < this.log.length && this.log[n].isDurable && (minActive === undefined || this.log[n].ts <= minActive)) n++;
    if (n > 0) this.log.splice(0, n);
  }

  private enterRetryQueue(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const prev = this.retryQueue;
    this.retryQueue = prev.then(() => mine);
    return prev.then(() => release);
  }

  // ---- shared mode -----------------------------------------------------------------------

  private async sharedSnapshot(sh: SharedState, minTs: bigint | undefined, linearized: boolean): Promise<bigint> {
    if (sh.learnsHead || linearized) await this.learnHead(sh);
    const now = this.clock();
    if ((minTs !== undefined && minTs > sh.known) || now - sh.known > sh.hardStaleUs || sh.behind) {
      await this.refresh(sh, minTs ?? 0n, now - sh.hardStaleUs);
    } else if (now - sh.known > sh.softStaleUs && !this.ticking) {
      this.ticking = true;
      void this.refresh(sh, 0n, now - sh.softStaleUs)
        .catch(() => undefined) // a failing store shows in the requests that wait for it
        .finally(() => (this.ticking = false));
    }
    const s = sh.known;
    this.active.set(s, (this.active.get(s) ?? 0) + 1);
    return s;
  }

  /**
   * Applies every commit acknowledged (by any process) before the call: one synchronous read where
   * the engine has it (LMDB), else a head read that starts after the call, shared by every caller
   * until it starts (one round trip for the transactions that start meanwhile).
   */
  private learnHead(sh: SharedState): Promise<void> {
    const readSync = this.engine.readHeadSync;
    if (readSync && !sh.behind) {
      // Most often nothing was committed since: the issued ts alone tells, without the log's range.
      const issued = readSync.call(this.engine, ISSUED_QUERY).values[0];
      if (!issued || decodeU64Value(issued) <= sh.known) return resolvedDurable;
      if (this.applyHead(sh, readSync.call(this.engine, this.headQuery(sh, 0)))) return resolvedDurable;
    }
    return (this.queuedHead ??= this.sequence(async () => {
      this.queuedHead = undefined; // from here on, later callers need a read of their own
      await this.catchUp(sh);
    }));
  }

  /** Runs `fn` after every section and head read already asked for (one at a time). */
  private sequence(fn: () => Promise<void>): Promise<void> {
    const run = this.sequencer.then(fn);
    this.sequencer = run.catch(() => undefined);
    return run;
  }

  /** Brings `known` to at least `minTs` and `target`: reads the head, then ticks if still short. */
  private refresh(sh: SharedState, minTs: bigint, target: bigint): Promise<void> {
    return this.sequence(async () => {
      if (sh.known >= minTs && sh.known >= target && !sh.behind) return; // done by the one before
      await this.catchUp(sh);
      if (sh.known >= minTs && sh.known >= target) return;
      await this.section(sh, []);
    });
  }

  /** Applies every commit other processes made (`readLimit` records per head read). */
  private async catchUp(sh: SharedState): Promise<void> {
    while (!this.applyHead(sh, await this.engine.readHead(this.headQuery(sh, 0)))) if (this.closed) return;
  }

  /** The head a section or a refresh reads; `trim` old log records come along to be deleted. */
  private headQuery(sh: SharedState, trim: number): HeadQuery {
    const cutoff = this.clock() - LOG_RETENTION_US;
    const ranges = [{ ...logRange(sh.known), limit: sh.readLimit }];
    if (trim > 0) ranges.push({ start: logKey(0n), end: logKey(cutoff > 0n ? cutoff : 0n), limit: trim });
    return { keys: [ISSUED_TS_KEY, LOG_FLOOR_KEY], ranges };
  }

  /**
   * Applies other processes' commits in `head` (their log records above `known`) and moves `known`
   * past them: to the issued ts when the head holds every record, else (`readLimit` reached) to
   * the last one read. Returns whether it held every record.
   */
  private applyHead(sh: SharedState, head: Head): boolean {
    const issued = head.values[0] ? decodeU64Value(head.values[0]) : 0n;
    const floor = decodeFloor(head.values[1]);
    if (floor > sh.known) {
      // Records this process never saw were trimmed: nothing before the floor can be validated,
      // and every cache may be stale.
      for (const l of this.nativeListeners) l(floor, 'all');
      log.warn('this process fell behind the commit log; caches dropped, older transactions retried');
    }
    if (floor > sh.floor) sh.floor = floor;
    const feed = this.feedActive;
    const records = head.ranges[0];
    const complete = records.length < sh.readLimit;
    let last = sh.known;
    for (const kv of records) {
      const ts = logKeyTs(kv.key);
      if (ts <= sh.known || ts > issued || this.ownInFlight.has(ts)) continue;
      const r = decodeLogRecord(ts, kv.value);
      const rec: CommitRecord = {
        ts,
        keys: new Set(r.keys),
        docs: r.docs,
        indexes: r.indexes,
        ops: [],
        durable: resolvedDurable,
        resolve: () => {},
        reject: () => {},
        isDurable: true,
        foreign: true,
      };
      this.log.push(rec);
      this.nativeWrites(ts, r.docs);
      if (feed && !r.unreported && (r.versions.length > 0 || r.entries.length > 0)) {
        rec.loading = true;
        this.feed.push(rec);
        void this.loadFeed(rec, r);
      }
      last = ts;
    }
    sh.behind = !complete;
    const reached = complete ? issued : last;
    if (reached > sh.known) sh.known = reached;
    if (this.feed.length > 0) this.deliverCommits();
    this.prune();
    return complete;
  }

  /** Reads the versions another process's commit wrote, then lets the feed deliver it. */
  private async loadFeed(rec: CommitRecord, r: LogRecord): Promise<void> {
    const keys = r.versions.map((v) => (v.action && v.action !== 'delete' ? versionKey(v.key, v.ts) : undefined));
    let stored: (Uint8Array | undefined)[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        stored = await Promise.all(keys.map((k) => (k ? this.engine.get(k) : undefined)));
        break;
      } catch (e) {
        if (attempt >= FEED_LOAD_ATTEMPTS || this.closed) {
          // The store stays unreachable: streams get the change without its data rather than never.
          log.error(`cannot read the versions of commit ${rec.ts} for streams: ${(e as Error).message}`, { ts: rec.ts });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
    rec.changes = feedEvent(r, stored, (bytes) => (bytes.length > 1 ? (decodeValue(bytes, 1, undefined, rec.ts) as Obj) : null));
    rec.loading = false;
    this.deliverCommits();
  }

  private scheduleSection(): void {
    if (this.sectionScheduled) return;
    this.sectionScheduled = true;
    // Let the other commits of this tick join the batch.
    setImmediate(() => {
      void this.sequence(async () => {
        this.sectionScheduled = false;
        const batch = this.waiting;
        this.waiting = [];
        if (batch.length > 0) await this.section(this.sharing!, batch).catch(() => undefined);
      });
    });
  }

  /**
   * One critical section: validates and commits `batch` (each waiting txn is resolved or rejected);
   * with nothing committed (a tick, or every txn refused), moves the issued ts up to the clock.
   * Rejects only with an engine failure (after rejecting the batch with it).
   */
  private async section(sh: SharedState, batch: Waiting[]): Promise<void> {
    const done: { w: Waiting; rec: CommitRecord }[] = [];
    const refused: { w: Waiting; error: unknown }[] = [];
    let issuedTs = 0n;
    const started = performance.now();
    try {
      await this.engine.exclusive(this.headQuery(sh, LOG_TRIM_PER_SECTION + 2 * batch.length), (head) => {
        done.length = 0;
        refused.length = 0;
        const ops: WriteOp[] = [];
        if (!this.applyHead(sh, head)) {
          // More commits of other processes than one read brings: this batch cannot be validated
          // against them yet. Its transactions retry (from fresher snapshots, which catch up first).
          for (const w of batch) refused.push({ w, error: new StoreConflict(undefined) });
          return ops;
        }
        let last = sh.known;
        // Transactions that already lost go first: a batch is validated in order, and a retried
        // increment behind fresh ones on the same document would otherwise lose to each in turn
        // until its budget ran out (40 concurrent increments on PostgreSQL saw a 409). Any order of
        // one batch is serializable: each is checked against those committed before it.
        for (const w of [...batch].sort((x, y) => y.retries - x.retries)) {
          const conflict = this.conflictOf(w.txn);
          if (conflict) {
            refused.push({ w, error: conflict });
            continue;
          }
          const ts = max(this.clock(), last + 1n);
          let rec: CommitRecord;
          try {
            rec = w.txn.buildCommit(ts, true);
          } catch (error) {
            refused.push({ w, error });
            continue;
          }
          last = ts;
          for (const op of rec.ops) ops.push(op);
          ops.push({
            key: logKey(ts),
            value: encodeLogRecord({ ts, keys: [...rec.keys], ...rec.logged! }),
          });
          rec.logged = undefined;
          this.ownInFlight.add(ts);
          this.log.push(rec);
          if (rec.changes) this.feed.push(rec);
          this.nativeWrites(ts, rec.docs);
          done.push({ w, rec });
        }
        issuedTs = done.length > 0 ? last : max(sh.known, this.clock());
        // What becomes `known` (the next snapshots) is published, also when nothing was committed:
        // else another process, its clock behind this one's, could commit below those snapshots,
        // and its commit would then be skipped here as already seen.
        if (issuedTs > sh.known) ops.push({ key: ISSUED_TS_KEY, value: encodeU64Value(issuedTs) });
        // Keep the log bounded: drop a few records older than the retention (the head's second range).
        const old = head.ranges[1] ?? [];
        if (old.length > 0) {
          for (const kv of old) ops.push({ key: kv.key, value: null });
          ops.push({ key: LOG_FLOOR_KEY, value: encodeU64Value(logKeyTs(old[old.length - 1].key)) });
        }
        return ops;
      });
    } catch (error) {
      for (const d of done) this.ownInFlight.delete(d.rec.ts);
      // Nothing of this section was written: its commits never happened.
      const gone = new Set(done.map((d) => d.rec));
      if (gone.size > 0) {
        this.log = this.log.filter((r) => !gone.has(r));
        if (this.feed.length > 0) this.feed = this.feed.filter((r) => !gone.has(r));
      }
      // A section the engine asks to run again: its transactions retry, as after a conflict. Every
      // transaction of the batch is answered, also those the section failed before looking at.
      const again = error instanceof EngineConflict;
      const answer = () => (again ? new StoreConflict(undefined) : error);
      for (const d of done) d.rec.reject(error);
      for (const w of batch) w.reject(answer());
      if (!again) throw error;
      return;
    }
    if (issuedTs > sh.known) sh.known = issuedTs;
    if (done.length > 0) this.commitTimes.observe((performance.now() - started) / 1000);
    for (const d of done) {
      this.ownInFlight.delete(d.rec.ts);
      d.rec.isDurable = true;
      d.rec.resolve();
    }
    for (const r of refused) r.w.reject(r.error);
    // Before the writers' continuations run: a stream hears of a write before its writer's response.
    if (this.feed.length > 0) this.deliverCommits();
    this.prune();
    for (const d of done) d.w.resolve(d.rec.ts);
  }

  /** While streams listen, looks for other processes' commits every FEED_POLL_MS. */
  private pollFeed(): void {
    const sh = this.sharing;
    if (!sh || this.feedTimer || this.closed) return;
    this.feedTimer = setTimeout(() => {
      this.feedTimer = undefined;
      if (!this.feedActive || this.closed) return;
      void this.sequence(() => this.catchUp(sh))
        .catch(() => undefined) // the store is unavailable: the next poll tries again
        .finally(() => this.pollFeed());
    }, FEED_POLL_MS);
    this.feedTimer.unref();
  }

  // ---- commit ----------------------------------------------------------------------------

  /** Validates and enqueues synchronously; the promise resolves with the ts once durable. */
  private commit(txn: TxnImpl, retries: number): Promise<bigint> {
    if (this.closed) throw new Error('store is closed');
    if (this.sharing) {
      return new Promise((resolve, reject) => {
        this.waiting.push({ txn, retries, resolve, reject });
        this.scheduleSection();
      });
    }
    const conflict = this.conflictOf(txn);
    if (conflict) throw conflict;
    const ts = max(this.clock(), this.issuedTs + 1n);
    const rec = txn.buildCommit(ts); // may throw (unencodable value): then nothing was issued
    this.issuedTs = ts;
    this.nativeWrites(ts, rec.docs);
    if (rec.changes) this.feed.push(rec);
    this.log.push(rec);
    this.pending.push(rec);
    this.queued.push(rec);
    this.scheduleFlush();
    return rec.durable.then(() => ts);
  }

  private scheduleFlush(): void {
    if (this.flushing || this.flushScheduled) return;
    this.flushScheduled = true;
    // Let the other commits of this tick join the batch.
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  /**
   * Writes queued commits in group batches. Up to MAX_WRITES_IN_FLIGHT batches overlap (the engine
   * applies them in order), so commits keep flowing while earlier batches are being synced.
   */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    this.idle = new Promise((r) => (this.signalIdle = r));
    const inFlight = new Set<Promise<void>>();
    try {
      while (this.queued.length > 0 || inFlight.size > 0) {
        if (this.queued.length > 0 && inFlight.size < MAX_WRITES_IN_FLIGHT) {
          const batch = this.queued;
          this.queued = [];
          const started = performance.now();
          const write: Promise<void> = this.engine.write(this.batchOps(batch)).then(
            () => {
              this.commitTimes.observe((performance.now() - started) / 1000);
              this.settle(batch, undefined);
            },
            (e: unknown) => this.settle(batch, e),
          );
          inFlight.add(write);
          void write.finally(() => inFlight.delete(write));
          // Let the commits that arrive meanwhile gather into the next batch.
          await new Promise((r) => setImmediate(r));
        } else {
          await Promise.race(inFlight);
        }
      }
    } finally {
      this.flushing = false;
      this.signalIdle();
    }
  }

  private batchOps(batch: CommitRecord[]): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const rec of batch) for (const op of rec.ops) ops.push(op);
    ops.push({ key: ISSUED_TS_KEY, value: encodeU64Value(this.issuedTs) });
    return ops;
  }

  private settle(batch: CommitRecord[], error: unknown): void {
    const done = new Set(batch);
    this.pending = this.pending.filter((r) => !done.has(r));
    if (error === undefined) {
      for (const rec of batch) {
        rec.isDurable = true;
        rec.resolve();
      }
    } else {
      // A failed commit never happened: nobody may conflict with it.
      this.log = this.log.filter((r) => !done.has(r));
      if (this.feed.length > 0) this.feed = this.feed.filter((r) => !done.has(r));
      for (const rec of batch) rec.reject(error);
    }
    // Before the writers' continuations run: a stream hears of a write before its writer's response.
    if (this.feed.length > 0) this.deliverCommits();
    this.prune();
  }
}
