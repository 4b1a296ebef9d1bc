// The asynchronous, batched writer of the query log. append() is synchronous, cheap and never
// throws: it copies the line (UTF-8) into a chunk of a buffer, and a background loop hands the
// queued chunks of an hour to the sink (the hour's file, or a batch insert into PostgreSQL:
// backend.ts) every `flushMs` (sooner once `batchBytes` are waiting). Lines live off the JS heap
// from the moment they are appended, so a second's worth of records does not burden the garbage
// collector. Memory is bounded: when the chunks queued plus the ones being written would exceed
// `maxBufferBytes` (the disk or the database cannot keep up), new lines are dropped and counted
// instead of slowing requests down (up to SPARE_CHUNKS written chunks are kept on top, for reuse).
// A failed write is counted too and never surfaces to a request. The writer also knows the TS of
// its oldest unwritten line, so that other processes can be told how far its log is written.

import type { LogSink } from './backend';
import { FileSink } from './fileSink';
import { log } from '../diag/log';

export interface WriterOptions {
  /** Where lines go; without it, the hour files of `dir`. */
  sink?: LogSink;
  /** The hour files' directory (a lone process's file names), when no sink is given. */
  dir?: string;
  /** Longest a line waits before it is written (ms). */
  flushMs: number;
  /** Queued plus in-flight bytes beyond which new lines are dropped. */
  maxBufferBytes: number;
  /** Queued bytes that start a write before flushMs is up. Default 256 KiB (or the buffer / 4). */
  batchBytes?: number;
  /** Where drop and write-failure warnings go (rate-limited). Default: stderr. */
  warn?: (message: string) => void;
}

export interface WriterStats {
  /** Lines appended to files. */
  written: number;
  /** Lines refused because the buffer was full (or the writer closed). */
  dropped: number;
  /** Lines lost to write errors. */
  failed: number;
  /** Bytes of the chunks waiting or being written right now. */
  bufferedBytes: number;
  /** The most bytes ever waiting or being written at once. */
  peakBufferedBytes: number;
}

interface Chunk {
  /** `YYYY-MM-DDTHH`: every line of a chunk belongs to one hour file. */
  hour: string;
  buf: Buffer;
  used: number;
  lines: number;
  /** The smallest TS (ms) of its lines. */
  minTs: number;
}

const WARN_EVERY_MS = 60_000;
/** Size of a chunk (a line longer than this gets a chunk of its own); less for a small buffer. */
const CHUNK_BYTES = 64 * 1024;
/** Written chunks kept for reuse. */
const SPARE_CHUNKS = 8;

export class LogWriter {
  private queue: Chunk[] = [];
  private spare: Buffer[] = [];
  private queuedBytes = 0;
  private inFlightBytes = 0;
  /** Lines accepted so far / lines whose write finished (successfully or not). */
  private accepted = 0;
  private processed = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private draining: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Smallest TS of the lines being written right now (Infinity when none). */
  private inFlightMinTs = Infinity;
  private readonly sink: LogSink;
  private lastWarning = 0;
  private readonly batchBytes: number;
  private readonly chunkBytes: number;
  private readonly stat: WriterStats = { written: 0, dropped: 0, failed: 0, bufferedBytes: 0, peakBufferedBytes: 0 };

  constructor(private readonly opts: WriterOptions) {
    if (!opts.sink && opts.dir === undefined) throw new Error('a query log writer needs a sink or a directory');
    this.sink = opts.sink ?? new FileSink(opts.dir!);
    this.batchBytes = opts.batchBytes ?? Math.min(256 * 1024, Math.max(1, Math.floor(opts.maxBufferBytes / 4)));
    this.chunkBytes = Math.max(4096, Math.min(CHUNK_BYTES, Math.floor(opts.maxBufferBytes / 4)));
  }

