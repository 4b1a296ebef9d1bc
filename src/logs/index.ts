// The query log and the log-export service, put together: open at start, close at shutdown.
//
// A lone LMDB process (and LMDB workers sharing one data directory, each with its own files):
//   <logDir>/query/query-YYYY-MM-DDTHH[.<tag>].ndjson   the query log, per UTC hour (files.ts)
//   <logDir>/exports/files/<request_id>.jsonl.gz        export files (dirExportFiles.ts)
//   <logDir>/writers/<tag>.json                         how far each worker's log is written
// With --storage postgres://…, on any number of machines: the tables of pgPool.ts.
// Either way, export requests and the URL signing key are meta records in the store (jobs.ts,
// signing.ts), and each export runs under a lease (runner.ts).

import * as path from 'node:path';
import type { FloraConfig, QueryService } from '../fql/api';
import type { Leases } from '../tier/leases';
import { subtreeOf } from './access';
import type { ExportFiles, LogBackend } from './backend';
import { fileBackend, fileTag, pgBackend } from './backends';
import { JobStore } from './jobs';
import { newestLines } from './recent';
import { importLegacyJobs } from './legacy';
import { buildRecord, type RecordOptions } from './record';
import { Redactor } from './redact';
import { ExportRunner } from './runner';
import { UrlSigner } from './signing';
import { NO_LOGGER, type RequestLogEntry, type RequestLogger } from './types';
import { LogWriter, type WriterStats } from './writer';
import { log } from '../diag/log';

export type { RequestLogger, RequestLogEntry, OutcomeLog, LoggedDatabase } from './types';
export { shapeFql, shapeGraphQL } from './shape';

export interface LogSettings {
  logDir: string;
  regionGroup: string;
  retentionDays: number;
  logQueries: boolean;
  flushMs: number;
  bufferBytes: number;
  urlTtlMs: number;
  exportTimeoutMs: number;
  publicUrl: string;
  rootSecret: string;
  /** Testing: read exports in small pieces with this pause between them (FLORA_TEST_EXPORT_DELAY_MS). */
  exportChunkDelayMs?: number;
}

/** The log settings of a configuration, defaults filled in. */
export function logSettings(config: FloraConfig, env: NodeJS.ProcessEnv = process.env): LogSettings {
  const delay = Number(env.FLORA_TEST_EXPORT_DELAY_MS ?? '');
  return {
    logDir: config.logDir || path.join(config.dataDir, 'logs'),
    regionGroup: config.regionGroup ?? 'us-std',
    retentionDays: config.logRetentionDays ?? 90,
    logQueries: config.logQueries ?? true,
    flushMs: config.logFlushMs ?? 1000,
    bufferBytes: Math.round((config.logBufferMb ?? 32) * 1024 * 1024),
    urlTtlMs: (config.logUrlTtlSeconds ?? 3600) * 1000,
    exportTimeoutMs: (config.logExportTimeoutSeconds ?? 3600) * 1000,
    publicUrl: config.publicUrl ?? '',
    rootSecret: config.rootSecret,
    ...(delay > 0 ? { exportChunkDelayMs: delay } : {}),
  };
}

/** The RequestLogger that writes records through a LogWriter. */
export class QueryLog implements RequestLogger {
  /** Off: records are not even built (bench/logs.ts compares the two on one server). */
  enabled = true;
  private hourStart = 0;
  private hourKey = '';
  private failures = 0;

  constructor(
    readonly writer: LogWriter,
    private readonly record: RecordOptions,
  ) {}

  log(entry: RequestLogEntry): void {
    if (!this.enabled) return;
    try {
      const ts = entry.ts ?? Date.now();
      this.writer.append(buildRecord(entry, ts, this.record), this.hourOf(ts), ts);
    } catch (err) {
      // A record that cannot be built must not fail the request it describes.
      if (this.failures++ === 0) log.error('query log: cannot build a record', { err });
    }
  }

  private hourOf(ms: number): string {
    if (ms < this.hourStart || ms >= this.hourStart + 3_600_000) {
      this.hourStart = ms - (ms % 3_600_000);
      this.hourKey = new Date(this.hourStart).toISOString().slice(0, 13);
    }
    return this.hourKey;
  }
}

const HOUSEKEEPING_MS = 3_600_000;
const DAY_MS = 24 * 3_600_000;
const WARN_EVERY_MS = 60_000;

export class LogSystem {
  private housekeeping: NodeJS.Timeout | undefined;
  private marking: NodeJS.Timeout | undefined;
  private marked: Promise<void> = Promise.resolve();
  /** Hour files of an earlier version being taken into PostgreSQL (pgLegacyLog.ts). */
  private adopting: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  private lastWarning = 0;
  /** The server's own address: the base of presigned URLs when neither publicUrl nor Host says better. */
  serverAddress = 'http://127.0.0.1';

  private constructor(
    readonly settings: LogSettings,
    readonly logger: RequestLogger,
    private readonly writer: LogWriter | undefined,
    readonly jobs: JobStore,
    readonly runner: ExportRunner,
    readonly signer: UrlSigner,
    private readonly backend: LogBackend,
    private readonly leases: Leases,
  ) {}

