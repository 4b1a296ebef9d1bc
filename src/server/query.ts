// The FQL v4 query routes: POST / (read-write) and GET /?q= (read-only) (fql-v4.md §1.2).

import type { QueryResult, QueryService } from '../fql/api';
import { ProtocolError, QueryError } from '../values/errors';
import type { RequestContext } from './context';
import { formatTags, parseQueryHeaders } from './headers';
import { protocolError, queryError, type Outcome } from './responses';
import type { Handler } from './router';

/** fql-v4.md §9: request bodies over 8 MiB are refused with 413. */
export const BODY_LIMIT = 8 * 1024 * 1024;

export function queryHandlers(service: QueryService): { post: Handler; get: Handler } {
  return {
    post: async (ctx) => {
      const body = (await ctx.readBody(BODY_LIMIT)).toString('utf8');
      return runQuery(service, ctx, body, false);
    },
    get: async (ctx) => runQuery(service, ctx, ctx.query.get('q') ?? '', true),
  };
}

async function runQuery(service: QueryService, ctx: RequestContext, body: string, readOnly: boolean): Promise<Outcome> {
  const headers = parseQueryHeaders(ctx.headers);
  const tags = formatTags(headers.tags);
  const bytesIn = Buffer.byteLength(body, 'utf8');
  const withTags = (outcome: Outcome): Outcome =>
    tags === undefined ? outcome : { ...outcome, headers: { ...outcome.headers, 'x-fauna-tags': tags } };

  // An empty body is the service's 'No query provided.', reported after authentication (401 first).
  const started = process.hrtime.bigint();
  const answer = await withTimeout(
    service.query({
      body,
      authorization: ctx.headers.authorization,
      lastSeenTxn: headers.lastSeenTxn,
      timeoutMs: headers.timeoutMs,
      readOnly,
    }),
    headers.timeoutMs,
  );
  const queryTimeMs = Number((process.hrtime.bigint() - started) / 1_000_000n);

  let outcome: Outcome;
  const log = { fql: body, database: answer !== TIMED_OUT && !(answer instanceof Error) ? answer.database : undefined };
  if (answer === TIMED_OUT) {
    outcome = protocolError(503, 'time out', 'Read timed out');
  } else if (answer instanceof Error) {
    outcome = fromThrown(answer);
  } else {
    outcome = {
      status: answer.status,
      body: answer.body,
      txnTime: answer.txnTime,
      metrics: answer.metrics,
      headers: answer.headers,
    };
  }
  return withTags({ ...outcome, bytesIn, queryTimeMs, log });
}

const TIMED_OUT = Symbol('timed out');

/**
 * The service aborts a query that runs past its timeout itself; this is the HTTP layer's guarantee
 * that the client hears back in time even if it does not. A late result is dropped.
 */
function withTimeout(work: Promise<QueryResult>, ms: number): Promise<QueryResult | Error | typeof TIMED_OUT> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(TIMED_OUT), ms);
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
function fromThrown(err: Error): Outcome {
  if (err instanceof ProtocolError) {
    return protocolError(err.status, err.code, err.description, err.headers);
  }
  if (err instanceof QueryError) return queryError(err.status, err.code, err.description, err.position);
  throw err; // → 500 internal server error
}
