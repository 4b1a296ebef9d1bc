// Presigned URLs (src/logs/signing.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UrlSigner } from '../../src/logs/signing';
import { withStore } from '../helpers/store';

const P = '/api/v1/logs/0f0790b6-0d1b-4203-9f1e-18fa4c0dadae/0f0790b6-0d1b-4203-9f1e-18fa4c0dadae.jsonl.gz';
const now = 1_700_000_000_000;

test('a signed URL is valid until it expires', () => {
  const s = new UrlSigner(Buffer.alloc(32, 7));
  const q = new URLSearchParams(s.sign(P, 3, now + 60_000));
  assert.equal(q.get('version'), '3');
  assert.equal(q.get('expires'), String((now + 60_000) / 1000));
  assert.equal(s.verify(P, q, now), 'ok');
  assert.equal(s.verify(P, q, now + 59_999), 'ok');
  assert.equal(s.verify(P, q, now + 60_000), 'expired');
});

test('any change to path, version, expiry or signature is refused', () => {
  const s = new UrlSigner(Buffer.alloc(32, 7));
  const good = s.sign(P, 3, now + 60_000);
  const with_ = (k: string, v: string) => {
    const q = new URLSearchParams(good);
    q.set(k, v);
    return q;
  };
  assert.equal(s.verify(P.replace('0f07', '0f08'), new URLSearchParams(good), now), 'invalid');
  assert.equal(s.verify(P, with_('version', '4'), now), 'invalid');
  assert.equal(s.verify(P, with_('expires', String((now + 120_000) / 1000)), now), 'invalid');
  const sig = new URLSearchParams(good).get('signature')!;
  assert.equal(s.verify(P, with_('signature', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1)), now), 'invalid');
  assert.equal(s.verify(P, with_('signature', sig.slice(1)), now), 'invalid');
  assert.equal(s.verify(P, new URLSearchParams(''), now), 'invalid');
  assert.equal(s.verify(P, with_('expires', 'soon'), now), 'invalid');
  // Another key does not accept it either.
  assert.equal(new UrlSigner(Buffer.alloc(32, 8)).verify(P, new URLSearchParams(good), now), 'invalid');
  // Expired and tampered: tampering wins.
  assert.equal(s.verify(P, with_('version', '4'), now + 120_000), 'invalid');
});

test('the key is created once, private, and reused', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-sign-'));
  try {
    const file = path.join(dir, 'sub', 'url.key');
    const a = await UrlSigner.open(file);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const key = await readFile(file);
    const b = await UrlSigner.open(file);
    assert.deepEqual(await readFile(file), key);
    const q = new URLSearchParams(a.sign(P, 1, now + 1000));
    assert.equal(b.verify(P, q, now), 'ok');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the key of a tier lives in its store: made once, the same for every process, an earlier key file taken over', async () => {
  await withStore(async (store, _engine, dir) => {
    const legacy = path.join(dir, 'url-signing.key');
    const made = await Promise.all([UrlSigner.fromStore(store, legacy), UrlSigner.fromStore(store, legacy)]);
    const q = new URLSearchParams(made[0].sign(P, 1, now + 1000));
    assert.equal(made[1].verify(P, q, now), 'ok', 'processes starting together agree on one key');
    assert.equal((await UrlSigner.fromStore(store, legacy)).verify(P, q, now), 'ok', 'and keep it');
  });
  await withStore(async (store, _engine, dir) => {
    // A key file an earlier version made: its URLs stay good.
    const legacy = path.join(dir, 'keys', 'url-signing.key');
    const old = await UrlSigner.open(legacy);
    const q = new URLSearchParams(old.sign(P, 2, now + 1000));
    assert.equal((await UrlSigner.fromStore(store, legacy)).verify(P, q, now), 'ok');
  });
});
