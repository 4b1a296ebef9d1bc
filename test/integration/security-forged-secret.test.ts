// Issue 30, row 9: a secret carrying a real key's id and random bytes costs what a secret naming no
// key does. Secrets are checked against a salted SHA-256 in their location record; records written
// before it (an older store) are checked with BCrypt, throttled per key, until the key's first
// success writes the check. The root secret is compared in constant time. The torture attack
// (forged-secret) runs at its test size; the exact answers are asserted here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { httpRequest, ROOT, startFlora, type FloraProcess, type RawResponse } from '../helpers/server';
import { forge, forgedSecret, missing } from '../../torture/targeted/forgedSecret';
import { cpuMs } from '../../torture/targeted/fqlSession';

function post(srv: FloraProcess, secret: string, body: unknown = '"x"'): Promise<RawResponse> {
  return httpRequest(srv.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'x-faunadb-api-version': '4' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function assertUnauthorized(res: RawResponse): void {
  assert.equal(res.status, 401, res.body);
  assert.deepEqual(JSON.parse(res.body), { errors: [{ code: 'unauthorized', description: 'Unauthorized' }] });
}

interface Format1Secrets {
  child: string;
  token: string;
  roleKey: string;
}

/** A server on a fresh copy of the format-1 fixture (a store written before secret checks) for the enclosing describe. */
function format1Store(): { srv: FloraProcess; secrets: Format1Secrets } {
  const held = {} as { srv: FloraProcess; secrets: Format1Secrets; dir: string };
  before(async () => {
    const fixture = path.join(ROOT, 'test', 'fixtures', 'format1');
    held.secrets = JSON.parse(await readFile(path.join(fixture, 'expected.json'), 'utf8')).secrets as Format1Secrets;
    held.dir = await mkdtemp(path.join(tmpdir(), 'flora-format1-'));
    execFileSync('tar', ['-xzf', path.join(fixture, 'data.tgz'), '-C', held.dir]);
    held.srv = await startFlora({ dataDir: held.dir });
  });
  after(async () => {
    await held.srv?.stop();
    if (held.dir) await rm(held.dir, { recursive: true, force: true });
  });
  return held;
}

describe('forged secrets (issue 30 row 9)', () => {
  test('the forged-secret attack at test size: no violations', { timeout: 180_000 }, async () => {
    const result = await forgedSecret.run({ size: 'test', log: () => {} });
    assert.equal(result.violations, 0, result.details.join('\n'));
  });

  describe('on a new store', () => {
    let srv: FloraProcess;
    before(async () => {
      srv = await startFlora({ env: { FLORA_ROOT_SECRET: 'root:secret' } });
    });
    after(async () => {
      await srv?.stop();
    });

    test('a forged key or token secret is 401; the real ones, KeyFromSecret and scoped root secrets work', { timeout: 60_000 }, async () => {
      const key = JSON.parse((await post(srv, srv.secret, { create_key: { object: { role: 'server' } } })).body).resource;
      await post(srv, srv.secret, { create_collection: { object: { name: 'users' } } });
      await post(srv, srv.secret, { create_database: { object: { name: 'child' } } });
      const u = { ref: { collection: 'users' }, id: '1' };
      await post(srv, srv.secret, { create: u, params: { object: { credentials: { object: { password: 'pw' } } } } });
      const token = JSON.parse((await post(srv, key.secret, { login: u, params: { object: { password: 'pw' } } })).body).resource.secret;
      for (const s of [key.secret, token]) {
        assert.equal((await post(srv, s)).status, 200);
        assertUnauthorized(await post(srv, forge(s)));
      }
      assertUnauthorized(await post(srv, missing()));
      const found = await post(srv, srv.secret, { key_from_secret: key.secret });
      assert.equal(JSON.parse(found.body).resource.ref['@ref'].id, key.ref['@ref'].id);
      const notFound = await post(srv, srv.secret, { key_from_secret: forge(key.secret) });
      assert.equal(notFound.status, 400);
      assert.equal(JSON.parse(notFound.body).errors[0].code, 'instance not found');
      // A root secret holding ':' still scopes; near misses are refused.
      assert.equal((await post(srv, 'root:secret')).status, 200);
      assert.equal((await post(srv, 'root:secret:child:server')).status, 200);
      for (const s of ['root:secre', 'root:secretx', 'root', 'root:secret:nochild:admin']) assertUnauthorized(await post(srv, s));
    });
  });

  describe('on a store written before secret checks (format 1)', () => {
    const f = format1Store();

    test('parallel first uses of an older key all get in: one BCrypt shared, not one each from its allowance', { timeout: 60_000 }, async () => {
      // A driver's connection pool at startup: more first uses at once than the key's BCrypt burst (8).
      const answers = await Promise.all(Array.from({ length: 24 }, () => post(f.srv, f.secrets.roleKey)));
      assert.deepEqual(answers.map((a) => a.status), Array(24).fill(200), answers.find((a) => a.status !== 200)?.body);
    });

    test('forged secrets cost a few BCrypt runs per key at most; the first success stores the check, kept across a restart', { timeout: 120_000 }, async () => {
      const flood = async (make: () => string, n: number) => {
        const before = cpuMs(f.srv.proc.pid!);
        for (let i = 0; i < n; i += 10) {
          const answers = await Promise.all(Array.from({ length: 10 }, () => post(f.srv, make())));
          for (const a of answers) assertUnauthorized(a);
        }
        return cpuMs(f.srv.proc.pid!) - before;
      };
      // 200 forged secrets against an old key: BCrypt for its allowance (8 runs of two), then none;
      // within a few BCrypt runs of what 200 secrets naming no key cost.
      const missingCpu = await flood(missing, 200);
      const forgedCpu = await flood(() => forge(f.secrets.child), 200);
      assert.ok(forgedCpu < missingCpu * 1.5 + 300, `forged ${forgedCpu} ms of CPU, missing ${missingCpu} ms, for 200 secrets each`);
      // The rightful secret gets in once the key's allowance comes back (one every 2 s).
      const started = Date.now();
      for (;;) {
        const res = await post(f.srv, f.secrets.child);
        if (res.status === 200) break;
        assertUnauthorized(res);
        assert.ok(Date.now() - started < 10_000, 'the rightful key was refused for 10 s');
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const s of [f.secrets.token, f.secrets.roleKey]) assert.equal((await post(f.srv, s)).status, 200);
      // After a restart (no cached resolution), a flood spends the old key's BCrypt allowance no
      // more: the rightful secret is checked against its stored check at once.
      f.srv = await f.srv.restart();
      await flood(() => forge(f.secrets.child), 50);
      for (const s of [f.secrets.child, f.secrets.token, f.secrets.roleKey]) assert.equal((await post(f.srv, s)).status, 200);
    });
  });

  describe('KeyFromSecret on a store written before secret checks (format 1)', () => {
    const f = format1Store();

    test('its BCrypt success stores the check, as authentication does: later calls run no BCrypt', { timeout: 60_000 }, async () => {
      const computeOps = async () => {
        const res = await post(f.srv, f.srv.secret, { key_from_secret: f.secrets.roleKey });
        assert.equal(res.status, 200, res.body);
        return Number(res.headers['x-compute-ops']);
      };
      const first = await computeOps();
      assert.ok(first >= 2_000, `the first call runs BCrypt, charged: ${first} ops`);
      // The check is written in a transaction of its own, right after.
      const started = Date.now();
      while ((await computeOps()) >= 1_000) {
        assert.ok(Date.now() - started < 10_000, 'KeyFromSecret still runs BCrypt after 10 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    });
  });
});
