// Runs export requests in the background, oldest first, one at a time per process; in a tier of
// processes sharing a store, each request runs exactly once across the tier: under its lease
// (tier/leases.ts), with every change of its state fenced by that lease.
//
// States (service.md "Log retrieval"; log-export.md §B.2): a request is Pending when accepted, and
// stays so while its time_end is still in the future (its logs have not all arrived) and, in a
// tier, until every other live process has written its records up to time_end (backend.ts
// Watermarks). It becomes Requested while its records are extracted: the log of its range is read a
// piece at a time (LogSource), the records of the databases it covers go through gzip into an export
// file (ExportFiles), so memory stays bounded whatever the range. Then CreatingNewUrl while the
// download URL is minted, and Complete; DoesNotExist when no record matched; Failed on an error;
// TimedOut when it did not finish within the timeout of its creation. A Complete request whose URL
// has expired goes back through CreatingNewUrl to Complete with a new URL (version + 1).
//
// A request left Requested by a process that stopped or died is run again from the start by
// whichever process takes its lease next (the same one after a restart; another one of the tier
// once the lease has run out): the partial output is discarded, and a request interrupted
// MAX_ATTEMPTS times is Failed instead.

import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { StorageUnavailable } from '../storage/engine';
import type { Txn } from '../storage/types';
import { LeaseLost, type Leases } from '../tier/leases';
import { ProtocolError } from '../values/errors';
import type { ExportFiles, ExportUpload, LogSource } from './backend';
import { isOpen, type ExportJob, type JobStore, type Progress, type UpdateOptions } from './jobs';
import type { UrlSigner } from './signing';
import { log } from '../diag/log';

export type { Progress } from './jobs';

export const MAX_ATTEMPTS = 3;
/** Exports (requests and files) are kept this long after they were requested. */
export const EXPORT_KEEP_MS = 7 * 24 * 3_600_000;
/** Output is handed to gzip in pieces of about this size. */
const OUT_CHUNK = 256 * 1024;
/** While the process that accepted a request lives, the others look again this often. */
const CREATOR_ALIVE_POLL_MS = 1_000;
/** Longest an export waits past its time_end for a live process's log to be written that far. */
const MAX_SETTLE_MS = 60_000;
const SETTLE_POLL_MS = 100;
/** Progress is saved in the request this often (shared stores: another process may be polling). */
const PROGRESS_SAVE_MS = 1_000;
/** A request in CreatingNewUrl this long has lost the process minting its URL: minted by whoever looks. */
const STUCK_URL_MS = 5_000;
/** After the store or the log could not be reached, the scheduler tries again this much later. */
const RETRY_MS = 2_000;
const WARN_EVERY_MS = 60_000;

export interface RunnerOptions {
  source: LogSource;
  files: ExportFiles;
  leases: Leases;
  /** Other processes share the requests (store.shared): look for their leftovers, save progress. */
  shared: boolean;
  signer: UrlSigner;
  urlTtlMs: number;
  timeoutMs: number;
  /** Resolves when every record this process logged so far is written. */
  flushLog: () => Promise<void>;
  /** True once every other live process's log is written up to `endMs` (absent: no other process). */
  caughtUp?: (endMs: number) => Promise<boolean>;
  /** Scope ids (decimal text) of a database and its descendants. */
  subtree: (db: bigint) => Promise<Set<string>>;
  /** Read size; smaller with `chunkDelayMs` to make exports slow on purpose (tests). */
  chunkBytes?: number;
  chunkDelayMs?: number;
  gzipLevel?: number;
  warn?: (message: string) => void;
  /** Shared stores: how often to look for requests that no process is running (default 1000 ms). */
  pollMs?: number;
}

class Aborted extends Error {}
class Expired extends Error {}

function leaseOf(id: string): string {
  return `logs:export:${id}`;
}

/** A transaction re-run too often because of others' commits (store.run gave up). */
function isContended(err: unknown): boolean {
  return err instanceof ProtocolError && err.status === 409;
}

export class ExportRunner {
  private running: Promise<void> | undefined;
  private current: string | undefined;
  private readonly progress = new Map<string, Progress>();
  private readonly minting = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private poller: NodeJS.Timeout | undefined;
  private closed = false;
  private again = false;
  private lastWarning = 0;

