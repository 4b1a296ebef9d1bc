// FQL v10's error codes and HTTP statuses.
//
// Two kinds of failure reach a client (api/fql2/FQL2Response.scala):
//  - a query failure (the query was read and run: `invalid_query` when it does not parse or check,
//    else the runtime code: `invalid_argument`, `document_not_found`, `abort`, `constraint_failure`,
//    …): always HTTP 400 in the core (QueryError.httpStatus, "FIXME: change status code depending on
//    the type of error"), with summary, txn_ts, stats and schema_version;
//  - a protocol error (the request could not be run: bad body or header, no or bad secret, timeout,
//    contention, overload): the status of its ProtocolErrorCode (api/package.scala) and the code
//    FQL2Response.ProtocolError.codeToString gives it, with no summary, txn_ts or schema_version.

/** ProtocolErrorCode → [wire code, HTTP status]. */
export const PROTOCOL_ERRORS = {
  unauthorized: ['unauthorized', 401],
  forbidden: ['forbidden', 403],
  not_found: ['not_found', 404],
  method_not_allowed: ['method_not_allowed', 405],
  conflict: ['conflict', 409],
  disabled: ['forbidden', 410],
  bad_request: ['invalid_request', 400],
  request_too_large: ['request_size_exceeded', 413],
  too_many_requests: ['limit_exceeded', 429],
  /** The client's x-query-timeout-ms ran out (AggressiveTimeoutException). */
  processing_time_limit_exceeded: ['time_out', 440],
  internal_error: ['internal_error', 500],
  /** A read timed out inside the service. */
  service_timeout: ['time_out', 503],
  operator_error: ['internal_error', 540],
  contended_transaction: ['contended_transaction', 409],
} as const satisfies Record<string, readonly [string, number]>;

export type ProtocolErrorKind = keyof typeof PROTOCOL_ERRORS;

/** The status of every query failure (QueryError.httpStatus). */
export const QUERY_FAILURE_STATUS = 400;

/** A request that cannot be run; render it with protocolErrorBody (envelope.ts). */
export class ProtocolFailure extends Error {
  constructor(
    readonly kind: ProtocolErrorKind,
    message: string,
  ) {
    super(message);
  }

  get code(): string {
    return PROTOCOL_ERRORS[this.kind][0];
  }

  get status(): number {
    return PROTOCOL_ERRORS[this.kind][1];
  }
}

/** An `invalid_request` (400) failure. */
export function badRequest(message: string): ProtocolFailure {
  return new ProtocolFailure('bad_request', message);
}

/**
 * The core's fixed protocol messages (FQL2Endpoint, FQL2Response.ProtocolError,
 * ExceptionResponseHelpers). `unauthorized` goes with the header `WWW-Authenticate: Bearer`;
 * `rateLimited` is rendered with stats.
 */
export const PROTOCOL_MESSAGES = {
  unauthorized: 'Access token required',
  forbidden: 'Access denied',
  noBody: 'No request body provided',
  tooLarge: 'Request entity is too large',
  rateLimited: 'Rate limit exceeded',
  overloaded: 'Too many pending requests',
  contended: 'Transaction was aborted due to detection of concurrent modification.',
  schemaContended: 'Transaction was aborted due to detection of concurrent modifications to schema.',
} as const;

/** Contention on one document, named as `Coll(id)` (FQL2Endpoint.recover). */
export function contendedOn(refString: string): string {
  return `Transaction was aborted due to detection of concurrent modifications to ${refString}.`;
}

/** The x-query-timeout-ms deadline passed (AggressiveTimeoutException.msg). */
export function aggressiveTimeout(neededMs: number, elapsedMs: number): ProtocolFailure {
  return new ProtocolFailure(
    'processing_time_limit_exceeded',
    `Client set aggressive deadline: query needs ${neededMs}, timed out within ${elapsedMs}`,
  );
}
