// Where the query log and the export files live, as seen by the writer, the export runner and the
// download route. Two backends implement these: the log directory (one LMDB process, or LMDB workers
// sharing the directory on one machine) and PostgreSQL (processes on any number of machines sharing
// nothing but the database). Export requests themselves live in the store (jobs.ts), the same for both.

import type { Readable, Writable } from 'node:stream';

/** Where the writer's batches go. */
export interface LogSink {
  /**
   * Writes whole stored lines (each ending in a newline) whose TS falls in hour `hour`
   * (`YYYY-MM-DDTHH`). Rejects when they could not all be written; the writer counts them as failed.
   */
  write(hour: string, buffers: Buffer[]): Promise<void>;
  /** Where the lines of `hour` go, for warnings. */
  where(hour: string): string;
  close(): Promise<void>;
}

/** A time range of the log to export, and the databases (scope ids as text) it covers; null = all. */
export interface LogRange {
  startMs: number;
  endMs: number;
  dbs: ReadonlySet<string> | null;
  /** Lines in `_recent`'s form, with REQUEST_PATH where the record has a path (record.ts recentLine); never for an export. */
  paths?: boolean;
}

/** One step of a scan: exported lines (each ending in a newline; see LogRange.paths), how many, bytes of the log gone through so far. */
export interface ScanBatch {
  text: string;
  records: number;
  scanned: number;
}

export interface RangeScan extends AsyncIterable<ScanBatch> {
  /** Bytes of the log the scan goes through (progress.bytes_total). */
  readonly bytesTotal: number;
}

/** Reading the log back for an export. */
export interface LogSource {
  /** `batchBytes`: about how much log one batch goes through (small to make exports slow in tests). */
  scan(range: LogRange, batchBytes?: number): Promise<RangeScan>;
  /** Removes the records of hours that ended before `cutoffMs` (retention). */
  removeBefore(cutoffMs: number): Promise<void>;
}

/** The gzip output of one attempt of an export, invisible until committed. */
export interface ExportUpload {
  readonly stream: Writable;
  /** Once `stream` has finished: makes the output the export's file; resolves its size in bytes. */
  commit(): Promise<number>;
  /** Drops what was written (a failed or abandoned attempt). */
  discard(): Promise<void>;
}

export interface ExportFile {
  size: number;
  /** The bytes: read it to the end or destroy it. */
  body: Readable;
}

/** The export files (gzip JSON lines), one per Complete request, written by the attempt that completed it. */
export interface ExportFiles {
  /** A new output for attempt `attempt` of export `id`; partial outputs of its earlier attempts go. */
  create(id: string, attempt: number): Promise<ExportUpload>;
  /** The file of export `id` as attempt `attempt` committed it, or undefined. */
  open(id: string, attempt: number): Promise<ExportFile | undefined>;
  exists(id: string, attempt: number): Promise<boolean>;
  /** Removes everything of export `id`. */
  remove(id: string): Promise<void>;
  /** Removes every partial output: only when no other process can be writing one (a lone process at start). */
  discardPartials(): Promise<void>;
}

/**
 * How a process tells the others how far its query log is written, so that an export waits for the
 * records of every live process before it reads its range (a process keeps records in memory up to
 * --log-flush-ms before writing them).
 */
export interface Watermarks {
  /** Every record this process logs with TS < `throughMs` is written (or was dropped). */
  publish(throughMs: number): Promise<void>;
  /** True once every other live process has published at least `endMs`. */
  caughtUp(endMs: number): Promise<boolean>;
  /** Forgets processes not heard from for a day (housekeeping). */
  prune(): Promise<void>;
  /** This process writes no more: nobody waits for it. */
  close(): Promise<void>;
}

export interface LogBackend {
  readonly sink: LogSink;
  readonly source: LogSource;
  readonly files: ExportFiles;
  /** Only for processes that share the log with others (store.shared). */
  readonly watermarks: Watermarks | undefined;
  /**
   * Takes in the hour files an earlier version left in `queryDir` when the log now lives elsewhere;
   * stops between batches once `signal` aborts. Resolves how many files it took.
   */
  adoptFiles?(queryDir: string, signal: AbortSignal): Promise<number>;
  close(): Promise<void>;
}

/** A process that is not heard from for this long is dead, as far as waiting for its log goes. */
export const WRITER_STALE_MS = 10_000;
