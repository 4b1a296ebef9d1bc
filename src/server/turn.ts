// A request's turn to evaluate (model/admission.ts). While it waits in line its body stays in memory,
// so it stays charged to the shared pool and its client's shares, as while it was read (bodyLedger.ts):
// a line of large bodies gets 429 rather than growing the process, and one client's line only its share.

import type { QueryService } from '../fql/api';
import type { RequestContext } from './context';

/**
 * The function that ends the turn (call it once, when the work is done), at once or once the
 * request's turn comes; TooBusy (rejected) when the process, or the request's client's share of it,
 * is too full for it to wait; QueryCancelled (rejected) when the client left the line before its turn
 * came. The request's body is released once it leaves the line either way: from then on its budget
 * charges the request it decodes.
 */
export function turnFor(service: QueryService, ctx: RequestContext): (() => void) | Promise<() => void> {
  const turn = service.admission.enter(ctx, ctx.clientKeys);
  // A free turn at once (every request's path while the process has room): no promise.
  if (typeof turn === 'function') {
    ctx.releaseBody();
    return turn;
  }
  return turn.finally(ctx.releaseBody);
}
