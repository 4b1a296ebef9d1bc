// One query-log record: the fields of log-export.md §B.3's exported file, keys in alphabetical order,
// one JSON object per line. On disk a record carries one internal field after them, `_db` (the
// scope id of its database, which survives renames and moves), used to decide who may export it; the
// exporter strips it. Keys sort so that `TS` and `_db` are the last two: a line's time and database
// are found from its end without parsing it.

import type { RequestLogEntry } from './types';
import type { Redactor } from './redact';
import { shapeFql } from './shape';
import { API_VERSIONS } from '../server/headers';

let lastMs = NaN;
let lastTs = '';

/** `YYYY-MM-DD HH:mm:ss.SSS Z` in UTC: sorts as text in time order. */
export function formatTs(ms: number): string {
  if (ms === lastMs) return lastTs; // many records share a millisecond under load
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:mm:ss.SSSZ
  lastMs = ms;
  lastTs = `${iso.slice(0, 10)} ${iso.slice(11, 23)} Z`;
  return lastTs;
}

export const TS_LENGTH = 25;

export interface RecordOptions {
  regionGroup: string;
  redactor: Redactor;
}

/** The stored line (no newline) of one request logged at `nowMs`. */
export function buildRecord(entry: RequestLogEntry, nowMs: number, opts: RecordOptions): string {
  const m = entry.metrics;
  const record = {
    API_VERSION: entry.apiVersion !== undefined && API_VERSIONS.includes(entry.apiVersion) ? entry.apiVersion : '4',
    BYTES_IN: entry.bytesIn,
    BYTES_OUT: entry.bytesOut,
    BYTE_READ_OPS: m?.byteReadOps ?? 0,
    BYTE_WRITE_OPS: m?.byteWriteOps ?? 0,
    COMPUTE_OPS: m?.computeOps ?? 0,
    DATABASE: entry.database ? [opts.regionGroup, ...entry.database.path] : [],
    FQL_SHAPE: entry.fqlShape ?? (entry.fql !== undefined ? shapeFql(entry.fql) : ''),
    QUERY_TIME_MS: Math.max(0, Math.round(entry.queryTimeMs)),
    RATE_LIMITS_HIT: [] as string[],
    REGION_GROUP: opts.regionGroup,
    REQUEST_HEADERS: opts.redactor.requestHeaders(entry.headers),
    REQUEST_METHOD: entry.method,
    RESPONSE_CODE: String(entry.status),
    TAGS: tagsObject(entry.tags, opts.redactor),
    TRACEPARENT: entry.traceparent ?? '',
    TS: formatTs(nowMs),
    TXN_RETRIES: m?.txnRetries ?? 0,
    // Always present (empty when none), so that the last `_db` of a line is never a tag's.
    _db: entry.database ? String(entry.database.id) : '',
  };
  return JSON.stringify(record);
}

function tagsObject(tags: RequestLogEntry['tags'], redactor: Redactor): Record<string, string> {
  const out: Record<string, string> = {};
  if (!tags) return out;
  const pairs = Array.isArray(tags) ? tags : Object.entries(tags);
  for (const [k, v] of pairs as [string, string][]) out[redactor.scrub(k)] = redactor.scrub(v);
  return out;
}

const TS_KEY = '"TS":"';
const DB_KEY = ',"_db":"';

/** A stored line's TS, or undefined for a line that is not a complete record (a torn write). */
export function lineTs(line: string): string | undefined {
  if (line.charCodeAt(0) !== 0x7b || line.charCodeAt(line.length - 1) !== 0x7d) return undefined;
  const i = line.lastIndexOf(TS_KEY);
  if (i < 0) return undefined;
  return line.substr(i + TS_KEY.length, TS_LENGTH);
}

/** A stored line's `_db` (scope id as decimal text), or undefined when it ran in no database. */
export function lineDb(line: string): string | undefined {
  const i = line.lastIndexOf(DB_KEY);
  if (i < 0) return undefined;
  const start = i + DB_KEY.length;
  const end = line.indexOf('"', start);
  return end <= start ? undefined : line.slice(start, end);
}

/** The exported form of a stored line: without `_db`. */
export function exportedLine(line: string): string {
  const i = line.lastIndexOf(DB_KEY);
  return i < 0 ? line : `${line.slice(0, i)}}`;
}
