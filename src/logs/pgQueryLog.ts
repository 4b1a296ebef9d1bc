// The query log in PostgreSQL (`--storage postgres://…`): processes on several machines share
// nothing but the database, so their records go there, into a table of its own, `flora_query_log`,
// next to the store's `flora_kv` (pgPool.ts creates it).
//
// Why a table of its own rather than keys in the store through the Engine: every commit to the store
// in a tier goes through one critical section (a row lock, store.ts shared mode) and leaves a
// commit-log record that every process reads; the query log would put a write per batch of requests
// through that lock and that log, competing with the transactions it describes, for records that
// need none of what the store gives (they are never updated, never conflict, and are read only by
// time range). A plain table takes batch inserts from the writer without any lock, keeps exports to
// one index range scan on (ts_ms, id), and retention to a DELETE by time; the log never slows the
// store down, and a failed insert is counted and dropped like a failed file write.

import type { Pool, PoolClient } from 'pg';
import type { LogRange, LogSink, LogSource, RangeScan, ScanBatch } from './backend';
import { LOG_TABLE, retrying, unavailable } from './pgPool';
import { exportedLine, lineDb, linePath, lineTs, parseTs, withRequestPath } from './record';

/** Rows of one INSERT statement at most (a batch of the writer may be larger). */
const INSERT_ROWS = 2000;
const HOUR_MS = 3_600_000;
/** Rows deleted per statement by retention, so no statement runs long. */
const DELETE_ROWS = 10_000;

/** Rows of the log table: TS (ms), database, exported line, request path (null: a record of an earlier version). */
export interface LogRows {
  ts: number[];
  dbs: string[];
  lines: string[];
  paths: (string | null)[];
}

/** The rows of stored lines (record.ts); what is not a whole record (a torn write, '') is skipped. */
export function logRows(stored: readonly string[]): LogRows {
  const rows: LogRows = { ts: [], dbs: [], lines: [], paths: [] };
  for (const line of stored) {
    const stamp = lineTs(line);
    const ms = stamp === undefined ? NaN : parseTs(stamp);
    if (Number.isNaN(ms)) continue;
    rows.ts.push(ms);
    rows.dbs.push(lineDb(line) ?? '');
    rows.lines.push(exportedLine(line));
    rows.paths.push(linePath(line) ?? null);
  }
  return rows;
}

/** Inserts `rows` through `client` (inside the caller's transaction), INSERT_ROWS at a time. */
export async function insertRows(client: Pick<PoolClient, 'query'>, rows: LogRows): Promise<void> {
  for (let i = 0; i < rows.lines.length; i += INSERT_ROWS) {
    await client.query({
      text: `INSERT INTO ${LOG_TABLE} (ts_ms, db, line, path) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])`,
      values: [rows.ts, rows.dbs, rows.lines, rows.paths].map((column) => column.slice(i, i + INSERT_ROWS)),
    });
  }
}

/** The writer's sink: one transaction per batch, its lines in INSERTs of INSERT_ROWS rows. */
export class PgLogSink implements LogSink {
  constructor(private readonly pool: Pool) {}

  where(): string {
    return `PostgreSQL table ${LOG_TABLE}`;
  }

  async write(_hour: string, buffers: Buffer[]): Promise<void> {
    const rows = logRows(Buffer.concat(buffers).toString('utf8').split('\n'));
    if (rows.lines.length === 0) return;
    let client;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    try {
      await client.query('BEGIN');
      await insertRows(client, rows);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw unavailable(err);
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    // The pool belongs to the backend.
  }
}

/** Exports read the table by time range, a page at a time in (ts_ms, id) order. */
export class PgLogSource implements LogSource {
  constructor(private readonly pool: Pool) {}

  async scan(range: LogRange, batchBytes = 1024 * 1024): Promise<RangeScan> {
    const pool = this.pool;
    const paths = range.paths === true;
    const dbs = range.dbs ? [...range.dbs] : null;
    const where = `ts_ms >= $1 AND ts_ms < $2${dbs ? ' AND db = ANY($3::text[])' : ''}`;
    const params: unknown[] = [range.startMs, range.endMs, ...(dbs ? [dbs] : [])];
    const total = await retrying(() =>
      pool.query<{ bytes: string }>({
        text: `SELECT coalesce(sum(octet_length(line) + 1), 0)::bigint AS bytes FROM ${LOG_TABLE} WHERE ${where}`,
        values: params,
      }),
    );
    // About batchBytes of records per page (a record is some 500 bytes).
    const pageRows = Math.max(8, Math.min(5000, Math.floor(batchBytes / 512)));
    const after = params.length + 1;
    return {
      bytesTotal: Number(total.rows[0].bytes),
      async *[Symbol.asyncIterator](): AsyncIterator<ScanBatch> {
        let cursor: [string, string] = [String(range.startMs), '-1'];
        let scanned = 0;
        for (;;) {
          const page = await retrying(() =>
            pool.query<{ id: string; ts_ms: string; line: string; path: string | null }>({
              text:
                `SELECT id, ts_ms, line${paths ? ', path' : ''} FROM ${LOG_TABLE} WHERE ${where} AND (ts_ms, id) > ($${after}::bigint, $${after + 1}::bigint) ` +
                `ORDER BY ts_ms, id LIMIT ${pageRows}`,
              values: [...params, ...cursor],
            }),
          );
          const rows = page.rows;
          if (rows.length === 0) return;
          let text = '';
          for (const row of rows) {
            text += `${paths ? withRequestPath(row.line, row.path === null ? undefined : JSON.stringify(row.path)) : row.line}\n`;
            scanned += Buffer.byteLength(row.line) + 1;
          }
          const last = rows[rows.length - 1];
          cursor = [last.ts_ms, last.id];
          yield { text, records: rows.length, scanned };
          if (rows.length < pageRows) return;
        }
      },
    };
  }

  /** Records of hours that ended before `cutoffMs` (as with the hour files), a bounded delete at a time. */
  async removeBefore(cutoffMs: number): Promise<void> {
    const before = cutoffMs - (cutoffMs % HOUR_MS);
    for (;;) {
      const res = await retrying(() =>
        this.pool.query({
          text: `DELETE FROM ${LOG_TABLE} WHERE ctid IN (SELECT ctid FROM ${LOG_TABLE} WHERE ts_ms < $1 LIMIT ${DELETE_ROWS})`,
          values: [before],
        }),
      );
      if ((res.rowCount ?? 0) < DELETE_ROWS) return;
    }
  }
}
