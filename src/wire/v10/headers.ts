// The request headers /query/1 reads, parsed as the core parses them (api/RequestParams.scala,
// api/fql2/FQL2Endpoint.scala, trace/QueryLogContext.scala, trace/TraceContext.scala). A bad value is
// a ProtocolFailure `invalid_request` "Invalid header '<name>': <reason>".

import { badRequest, type ProtocolFailure } from './errors';
import { parseInt32, parseInt64 } from './scalars';

export type ValueFormat = 'simple' | 'tagged' | 'decorated';

/** The longest x-query-timeout-ms (MaxQueryTimeSeconds' default, 10 minutes). */
export const MAX_QUERY_TIMEOUT_MS = 600_000;
/** The query timeout without x-query-timeout-ms (CoreApplication.DefaultQueryTimeout). */
export const DEFAULT_QUERY_TIMEOUT_MS = 120_000;

function invalidHeader(name: string, reason: string): ProtocolFailure {
  return badRequest(`Invalid header '${name}': ${reason}`);
}

/** x-format (default simple). */
function parseFormat(v: string | undefined): ValueFormat {
  if (v === undefined) return 'simple';
  if (v === 'simple' || v === 'tagged' || v === 'decorated') return v;
  throw invalidHeader('x-format', `Invalid format ${v}`);
}

/** Scala's String.toBooleanOption: `true` or `false` in any case. */
function parseBoolean(name: string, v: string): boolean {
  const lower = v.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw invalidHeader(name, 'Must be a boolean value.');
}

/** x-typecheck: undefined when absent (the database's setting applies). */
function parseTypecheck(v: string | undefined): boolean | undefined {
  return v === undefined ? undefined : parseBoolean('x-typecheck', v);
}

/** x-linearized (default false). */
function parseLinearized(v: string | undefined): boolean {
  return v === undefined ? false : parseBoolean('x-linearized', v);
}

/** x-performance-hints (default false). */
function parsePerformanceHints(v: string | undefined): boolean {
  return v === undefined ? false : parseBoolean('x-performance-hints', v);
}

/** x-last-txn-ts: microseconds since the epoch; 0 (the epoch) when absent. */
function parseLastTxnTs(v: string | undefined): bigint {
  if (v === undefined) return 0n;
  const n = parseInt64(v);
  if (n === undefined) throw invalidHeader('x-last-txn-ts', `Invalid timestamp '${v}'.`);
  return n;
}

/** x-query-timeout-ms: 1 to MAX_QUERY_TIMEOUT_MS; DEFAULT_QUERY_TIMEOUT_MS when absent. */
function parseQueryTimeoutMs(v: string | undefined): number {
  if (v === undefined) return DEFAULT_QUERY_TIMEOUT_MS;
  const n = parseInt64(v);
  if (n === undefined) throw invalidHeader('x-query-timeout-ms', `Invalid number '${v}'.`);
  if (n <= 0n) throw invalidHeader('x-query-timeout-ms', 'Must be greater than 0.');
  if (n > BigInt(MAX_QUERY_TIMEOUT_MS)) {
    throw invalidHeader('x-query-timeout-ms', `Must be less than or equal to ${MAX_QUERY_TIMEOUT_MS}.`);
  }
  return Number(n);
}

/** x-max-contention-retries: 0 to 7, undefined when absent (the service's default). */
function parseMaxContentionRetries(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = parseInt32(v);
  if (n === undefined) throw invalidHeader('x-max-contention-retries', `Invalid number '${v}'.`);
  if (n < 0n || n > 7n) throw invalidHeader('x-max-contention-retries', 'Must be between 0 and 7.');
  return Number(n);
}

const TAGS_MAX_LENGTH = 3000;
const TAGS_MAX_PAIRS = 25;
const TAG_KEY_MAX = 40;
const TAG_VALUE_MAX = 80;
const TAGS = /^[A-Za-z0-9_]+=[A-Za-z0-9_]+(?:,[A-Za-z0-9_]+=[A-Za-z0-9_]+)*$/;

/**
 * x-query-tags, `k=v,k2=v2` (QueryLogTags.fromHTTPHeader): checked for length, syntax and count,
 * then pair by pair from the last one back (the core folds from the right) for key length, value
 * length and duplicates. The core's fold also builds the tags from the right, so they come back
 * (queryTagsText) last pair first. Empty when absent or empty.
 */
