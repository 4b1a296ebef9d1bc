// Runs export requests in the background, one at a time, oldest first.
//
// States (service.md "Log retrieval"; log-export.md §B.2): a request is Pending when accepted, and
// stays so while its time_end is still in the future (its logs have not all arrived). It becomes
// Requested while its records are extracted: the hour files of its range are streamed line by line,
// the records in [time_start, time_end) of the databases it covers go through gzip into a file, so
// memory stays bounded whatever the range. Then CreatingNewUrl while the download URL is minted, and
// Complete; DoesNotExist when no record matched; Failed on an error; TimedOut when it did not finish
// within the timeout of its creation. A Complete request whose URL has expired goes back through
// CreatingNewUrl to Complete with a new URL (version + 1).
//
// A restart finds Pending and Requested requests on disk and runs them again from the start (the
// partial file is discarded); one interrupted MAX_ATTEMPTS times is Failed instead.

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGzip } from 'node:zlib';
import { filesInRange } from './files';
import type { ExportJob, JobStore } from './jobs';
import { exportedLine, formatTs, lineDb, lineTs } from './record';
import type { UrlSigner } from './signing';

export const MAX_ATTEMPTS = 3;
/** Exports (requests and files) are kept this long after they were requested. */
export const EXPORT_KEEP_MS = 7 * 24 * 3_600_000;
/** Lines longer than this are not records (the writer never makes them): skipped. */
const MAX_LINE = 1024 * 1024;
/** Output is handed to gzip in pieces of about this size. */
const OUT_CHUNK = 256 * 1024;

export interface RunnerOptions {
  /** Directory of the hourly query-log files. */
  logDir: string;
  /** Directory of the export files. */
  filesDir: string;
  signer: UrlSigner;
  urlTtlMs: number;
  timeoutMs: number;
  /** Resolves when every record logged so far is on disk. */
  flushLog: () => Promise<void>;
  /** Scope ids (decimal text) of a database and its descendants. */
  subtree: (db: bigint) => Promise<Set<string>>;
  /** Read size; smaller with `chunkDelayMs` to make exports slow on purpose (tests). */
  chunkBytes?: number;
  chunkDelayMs?: number;
  gzipLevel?: number;
  warn?: (message: string) => void;
}

export interface Progress {
  bytes_scanned: number;
  bytes_total: number;
  records: number;
}

class Aborted extends Error {}
class Expired extends Error {}

export class ExportRunner {
  private running: Promise<void> | undefined;
  private current: string | undefined;
  private readonly progress = new Map<string, Progress>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private again = false;

  constructor(
    private readonly jobs: JobStore,
    private readonly opts: RunnerOptions,
  ) {}

  /** Picks up what a previous run left unfinished, and starts working. */
  async start(): Promise<void> {
    await mkdir(this.opts.filesDir, { recursive: true });
    // Partial files of interrupted extractions.
    for (const name of await readdir(this.opts.filesDir)) {
      if (name.endsWith('.tmp')) await unlink(path.join(this.opts.filesDir, name)).catch(() => undefined);
    }
    for (const job of this.jobs.all()) {
      if (job.state === 'Requested' && job.attempts >= MAX_ATTEMPTS) {
        await this.jobs.update(job.request_id, { state: 'Failed', error: `interrupted ${job.attempts} times` });
      } else if (job.state === 'CreatingNewUrl') {
        await this.mint(job.request_id);
      }
    }
    this.pump();
  }

  /** A new request was accepted. */
  submitted(): void {
    this.pump();
  }

  progressOf(id: string): Progress | undefined {
    return this.progress.get(id);
  }

  /** The export file of a request (whether or not it exists). */
  fileOf(id: string): string {
    return path.join(this.opts.filesDir, `${id}.jsonl.gz`);
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
   * background; returns the job as it is now.
   */
  async refreshUrl(job: ExportJob, nowMs = Date.now()): Promise<ExportJob> {
    if (job.state !== 'Complete' || (job.url_expires_ms ?? 0) > nowMs) return job;
    const creating = await this.jobs.update(job.request_id, { state: 'CreatingNewUrl' });
    setImmediate(() => void this.mint(job.request_id).catch((err: unknown) => this.warn(`cannot mint a URL: ${String(err)}`)));
    return creating;
  }

  /** Removes requests (and files) older than EXPORT_KEEP_MS. */
  async prune(nowMs = Date.now()): Promise<void> {
    for (const job of this.jobs.all()) {
      if (nowMs - job.created_ms < EXPORT_KEEP_MS || job.request_id === this.current) continue;
      await unlink(this.fileOf(job.request_id)).catch(() => undefined);
      await this.jobs.remove(job.request_id);
    }
  }

  /** Stops: an extraction in progress is abandoned and stays Requested, to run again on restart. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
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
      .catch((err: unknown) => this.warn(`export scheduler: ${String(err)}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) this.pump();
      });
  }

  /** Runs every ready request; then sleeps until the next one is ready or times out. */
  private async next(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const now = Date.now();
      let job: ExportJob | undefined;
      let wakeAt = Infinity;
      for (const j of this.jobs.all()) {
        if (j.state !== 'Pending' && j.state !== 'Requested') continue;
        const deadline = j.created_ms + this.opts.timeoutMs;
        if (now >= deadline) {
          await this.jobs.update(j.request_id, { state: 'TimedOut' });
          continue;
        }
        if (j.end_ms <= now) {
          if (!job || j.created_ms < job.created_ms) job = j;
        } else {
          wakeAt = Math.min(wakeAt, j.end_ms, deadline);
        }
      }
      if (!job) {
        if (wakeAt !== Infinity) {
          const ms = Math.max(5, Math.min(wakeAt - Date.now(), 2 ** 31 - 1));
          this.timer = setTimeout(() => this.pump(), ms);
          this.timer.unref();
        }
        return;
      }
      await this.run(job);
    }
  }

