// The two homes of the query log and the export files (backend.ts): the log directory, for a lone
// LMDB process and for LMDB workers sharing it (each process its own hour files and watermark), and
// PostgreSQL, for processes on several machines that share nothing but the database.

import * as path from 'node:path';
import type { LogBackend } from './backend';
import { DirExportFiles } from './dirExportFiles';
import { FileLogSource } from './fileSource';
import { FileSink } from './fileSink';
import { FileWatermarks } from './fileWatermarks';
import { PgExportFiles } from './pgExportFiles';
import { importLegacyLog } from './pgLegacyLog';
import { openLogPool } from './pgPool';
import { PgLogSink, PgLogSource } from './pgQueryLog';
import { PgWatermarks } from './pgWatermarks';

/**
 * `<logDir>/query/` (hour files), `<logDir>/exports/files/` (export files), `<logDir>/writers/`
 * (watermarks). `tag`: this process's part of the file names when other processes share the
 * directory; undefined for a lone process, which keeps the single-file names.
 */
export function fileBackend(logDir: string, tag: string | undefined): LogBackend {
  const queryDir = path.join(logDir, 'query');
  return {
    sink: new FileSink(queryDir, tag),
    source: new FileLogSource(queryDir),
    files: new DirExportFiles(path.join(logDir, 'exports', 'files')),
    watermarks: tag === undefined ? undefined : new FileWatermarks(path.join(logDir, 'writers'), tag),
    close: async () => undefined,
  };
}

/** The log tables next to the store's in the database `url` names; `writer` names this process. */
export async function pgBackend(url: string, writer: string): Promise<LogBackend> {
  const pool = await openLogPool(url);
  return {
    sink: new PgLogSink(pool),
    source: new PgLogSource(pool),
    files: new PgExportFiles(pool),
    watermarks: new PgWatermarks(pool, writer),
    adoptFiles: (queryDir, signal) => importLegacyLog(pool, queryDir, signal),
    close: () => pool.end(),
  };
}

/** A file-name-safe tag of a process from its lease holder name (`host:pid:random`): `pid-random`. */
export function fileTag(holder: string): string {
  return holder.split(':').slice(-2).join('-').replace(/[^A-Za-z0-9_-]/g, '_');
}
