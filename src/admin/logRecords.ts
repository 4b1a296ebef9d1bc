// Query-log records (the export file's fields, log-export.md §B.3) as rows of the Query log tab,
// and its filters: a database path prefix, a status (ok, errors, a code), a slowness threshold, a
// method, a request path, and whether requests that ran no query are shown.
// Pure, so that a filter's parsing and matching are tested without a browser.

import { parseTs } from '../logs/record';

/** The `x-fauna-source` the dashboard sends with its own log reads, so that they can be hidden. */
export const OWN_SOURCE = 'flora-dashboard-log';

export interface LogRow {
  /** TS as recorded (`YYYY-MM-DD HH:mm:ss.SSS Z`) and as ms since the epoch. */
  ts: string;
  ms: number;
  /** The database path below the region group (`app/tenant`; '' = the top database or none). */
  database: string;
  method: string;
  /** The request's path (`_recent`'s REQUEST_PATH), '' for a record of a version that kept none. */
  path: string;
  status: number;
  timeMs: number;
  computeOps: number;
  readOps: number;
  writeOps: number;
  bytesIn: number;
  bytesOut: number;
  shape: string;
  /** x-fauna-source of the request, '' when none. */
  source: string;
  /** The record as read, for its detail view. */
  record: Record<string, unknown>;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** One record (parsed JSON) as a row; missing fields read as empty. */
export function toRow(record: Record<string, unknown>): LogRow {
  const ts = text(record.TS);
  const db = Array.isArray(record.DATABASE) ? record.DATABASE.map(String) : [];
  let source = '';
  try {
    const headers = JSON.parse(text(record.REQUEST_HEADERS) || '{}') as Record<string, unknown>;
    source = text(headers.x_fauna_source);
  } catch {
    // REQUEST_HEADERS is always a JSON object's text; a record without one has no source.
  }
  return {
    ts,
    ms: parseTs(ts),
    database: db.slice(1).join('/'),
    method: text(record.REQUEST_METHOD),
    path: text(record.REQUEST_PATH),
    status: Number(text(record.RESPONSE_CODE)) || 0,
    timeMs: num(record.QUERY_TIME_MS),
    computeOps: num(record.COMPUTE_OPS),
    readOps: num(record.BYTE_READ_OPS),
    writeOps: num(record.BYTE_WRITE_OPS),
    bytesIn: num(record.BYTES_IN),
    bytesOut: num(record.BYTES_OUT),
    shape: text(record.FQL_SHAPE),
    source,
    record,
  };
}

/**
 * The time a read of the window `[readAt - spanMs, readAt]` covers: the whole window, or, when the
 * read was cut at `limit` records (newest first, so the window's start is missing), from the oldest
 * record read, so that a chart shows no made-up quiet before it.
 */
export function coveredWindow(rows: readonly LogRow[], readAt: number, spanMs: number, limit: number): { fromMs: number; cut: boolean } {
  const cut = rows.length >= limit && rows.length > 0;
  return { fromMs: cut ? Math.max(readAt - spanMs, rows[rows.length - 1].ms) : readAt - spanMs, cut };
}

export type StatusFilter = { kind: 'any' } | { kind: 'ok' } | { kind: 'errors' } | { kind: 'code'; code: number };

export interface LogFilter {
  /** Path segments the database must start with ([] = any). */
  database: string[];
  status: StatusFilter;
  /** Only requests that took at least this long (ms); null = any. */
  slowMs: number | null;
  /** Also the dashboard's own log reads. */
  own: boolean;
  /** Only this HTTP method (upper case); '' = any. */
  method: string;
  /** Only requests whose path contains this text ('' = any); a record without a path never matches one. */
  path: string;
  /**
   * Leave out successful requests that ran no query (no FQL shape): the dashboard's page files, job
   * and log API calls. A failed one stays (a refused secret, say).
   */
  queriesOnly: boolean;
}

export interface FilterInput {
  database: string;
  status: string;
  slow: string;
  own: boolean;
  method?: string;
  path?: string;
  queriesOnly?: boolean;
}

/** The filter a user typed, or an Error whose message says what to type instead. */
export function parseFilter(input: FilterInput, regionGroup = ''): LogFilter {
  let path = input.database.trim().replace(/^\/+|\/+$/g, '');
  // The path as records and exports spell it (`us-std/app`) means the same as `app`.
  if (regionGroup && (path === regionGroup || path.startsWith(`${regionGroup}/`))) path = path.slice(regionGroup.length + 1);
  const database = path === '' ? [] : path.split('/');
  if (database.some((p) => p === '')) throw new Error(`The database filter '${input.database}' has an empty name in it: write a path such as app/tenant1.`);
  const s = input.status.trim().toLowerCase();
  let status: StatusFilter;
  if (s === '' || s === 'all' || s === 'any') status = { kind: 'any' };
  else if (s === 'ok') status = { kind: 'ok' };
  else if (s === 'errors' || s === 'error') status = { kind: 'errors' };
  else if (/^[1-5]\d\d$/.test(s)) status = { kind: 'code', code: Number(s) };
  else throw new Error(`The status filter '${input.status}' is not one of: ok, errors, or an HTTP code such as 404.`);
  const slow = input.slow.trim();
  let slowMs: number | null = null;
  if (slow !== '') {
    if (!/^\d+(\.\d+)?$/.test(slow)) throw new Error(`The slow-query threshold '${input.slow}' is not a number of milliseconds, e.g. 100.`);
    slowMs = Number(slow);
  }
  const method = (input.method ?? '').trim().toUpperCase();
  if (method !== '' && !/^[A-Z]+$/.test(method)) throw new Error(`The method filter '${input.method}' is not an HTTP method such as GET or POST.`);
  return { database, status, slowMs, own: input.own, method, path: (input.path ?? '').trim(), queriesOnly: input.queriesOnly ?? false };
}

/** A successful request that ran no query: what `queriesOnly` leaves out. */
export const ranNoQuery = (row: LogRow): boolean => row.shape === '' && row.status < 400;

export function matches(row: LogRow, f: LogFilter): boolean {
  if (!f.own && row.source === OWN_SOURCE) return false;
  if (f.method !== '' && row.method !== f.method) return false;
  if (f.path !== '' && !row.path.includes(f.path)) return false;
  if (f.queriesOnly && ranNoQuery(row)) return false;
  if (f.database.length) {
    const names = row.database === '' ? [] : row.database.split('/');
    if (names.length < f.database.length || f.database.some((n, i) => names[i] !== n)) return false;
  }
  const st = f.status;
  if (st.kind === 'ok' && !(row.status >= 200 && row.status < 300)) return false;
  if (st.kind === 'errors' && row.status < 400) return false;
  if (st.kind === 'code' && row.status !== st.code) return false;
  return f.slowMs === null || row.timeMs >= f.slowMs;
}
