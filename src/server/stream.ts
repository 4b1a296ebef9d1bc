// POST /stream (fql-v4.md §1.12, wire.md §6): reads the request, has the stream hub open the
// stream, and answers either an error in Fauna's format (before the stream starts) or a 200 whose
// body the hub then writes event by event.

import type { StreamHub } from '../streams/hub';
import { parseFields } from '../streams/events';
import { parseQueryHeaders } from './headers';
import { refuseUnauthenticated } from './authFirst';
import { readBodyText } from './bodies';
import { unauthorized } from './query';
import { outcomeOfError } from './responses';
import type { Handler } from './router';

export function streamRoute(hub: StreamHub): Handler {
  return async (ctx) => {
    const headers = parseQueryHeaders(ctx.headers);
    const fields = parseFields(ctx.query);
    const refused = await refuseUnauthenticated(hub.service, ctx, unauthorized);
    if (refused) return refused;
    const body = await readBodyText(ctx, hub.service.limits.maxBodyBytes);
    // A stream lives long after its request: its body is let go of once the stream is open (or refused).
    const opened = await hub
      .open({ authorization: ctx.headers.authorization, body, fields, lastSeenTxn: headers.lastSeenTxn, timeoutMs: headers.timeoutMs })
      .finally(ctx.releaseBody);
    const log = { database: opened.database, fql: body };
    const bytesIn = Buffer.byteLength(body, 'utf8');
    if (!opened.ok) return { ...outcomeOfError(opened.error), bytesIn, log };
    const { session } = opened;
    return {
      status: 200,
      body: '',
      txnTime: opened.ts,
      metrics: opened.metrics,
      bytesIn,
      headers: { 'x-fauna-stream-id': session.id, 'x-flora-open-streams': String(opened.open) },
      stream: (sink) => session.attach(sink),
      log,
    };
  };
}

