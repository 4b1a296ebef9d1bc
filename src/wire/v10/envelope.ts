// The bodies of /query/1 responses, key for key as the core's FQL2Response renders them:
//
//   success (200):        {"data", "static_type"?, "summary", "txn_ts", "stats", "query_tags"?, "schema_version"}
//   query failure (400):  {"error": {"code", "message", "constraint_failures"?, "abort"?},
//                          "summary", "txn_ts", "stats", "query_tags"?, "schema_version"}
//   protocol error:       {"error": {"code", "message"}, "stats"?, "query_tags"?}
//
// `stats` is {compute_ops, read_ops, write_ops, query_time_ms, contention_retries,
// storage_bytes_read, storage_bytes_write, rate_limits_hit}; `query_tags` the request's x-query-tags
// (headers.ts queryTagsText); `txn_ts` and `schema_version` are µs. (The `fauna` driver adds
// `stats.attempts` itself.)

import { jsonString } from '../json';
import { decorate } from './decorated';
import { encodeValue } from './encode';
import type { ProtocolFailure } from './errors';
import { queryTagsText, type ValueFormat } from './headers';
import type { MValue } from './model';

export type RateLimit = 'compute' | 'read' | 'write';

export interface QueryStats {
  readonly computeOps: number;
  readonly readOps: number;
  readonly writeOps: number;
  readonly queryTimeMs: number;
  readonly contentionRetries: number;
  readonly storageBytesRead: number;
  readonly storageBytesWrite: number;
  /** The rate limits the query ran into, in this order: compute, read, write. */
  readonly rateLimitsHit: readonly RateLimit[];
}

/** What every response to a query that ran carries besides its result. */
export interface QueryInfo {
  /** Diagnostics rendered with their source (errors, warnings, logs), joined by blank lines; "" when none. */
  readonly summary: string;
  /** The transaction's time, µs. */
  readonly txnTs: bigint;
  readonly stats: QueryStats;
  /** The last schema change the query saw, µs. */
  readonly schemaVersion: bigint;
  readonly tags: readonly [string, string][];
}

export interface ConstraintFailure {
  readonly paths: readonly (readonly (string | number)[])[];
  readonly message: string;
  /** What the summary names the failure by when not its paths (a v4 unique index: its name). */
  readonly label?: string;
}

export interface QueryFailure {
  readonly code: string;
  readonly message: string;
  readonly constraintFailures?: readonly ConstraintFailure[];
  /** The value given to abort(). */
  readonly abort?: MValue;
}

/** A value in a response format; `decorated` is FQL text in a JSON string. */
export function encodeData(v: MValue, format: ValueFormat, txnTs: bigint): string {
  return format === 'decorated' ? jsonString(decorate(v, txnTs)) : encodeValue(v, format, txnTs);
}

/** The 200 body; `staticType` is the result's type as the typechecker displays it. */
export function successBody(data: MValue, format: ValueFormat, info: QueryInfo, staticType?: string): string {
  let out = '{"data":' + encodeData(data, format, info.txnTs);
  if (staticType !== undefined) out += ',"static_type":' + jsonString(staticType);
  return out + queryInfo(info) + '}';
}

/** The body of a failed query (HTTP QUERY_FAILURE_STATUS). */
export function queryFailureBody(failure: QueryFailure, format: ValueFormat, info: QueryInfo): string {
  let out = '{"error":{"code":' + jsonString(failure.code) + ',"message":' + jsonString(failure.message);
  if (failure.constraintFailures !== undefined && failure.constraintFailures.length > 0) {
    out += ',"constraint_failures":[' + failure.constraintFailures.map(constraintFailure).join(',') + ']';
  }
  if (failure.abort !== undefined) out += ',"abort":' + encodeData(failure.abort, format, info.txnTs);
  return out + '}' + queryInfo(info) + '}';
}

/**
 * The body of a protocol error (HTTP `err.status`). Only a rate-limited request carries stats; every
 * error echoes the request's tags once they were read.
 */
export function protocolErrorBody(err: ProtocolFailure, extra: { stats?: QueryStats; tags?: readonly [string, string][] } = {}): string {
  let out = '{"error":{"code":' + jsonString(err.code) + ',"message":' + jsonString(err.message) + '}';
  if (extra.stats !== undefined) out += ',"stats":' + stats(extra.stats);
  const tags = extra.tags === undefined ? undefined : queryTagsText(extra.tags);
  if (tags !== undefined) out += ',"query_tags":' + jsonString(tags);
  return out + '}';
}

function queryInfo(info: QueryInfo): string {
  let out = ',"summary":' + jsonString(info.summary) + ',"txn_ts":' + info.txnTs + ',"stats":' + stats(info.stats);
  const tags = queryTagsText(info.tags);
  if (tags !== undefined) out += ',"query_tags":' + jsonString(tags);
  return out + ',"schema_version":' + info.schemaVersion;
}

function stats(s: QueryStats): string {
  return (
    '{"compute_ops":' + s.computeOps +
    ',"read_ops":' + s.readOps +
    ',"write_ops":' + s.writeOps +
    ',"query_time_ms":' + s.queryTimeMs +
    ',"contention_retries":' + s.contentionRetries +
    ',"storage_bytes_read":' + s.storageBytesRead +
    ',"storage_bytes_write":' + s.storageBytesWrite +
    ',"rate_limits_hit":[' + s.rateLimitsHit.map((r) => '"' + r + '"').join(',') + ']}'
  );
}

function constraintFailure(f: ConstraintFailure): string {
  const paths = f.paths.map((p) => '[' + p.map((e) => (typeof e === 'number' ? String(e) : jsonString(e))).join(',') + ']');
  return '{"paths":[' + paths.join(',') + '],"message":' + jsonString(f.message) + '}';
}
