// The server's query-log hook: turns a finished request (its context, the route's Outcome and the
// response sent) into the RequestLogger entry. Called once per request, after the response is sent;
// never throws.

import type { RequestLogEntry, RequestLogger } from '../logs/types';
import type { HttpResponse, RequestContext } from './context';
import type { Outcome } from './responses';

export function logOutcome(
  logger: RequestLogger,
  ctx: RequestContext,
  outcome: Outcome,
  response: HttpResponse,
  startedMs: number,
  doneMs: number,
  /** Bytes sent when the body was streamed rather than given in `response`. */
  streamedBytes?: number,
): void {
  try {
    const entry = entryOf(ctx, outcome, response, startedMs, doneMs);
    logger.log(streamedBytes === undefined ? entry : { ...entry, bytesOut: streamedBytes });
  } catch {
    // The query log never fails a request (RequestLogger.log does not throw; this is belt and braces).
  }
}

function entryOf(ctx: RequestContext, outcome: Outcome, response: HttpResponse, startedMs: number, doneMs: number): RequestLogEntry {
  const h = response.headers;
  const declaredIn = Number(ctx.headers['content-length']);
  const bytesOut = h['x-query-bytes-out'];
  return {
    ts: doneMs,
    method: ctx.method,
    path: ctx.path,
    headers: ctx.headers,
    status: response.status,
    bytesIn: outcome.bytesIn ?? (Number.isFinite(declaredIn) ? declaredIn : 0),
    bytesOut: bytesOut !== undefined ? Number(bytesOut) : Buffer.byteLength(response.body, 'utf8'),
    queryTimeMs: outcome.queryTimeMs ?? doneMs - startedMs,
    metrics: outcome.metrics,
    database: outcome.log?.database,
    fql: outcome.log?.fql,
    fqlShape: outcome.log?.fqlShape,
    apiVersion: outcome.log?.apiVersion,
    // The echo of the validated tags; a request whose tags were refused has none.
    tags: outcome.log?.tags ?? parseTagsEcho(h['x-fauna-tags']),
    traceparent: h.traceparent,
  };
}

function parseTagsEcho(echo: string | undefined): [string, string][] | undefined {
  if (!echo) return undefined;
  const out: [string, string][] = [];
  for (const pair of echo.split(',')) {
    const i = pair.indexOf('=');
    if (i > 0) out.push([pair.slice(0, i), pair.slice(i + 1)]);
  }
  return out;
}
