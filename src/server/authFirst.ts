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
export function refuseUnauthenticated(
  service: QueryService,
  ctx: RequestContext,
  answer: (why: AuthFailure) => Outcome,
): Outcome | undefined | Promise<Outcome | undefined> {
  const why = failure(service, ctx.headers.authorization, lastSeenOf(ctx.headers));
  // A secret known to be good is answered without a promise: that is nearly every request.
  if (!(why instanceof Promise)) return refusal(ctx, why, answer);
  return why.then((w) => refusal(ctx, w, answer));
}

function refusal(ctx: RequestContext, why: AuthFailure | undefined, answer: (why: AuthFailure) => Outcome): Outcome | undefined {
  if (why === undefined) return undefined;
  ctx.discardBody();
  return answer(why);
}

function failure(service: QueryService, header: string | undefined, lastSeenTxn: bigint | undefined): AuthFailure | undefined | Promise<AuthFailure | undefined> {
  if (header === undefined || header.trim() === '') return 'missing';
  if (!secretFromHeader(header)) return 'malformed';
  // A key made through another process of the tier authenticates from the time the client has seen.
  const ok = service.authorize(header, lastSeenTxn);
  return ok instanceof Promise ? ok.then((good) => (good ? undefined : 'invalid')) : ok ? undefined : 'invalid';
}
