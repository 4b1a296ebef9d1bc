// Shared types of the query log (src/logs): what a front end hands the logger for one request.

import type { QueryMetrics } from '../fql/api';

/** The database a request ran in: its scope id (stable across renames and moves) and its names from the top. */
export interface LoggedDatabase {
  id: bigint;
  path: readonly string[];
}

/**
 * What only a route knows about its request, carried on `Outcome.log` so that the server's log hook
 * can write the record. Every field is optional: a route that sets nothing still gets a record.
 */
export interface OutcomeLog {
  /** The authenticated scope's database (QueryResult.database for FQL). */
  database?: LoggedDatabase;
  /** Raw FQL v4 JSON text that ran (request body, or `q` of GET /): shaped by the logger (shapeFql). */
  fql?: string;
  /** A shape made by the route itself, e.g. shapeGraphQL(query) for /graphql. Wins over `fql`. */
  fqlShape?: string;
  /** Validated query tags of a route that echoes them in its body (FQL v10's x-query-tags), not in x-fauna-tags. */
  tags?: readonly (readonly [string, string])[];  /** The FQL version the request spoke (API_VERSION): "10" for /query/1; absent: "4". */
  apiVersion?: '4' | '10';
}

/** One finished request, as handed to RequestLogger.log. */
export interface RequestLogEntry {
  /**
   * TS (ms since the epoch): when the response was computed, before it was sent, so that a client
   * always sees a record's TS between sending its request and receiving the answer. Default: now.
   */
  ts?: number;
  /** Upper-case HTTP method. */
  method: string;
  /**
   * The request's path, without its query string (`/`, `/query/1`, `/graphql`): kept with the
   * record for `_recent` (REQUEST_PATH), never exported (Fauna's format has no field for it).
   */
  path?: string;
  /** Lower-case request headers. The logger keeps only harmless ones and scrubs their values. */
  headers: Readonly<Record<string, string>>;
  /** HTTP status sent. */
  status: number;
  /** Request body bytes (x-query-bytes-in). */
  bytesIn: number;
  /** Response body bytes (x-query-bytes-out). */
  bytesOut: number;
  queryTimeMs: number;
  /** Zeros when absent. */
  metrics?: QueryMetrics;
  database?: LoggedDatabase;
  /** Raw FQL text to shape, or a ready shape (see OutcomeLog). */
  fql?: string;
  fqlShape?: string;
  /** API_VERSION: the FQL version ("4" when absent). */
  apiVersion?: '4' | '10';
  /** Validated query tags (x-fauna-tags); pairs or an object. Values are scrubbed anyway. */
  tags?: readonly (readonly [string, string])[] | Readonly<Record<string, string>>;
  /** The traceparent sent back to the client (valid incoming one, or the one the server made). */
  traceparent?: string;
}

/**
 * How every front end writes the query log: one call per request, after its response is computed
 * (a stream: when it closes). Never throws and never waits; under overload records are dropped and
 * counted rather than slowing requests down.
 */
export interface RequestLogger {
  log(entry: RequestLogEntry): void;
}

/** A logger that writes nothing (query logging disabled). */
export const NO_LOGGER: RequestLogger = { log: () => undefined };
