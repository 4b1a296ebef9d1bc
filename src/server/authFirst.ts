// Authentication before work: the secret comes from a header, so it is checked before the body is
// read or parsed. A request without a valid secret then costs the same small work whatever it
// carries (ARCHITECTURE.md, "Budgets"). Each API words the refusal its own way.

import type { QueryService } from '../fql/api';
import { secretFromHeader } from '../model/auth';
import type { RequestContext } from './context';
import { lastSeenOf } from './headers';
import type { Outcome } from './responses';

/** Why a request is refused: no Authorization header, one that names no secret, or a secret that does not authenticate. */
export type AuthFailure = 'missing' | 'malformed' | 'invalid';

/**
 * Undefined when the request's secret authenticates; otherwise the refusal `answer` words. The body
 * is never read: it is discarded as it arrives.
 */
export async function refuseUnauthenticated(
  service: QueryService,
  ctx: RequestContext,
  answer: (why: AuthFailure) => Outcome,
): Promise<Outcome | undefined> {
  const why = await failure(service, ctx.headers.authorization, lastSeenOf(ctx.headers));
  if (why === undefined) return undefined;
  ctx.discardBody();
  return answer(why);
}

async function failure(service: QueryService, header: string | undefined, lastSeenTxn: bigint | undefined): Promise<AuthFailure | undefined> {
  if (header === undefined || header.trim() === '') return 'missing';
  if (!secretFromHeader(header)) return 'malformed';
  // A key made through another process of the tier authenticates from the time the client has seen.
  return (await service.authorize(header, lastSeenTxn)) ? undefined : 'invalid';
}
