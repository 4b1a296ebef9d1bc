// A request's turn to evaluate (fql/admission.ts). While it waits in line its body stays in memory,
// so it stays charged to the shared pool and its client's shares, as while it was read (bodyLedger.ts):
// a line of large bodies gets 429 rather than growing the process, and one client's line only its share.

import type { QueryService } from '../fql/api';
import type { ClientLink } from '../fql/budget';

/**
 * The function that ends the turn (call it once, when the work is done), at once or once the
 * request's turn comes; TooBusy (thrown or rejected) when the process is too full for it to wait;
 * QueryCancelled (rejected) when `client` left the line before its turn came. `releaseBody` is
 * called once the request leaves the line either way: from then on its budget charges the request
 * it decodes.
 */
export function turnFor(service: QueryService, releaseBody: () => void, client?: ClientLink): (() => void) | Promise<() => void> {
  let turn: (() => void) | Promise<() => void>;
  try {
    turn = service.admission.enter(client);
  } catch (e) {
    releaseBody();
    throw e;
  }
  // A free turn at once (every request's path while the process has room): no promise.
  if (typeof turn === 'function') {
    releaseBody();
    return turn;
  }
  return turn.finally(releaseBody);
}
