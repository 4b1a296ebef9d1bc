// The FQL v4 query routes: POST / (read-write) and GET /?q= (read-only) (fql-v4.md §1.2).

import type { QueryService } from '../fql/api';
import { QueryCancelled, TooBusy } from '../model/budget';
import { errors } from '../values/errors';
import { refuseUnauthenticated } from './authFirst';
import { readBodyUtf8 } from './bodies';
import { turnFor } from './turn';
import type { RequestContext } from './context';
import { formatTags, parseQueryHeaders, type QueryHeaders } from './headers';
import { outcomeOfError, protocolError, type Outcome } from './responses';
import type { Handler } from './router';

export function queryHandlers(service: QueryService): { post: Handler; get: Handler } {
  return {
    post: async (ctx) => {
      const headers = parseQueryHeaders(ctx.headers);
      // A full process refuses before it reads or authenticates anything: that is what keeps it
      // answering under any load (the client retries after Retry-After).
      if (service.admission.full) return withTags(refuseBusy(ctx), headers);
      // Refused before the body is read: the record of such a request has no FQL shape.
      const check = refuseUnauthenticated(service, ctx, unauthorized);
      const refused = check instanceof Promise ? await check : check;
      if (refused) return withTags(refused, headers);
      // fql-v4.md §9: request bodies over the limit (8 MiB) are refused with 413; one that does not
      // fit the memory left, or its client's share of it, with 429 (the rest is discarded).
      let read: { text: string; bytes: number };
      try {
        read = await readBodyUtf8(ctx, service.limits.maxBodyBytes);
      } catch (err) {
        if (err instanceof TooBusy) return withTags(outcomeOfError(err), headers);
        throw err;
      }
      return runQuery(service, ctx, headers, read.text, false, read.bytes);
    },
    get: async (ctx) => runQuery(service, ctx, parseQueryHeaders(ctx.headers), ctx.query.get('q') ?? '', true),
  };
}

/** The service's 401, for a request refused before its body was read. */
export function unauthorized(): Outcome {
  const e = errors.unauthorized();
  return protocolError(e.status, e.code, e.description, e.headers);
}

/** 429 `too many requests` with Retry-After, the request's body left unread. */
function refuseBusy(ctx: RequestContext): Outcome {
  ctx.discardBody();
  return outcomeOfError(new TooBusy());
}

async function runQuery(
  service: QueryService,
  ctx: RequestContext,
  headers: QueryHeaders,
  body: string,
  readOnly: boolean,
  bytesIn = Buffer.byteLength(body, 'utf8'),
): Promise<Outcome> {
  // The query waits for its turn; a process too full for it to wait answers 429 now.
  let leave: () => void;
  try {
    const turn = turnFor(service, ctx);
    leave = typeof turn === 'function' ? turn : await turn;
  } catch (err) {
    // The body was read (or, for GET, is none): nothing is left to discard.
    if (err instanceof TooBusy || err instanceof QueryCancelled) return withTags({ ...outcomeOfError(err), bytesIn, log: { fql: body } }, headers);
    throw err;
  }
  // An empty body is the service's 'No query provided.', reported after authentication (401 first).
  const started = process.hrtime.bigint();
  // The timeout the query runs under: lowered once its secret is known, if that does not act as admin.
  let timeoutMs = headers.timeoutMs;
  const work = service.query({
    body,
    authorization: ctx.headers.authorization,
    lastSeenTxn: headers.lastSeenTxn,
    timeoutMs,
    readOnly,
    apiVersion: headers.apiVersion,
    maxRetriesOnContention: headers.maxRetriesOnContention,
    client: ctx, // once it is gone, the query stops at its next look at the clock
    authenticated: (ms) => (timeoutMs = ms),
    clientAddressKey: ctx.clientKeys.address,
  });
  // The turn ends when the query does, not when its client stops waiting for it.
  work.then(leave, leave);
  // Armed for the shorter of the two timeouts a query may get: the secret is not known yet.
  const firstMs = Math.min(headers.timeoutMs, service.limits.maxNonAdminTimeoutMs);
  const answer = await withTimeout(work, firstMs, () => timeoutMs - Number((process.hrtime.bigint() - started) / 1_000_000n));
  const queryTimeMs = Number((process.hrtime.bigint() - started) / 1_000_000n);

  const log = { fql: body, database: answer !== TIMED_OUT && !(answer instanceof Error) ? answer.database : undefined };
  if (answer === TIMED_OUT || answer instanceof Error) {
    const failed = answer === TIMED_OUT ? protocolError(503, 'time out', 'Read timed out') : outcomeOfError(answer);
    return withTags({ ...failed, bytesIn, queryTimeMs, log }, headers);
  }
  // Built in one shape, not spread: this runs for every query.
  const outcome: Outcome = {
    status: answer.status,
    body: answer.body,
    txnTime: answer.txnTime,
    metrics: answer.metrics,
    headers: answer.headers,
    bytesIn,
    queryTimeMs,
    log,
  };
  return withTags(outcome, headers);
}

/** The validated query tags echo on every answer (x-fauna-tags). */
function withTags(outcome: Outcome, headers: QueryHeaders): Outcome {
  const tags = formatTags(headers.tags);
  return tags === undefined ? outcome : { ...outcome, headers: { ...outcome.headers, 'x-fauna-tags': tags } };
}

export const TIMED_OUT = Symbol('timed out');

/**
 * The service aborts a query that runs past its timeout itself; this is the HTTP layer's guarantee
 * that the client hears back in time even if it does not. A late result is dropped. The guard fires
 * after `ms`, or later if `leftMs()` then says the query has time left (an admin's long timeout).
 */
export function withTimeout<T>(work: Promise<T>, ms: number, leftMs: () => number): Promise<T | Error | typeof TIMED_OUT> {
  return new Promise((resolve) => {
    const expire = () => {
      const left = leftMs();
      if (left > 0) timer = setTimeout(expire, left);
      else resolve(TIMED_OUT);
    };
    let timer = setTimeout(expire, ms);
    work.then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (err: unknown) => {
        clearTimeout(timer);
        resolve(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** The service reports errors as results, but one thrown in Fauna's shapes is rendered faithfully. */
