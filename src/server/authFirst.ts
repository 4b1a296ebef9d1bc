// Authentication before work: the secret comes from a header, so it is checked before the body is
// read or parsed. A request without a valid secret then costs the same small work whatever it
// carries (ARCHITECTURE.md, "Budgets"). Each API words the refusal its own way.

import type { QueryService } from '../fql/api';
import { secretFromHeader } from '../model/auth';
import type { RequestContext } from './context';
import type { Outcome } from './responses';

/** Why a request is refused: no Authorization header, one that names no secret, or a secret that does not authenticate. */
export type AuthFailure = 'missing' | 'malformed' | 'invalid';

/**
 * Undefined when the request's secret authenticates; otherwise the refusal `answer` words. The body
 * is left unread (the connection layer discards it).
 */
export async function refuseUnauthenticated(
  service: QueryService,
  ctx: RequestContext,
  answer: (why: AuthFailure) => Outcome,
): Promise<Outcome | undefined> {
  const header = ctx.headers.authorization;
  if (header === undefined || header.trim() === '') return answer('missing');
  if (!secretFromHeader(header)) return answer('malformed');
  return (await service.authorize(header)) ? undefined : answer('invalid');
}
