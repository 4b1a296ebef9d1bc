// A request's turn to evaluate (fql/admission.ts). While it waits in line its body stays in memory,
// so it stays charged to the shared pool and its client's shares, as while it was read (bodyLedger.ts):
// a line of large bodies gets 429 rather than growing the process, and one client's line only its share.

import type { QueryService } from '../fql/api';
import type { ClientLink } from '../fql/budget';
import { isLoopbackHost } from '../config';
import { secretFromHeader } from '../model/auth';
import { addressKey, secretKey } from './bodyLedger';

/**
 * The function that ends the turn (call it once, when the work is done), at once or once the
 * request's turn comes; TooBusy (thrown or rejected) when the process is too full for it to wait;
 * QueryCancelled (rejected) when `client` left the line before its turn came. `releaseBody` is
 * called once the request leaves the line either way: from then on its budget charges the request
 * it decodes. `owners` (ownersOf): whose share of the turns it takes.
 */
export function turnFor(service: QueryService, releaseBody: () => void, client?: ClientLink, owners?: readonly string[]): (() => void) | Promise<() => void> {
  let turn: (() => void) | Promise<() => void>;
  try {
    turn = service.admission.enter(client, owners);
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

/**
 * Who a request's turn counts against (fql/admission.ts): its secret (a scoped secret as its key) and
 * its client address, unless that is this machine's own (a proxy in front of Flora, a local tool: an
 * attacker elsewhere is never one of them).
 */
export function ownersOf(authorization: string | undefined, remoteAddress: string | undefined): string[] {
  const owners: string[] = [];
  const secret = secretKey(secretFromHeader(authorization));
  if (secret !== undefined) owners.push(`secret ${secret}`);
  const address = addressKey(remoteAddress);
  if (address !== undefined && !isLoopbackHost(address)) owners.push(`address ${address}`);
  return owners;
}
