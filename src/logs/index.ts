// The query log and the log-export service, put together: open at start, close at shutdown.
//
//   <logDir>/query/query-YYYY-MM-DDTHH.ndjson   the query log, one file per UTC hour (files.ts)
//   <logDir>/exports/jobs/<request_id>.json     export requests and their state (jobs.ts)
//   <logDir>/exports/files/<request_id>.jsonl.gz  export files (runner.ts)
//   <logDir>/exports/url-signing.key            HMAC key of presigned URLs (signing.ts)

import * as path from 'node:path';
import type { FloraConfig, QueryService } from '../fql/api';
import { subtreeOf } from './access';
import { removeExpired } from './files';
import { JobStore } from './jobs';
import { buildRecord, type RecordOptions } from './record';
import { Redactor } from './redact';
import { ExportRunner } from './runner';
import { UrlSigner } from './signing';
import { NO_LOGGER, type RequestLogEntry, type RequestLogger } from './types';
import { LogWriter, type WriterStats } from './writer';

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
      this.writer.append(buildRecord(entry, ts, this.record), this.hourOf(ts));
    } catch (err) {
      // A record that cannot be built must not fail the request it describes.
      if (this.failures++ === 0) console.error('flora: query log: cannot build a record:', err);
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

export class LogSystem {
  private housekeeping: NodeJS.Timeout | undefined;
  /** The server's own address: the base of presigned URLs when neither publicUrl nor Host says better. */
  serverAddress = 'http://127.0.0.1';

  private constructor(
    readonly settings: LogSettings,
    readonly logger: RequestLogger,
    private readonly writer: LogWriter | undefined,
    readonly jobs: JobStore,
    readonly runner: ExportRunner,
    readonly signer: UrlSigner,
  ) {}

  static async open(config: FloraConfig, service: QueryService, settings = logSettings(config)): Promise<LogSystem> {
    const queryDir = path.join(settings.logDir, 'query');
    const exportsDir = path.join(settings.logDir, 'exports');
    const redactor = new Redactor([settings.rootSecret]);
    const writer = settings.logQueries
      ? new LogWriter({ dir: queryDir, flushMs: settings.flushMs, maxBufferBytes: settings.bufferBytes })
      : undefined;
    const logger = writer ? new QueryLog(writer, { regionGroup: settings.regionGroup, redactor }) : NO_LOGGER;
    const jobs = await JobStore.open(path.join(exportsDir, 'jobs'));
    const signer = await UrlSigner.open(path.join(exportsDir, 'url-signing.key'));
    const rootAuth = `Bearer ${settings.rootSecret}`;
    const runner = new ExportRunner(jobs, {
      logDir: queryDir,
      filesDir: path.join(exportsDir, 'files'),
      signer,
      urlTtlMs: settings.urlTtlMs,
      timeoutMs: settings.exportTimeoutMs,
      flushLog: () => writer?.flush() ?? Promise.resolve(),
      subtree: async (db) => {
        const run = await service.transact(rootAuth, (ctx) => subtreeOf(ctx, db), { readOnly: true });
        return new Set([...run.result].map(String));
      },
      ...(settings.exportChunkDelayMs ? { chunkBytes: 16 * 1024, chunkDelayMs: settings.exportChunkDelayMs } : {}),
    });
    const system = new LogSystem(settings, logger, writer, jobs, runner, signer);
    await system.tidy();
    await runner.start();
    system.housekeeping = setInterval(() => void system.tidy(), HOUSEKEEPING_MS);
    system.housekeeping.unref();
    return system;
  }

  /** Counters of the query-log writer (undefined when query logging is off). */
  writerStats(): WriterStats | undefined {
    return this.writer?.stats();
  }

  /** Everything logged so far is on disk once this resolves. */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  /** Retention: expired hour files and old export requests go. */
  private async tidy(): Promise<void> {
    try {
      await removeExpired(path.join(this.settings.logDir, 'query'), this.settings.retentionDays, Date.now());
      await this.runner.prune();
    } catch (err) {
      console.error('flora: query log housekeeping failed:', err);
    }
  }

  /** After the server stopped taking requests: writes what is queued, stops exports (resumed on restart). */
  async close(): Promise<void> {
    if (this.housekeeping) clearInterval(this.housekeeping);
    await this.runner.close();
    await this.writer?.close();
  }
}