  private async run(job: ExportJob): Promise<void> {
    const id = job.request_id;
    this.current = id;
    const tmp = `${this.fileOf(id)}.tmp`;
    try {
      await this.jobs.update(id, { state: 'Requested', attempts: job.attempts + 1 });
      const deadline = job.created_ms + this.opts.timeoutMs;
      await this.opts.flushLog();
      const filter = job.scope_db === null ? null : await this.opts.subtree(BigInt(job.scope_db));
      const records = await this.extract(job, filter, tmp, deadline);
      if (records === 0) {
        await unlink(tmp).catch(() => undefined);
        await this.jobs.update(id, { state: 'DoesNotExist', records: 0 });
        return;
      }
      await rename(tmp, this.fileOf(id));
      const { size } = await stat(this.fileOf(id));
      await this.jobs.update(id, { state: 'CreatingNewUrl', records, bytes: size });
      await this.mint(id);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      if (err instanceof Aborted) return; // stays Requested: resumed on restart
      if (err instanceof Expired) {
        await this.jobs.update(id, { state: 'TimedOut' });
        return;
      }
      this.warn(`export ${id} failed: ${(err as Error).message}`);
      await this.jobs.update(id, { state: 'Failed', error: (err as Error).message }).catch(() => undefined);
    } finally {
      this.progress.delete(id);
      this.current = undefined;
    }
  }

  /** Streams the matching records of `job` into a gzip file; returns how many there were. */
  private async extract(job: ExportJob, filter: Set<string> | null, file: string, deadline: number): Promise<number> {
    const lo = formatTs(job.start_ms);
    const hi = formatTs(job.end_ms);
    const files = await filesInRange(this.opts.logDir, job.start_ms, job.end_ms);
    const progress: Progress = { bytes_scanned: 0, bytes_total: files.reduce((n, f) => n + f.size, 0), records: 0 };
    this.progress.set(job.request_id, progress);

    const gzip = createGzip({ level: this.opts.gzipLevel ?? 3 });
    const written = pipeline(gzip, createWriteStream(file));
    written.catch(() => undefined); // awaited below; an early failure must not be unhandled
    let out = '';
    const push = async (force: boolean) => {
      if (out.length === 0 || (!force && out.length < OUT_CHUNK)) return;
      const ok = gzip.write(out);
      out = '';
      if (!ok) await Promise.race([once(gzip, 'drain'), written]);
    };
    try {
      for (const f of files) {
        if (f.size === 0) continue;
        // Only the bytes present now: every record of the range is on disk (the log was flushed).
        const input = createReadStream(f.path, { start: 0, end: f.size - 1, highWaterMark: this.opts.chunkBytes ?? 1024 * 1024 });
        const decoder = new StringDecoder('utf8');
        let carry = '';
        try {
          for await (const chunk of input as AsyncIterable<Buffer>) {
            if (this.closed) throw new Aborted();
            if (Date.now() >= deadline) throw new Expired();
            const text = carry + decoder.write(chunk);
            let from = 0;
            for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', from)) {
              const line = text.slice(from, nl);
              from = nl + 1;
              const ts = lineTs(line);
              if (ts === undefined || ts < lo || ts >= hi) continue;
              if (filter) {
                const db = lineDb(line);
                if (db === undefined || !filter.has(db)) continue;
              }
              out += `${exportedLine(line)}\n`;
              progress.records++;
            }
            carry = text.length - from > MAX_LINE ? '' : text.slice(from);
            progress.bytes_scanned += chunk.length;
            await push(false);
            if (this.opts.chunkDelayMs) await sleep(this.opts.chunkDelayMs);
          }
        } finally {
          input.destroy();
        }
        // A last line without its newline is a torn write: not a record.
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

  /** Gives a request in CreatingNewUrl a new download URL: version + 1, valid for urlTtlMs. */
  private async mint(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job || job.state !== 'CreatingNewUrl') return; // minted already (two polls raced)
    try {
      await stat(this.fileOf(id));
    } catch {
      await this.jobs.update(id, { state: 'Failed', error: 'the export file is gone' });
      return;
    }
    const expires = Math.ceil((Date.now() + this.opts.urlTtlMs) / 1000) * 1000; // whole seconds, as signed
    await this.jobs.update(id, { state: 'Complete', version: job.version + 1, url_expires_ms: expires });
  }

  private warn(message: string): void {
    (this.opts.warn ?? ((m: string) => console.error(`flora: ${m}`)))(message);
  }
}