  constructor(
    private readonly jobs: JobStore,
    private readonly opts: RunnerOptions,
  ) {}

  /** Picks up what a previous run left unfinished, and starts working. */
  async start(): Promise<void> {
    if (!this.opts.shared) {
      // Alone: nothing is running anywhere, so what looks interrupted is.
      await this.opts.files.discardPartials();
      for (const job of await this.jobs.all()) {
        if (job.state === 'Requested' && job.attempts >= MAX_ATTEMPTS) {
          await this.jobs.update(job.request_id, { state: 'Failed', error: `interrupted ${job.attempts} times` }, { when: (j) => j.state === 'Requested' });
        } else if (job.state === 'CreatingNewUrl') {
          await this.mint(job.request_id);
        }
      }
    } else {
      // Requests of processes that died, and of ranges that ended while nobody here knew of them.
      this.poller = setInterval(() => this.pump(), this.opts.pollMs ?? 1000);
      this.poller.unref();
    }
    this.pump();
  }

  /** A new request was accepted. */
  submitted(): void {
    this.pump();
  }

  /** Progress of a request this process is extracting right now. */
  progressOf(id: string): Progress | undefined {
    return this.progress.get(id);
  }

  /** URL path of a request's download. */
  static downloadPath(id: string): string {
    return `/api/v1/logs/${id}/${id}.jsonl.gz`;
  }

  /** The presigned URL path + query of a Complete request. */
  presignedPath(job: ExportJob): string {
    const p = ExportRunner.downloadPath(job.request_id);
    return `${p}?${this.opts.signer.sign(p, job.version, job.url_expires_ms ?? 0)}`;
  }

  /**
   * A Complete request whose URL has expired moves to CreatingNewUrl and gets a new URL in the
   * background; returns the request as it is now.
   */
  async refreshUrl(job: ExportJob, nowMs = Date.now()): Promise<ExportJob> {
    if (job.state === 'CreatingNewUrl' && nowMs - job.updated_ms >= STUCK_URL_MS) {
      this.mintSoon(job.request_id);
      return job;
    }
    if (job.state !== 'Complete' || (job.url_expires_ms ?? 0) > nowMs) return job;
    // Two polls (of any processes) at once: one moves it, the other finds it moved.
    const expired = (j: ExportJob) => j.state === 'Complete' && (j.url_expires_ms ?? 0) <= nowMs;
    const creating = await this.jobs.update(job.request_id, { state: 'CreatingNewUrl' }, { when: expired });
    this.mintSoon(job.request_id);
    return creating ?? job;
  }

  /** Removes requests (and files) older than EXPORT_KEEP_MS. */
  async prune(nowMs = Date.now()): Promise<void> {
    const old = (await this.jobs.all()).filter((j) => nowMs - j.created_ms >= EXPORT_KEEP_MS && j.request_id !== this.current);
    for (const j of old) await this.opts.files.remove(j.request_id);
    await this.jobs.remove(old.map((j) => j.request_id));
  }

