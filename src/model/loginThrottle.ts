// Failed logins (Login or Identify with a wrong password: each is a guess) are throttled per
// identity and per client address with token buckets: a small burst, then a steady trickle, so a
// guesser gets a few tries a minute while the rightful user waits at most one refill interval after
// a flood. A success gives back only its own token: it never refills an attacker's bucket. State is
// per process: a tier of N workers lets N times the rate through.

import { ProtocolError } from '../values/errors';
import { TokenBuckets } from './tokenBuckets';

export interface LoginThrottleLimits {
  /** Wrong passwords an identity may be tried with at once. */
  identityBurst: number;
  /** The identity's allowance coming back, per minute. */
  identityPerMinute: number;
  /** Wrong passwords one client address may send at once (whatever the identities). */
  addressBurst: number;
  addressPerMinute: number;
}

/** 429 `too many requests` with Retry-After: the identity or the address has no guess left. */
export class TooManyFailedLogins extends ProtocolError {
  constructor(retryAfterSeconds: number) {
    super(429, 'too many requests', 'Too many failed logins: retry later.', { 'retry-after': String(retryAfterSeconds) });
  }
}

export interface LoginAttempt {
  /** The password was right: the attempt's tokens come back. */
  succeeded(): void;
}

export class LoginThrottle {
  private readonly identities: TokenBuckets;
  private readonly addresses: TokenBuckets;

  constructor(limits: LoginThrottleLimits, clock: () => number = Date.now) {
    this.identities = new TokenBuckets({ burst: limits.identityBurst, perMinute: limits.identityPerMinute }, { clock });
    this.addresses = new TokenBuckets({ burst: limits.addressBurst, perMinute: limits.addressPerMinute }, { clock });
  }

  /**
   * Takes a guess of `identity` (a name of the identity document, if one resolved) and of `address`
   * (the client's, if known) before the password is checked; throws TooManyFailedLogins when either
   * has none left, before any BCrypt runs.
   */
  attempt(identity: string | undefined, address: string | undefined): LoginAttempt {
    const from = address === undefined ? undefined : addressKey(address);
    const waitId = identity === undefined ? 0 : this.identities.take(identity);
    if (waitId > 0) throw new TooManyFailedLogins(seconds(waitId));
    const waitAddr = from === undefined ? 0 : this.addresses.take(from);
    if (waitAddr > 0) {
      if (identity !== undefined) this.identities.give(identity);
      throw new TooManyFailedLogins(seconds(waitAddr));
    }
    return {
      succeeded: () => {
        if (identity !== undefined) this.identities.give(identity);
        if (from !== undefined) this.addresses.give(from);
      },
    };
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The bucket name of a client address: an IPv4 address itself (also when IPv4-mapped), an IPv6
 * address by its /64 (one host usually holds a whole /64).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(':')) return address;
  const bare = address.replace(/%.*$/, '');
  const [head, tail] = bare.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups.slice(0, 4).map((g) => (parseInt(g, 16) || 0).toString(16)).join(':')}::/64`;
}