  /**
   * Queues one line (without newline) for the hour `hourKey` (`YYYY-MM-DDTHH`) of its TS `ts` (ms).
   * False if dropped.
   */
  append(line: string, hourKey: string, ts = Date.now()): boolean {
    const bytes = Buffer.byteLength(line, 'utf8') + 1;
    let chunk = this.queue.length ? this.queue[this.queue.length - 1] : undefined;
    if (this.closed) return this.drop();
    if (!chunk || chunk.hour !== hourKey || chunk.buf.length - chunk.used < bytes) {
      const size = Math.max(this.chunkBytes, bytes);
      if (this.queuedBytes + this.inFlightBytes + size > this.opts.maxBufferBytes) return this.drop();
      chunk = { hour: hourKey, buf: (size === this.chunkBytes && this.spare.pop()) || Buffer.allocUnsafe(size), used: 0, lines: 0, minTs: ts };
      this.queue.push(chunk);
      this.queuedBytes += size;
      const buffered = this.queuedBytes + this.inFlightBytes;
      if (buffered > this.stat.peakBufferedBytes) this.stat.peakBufferedBytes = buffered;
    }
    chunk.used += chunk.buf.write(line, chunk.used, 'utf8');
    chunk.buf[chunk.used++] = 0x0a;
    chunk.lines++;
    if (ts < chunk.minTs) chunk.minTs = ts;
    this.accepted++;
    if (this.queuedBytes >= this.batchBytes) this.kick();
    else if (!this.timer && !this.draining) this.arm();
    return true;
  }

  /** Resolves once every line appended before the call has been written (or has failed). */
  flush(): Promise<void> {
    const upTo = this.accepted;
    if (this.processed >= upTo) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push({ upTo, resolve }));
    this.kick();
    return done;
  }

  stats(): WriterStats {
    return { ...this.stat, bufferedBytes: this.queuedBytes + this.inFlightBytes };
  }

  /**
   * A time (ms) such that every line with an earlier TS appended so far is written (or failed):
   * the TS of the oldest line still waiting, else `nowMs`. Records are appended right after their
   * TS is taken (in the same turn of the event loop), so called from a timer this also covers lines
   * not appended yet.
   */
  through(nowMs = Date.now()): number {
    let t = Math.min(nowMs, this.inFlightMinTs);
    for (const c of this.queue) if (c.minTs < t) t = c.minTs;
    return t;
  }

  /** Writes what is queued, refuses further lines, closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    await this.draining;
    await this.sink.close();
  }

  private drop(): false {
    this.stat.dropped++;
    this.warn(`query log: ${this.stat.dropped} record(s) dropped so far: writing the log is not keeping up`);
    return false;
  }

  private arm(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, this.opts.flushMs);
    this.timer.unref();
  }

  private kick(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // Lines that arrived during the last write wait for the timer (or the next batch), unless
      // someone is waiting for them.
      if (!this.queue.length) return;
      if (this.waiters.length || this.queuedBytes >= this.batchBytes) this.kick();
      else if (!this.timer) this.arm();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const chunks = this.queue;
      this.queue = [];
      this.inFlightBytes = this.queuedBytes;
      this.queuedBytes = 0;
      this.inFlightMinTs = chunks.reduce((t, c) => Math.min(t, c.minTs), Infinity);
      // Consecutive chunks of the same hour go out in one write.
      let start = 0;
      for (let i = 1; i <= chunks.length; i++) {
        if (i === chunks.length || chunks[i].hour !== chunks[start].hour) {
          await this.write(chunks.slice(start, i));
          start = i;
        }
      }
      let lines = 0;
      for (const c of chunks) {
        lines += c.lines;
        if (c.buf.length === this.chunkBytes && this.spare.length < SPARE_CHUNKS) this.spare.push(c.buf);
      }
      this.inFlightBytes = 0;
      this.inFlightMinTs = Infinity;
      this.processed += lines;
      this.wake();
      if (!this.waiters.length && this.queuedBytes < this.batchBytes) break;
    }
  }

  private wake(): void {
    if (!this.waiters.length) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) (w.upTo <= this.processed ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  private async write(chunks: Chunk[]): Promise<void> {
    const hour = chunks[0].hour;
    const lines = chunks.reduce((n, c) => n + c.lines, 0);
    try {
      await this.sink.write(hour, chunks.map((c) => c.buf.subarray(0, c.used)));
      this.stat.written += lines;
    } catch (err) {
      this.stat.failed += lines;
      this.warn(`query log: cannot write ${this.sink.where(hour)}: ${(err as Error).message}`);
    }
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    (this.opts.warn ?? log.warn)(message);
  }
}
