// Response bodies and the headers every FQL v4 response carries (fql-v4.md §1.5, §1.7).

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueryMetrics } from '../fql/api';
import type { OutcomeLog } from '../logs/types';
import { ProtocolError, QueryError, type Position } from '../values/errors';
import { CLIENT_CLOSED_STATUS, QueryCancelled, QueryTimeout } from '../model/budget';
import { StorageUnavailable } from '../storage/engine';
import type { StreamSink } from './streamSink';
import { log } from '../diag/log';

/** What a route produces; the server turns it into an HttpResponse with the standard headers. */
export interface Outcome {
  status: number;
  /** Complete JSON body ('' only for a CORS preflight, HEAD and CLIENT_CLOSED_STATUS), as text or UTF-8 bytes. */
  body: string | Buffer;
  /** X-Txn-Time; the service clock when no transaction ran. */
  txnTime?: bigint;
  /** Zeros when absent (and omitted altogether for 401 and 500). */
  metrics?: QueryMetrics;
  headers?: Record<string, string>;
  /** x-query-bytes-in: request body bytes given to the query. */
  bytesIn?: number;
  /** x-query-time, measured around the query. */
  queryTimeMs?: number;
  /** What the query log needs from the route (database, FQL for FQL_SHAPE); see src/logs/types.ts. */
  log?: OutcomeLog;
  /** A streamed body (POST /stream): called with the open response once the head is sent. */
  stream?: (sink: StreamSink) => void;
  /** An FQL v10 answer (/query/1): the core's FQL2Endpoint sends none of v4's headers (x-txn-time,
   *  the metrics; its body has txn_ts and stats), only what every answer carries. */
  v10?: true;
}

export const ZERO_METRICS: QueryMetrics = Object.freeze({
  computeOps: 0,
  byteReadOps: 0,
  byteWriteOps: 0,
  storageBytesRead: 0,
  storageBytesWrite: 0,
  txnRetries: 0,
});

export const CONTENT_TYPE = 'application/json;charset=utf-8';

/** `{"errors":[{"code","description"}]}`: errors raised by the HTTP layer carry no position. */
export function protocolError(
  status: number,
  code: string,
  description: string,
  headers?: Record<string, string>,
): Outcome {
  return { status, body: JSON.stringify({ errors: [{ code, description }] }), headers };
}

/** A query (parse/evaluation) error: always with a position, `[]` for the root. */
export function queryError(status: number, code: string, description: string, position: Position = []): Outcome {
  return { status, body: JSON.stringify({ errors: [{ position, code, description }] }) };
}

/**
 * The answer to an error a query or a transaction threw: Fauna's own errors as they are; a time
 * out and an unreachable store as the query endpoint answers them (503). Anything else is a fault
 * of the server's: rethrown, for the HTTP layer's 500 with a request id.
 */
export function outcomeOfError(e: unknown): Outcome {
  if (e instanceof ProtocolError) return protocolError(e.status, e.code, e.description, e.headers);
  if (e instanceof QueryError) return queryError(e.status, e.code, e.description, e.position);
  if (e instanceof QueryCancelled) return clientClosed();
  if (e instanceof QueryTimeout) return protocolError(503, 'time out', 'Read timed out');
  if (e instanceof StorageUnavailable) {
    // The reason (a host, a connection string) goes to the server's log, not to the client.
    log.error(e.message);
    return protocolError(503, 'unavailable', 'The storage is unavailable.');
  }
  throw e;
}

/** The record of a request whose client left before its answer: nothing is sent, nothing said. */
export function clientClosed(): Outcome {
  return { status: CLIENT_CLOSED_STATUS, body: '' };
}

/**
 * A fault of the server's own (never the client's input): the stack goes to the server's log under a
 * request id, and the client gets only that id to quote.
 */
export function internalError(err: unknown, request: FailedRequest, doing?: string): Outcome {
  const id = logInternalError(err, request, doing);
  return protocolError(500, 'internal server error', internalErrorText(id), { 'x-request-id': id });
}

/** The request a fault happened in, as the server's log names it (never its headers: they carry the secret). */
export interface FailedRequest {
  method: string;
  path: string;
}

/**
 * Writes the fault with its stack to the server's log under a new request id, with the request's
 * method and path (`doing`: what was under way, e.g. writing the response); returns the id.
 */
export function logInternalError(err: unknown, { method, path }: FailedRequest, doing?: string): string {
  const id = randomBytes(8).toString('hex');
  const where = `${doing ? `${doing} ` : ''}${method} ${path}`;
  log.error(`internal error [request ${id}] in ${where}`, { requestId: id, method, path, err });
  return id;
}

export function internalErrorText(id: string): string {
  return `Internal server error. The server's log has the details under request id ${id}.`;
}

/** Metrics headers are left out of 401 and 500 responses, as Fauna does. */
export function hasMetrics(status: number): boolean {
  return status !== 401 && status !== 500;
}

/** Adds the metrics headers to `headers`; `bytesOut` is the UTF-8 length of the body. */
export function addMetricsHeaders(headers: Record<string, string>, outcome: Outcome, bytesOut: number): void {
  const m = outcome.metrics ?? ZERO_METRICS;
  headers['x-compute-ops'] = String(m.computeOps);
  headers['x-byte-read-ops'] = String(m.byteReadOps);
  headers['x-byte-write-ops'] = String(m.byteWriteOps);
  headers['x-query-time'] = String(outcome.queryTimeMs ?? 0);
  headers['x-query-bytes-in'] = String(outcome.bytesIn ?? 0);
  headers['x-query-bytes-out'] = String(bytesOut);
  headers['x-storage-bytes-read'] = String(m.storageBytesRead);
  headers['x-storage-bytes-write'] = String(m.storageBytesWrite);
  headers['x-txn-retries'] = String(m.txnRetries);
}

/** X-FaunaDB-Build: `<version>-<build id>`. */
export const BUILD = buildString();

function buildString(): string {
  try {
    // dist/src/server/responses.js → package.json at the project root
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ? `${pkg.version}-flora` : 'unknown';
  } catch {
    return 'unknown';
  }
}