function parseQueryTags(v: string | undefined): [string, string][] {
  if (v === undefined || v === '') return [];
  const fail = (reason: string) => invalidHeader('x-query-tags', reason);
  if (v.length > TAGS_MAX_LENGTH) throw fail('header is too long');
  if (!TAGS.test(v)) throw fail('invalid tags');
  const pairs = v.split(',').map((p) => p.split('=') as [string, string]);
  if (pairs.length > TAGS_MAX_PAIRS) throw fail('too many tags');
  const seen = new Set<string>();
  const tags: [string, string][] = [];
  for (let i = pairs.length - 1; i >= 0; i--) {
    const [key, value] = pairs[i];
    if (key.length > TAG_KEY_MAX) throw fail('invalid key');
    if (value.length > TAG_VALUE_MAX) throw fail('invalid value');
    if (seen.has(key)) throw fail('duplicate key');
    seen.add(key);
    tags.push([key, value]);
  }
  return tags;
}

/** The `query_tags` a response echoes (QueryLogTags.toHTTPHeader); undefined when there are none. */
export function queryTagsText(tags: readonly [string, string][]): string | undefined {
  return tags.length === 0 ? undefined : tags.map(([k, v]) => `${k}=${v}`).join(',');
}

const TRACEPARENT = /^..-([0-9a-fA-F]{32})-([0-9a-fA-F]{16})-[0-9a-fA-F]{2}$/;

/**
 * The trace id of a `traceparent` header (TraceContext.fromHTTPHeader: 55 characters, hex ids, trace
 * and span ids not zero), or undefined: an invalid header is ignored, never an error. The response's
 * traceparent keeps this trace id with a new span id (responseTraceparent).
 */
export function traceIdOf(v: string | undefined): string | undefined {
  const m = v === undefined ? null : TRACEPARENT.exec(v);
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return undefined;
  return m[1].toLowerCase();
}

/**
 * The `traceparent` response header (TraceContext.toHTTPHeader): version 00, the request's trace id
 * or a fresh one, this request's span id, flags 00 (not sampled). Ids are lower-case hex, 32 and 16
 * digits.
 */
export function responseTraceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-00`;
}

/**
 * x-driver-env, `driver=javascript-4.0.1;runtime=…;env=…;os=…`: the core only logs it (as
 * `driver_env`); its `key=value` pairs for the log.
 */
export function parseDriverEnv(v: string | undefined): Map<string, string> {
  const env = new Map<string, string>();
  if (v === undefined) return env;
  for (const part of v.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) env.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return env;
}

export interface QueryHeaders {
  readonly format: ValueFormat;
  /** undefined: the database's setting applies. */
  readonly typecheck: boolean | undefined;
  readonly linearized: boolean;
  readonly performanceHints: boolean;
  /** x-last-txn-ts, µs (0 when absent). */
  readonly lastTxnTs: bigint;
  readonly timeoutMs: number;
  /** undefined: the service's default. */
  readonly maxContentionRetries: number | undefined;
  /** x-query-tags, in the order the response echoes them (queryTagsText). */
  readonly tags: [string, string][];
}

/**
 * Every header /query/1 reads (`header(name)` gives a header's value, names in lower case), checked
 * in the core's order: x-last-txn-ts, x-query-timeout-ms, x-max-contention-retries
 * (getRequestInfo), x-query-tags (CoreApplication), then x-format, x-typecheck, x-linearized,
 * x-performance-hints (getRequest). A request's body is read after its headers, and both before its
 * secret is looked at: a bad header or body is reported even without a valid secret.
 */
export function parseQueryHeaders(header: (name: string) => string | undefined): QueryHeaders {
  const lastTxnTs = parseLastTxnTs(header('x-last-txn-ts'));
  const timeoutMs = parseQueryTimeoutMs(header('x-query-timeout-ms'));
  const maxContentionRetries = parseMaxContentionRetries(header('x-max-contention-retries'));
  const tags = parseQueryTags(header('x-query-tags'));
  return {
    format: parseFormat(header('x-format')),
    typecheck: parseTypecheck(header('x-typecheck')),
    linearized: parseLinearized(header('x-linearized')),
    performanceHints: parsePerformanceHints(header('x-performance-hints')),
    lastTxnTs,
    timeoutMs,
    maxContentionRetries,
    tags,
  };
}
