// POST /feed/1 and POST /stream/1: FQL v10 event feeds and streams (api/fql2/FeedEndpoint.scala,
// StreamEndpoint.scala). The secret is checked before the body is read; failures before any event
// are `{"error": {code, message}}` with the core's codes. A feed answers one page; a stream answers
// 200 and then one event per line (CRLF) until it ends.

import type { QueryService } from '../fql/api';
import { QueryTimeout } from '../model/budget';
import { ProtocolError } from '../values/errors';
import { protocolErrorBody } from '../wire/v10/envelope';
import { ProtocolFailure } from '../wire/v10/errors';
import { parseQueryHeaders, type QueryHeaders } from '../wire/v10/headers';
import { feedPage } from '../streams/v10/feed';
import { parseEventsRequest, type EventsRequest } from '../streams/v10/requests';
import { SourceRefused } from '../streams/v10/events';
import type { V10Streams } from '../streams/v10/stream';
import { refuseUnauthenticated } from './authFirst';
import { readBodyUtf8 } from './bodies';
import type { RequestContext } from './context';
import type { Outcome } from './responses';
import type { Handler } from './router';

const UNAUTHORIZED = new ProtocolFailure('unauthorized', 'Invalid token, unable to authenticate request');
const LOG = { apiVersion: '10' } as const;

function failed(e: ProtocolFailure, bytesIn?: number): Outcome {
  return { status: e.status, body: protocolErrorBody(e), bytesIn, log: LOG };
}

/** Headers, the secret, then the body: an Outcome when the request is refused before it runs. */
async function admit(service: QueryService, ctx: RequestContext, kind: 'stream' | 'feed'): Promise<Outcome | { req: EventsRequest; headers: QueryHeaders; bytes: number }> {
  let headers: QueryHeaders;
  try {
    headers = parseQueryHeaders((name) => ctx.headers[name]);
  } catch (e) {
    if (!(e instanceof ProtocolFailure)) throw e;
    ctx.discardBody();
    return failed(new ProtocolFailure('bad_request', `Invalid headers: ${e.message}`));
  }
  const refused = await refuseUnauthenticated(service, ctx, () => failed(UNAUTHORIZED));
  if (refused) return refused;
  const read = await readBodyUtf8(ctx, service.limits.maxBodyBytes);
  if (read.text.length === 0) return failed(new ProtocolFailure('bad_request', 'No request body provided'), read.bytes);
  try {
    return { req: parseEventsRequest(read.text, kind), headers, bytes: read.bytes };
  } catch (e) {
    if (e instanceof ProtocolFailure) return failed(e, read.bytes);
    throw e;
  }
}

/** Errors of the request's transaction, as the core's endpoints answer them. */
function transactionFailure(e: unknown, refusedPrefix: string, bytesIn: number): Outcome {
  if (e instanceof ProtocolFailure) return failed(e, bytesIn);
  if (e instanceof SourceRefused) return failed(new ProtocolFailure('bad_request', `${refusedPrefix}${e.message}`), bytesIn);
  if (e instanceof ProtocolError && e.status === 401) return failed(UNAUTHORIZED, bytesIn);
  if (e instanceof ProtocolError) return failed(new ProtocolFailure(e.status === 429 ? 'too_many_requests' : e.status === 409 ? 'contended_transaction' : 'bad_request', e.description), bytesIn);
  if (e instanceof QueryTimeout) return failed(new ProtocolFailure('service_timeout', 'Read timed out'), bytesIn);
  throw e;
}

export function feedRoute(service: QueryService): Handler {
  return async (ctx) => {
    const admitted = await admit(service, ctx, 'feed');
    if (!('req' in admitted)) return admitted;
    const { req, headers, bytes } = admitted;
    const started = performance.now();
    try {
      const run = await service.transact(ctx.headers.authorization, (tx) => feedPage(tx, req, started), {
        readOnly: true,
        refuseWritesIn: 'change feeds requests',
        timeoutMs: headers.timeoutMs,
        lastSeenTxn: headers.lastTxnTs > 0n ? headers.lastTxnTs : undefined,
        client: ctx,
      });
      return { status: 200, body: run.result, txnTime: run.ts, metrics: run.metrics, bytesIn: bytes, log: LOG };
    } catch (e) {
      return transactionFailure(e, 'Error evaluating provided event source, ', bytes);
    }
  };
}

export function streamV10Route(service: QueryService, streams: V10Streams): Handler {
  return async (ctx) => {
    const admitted = await admit(service, ctx, 'stream');
    if (!('req' in admitted)) return admitted;
    const { req, headers, bytes } = admitted;
    ctx.releaseBody();
    try {
      const stream = await streams.start(ctx.headers.authorization, req, headers.timeoutMs);
      return { status: 200, body: '', bytesIn: bytes, stream: (sink) => stream.attach(sink), log: LOG };
    } catch (e) {
      return transactionFailure(e, 'Error evaluating provided stream, ', bytes);
    }
  };
}
