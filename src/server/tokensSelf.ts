// /tokens/self (legacy REST, fql-v4.md §1.13; service.md): the token the request authenticated with,
// as `{"resource": {ref, ts, instance, hashed_secret}}`. Runs one read-only FQL query through the
// query service with the request's Authorization header. A secret that does not authenticate is 401;
// one that does but is no token (a key, a scoped secret) names no token: 404 `not found`, as Fauna's
// REST routes answer a ref they cannot resolve (FQL1Routes.symbolizeRef, ModelData.lookupInstanceRef).

import type { QueryService } from '../fql/api';
import { parseQueryHeaders } from './headers';
import { protocolError, type Outcome } from './responses';
import type { Handler } from './router';

const field = (name: string) => ({ select: [name], from: { var: 't' } });

/** Reads `tokens/self` and keeps exactly the fields the endpoint shows. */
const QUERY = JSON.stringify({
  let: [{ t: { get: { '@ref': 'tokens/self' } } }],
  in: { object: { ref: field('ref'), ts: field('ts'), instance: field('instance'), hashed_secret: field('hashed_secret') } },
});

export function tokensSelf(service: QueryService): Handler {
  return async (ctx): Promise<Outcome> => {
    const headers = parseQueryHeaders(ctx.headers);
    const answer = await service.query({
      body: QUERY,
      authorization: ctx.headers.authorization,
      lastSeenTxn: headers.lastSeenTxn,
      timeoutMs: headers.timeoutMs,
      readOnly: true,
    });
    if (answer.status === 401)
      return protocolError(401, 'unauthorized', 'Unauthorized', { 'www-authenticate': 'Basic realm="Unauthorized"' });
    // `tokens/self` does not resolve for this secret (invalid ref): the route names nothing.
    if (answer.status === 400 || answer.status === 404) return protocolError(404, 'not found', 'Not Found');
    // Success, or the server's own trouble (429, 503 …) as it is.
    return { status: answer.status, body: answer.body, txnTime: answer.txnTime, metrics: answer.metrics };
  };
}
