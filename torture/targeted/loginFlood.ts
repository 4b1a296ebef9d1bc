// Row 4 of issue 30: wrong-password Logins from 4 connections with a client key, as fast as the
// server answers, for some seconds. Failed logins are throttled per identity and per client address
// (model/loginThrottle.ts): beyond the identity's burst and trickle the answer is 429 `too many
// requests` with Retry-After, before any BCrypt runs. Then the rightful user logs in, retrying as
// Retry-After says. Violations: more guesses checked than the throttle lets through in the window,
// a 429 without Retry-After, the rightful user kept out longer than the bound, a slow ping.

import { defaultConfig } from '../../src/config';
import { makeKey, startFlora } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedResult } from './attack';
import { whilePinging } from './pingWatch';
import { createUsers, docRef, firstError, FqlSession, PASSWORD } from './fqlSession';

/** The server's defaults: an identity's burst and refill. */
const { failedLoginBurst: BURST, failedLoginsPerMinute: PER_MINUTE } = defaultConfig();
/** The address's refill (60 a minute) is faster: the identity's interval bounds the wait. */
const LOCKOUT_BOUND_MS = (60_000 / PER_MINUTE) + 2_000; // plus slack for a loaded machine
const CONNECTIONS = 4;
const IN_FLIGHT = 1;

export const loginFlood: TargetedAttack = {
  name: 'login-flood',
  part: 'access',
  about: `wrong-password Logins from ${CONNECTIONS} connections: at most the identity's burst and trickle are checked, the rest 429 with Retry-After; the rightful user gets in within ${LOCKOUT_BOUND_MS / 1000} s after; /ping prompt`,
  async run({ size, log }): Promise<TargetedResult> {
    const seconds = size === 'torture' ? 10 : 3;
    const flora = await startFlora();
    const sessions = Array.from({ length: CONNECTIONS }, () => new FqlSession(flora.url));
    const verdict = new Verdict();
    try {
      await createUsers(sessions[0], flora.secret, ['1']);
      const key = await makeKey(flora, 'client');
      const login = (s: FqlSession, password: string) => s.post(key, { login: docRef('users', '1'), params: { object: { password } } });

      const counts = { checked: 0, throttled: 0, other: 0, noRetryAfter: 0 };
      let floodMs = 0;
      const { value: lockoutMs, ping } = await whilePinging(flora.url, async () => {
        const started = Date.now();
        const end = started + seconds * 1000;
        let n = 0;
        const worker = async (s: FqlSession) => {
          while (Date.now() < end) {
            const a = await login(s, `wrong-${n++}`);
            const err = firstError(a);
            if (a.status === 400 && err?.code === 'authentication failed') counts.checked++;
            else if (a.status === 429 && err?.code === 'too many requests') {
              counts.throttled++;
              if (!/^\d+$/.test(a.headers['retry-after'] ?? '')) counts.noRetryAfter++;
            } else counts.other++;
          }
        };
        await Promise.all(sessions.flatMap((s) => Array.from({ length: IN_FLIGHT }, () => worker(s))));
        floodMs = Date.now() - started;
        // The rightful user, as a careful client: retries when Retry-After says (polled more often).
        const after = Date.now();
        while (Date.now() - after < LOCKOUT_BOUND_MS + 5_000) {
          const a = await login(sessions[0], PASSWORD);
          if (a.status === 200) return Date.now() - after;
          await new Promise((r) => setTimeout(r, 100));
        }
        return Infinity;
      }, size);
      const allowed = Math.floor(BURST + (PER_MINUTE * floodMs) / 60_000) + 1;
      log(`    ${floodMs} ms: ${counts.checked} guesses checked (allowed ${allowed}), ${counts.throttled} answered 429, ${counts.other} other; rightful login after ${lockoutMs} ms`);
      verdict.fail(counts.checked - allowed, `${counts.checked} wrong passwords checked in ${floodMs} ms: the throttle allows ${allowed}`);
      verdict.fail(counts.noRetryAfter, `${counts.noRetryAfter} answers 429 without a Retry-After`);
      verdict.fail(counts.other, `${counts.other} answers neither 'authentication failed' nor 429 'too many requests'`);
      verdict.fail(!(lockoutMs <= LOCKOUT_BOUND_MS), `the rightful user got in ${lockoutMs} ms after the flood (bound ${LOCKOUT_BOUND_MS} ms)`);
      verdict.ping(ping);
      return verdict.result({
        'guesses/s': ((counts.checked * 1000) / floodMs).toFixed(1),
        'guesses checked': String(counts.checked),
        'answered 429': String(counts.throttled),
        'rightful login after ms': String(lockoutMs),
      });
    } finally {
      for (const s of sessions) s.close();
      await flora.stop();
    }
  },
};
