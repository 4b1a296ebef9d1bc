// A request's turn to evaluate (fql/admission.ts). While it waits in line its body stays in memory,
// so it stays reserved in the pool shared by every request in flight, as while it was read
// (bodies.ts): a line of large bodies gets 429 rather than growing the process.

import type { QueryService } from '../fql/api';
import { TooBusy, type ClientLink } from '../fql/budget';

/**
 * The function that ends the turn (call it once, when the work is done), at once or once the
 * request's turn comes; TooBusy (thrown or rejected) when the process is too full for it to wait;
 * QueryCancelled (rejected) when `client` left the line before its turn came.
 */
export function turnFor(service: QueryService, bodyBytes: number, client?: ClientLink): (() => void) | Promise<() => void> {
  if (!service.pool.tryReserve(bodyBytes)) throw new TooBusy();
  let turn: (() => void) | Promise<() => void>;
  try {
    turn = service.admission.enter(client);
  } catch (e) {
    service.pool.release(bodyBytes);
    throw e;
  }
  // A free turn at once (every request's path while the process has room): no promise.
  if (typeof turn === 'function') {
    service.pool.release(bodyBytes); // once it runs, its budget charges the request it decodes
    return turn;
  }
  return turn.finally(() => service.pool.release(bodyBytes));
}