  static async open(config: FloraConfig, service: QueryService, settings = logSettings(config)): Promise<LogSystem> {
    const tier = service.tier;
    if (!tier) throw new Error('the query service gives no access to its store');
    const { store, leases } = tier;
    const exportsDir = path.join(settings.logDir, 'exports');
    const backend = config.storage
      ? await pgBackend(config.storage, leases.holder)
      : fileBackend(settings.logDir, store.shared ? fileTag(leases.holder) : undefined);
    try {
      const redactor = new Redactor([settings.rootSecret]);
      const writer = settings.logQueries
        ? new LogWriter({ sink: backend.sink, flushMs: settings.flushMs, maxBufferBytes: settings.bufferBytes })
        : undefined;
      const logger = writer ? new QueryLog(writer, { regionGroup: settings.regionGroup, redactor }) : NO_LOGGER;
      const jobs = new JobStore(store);
      // Requests of earlier versions (job files); their export files move only when exports now live in PostgreSQL.
      await importLegacyJobs(exportsDir, jobs, config.storage ? backend.files : undefined);
      const signer = await UrlSigner.fromStore(store, path.join(exportsDir, 'url-signing.key'));
      const rootAuth = `Bearer ${settings.rootSecret}`;
      const watermarks = backend.watermarks;
      const runner = new ExportRunner(jobs, {
        source: backend.source,
        files: backend.files,
        leases,
        shared: store.shared,
        signer,
        urlTtlMs: settings.urlTtlMs,
        timeoutMs: settings.exportTimeoutMs,
        flushLog: () => writer?.flush() ?? Promise.resolve(),
        ...(watermarks ? { caughtUp: (endMs: number) => watermarks.caughtUp(endMs) } : {}),
        subtree: async (db) => {
          const run = await service.transact(rootAuth, (ctx) => subtreeOf(ctx, db), { readOnly: true });
          return new Set([...run.result].map(String));
        },
        ...(settings.exportChunkDelayMs ? { chunkBytes: 16 * 1024, chunkDelayMs: settings.exportChunkDelayMs } : {}),
      });
      const system = new LogSystem(settings, logger, writer, jobs, runner, signer, backend, leases);
      await system.markWritten(); // before this process serves anything: exports elsewhere wait for it
      await system.tidy();
      await runner.start();
      system.housekeeping = setInterval(() => void system.tidy(), HOUSEKEEPING_MS);
      system.housekeeping.unref();
      if (watermarks && writer) {
        system.marking = setInterval(() => void system.markWritten(), Math.max(100, Math.min(settings.flushMs, 1000)));
        system.marking.unref();
      }
      system.adoptFiles(path.join(settings.logDir, 'query'));
      return system;
    } catch (err) {
      await backend.close().catch(() => undefined);
      throw err;
    }
  }

  /** Where export files are (the download route reads them). */
  get files(): ExportFiles {
    return this.backend.files;
  }

  /** This process, as export requests name the one that accepted them. */
  get holder(): string {
    return this.leases.holder;
  }

  /** Counters of the query-log writer (undefined when query logging is off). */
  writerStats(): WriterStats | undefined {
    return this.writer?.stats();
  }

  /** Everything logged so far is written once this resolves. */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  /**
   * The newest `limit` records (exported lines with REQUEST_PATH, newest first) from `startMs` until now, of the
   * databases `dbs` (scope ids as text; null = every record). This process's records are written
   * first; another process's may lag by up to its flush interval.
   */
  async recent(startMs: number, dbs: ReadonlySet<string> | null, limit: number): Promise<string[]> {
    await this.flush();
    return newestLines(await this.backend.source.scan({ startMs, endMs: Date.now() + 1, dbs, paths: true }), limit);
  }

  /** Tells the other processes how far this one's log is written (shared stores). */
  private markWritten(): Promise<void> {
    const { watermarks } = this.backend;
    if (!watermarks || !this.writer) return Promise.resolve();
    this.marked = this.marked.then(() =>
      watermarks
        .publish(this.writer!.through())
        .catch((err: unknown) => this.warn(`query log: cannot publish how far it is written: ${(err as Error).message}`)),
    );
    return this.marked;
  }

  /** In the background: hour files an earlier version left when the log now lives in PostgreSQL. */
  private adoptFiles(queryDir: string): void {
    const adopt = this.backend.adoptFiles;
    if (!adopt) return;
    this.adopting = adopt(queryDir, this.stopping.signal).then(
      (n) => void (n > 0 && log.info(`query log: ${n} hour file(s) of an earlier version copied into PostgreSQL`)),
      (err: unknown) => {
        if (this.stopping.signal.aborted) return;
        log.error(`query log: cannot copy earlier hour files into PostgreSQL (tried again at the next start): ${(err as Error).message}`);
      },
    );
  }

  /** Retention, by one process of a tier at a time: expired records, old export requests and files. */
  private async tidy(): Promise<void> {
    try {
      await this.leases.holding('logs:housekeeping', async () => {
        await this.backend.source.removeBefore(Date.now() - this.settings.retentionDays * DAY_MS);
        await this.runner.prune();
        await this.backend.watermarks?.prune();
      });
    } catch (err) {
      log.error('query log housekeeping failed', { err });
    }
  }

  /** After the server stopped taking requests: writes what is queued, stops exports (resumed on restart or elsewhere). */
  async close(): Promise<void> {
    if (this.housekeeping) clearInterval(this.housekeeping);
    if (this.marking) clearInterval(this.marking);
    this.stopping.abort();
    await this.adopting;
    await this.runner.close();
    await this.writer?.close();
    await this.marked;
    await this.backend.watermarks?.close().catch(() => undefined);
    await this.backend.close();
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    log.warn(message);
  }
}
