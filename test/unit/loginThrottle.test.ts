// The failed-login throttle (model/loginThrottle.ts), its token buckets (model/tokenBuckets.ts) and
// the fast secret checks (model/secrets.ts, model/secretLocation.ts), on a clock the test moves.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBuckets } from '../../src/model/tokenBuckets';
import { LoginThrottle, TooManyFailedLogins } from '../../src/model/loginThrottle';
import { matchesSecretCheck, newSecretCheck } from '../../src/model/secrets';
import { decodeSecretLocation, encodeSecretLocation } from '../../src/model/secretLocation';

function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('TokenBuckets', () => {
  test('a burst, then one token per refill interval; the wait is said', () => {
    const c = clock();
    const b = new TokenBuckets({ burst: 3, perMinute: 6 }, { maxNames: 100, clock: c.now });
    for (let i = 0; i < 3; i++) assert.equal(b.take('a'), 0);
    assert.equal(b.take('a'), 10_000);
    c.advance(4_000);
    assert.equal(b.take('a'), 6_000);
    c.advance(6_000);
    assert.equal(b.take('a'), 0);
    assert.equal(b.take('b'), 0, 'names are apart');
  });

  test('give returns a token, never above the burst', () => {
    const c = clock();
    const b = new TokenBuckets({ burst: 2, perMinute: 1 }, { maxNames: 100, clock: c.now });
    assert.equal(b.take('a'), 0);
    b.give('a');
    b.give('a');
    assert.equal(b.take('a'), 0);
    assert.equal(b.take('a'), 0);
    assert.ok(b.take('a') > 0);
  });

  test('keeps at most maxNames: full buckets go first, then the least recently used', () => {
    const c = clock();
    const b = new TokenBuckets({ burst: 1, perMinute: 60 }, { maxNames: 3, clock: c.now });
    for (const n of ['a', 'b', 'c']) b.take(n);
    c.advance(500);
    b.take('d'); // none refilled yet: the oldest (a) goes
    assert.equal(b.size, 3);
    assert.equal(b.take('a'), 0, 'a was forgotten: a full bucket again');
    c.advance(5_000); // all refilled
    b.take('e');
    assert.equal(b.size, 1);
  });

  test('once full, room is made for a tenth of maxNames in one scan, not one name per new name', () => {
    const c = clock();
    const b = new TokenBuckets({ burst: 1, perMinute: 1 }, { maxNames: 100, clock: c.now });
    for (let i = 0; i < 100; i++) b.take(`n${i}`);
    b.take('new0');
    assert.equal(b.size, 91, 'the ten least recently used went at once');
    for (let i = 1; i < 10; i++) b.take(`new${i}`);
    assert.equal(b.size, 100, 'nine more new names fit without another eviction');
    for (let i = 10; i < 100; i++) assert.ok(b.take(`n${i}`) > 0, `n${i} is still remembered (spent)`);
  });
});

describe('LoginThrottle', () => {
  const limits = { identityBurst: 2, identityPerMinute: 20, addressBurst: 3, addressPerMinute: 60 };

  test('per identity: 429 with Retry-After once its burst is spent; a success gives its own guess back', () => {
    const c = clock();
    const t = new LoginThrottle(limits, c.now);
    t.attempt('u1', '10.0.0.1');
    t.attempt('u1', '10.0.0.2').succeeded();
    t.attempt('u1', '10.0.0.3');
    assert.throws(
      () => t.attempt('u1', '10.0.0.4'),
      (err: unknown) =>
        err instanceof TooManyFailedLogins && err.status === 429 && err.code === 'too many requests' && err.headers['retry-after'] === '3',
    );
    c.advance(3_000);
    t.attempt('u1', '10.0.0.4');
  });

  test('per address, whatever the identity; a refused identity takes nothing from the address', () => {
    const c = clock();
    const t = new LoginThrottle(limits, c.now);
    t.attempt('u1', '10.0.0.1');
    t.attempt('u2', '10.0.0.1');
    t.attempt(undefined, '10.0.0.1');
    assert.throws(() => t.attempt('u3', '10.0.0.1'), TooManyFailedLogins);
    // u3 was given back its guess: from another address it has its whole burst.
    t.attempt('u3', '10.0.0.2');
    t.attempt('u3', '10.0.0.2');
    assert.throws(() => t.attempt('u3', '10.0.0.2'), TooManyFailedLogins);
  });
});

describe('secret checks', () => {
  test('a check matches its random part only; salted, so two checks of one part differ', () => {
    const a = newSecretCheck('part-a');
    assert.ok(matchesSecretCheck(a, 'part-a'));
    assert.ok(!matchesSecretCheck(a, 'part-b'));
    assert.notDeepEqual(Buffer.from(newSecretCheck('part-a')), Buffer.from(a));
    assert.ok(!matchesSecretCheck(a.subarray(1), 'part-a'));
  });

  test('location records: the database id alone (older records) or with the check', () => {
    const check = newSecretCheck('p');
    assert.deepEqual(decodeSecretLocation(encodeSecretLocation(42n)), { db: 42n });
    const both = decodeSecretLocation(encodeSecretLocation(42n, check));
    assert.equal(both.db, 42n);
    assert.deepEqual(Buffer.from(both.check!), Buffer.from(check));
  });
});
