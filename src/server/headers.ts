// Request headers honoured by the FQL v4 endpoint (fql-v4.md §1.4). An invalid value is a 400
// `bad request` "Invalid header '<name>': <message>" rendered without a position.

import { randomBytes } from 'node:crypto';
import { ProtocolError } from '../values/errors';
import { DEFAULT_QUERY_TIMEOUT_MS } from '../model/budget';

export const API_VERSIONS: readonly string[] = ['2.0', '2.1', '2.7', '2.12', '3', '4', '5', 'UNSTABLE'];
/** The bound of the root secret and admin keys; other secrets are then held to a lower one (QueryLimits.maxNonAdminTimeoutMs). */
export const MAX_QUERY_TIMEOUT_MS = 600_000;

const TAGS_MAX_BYTES = 3000;
const TAGS_MAX_PAIRS = 25;
const TAG_KEY_MAX = 40;
const TAG_VALUE_MAX = 80;
const TAGS_SYNTAX = /^[A-Za-z0-9_]+=[A-Za-z0-9_]+(?:,[A-Za-z0-9_]+=[A-Za-z0-9_]+)*$/;

export interface QueryHeaders {
  /** Missing header = 4 (DECISIONS #3). */
  apiVersion: string;
  lastSeenTxn?: bigint;
  timeoutMs: number;
  maxRetriesOnContention?: number;
  /** Tag pairs in request order; empty when none were sent. */
  tags: [string, string][];
}

function invalid(name: string, message: string): ProtocolError {
  return new ProtocolError(400, 'bad request', `Invalid header '${name}': ${message}`);
}

/** Validates the headers that shape query execution; throws ProtocolError(400) on the first bad one. */
export function parseQueryHeaders(headers: Readonly<Record<string, string>>): QueryHeaders {
  const version = headers['x-faunadb-api-version'];
  if (version !== undefined && !API_VERSIONS.includes(version)) {
    throw invalid('x-faunadb-api-version', `Unsupported or invalid API version '${version}'.`);
  }
  const result: QueryHeaders = { apiVersion: version ?? '4', timeoutMs: DEFAULT_QUERY_TIMEOUT_MS, tags: [] };

  const lastSeen = headers['x-last-seen-txn'];
  if (lastSeen !== undefined) {
    const ts = parseLong(lastSeen);
    if (ts === undefined) throw invalid('x-last-seen-txn', `Invalid timestamp '${lastSeen}'.`);
    result.lastSeenTxn = ts;
  }

  const timeout = headers['x-query-timeout'];
  if (timeout !== undefined) {
    const ms = parseLong(timeout);
    if (ms === undefined) throw invalid('x-query-timeout', `Invalid number '${timeout}'.`);
    if (ms <= 0n) throw invalid('x-query-timeout', 'Must be greater than 0.');
    if (ms > BigInt(MAX_QUERY_TIMEOUT_MS)) {
      throw invalid('x-query-timeout', `Must be less than or equal to ${MAX_QUERY_TIMEOUT_MS}.`);
    }
    result.timeoutMs = Number(ms);
  }

  const retries = headers['x-max-retries-on-contention'];
  if (retries !== undefined) {
    const n = parseLong(retries);
    if (n === undefined) throw invalid('x-max-retries-on-contention', `Invalid number '${retries}'.`);
    if (n < 0n || n > 7n) throw invalid('x-max-retries-on-contention', 'Must be between 0 and 7.');
    result.maxRetriesOnContention = Number(n);
  }

  const tags = headers['x-fauna-tags'];
  if (tags !== undefined) result.tags = parseTags(tags);
  return result;
}

/**
 * The X-Last-Seen-Txn a request carries, or undefined (absent or malformed: the query route reports a
 * malformed one; the checks before it just do without).
 */
export function lastSeenOf(headers: Readonly<Record<string, string>>): bigint | undefined {
  const raw = headers['x-last-seen-txn'];
  return raw === undefined ? undefined : parseLong(raw);
}

/** A signed 64-bit decimal integer, or undefined. */
function parseLong(raw: string): bigint | undefined {
  if (!/^[+-]?\d{1,20}$/.test(raw)) return undefined;
  const n = BigInt(raw);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/**
 * `k=v,k2=v2` (fql-v4.md §1.4); an empty header means no tags. Checked in Fauna's order
 * (trace/QueryLogContext.scala, QueryLogTagsSpec): the length, then the syntax (anything but
 * `[A-Za-z0-9_]+=[A-Za-z0-9_]+` pairs joined by commas is `invalid tags`), the count, then each pair
 * from the last one back (Fauna folds from the right): key length, value length, duplicate key.
 */
export function parseTags(raw: string): [string, string][] {
  const name = 'x-fauna-tags';
  if (raw.length > TAGS_MAX_BYTES) throw invalid(name, 'header is too long');
  if (raw === '') return [];
  if (!TAGS_SYNTAX.test(raw)) throw invalid(name, 'invalid tags');
  const pairs = raw.split(',').map((pair) => pair.split('=') as [string, string]);
  if (pairs.length > TAGS_MAX_PAIRS) throw invalid(name, 'too many tags');
  const seen = new Set<string>();
  for (let i = pairs.length - 1; i >= 0; i--) {
    const [key, value] = pairs[i];
    if (key.length > TAG_KEY_MAX) throw invalid(name, 'invalid key');
    if (value.length > TAG_VALUE_MAX) throw invalid(name, 'invalid value');
    if (seen.has(key)) throw invalid(name, 'duplicate key');
    seen.add(key);
  }
  return pairs;
}

/** The response's `x-fauna-tags`: pairs sorted by key (wire.md §7); undefined when there are none. */
export function formatTags(tags: readonly [string, string][]): string | undefined {
  if (tags.length === 0) return undefined;
  return [...tags]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;

/** W3C trace-context validity: the version ff and all-zero ids are invalid. */
export function isValidTraceparent(value: string): boolean {
  const m = TRACEPARENT.exec(value);
  if (!m) return false;
  return m[1] !== 'ff' && !/^0+$/.test(m[2]) && !/^0+$/.test(m[3]);
}

/** Echo a valid incoming traceparent; otherwise start a fresh trace. */
export function responseTraceparent(incoming: string | undefined): string {
  if (incoming !== undefined && isValidTraceparent(incoming)) return incoming;
  return `00-${nonZeroHex(16)}-${nonZeroHex(8)}-00`;
}

// Every response without a valid traceparent needs 24 random bytes; drawing them from a pool avoids a
// call into the CSPRNG per request (it showed up in profiles).
let pool = Buffer.alloc(0);
let poolOffset = 0;

function nonZeroHex(bytes: number): string {
  for (;;) {
    if (poolOffset + bytes > pool.length) {
      pool = randomBytes(4096);
      poolOffset = 0;
    }
    const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
    poolOffset += bytes;
    if (!/^0+$/.test(hex)) return hex;
  }
}
