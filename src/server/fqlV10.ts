// POST /query/1: FQL v10 (the `fauna` drivers, fauna-shell 3), on the same port and store as v4.
//
// The order is v4's (query.ts): the headers are checked, a full process refuses at once, the secret
// is authenticated before the body is read (a request without a valid secret costs the same whatever
// it carries), the body is read within the size limit, the query waits for its turn, and runs in one
// transaction (fql10/run/executor.ts) under the request's timeout, which this layer guards too. Every
// answer is in v10's shape ({"error": {code, message}} for a request that could not run). The core
// serves /query/1 whatever the method (a GET has no body: "No request body provided"). Its answers
// carry none of v4's headers (Outcome.v10).

import type { QueryMetrics, QueryService } from '../fql/api';
import { V10Executor, type StoragePlugs, type V10Result } from '../fql10/run/executor';
import { storeLanguage } from '../fql10/run/storePlugs';
import { QueryCancelled, TooBusy } from '../model/budget';
import type { QueryStats } from '../wire/v10/envelope';
import { protocolErrorBody } from '../wire/v10/envelope';
import { PROTOCOL_MESSAGES, ProtocolFailure } from '../wire/v10/errors';
import { parseQueryHeaders, type QueryHeaders } from '../wire/v10/headers';
import { parseQueryRequest, type QueryRequest } from '../wire/v10/request';
import { shapeFql10 } from '../logs/shape';
import { refuseUnauthenticated } from './authFirst';
import { readBodyUtf8 } from './bodies';
import { BodyTooLarge, type RequestContext } from './context';
import { TIMED_OUT, withTimeout } from './query';
import { clientClosed, type Outcome } from './responses';
import type { Handler } from './router';
import { turnFor } from './turn';

export function fqlV10Handler(service: QueryService, plugs: StoragePlugs = storeLanguage()): Handler {
  const executor = new V10Executor(service, plugs);
  const answer = v10Answer(service, executor);
  return async (ctx) => ({ ...(await answer(ctx)), v10: true });
}

function v10Answer(service: QueryService, executor: V10Executor): Handler {
  return async (ctx) => {
    let headers: QueryHeaders;
    try {
      headers = parseQueryHeaders((name) => ctx.headers[name]);
    } catch (e) {
      if (e instanceof ProtocolFailure) return refuse(ctx, e);
      throw e;
    }
    if (service.admission.full) return refuse(ctx, overloaded(), headers, new TooBusy().headers);
    const check = refuseUnauthenticated(service, ctx, () => unauthorized(headers));
    const refused = check instanceof Promise ? await check : check;
    if (refused) return refused;

    let read: { text: string; bytes: number };
    try {
      read = await readBodyUtf8(ctx, service.limits.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(ctx, new ProtocolFailure('request_too_large', PROTOCOL_MESSAGES.tooLarge), headers);
      if (err instanceof TooBusy) return refuse(ctx, overloaded(), headers, err.headers);
      throw err;
    }
    let request: QueryRequest;
    try {
      request = parseQueryRequest(read.text);
    } catch (e) {
      if (e instanceof ProtocolFailure) return { ...failureOutcome(e, headers), bytesIn: read.bytes, log: { ...V10_LOG, tags: headers.tags.length > 0 ? headers.tags : undefined } };
      throw e;
    }
    return run(service, executor, ctx, headers, request, read);
  };
}

async function run(
  service: QueryService,
  executor: V10Executor,
  ctx: RequestContext,
  headers: QueryHeaders,
  request: QueryRequest,
  read: { text: string; bytes: number },
): Promise<Outcome> {
  const log = { ...V10_LOG, fqlShape: shapeFql10(request.query.text), tags: headers.tags.length > 0 ? headers.tags : undefined };
  let leave: () => void;
  try {
    const turn = turnFor(service, ctx);
    leave = typeof turn === 'function' ? turn : await turn;
  } catch (err) {
    if (err instanceof TooBusy) return { ...failureOutcome(overloaded(), headers, err.headers), bytesIn: read.bytes, log };
    if (err instanceof QueryCancelled) return { ...clientClosed(), bytesIn: read.bytes, log };
    throw err;
  }
  const started = process.hrtime.bigint();
  const elapsedMs = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  let timeoutMs = headers.timeoutMs;
  const work = executor.query({
    request,
    headers,
    authorization: ctx.headers.authorization,
    client: ctx,
    clientAddressKey: ctx.clientKeys.address,
    authenticated: (ms) => (timeoutMs = ms),
  });
  work.then(leave, leave);
  const firstMs = Math.min(headers.timeoutMs, service.limits.maxNonAdminTimeoutMs);
  const answer = await withTimeout(work, firstMs, () => timeoutMs - elapsedMs());
  const queryTimeMs = elapsedMs();
  if (answer === TIMED_OUT) {
    // The executor stops the query at its deadline; this is the guarantee the client hears back in time.
    const timedOut = new ProtocolFailure('service_timeout', 'Read timed out');
    return { ...failureOutcome(timedOut, headers), bytesIn: read.bytes, queryTimeMs, log };
  }
  if (answer instanceof Error) throw answer; // a fault of the server's: 500 with a request id
  return { ...resultOutcome(answer), bytesIn: read.bytes, queryTimeMs, log: { ...log, database: answer.database } };
}

function resultOutcome(r: V10Result): Outcome {
  return { status: r.status, body: r.body, txnTime: r.txnTs, metrics: r.stats && metricsOf(r.stats), headers: r.headers };
}

/** The stats as the metrics headers and the query log count them. */
function metricsOf(s: QueryStats): QueryMetrics {
  return {
    computeOps: s.computeOps,
    byteReadOps: s.readOps,
    byteWriteOps: s.writeOps,
    storageBytesRead: s.storageBytesRead,
    storageBytesWrite: s.storageBytesWrite,
    txnRetries: s.contentionRetries,
  };
}

function overloaded(): ProtocolFailure {
  return new ProtocolFailure('too_many_requests', PROTOCOL_MESSAGES.overloaded);
}

/** FQL2Response.ProtocolError.Unauthorized: "Access token required", WWW-Authenticate: Bearer. */
function unauthorized(headers: QueryHeaders): Outcome {
  return failureOutcome(new ProtocolFailure('unauthorized', PROTOCOL_MESSAGES.unauthorized), headers, { 'www-authenticate': 'Bearer' });
}

/** What the query log records of every /query/1 request, whatever became of it. */
const V10_LOG = { apiVersion: '10' } as const;

function failureOutcome(e: ProtocolFailure, headers?: QueryHeaders, extra?: Record<string, string>): Outcome {
  return { status: e.status, body: protocolErrorBody(e, { tags: headers?.tags }), headers: extra, log: V10_LOG };
}

/** An answer before the body was read: the body is discarded as it arrives. */
function refuse(ctx: RequestContext, e: ProtocolFailure, headers?: QueryHeaders, extra?: Record<string, string>): Outcome {
  ctx.discardBody();
  return failureOutcome(e, headers, extra);
}
