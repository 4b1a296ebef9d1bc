// One query-log record: the fields of log-export.md §B.3's exported file, keys in alphabetical order,
// one JSON object per line. On disk a record carries internal fields after them, which the exporter
// strips: `_db` (the scope id of its database, which survives renames and moves), used to decide who
// may export it, then `_path` (the request's path, which Fauna's format has no field for), which
// `_recent` shows as REQUEST_PATH. Keys sort so that `TS` and `_db` come last but for `_path`: a
// line's time and database are found from its end without parsing it. Lines of earlier versions
// have no `_path`.

import type { RequestLogEntry } from './types';
import type { Redactor } from './redact';
import { shapeFql } from './shape';

let lastSecond = NaN;
let secondPrefix = '';

/** `YYYY-MM-DD HH:mm:ss.SSS Z` in UTC: sorts as text in time order. */
export function formatTs(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    // Many records share a second: its `YYYY-MM-DD HH:mm:ss.` is made once.
    const iso = new Date(second * 1000).toISOString(); // YYYY-MM-DDTHH:mm:ss.000Z
    secondPrefix = `${iso.slice(0, 10)} ${iso.slice(11, 20)}`;
    lastSecond = second;
  }
  const milli = ms - second * 1000;
  return `${secondPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli} Z`;
}

export const TS_LENGTH = 25;

/** The ms since the epoch of a TS (`YYYY-MM-DD HH:mm:ss.SSS Z`), NaN when it is not one. */
export function parseTs(ts: string): number {
  if (ts.length !== TS_LENGTH) return NaN;
  const n = (from: number, to: number) => Number(ts.slice(from, to));
  return Date.UTC(n(0, 4), n(5, 7) - 1, n(8, 10), n(11, 13), n(14, 16), n(17, 19), n(20, 23));
}

export interface RecordOptions {
  regionGroup: string;
  redactor: Redactor;
}

const int = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0);

/**
 * The stored line (no newline) of one request logged at `nowMs`. Written out by hand rather than
 * with JSON.stringify of an object: this runs for every request.
 */
export function buildRecord(entry: RequestLogEntry, nowMs: number, opts: RecordOptions): string {
  const m = entry.metrics;
  const database = entry.database ? JSON.stringify([opts.regionGroup, ...entry.database.path]) : '[]';
  const shape = entry.fqlShape ?? (entry.fql !== undefined ? shapeFql(entry.fql) : '');
  return (
    // API_VERSION is the FQL version ("4" or "10"), whatever version string a v4 request carried
    // (DECISIONS #3); that string is kept in REQUEST_HEADERS.
    `{"API_VERSION":"${entry.apiVersion ?? '4'}","BYTES_IN":${int(entry.bytesIn)},"BYTES_OUT":${int(entry.bytesOut)}` +
    `,"BYTE_READ_OPS":${int(m?.byteReadOps)},"BYTE_WRITE_OPS":${int(m?.byteWriteOps)},"COMPUTE_OPS":${int(m?.computeOps)}` +
    `,"DATABASE":${database},"FQL_SHAPE":${JSON.stringify(shape)},"QUERY_TIME_MS":${int(entry.queryTimeMs)}` +
    `,"RATE_LIMITS_HIT":[],"REGION_GROUP":${JSON.stringify(opts.regionGroup)}` +
    `,"REQUEST_HEADERS":${opts.redactor.requestHeadersLiteral(entry.headers)},"REQUEST_METHOD":${JSON.stringify(entry.method)}` +
    `,"RESPONSE_CODE":"${int(entry.status)}","TAGS":${tagsJson(entry.tags, opts.redactor)}` +
    `,"TRACEPARENT":${JSON.stringify(entry.traceparent ?? '')},"TS":"${formatTs(nowMs)}","TXN_RETRIES":${int(m?.txnRetries)}` +
    // Always present (empty when none), so that the last `_db` of a line is never a tag's.
    `,"_db":"${entry.database ? entry.database.id : ''}"` +
    `${entry.path === undefined ? '' : `,"_path":${opts.redactor.pathLiteral(entry.path)}`}}`
  );
}

function tagsJson(tags: RequestLogEntry['tags'], redactor: Redactor): string {
  if (!tags) return '{}';
  const pairs = (Array.isArray(tags) ? tags : Object.entries(tags)) as [string, string][];
  if (pairs.length === 0) return '{}';
  const seen = new Set<string>();
  let out = '';
  for (const [k, v] of pairs) {
    const key = redactor.scrub(k);
    if (seen.has(key)) continue; // an object has each key once (the validated header never repeats one)
    seen.add(key);
    out += `${out ? ',' : '{'}${JSON.stringify(key)}:${JSON.stringify(redactor.scrub(v))}`;
  }
  return `${out}}`;
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

/** The exported form of a stored line: without `_db` and `_path`. */
export function exportedLine(line: string): string {
  const i = line.lastIndexOf(DB_KEY);
  return i < 0 ? line : `${line.slice(0, i)}}`;
}

const PATH_KEY = ',"_path":';

/**
 * A stored line's `_path` as its JSON string literal, or undefined (a line of an earlier version).
 * Looked for only right after `_db`'s value: an earlier line's tag may be named `_path`.
 */
function pathLiteral(line: string): string | undefined {
  const i = line.lastIndexOf(DB_KEY);
  if (i < 0) return undefined;
  const end = line.indexOf('"', i + DB_KEY.length) + 1;
  return end > 0 && line.startsWith(PATH_KEY, end) ? line.slice(end + PATH_KEY.length, -1) : undefined;
}

/** A stored line's request path, or undefined when it has none (a line of an earlier version). */
export function linePath(line: string): string | undefined {
  const literal = pathLiteral(line);
  if (literal === undefined) return undefined;
  try {
    const path: unknown = JSON.parse(literal);
    return typeof path === 'string' ? path : undefined;
  } catch {
    return undefined;
  }
}

const CODE_KEY = ',"RESPONSE_CODE":"';

/**
 * `_recent`'s form of an exported line: with Flora's REQUEST_PATH (a JSON string literal) in its
 * alphabetical place, after REQUEST_METHOD; unchanged when the path is not known. The first
 * RESPONSE_CODE key is the record's own: every field before it is a string or an array of strings
 * (REQUEST_HEADERS is an object's text), and only TAGS after it has keys of the client's choosing.
 */
export function withRequestPath(exported: string, literal: string | undefined): string {
  if (literal === undefined) return exported;
  const i = exported.indexOf(CODE_KEY);
  return i < 0 ? exported : `${exported.slice(0, i)},"REQUEST_PATH":${literal}${exported.slice(i)}`;
}

/** `_recent`'s form of a stored line: exported, with REQUEST_PATH when the line has a path. */
export function recentLine(line: string): string {
  return withRequestPath(exportedLine(line), pathLiteral(line));
}
