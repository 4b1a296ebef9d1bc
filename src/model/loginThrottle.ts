// Failed logins (Login or Identify with a wrong password: each is a guess) are throttled per
// identity and per client address with token buckets: a small burst, then a steady trickle, so a
// guesser gets a few tries a minute while the rightful user waits at most one refill interval after
// a flood. A success gives back only its own token: it never refills an attacker's bucket. State is
// per process: a tier of N workers lets N times the rate through. This machine's own addresses are
// not counted (they are a proxy's, in front of every client).

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
   * Takes a guess of `identity` (a name of the identity document, if one resolved) and of `from`
   * (the client's address key, net/addresses clientAddressKey: none for this machine's own, such as a
   * proxy in front of Flora, which would lock every user out) before the password is checked; throws
   * TooManyFailedLogins when either has none left, before any BCrypt runs.
   */
  attempt(identity: string | undefined, from: string | undefined): LoginAttempt {
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