  /** Stops: an extraction in progress is abandoned and stays Requested, to run again (here or elsewhere). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.poller) clearInterval(this.poller);
    await this.running;
    await Promise.all(this.minting);
  }

  private pump(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true; // the scheduler may already be past its scan
      return;
    }
    this.again = false;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.running = this.next()
      .catch((err: unknown) => this.warn(`export scheduler: ${(err as Error).message ?? String(err)}`, true))
      .finally(() => {
        this.running = undefined;
        if (this.again) this.pump();
      });
  }

  /** Runs every request that is due; then sleeps until the next one is, or may be. */
  private async next(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      let wakeAt = Infinity;
      let ran = false;
      const open = (await this.jobs.open()).sort((a, b) => a.created_ms - b.created_ms);
      for (const j of open) {
        if (this.closed) return;
        const now = Date.now();
        const deadline = j.created_ms + this.opts.timeoutMs;
        const due = Math.min(j.end_ms, deadline);
        if (now < due) {
          wakeAt = Math.min(wakeAt, due);
          continue;
        }
        // The process that accepted a request runs it while it lives (its heartbeat, tier/leases.ts).
        const othersFirst = this.opts.shared && j.state === 'Pending' && j.creator !== undefined && j.creator !== this.opts.leases.holder;
        if (othersFirst && (await this.opts.leases.alive(j.creator!))) {
          wakeAt = Math.min(wakeAt, now + CREATOR_ALIVE_POLL_MS);
          continue;
        }
        if (now < deadline && now < j.end_ms + MAX_SETTLE_MS && this.opts.caughtUp && !(await this.opts.caughtUp(j.end_ms))) {
          wakeAt = Math.min(wakeAt, now + SETTLE_POLL_MS);
          continue;
        }
        const outcome = await this.attempt(j);
        if (outcome === 'ran') {
          ran = true;
          break; // states changed: look again
        }
        if (outcome === 'unavailable') wakeAt = Math.min(wakeAt, Date.now() + RETRY_MS);
      }
      if (ran) continue;
      if (wakeAt !== Infinity && !this.closed) {
        const ms = Math.max(5, Math.min(wakeAt - Date.now(), 2 ** 31 - 1));
        this.timer = setTimeout(() => this.pump(), ms);
        this.timer.unref();
      }
      return;
    }
  }

  /** Runs `job` under its lease: 'busy' when another process holds it (or it needed nothing). */
  private async attempt(job: ExportJob): Promise<'ran' | 'busy' | 'unavailable'> {
    const lease = leaseOf(job.request_id);
    let ran = false;
    try {
      await this.opts.leases.holding(lease, async (lost) => {
        ran = await this.run(job.request_id, lease, lost);
      });
      return ran ? 'ran' : 'busy';
    } catch (err) {
      if (err instanceof StorageUnavailable || isContended(err)) {
        this.warn(`export ${job.request_id}: ${(err as Error).message}; trying again`, true);
        return 'unavailable';
      }
      if (err instanceof LeaseLost) return 'busy';
      throw err;
    }
  }

  /**
   * One attempt at a request, holding its lease. True when it changed the request's state. Throws
   * StorageUnavailable when the store or the log cannot be reached (or a 409 when its changes kept
   * colliding with others'): the request stays Requested, and is tried again a little later.
   */
  private async run(id: string, lease: string, lost: AbortSignal): Promise<boolean> {
    const fence = (txn: Txn) => this.opts.leases.check(txn, lease);
    const job = await this.jobs.get(id);
    if (!job || !isOpen(job.state)) return false;
    const deadline = job.created_ms + this.opts.timeoutMs;
    const stillOpen = { fence, when: (j: ExportJob) => isOpen(j.state) };
    if (Date.now() >= deadline) {
      await this.jobs.update(id, { state: 'TimedOut', progress: undefined }, stillOpen);
      return true;
    }
    if (job.end_ms > Date.now()) return false;
    if (job.state === 'Requested' && job.attempts >= MAX_ATTEMPTS) {
      await this.jobs.update(id, { state: 'Failed', error: `interrupted ${job.attempts} times`, progress: undefined }, stillOpen);
      return true;
    }
    const attempt = job.attempts + 1;
    const started = await this.jobs.update(
      id,
      { state: 'Requested', attempts: attempt, progress: undefined },
      { fence, when: (j) => isOpen(j.state) && j.attempts === job.attempts },
    );
    if (started?.state !== 'Requested' || started.attempts !== attempt) return false;
    // Every later change: only while this process holds the lease and the request is this attempt's.
    const mine: UpdateOptions = { fence, when: (j) => j.state === 'Requested' && j.attempts === attempt };
    const save = async (patch: Partial<ExportJob>) => {
      const now = await this.jobs.update(id, patch, mine);
      if (!now || (patch.state === undefined && (now.state !== 'Requested' || now.attempts !== attempt))) throw new Aborted();
      return now;
    };
    this.current = id;
    let upload: ExportUpload | undefined;
    try {
      await this.opts.flushLog();
      const filter = started.scope_db === null ? null : await this.opts.subtree(BigInt(started.scope_db));
      upload = await this.opts.files.create(id, attempt);
      const records = await this.extract(started, filter, upload, deadline, lost, save);
      if (records === 0) {
        await upload.discard();
        await save({ state: 'DoesNotExist', records: 0, progress: undefined });
        return true;
      }
      // Still this attempt's (a process that lost its lease while paused must not replace the file).
      await save({ progress: undefined });
      const size = await upload.commit();
      const done = await save({ state: 'CreatingNewUrl', records, bytes: size, progress: undefined });
      if (done.state === 'CreatingNewUrl') await this.mint(id);
      return true;
    } catch (err) {
      await upload?.discard().catch(() => undefined);
      // Stopping, or the lease went to another process: it stays Requested, for whoever runs it next.
      if (err instanceof Aborted || err instanceof LeaseLost) return true;
      if (err instanceof StorageUnavailable || isContended(err)) throw err;
      if (err instanceof Expired) {
        await save({ state: 'TimedOut', progress: undefined }).catch(() => undefined);
        return true;
      }
      this.warn(`export ${id} failed: ${(err as Error).message}`);
      await save({ state: 'Failed', error: (err as Error).message, progress: undefined }).catch(() => undefined);
      return true;
    } finally {
      this.progress.delete(id);
      this.current = undefined;
    }
  }

  /** Streams the matching records of `job` through gzip into `upload`; returns how many there were. */
  private async extract(
    job: ExportJob,
    filter: Set<string> | null,
    upload: ExportUpload,
    deadline: number,
    lost: AbortSignal,
    save: (patch: Partial<ExportJob>) => Promise<ExportJob>,
  ): Promise<number> {
    const scan = await this.opts.source.scan({ startMs: job.start_ms, endMs: job.end_ms, dbs: filter }, this.opts.chunkBytes);
    const progress: Progress = { bytes_scanned: 0, bytes_total: scan.bytesTotal, records: 0 };
    this.progress.set(job.request_id, progress);

    const gzip = createGzip({ level: this.opts.gzipLevel ?? 3 });
    const written = pipeline(gzip, upload.stream);
    written.catch(() => undefined); // awaited below; an early failure must not be unhandled
    let out = '';
    const push = async (force: boolean) => {
      if (out.length === 0 || (!force && out.length < OUT_CHUNK)) return;
      const ok = gzip.write(out);
      out = '';
      if (!ok) await Promise.race([once(gzip, 'drain'), written]);
    };
    let savedAt = Date.now();
    try {
      for await (const batch of scan) {
        if (this.closed || lost.aborted) throw new Aborted();
        if (Date.now() >= deadline) throw new Expired();
        out += batch.text;
        progress.records += batch.records;
        progress.bytes_scanned = batch.scanned;
        await push(false);
        if (this.opts.shared && Date.now() - savedAt >= PROGRESS_SAVE_MS) {
          savedAt = Date.now();
          await save({ progress: { ...progress } });
        }
        if (this.opts.chunkDelayMs) await sleep(this.opts.chunkDelayMs);
      }
      await push(true);
      gzip.end();
      await written;
      return progress.records;
    } catch (err) {
      gzip.destroy();
      await written.catch(() => undefined);
      throw err;
    }
  }

  private mintSoon(id: string): void {
    const work = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.mint(id))
      .catch((err: unknown) => this.warn(`cannot mint a URL: ${String(err)}`, true))
      .finally(() => this.minting.delete(work));
    this.minting.add(work);
  }

  /** Gives a request in CreatingNewUrl a new download URL: version + 1, valid for urlTtlMs. */
  private async mint(id: string): Promise<void> {
    const job = await this.jobs.get(id);
    if (!job || job.state !== 'CreatingNewUrl') return; // minted already (two polls raced)
    const creating = (j: ExportJob) => j.state === 'CreatingNewUrl' && j.version === job.version;
    if (!(await this.opts.files.exists(id, job.attempts))) {
      await this.jobs.update(id, { state: 'Failed', error: 'the export file is gone' }, { when: creating });
      return;
    }
    const expires = Math.ceil((Date.now() + this.opts.urlTtlMs) / 1000) * 1000; // whole seconds, as signed
    await this.jobs.update(id, { state: 'Complete', version: job.version + 1, url_expires_ms: expires }, { when: creating });
  }

  private warn(message: string, limited = false): void {
    if (limited) {
      const now = Date.now();
      if (now - this.lastWarning < WARN_EVERY_MS) return;
      this.lastWarning = now;
    }
    (this.opts.warn ?? log.warn)(message);
  }
}
