// The log system's own small PostgreSQL pool (same URL as the store, `--storage`), its tables, and
// how its failures read: a connection-level failure is the database being unavailable
// (StorageUnavailable), which the export paths wait out for a while before giving up.

import type { Pool } from 'pg';
import { createSchema, openPool, pgUnavailable } from '../storage/pgConnect';
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageUnavailable } from '../storage/engine';


export const LOG_TABLE = 'flora_query_log';
export const WRITERS_TABLE = 'flora_query_log_writers';
export const CHUNKS_TABLE = 'flora_log_export_chunks';
export const IMPORTS_TABLE = 'flora_query_log_imports';

const SCHEMA = [
  // The query log: the exported line (without `_db` and `_path`), its TS and database (scope id, '' = none).
  `CREATE TABLE IF NOT EXISTS ${LOG_TABLE} (id bigserial NOT NULL, ts_ms bigint NOT NULL, db text NOT NULL, line text NOT NULL)`,
  // The request's path (record.ts `_path`), for `_recent`: NULL in rows of versions that kept none.
  `ALTER TABLE ${LOG_TABLE} ADD COLUMN IF NOT EXISTS path text`,
  // Exports read a time range in (ts_ms, id) order; retention deletes by ts_ms.
  `CREATE INDEX IF NOT EXISTS ${LOG_TABLE}_ts ON ${LOG_TABLE} (ts_ms, id)`,
  // Watermarks: how far each live process's log is written (backend.ts Watermarks).
  `CREATE TABLE IF NOT EXISTS ${WRITERS_TABLE} (writer text PRIMARY KEY, through_ms bigint NOT NULL, seen timestamptz NOT NULL DEFAULT now())`,
  // Export files, in pieces, per attempt: only the attempt that completed a request is downloaded.
  `CREATE TABLE IF NOT EXISTS ${CHUNKS_TABLE} (request_id text NOT NULL, attempt integer NOT NULL, seq integer NOT NULL, data bytea NOT NULL, ` +
    'PRIMARY KEY (request_id, attempt, seq))',
  // Hour files of earlier versions copied into the log table, each once (pgLegacyLog.ts).
  `CREATE TABLE IF NOT EXISTS ${IMPORTS_TABLE} (source text PRIMARY KEY, records bigint NOT NULL, imported timestamptz NOT NULL DEFAULT now())`,
];

/** Opens the pool and creates the log tables if they are missing. Throws StorageUnavailable. */
export async function openLogPool(url: string): Promise<Pool> {
  const pool = openPool(url, 4, 30_000);
  try {
    await createSchema(pool, SCHEMA.join('; '));
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw pgUnavailable(err, url);
  }
  return pool;
}

/** True for a failure to reach the database (as opposed to a statement it refused). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  // SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (shutdown, starting up).
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57P)/.test(code);
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, …
  // pg's own: "Connection terminated unexpectedly", "timeout exceeded when trying to connect", …
  return err instanceof Error && /connect|terminated|timeout/i.test(err.message);
}

export function unavailable(err: unknown): Error {
  if (err instanceof StorageUnavailable || !isConnectionError(err)) return err as Error;
  return new StorageUnavailable(`PostgreSQL is unavailable: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * Runs `fn`, again after a pause while it fails because the database cannot be reached, for up to
 * `waitMs`: an export rides out a brief outage. Then throws StorageUnavailable.
 */
export async function retrying<T>(fn: () => Promise<T>, waitMs = 30_000, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pause = 200; ; pause = Math.min(pause * 2, 2000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isConnectionError(err) || Date.now() + pause > deadline || signal?.aborted) throw unavailable(err);
    }
    await sleep(pause);
  }
}
