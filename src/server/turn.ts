// A request's turn to evaluate (fql/admission.ts). While it waits in line its body stays in memory,
// so it stays reserved in the pool shared by every request in flight, as while it was read
// (bodies.ts): a line of large bodies gets 429 rather than growing the process.

import type { QueryService } from '../fql/api';
import { TooBusy } from '../fql/budget';

/**
 * Resolves with the function that ends the turn (call it once, when the work is done); throws
 * TooBusy when the process is too full for the request to wait.
 */
export async function turnFor(service: QueryService, bodyBytes: number): Promise<() => void> {
  if (!service.pool.tryReserve(bodyBytes)) throw new TooBusy();
  try {
    return await service.admission.enter();
  } finally {
    // Once it runs, its budget charges the request it decodes.
    service.pool.release(bodyBytes);
  }
}
