// JWKS fetches (src/model/jwks): which keys of a JWKS document are kept, when the cache fetches (on a clock and a fetch the test controls); and the
// torture attack's view of the back-off schedule.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { JWKS_KEY_LIMITS, JwksInvalid, keySetOf, rs256Key } from '../../src/model/jwks/keySet';
import { JWKS_DEFAULTS, JwksCache, type JwksOptions } from '../../src/model/jwks/cache';
import { backoffBreaches } from '../../torture/targeted/jwksAbuse';

describe('keySetOf', () => {
  const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64url');

  test('keeps RS256 signature keys by kid, the first of a repeated kid', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const set = keySetOf({ keys: [{ ...rsa2048, kid: 'a', use: 'sig', alg: 'RS256' }, { ...other, kid: 'a' }, { ...other, kid: 'b' }, { ...other }] });
    assert.equal(set.keys.length, 4);
    assert.deepEqual([...set.byKid.keys()], ['a', 'b']);
    assert.equal(set.byKid.get('a')?.export({ format: 'jwk' }).n, rsa2048.n);
  });

  test('leaves out keys of another type, use or alg, and malformed ones', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    for (const jwk of [ec, { kty: 'oct', k: 'AAAA' }, { ...rsa2048, use: 'enc' }, { ...rsa2048, alg: 'RS512' }, { ...rsa2048, alg: 'PS256' }, { kty: 'RSA' }, { kty: 'RSA', n: 1, e: 'AQAB' }, { ...rsa2048, n: 'not base64 ***' }, null, 'x', [rsa2048]])
      assert.equal(rs256Key(jwk), undefined, JSON.stringify(jwk).slice(0, 80));
  });

  test('moduli of 2048 to 8192 bits only', () => {
    const modulus = (bits: number) => {
      const b = randomBytes(bits / 8);
      b[0] |= 0x80;
      b[b.length - 1] |= 1;
      return b.toString('base64url');
    };
    assert.equal(rs256Key({ kty: 'RSA', n: modulus(1024), e: 'AQAB' }), undefined);
    assert.equal(rs256Key({ kty: 'RSA', n: modulus(2040), e: 'AQAB' }), undefined);
    assert.ok(rs256Key({ kty: 'RSA', n: modulus(2048), e: 'AQAB' }));
    assert.ok(rs256Key({ kty: 'RSA', n: modulus(8192), e: 'AQAB' }));
    assert.equal(rs256Key({ kty: 'RSA', n: modulus(8200), e: 'AQAB' }), undefined);
    // Leading zero bytes do not count.
    assert.ok(rs256Key({ kty: 'RSA', n: Buffer.concat([Buffer.alloc(3), Buffer.from(modulus(2048), 'base64url')]).toString('base64url'), e: 'AQAB' }));
  });

  test('odd exponents from 3 to 2^31-1 only', () => {
    const key = (e: string) => rs256Key({ kty: 'RSA', n: rsa2048.n, e });
    assert.ok(key('AQAB')); // 65537
    assert.ok(key(b64([3])));
    assert.ok(key(b64([0x7f, 0xff, 0xff, 0xff])));
    assert.ok(key(b64([0, 0, 1, 0, 1])));
    assert.equal(JWKS_KEY_LIMITS.maxExponent, 2 ** 31 - 1);
    for (const e of [b64([1]), b64([2]), b64([0x80, 0, 0, 1]), b64([1, 0, 0, 0, 1]), b64([1, 0, 0]), '', randomBytes(375).toString('base64url')])
      assert.equal(key(e), undefined, e.slice(0, 20));
  });

  test('a document of more than 100 keys, or without a keys array, is refused whole', () => {
    const keys = Array.from({ length: JWKS_KEY_LIMITS.maxKeys }, () => ({ ...rsa2048 }));
    assert.equal(keySetOf({ keys }).keys.length, 100);
    assert.throws(() => keySetOf({ keys: [...keys, { kty: 'EC' }] }), (e: unknown) => e instanceof JwksInvalid && e.message === '101 keys (at most 100)');
    for (const doc of [null, [], {}, { keys: {} }, 'x']) assert.throws(() => keySetOf(doc), JwksInvalid);
    assert.equal(keySetOf({ keys: [] }).keys.length, 0);
  });
});

test("the torture attack's back-off schedule is the server's", () => {
  assert.equal(backoffBreaches([0, 1000, 3000, 7000]), 0);
  assert.equal(backoffBreaches([0, 10, 1000]), 2);
  assert.equal(backoffBreaches([0, 1000, 2500]), 1);
});

