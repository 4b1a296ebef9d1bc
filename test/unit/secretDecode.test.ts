// Secret decoding: only a secret's exact encoding names it (Node's base64url decoder forgives extras).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NOT_CHARGED as payer, decodeSecret, issueKeySecret, issueTokenSecret } from '../../src/model/secrets';

describe('decodeSecret', () => {
  test('a key secret and a token secret decode to their ids', async () => {
    const key = await issueKeySecret(12345n, payer);
    assert.equal(decodeSecret(key.secret)?.kind, 'key');
    assert.equal(decodeSecret(key.secret)?.id, 12345n);
    const token = await issueTokenSecret(777n, 42n, payer);
    assert.deepEqual({ ...decodeSecret(token.secret), random: undefined }, { kind: 'token', id: 777n, db: 42n, random: undefined });
  });

  test('a character added, or a last character with different padding bits, is another (unknown) secret', async () => {
    const key = await issueKeySecret(1n, payer);
    assert.equal(decodeSecret(`${key.secret}x`), undefined);
    assert.equal(decodeSecret(`${key.secret}A`), undefined);
    const token = await issueTokenSecret(2n, 3n, payer);
    // 38 bytes take 51 characters: the last one carries 2 padding bits, which must be zero.
    const last = token.secret.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) + 1]!;
    assert.equal(decodeSecret(token.secret.slice(0, -1) + sibling), undefined);
    assert.ok(decodeSecret(token.secret));
  });
});