describe('JwksCache', () => {
  const jwk = (kid: string) => ({ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }), kid });
  const [a, b] = [jwk('a'), jwk('b')];

  /** A cache on a clock the test moves, whose fetches answer `doc(uri)`, counted per URI. */
  function cacheWith(doc: (uri: string) => Promise<unknown> | unknown, opts: Partial<JwksOptions> = {}) {
    let now = 1_000_000;
    const fetches = new Map<string, number>();
    const cache = new JwksCache({
      clock: () => now,
      fetch: async (uri) => {
        fetches.set(uri, (fetches.get(uri) ?? 0) + 1);
        return doc(uri);
      },
      warn: () => {},
      ...opts,
    });
    return { cache, fetches: (uri: string) => fetches.get(uri) ?? 0, advance: (ms: number) => (now += ms) };
  }

  test('an unknown kid fetches the set again at most once per 30 s cooldown', async () => {
    let keys = [a];
    const { cache, fetches, advance } = cacheWith(() => ({ keys }));
    assert.ok(await cache.keyFor('u', 'a'));
    assert.equal(await cache.keyFor('u', 'b'), undefined);
    assert.equal(fetches('u'), 1, 'no refetch right after a fetch');
    keys = [a, b]; // the provider rotates
    advance(JWKS_DEFAULTS.kidCooldownMs - 1);
    assert.equal(await cache.keyFor('u', 'b'), undefined);
    assert.equal(fetches('u'), 1);
    advance(1);
    assert.ok(await cache.keyFor('u', 'b'), 'the rotated key is picked up once the cooldown is over');
    assert.equal(fetches('u'), 2);
    assert.equal(await cache.keyFor('u', 'c'), undefined);
    assert.equal(fetches('u'), 2, 'a new cooldown began with that fetch');
  });

  test('at most maxFetches run at once: a JWT of another unfetched provider is refused, not queued; waiters share a fetch', async () => {
    const answers = new Map<string, () => void>();
    let slow = true;
    const doc = (uri: string) => (slow ? new Promise((resolve) => answers.set(uri, () => resolve({ keys: [a] }))) : { keys: [a] });
    const { cache, fetches } = cacheWith(doc, { maxFetches: 2 });
    const first = [cache.keyFor('u1', 'a'), cache.keyFor('u2', 'a'), cache.keyFor('u1', 'a')];
    assert.equal(await cache.keyFor('u3', 'a'), undefined, 'refused while two fetches run');
    assert.deepEqual([fetches('u1'), fetches('u2'), fetches('u3')], [1, 1, 0]);
    slow = false;
    for (const answer of answers.values()) answer();
    for (const key of await Promise.all(first)) assert.ok(key);
    assert.ok(await cache.keyFor('u3', 'a'), 'fetched once a place is free');
    assert.equal(fetches('u3'), 1);
  });

  test('keeps at most maxEntries URIs, the oldest dropped first', async () => {
    const { cache, fetches } = cacheWith(() => ({ keys: [a] }), { maxEntries: 2 });
    for (const u of ['u1', 'u2', 'u3']) assert.ok(await cache.keyFor(u, 'a'));
    assert.ok(await cache.keyFor('u2', 'a'));
    assert.ok(await cache.keyFor('u3', 'a'));
    assert.deepEqual([fetches('u1'), fetches('u2'), fetches('u3')], [1, 1, 1], 'u2 and u3 still cached');
    assert.ok(await cache.keyFor('u1', 'a'));
    assert.equal(fetches('u1'), 2, 'u1 was dropped: fetched again');
    assert.ok(await cache.keyFor('u2', 'a'));
    assert.equal(fetches('u2'), 2, 'u1 coming back dropped u2, then the oldest');
  });

  test("a DNS lookup past the fetch's deadline keeps the fetch's place until it ends (it holds a thread BCrypt needs)", async () => {
    let endLookup = () => {};
    const lookups: string[] = [];
    const cache = new JwksCache({
      timeoutMs: 20,
      maxFetches: 1,
      warn: () => {},
      lookup: (host) => {
        lookups.push(host);
        if (host !== 'stuck.test') return Promise.reject(new Error('no such host'));
        return new Promise((_, reject) => (endLookup = () => reject(new Error('gave up'))));
      },
    });
    assert.equal(await cache.keyFor('http://stuck.test/jwks', 'a'), undefined, 'the fetch timed out');
    assert.equal(await cache.keyFor('http://other.test/jwks', 'a'), undefined);
    assert.deepEqual(lookups, ['stuck.test'], 'no new lookup while the stuck one holds its thread');
    endLookup();
    await new Promise((r) => setImmediate(r));
    await cache.keyFor('http://other.test/jwks', 'a');
    assert.deepEqual(lookups, ['stuck.test', 'other.test'], 'the place is free once the lookup ended');
  });

  test('fewer fetches at once than libuv has threads (4): lookups cannot hold them all', () => {
    assert.ok(JWKS_DEFAULTS.maxFetches < 4);
  });
});

