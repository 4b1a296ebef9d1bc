// Issue 30, eighth row: access providers' JWKS fetches cannot be turned against the server. The
// targeted attack (torture/targeted/jwksAbuse.ts) at test size, then each rule with its exact answer:
// a JWT whose provider's key set is refused gets the plain 401 of a bad secret; the reason goes to the
// server's log only.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { ROOT, startFlora, timedPost, waitFor, type FloraProcess } from '../helpers/server';
import { audienceFor, backoffBreaches, createProvider, jwksAbuse } from '../../torture/targeted/jwksAbuse';
import { forgedJwt, genuineJwt } from '../../torture/targeted/jwksServers';
import { whilePinging } from '../../torture/targeted/pingWatch';

const UNAUTHORIZED = { status: 401, body: '{"errors":[{"code":"unauthorized","description":"Unauthorized"}]}', auth: 'Basic realm="Unauthorized"' };

function assertUnauthorized(a: { status: number; body: string; headers: Record<string, string> }, what: string): void {
  assert.deepEqual({ status: a.status, body: a.body, auth: a.headers['www-authenticate'] }, UNAUTHORIZED, what);
}

const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const small = generateKeyPairSync('rsa', { modulusLength: 1024 });

function jwk(key: KeyObject, kid: string): Record<string, unknown> {
  return { ...key.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

/** Waits for the server's log to say `line` (stderr arrives apart from the answers). */
async function logged(flora: FloraProcess, line: RegExp, what = String(line)): Promise<void> {
  await waitFor(`the log to say ${what}`, () => line.test(flora.stderr()), 10_000).catch((e: Error) => {
    throw new Error(`${e.message}; it says:\n${flora.stderr()}`);
  });
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A JWKS server whose paths answer as a test says; counts connections and fetches per path. */
class ScriptedJwks {
  readonly routes = new Map<string, Route>();
  readonly fetches = new Map<string, number[]>();
  connections = 0;
  port = 0;
  private readonly server: http.Server | https.Server;

  constructor(tls?: { key: Buffer; cert: Buffer }) {
    const handle: Route = (req, res) => {
      const p = req.url ?? '';
      this.fetches.set(p, [...(this.fetches.get(p) ?? []), Date.now()]);
      const route = this.routes.get(p);
      if (route) route(req, res);
      else res.writeHead(404).end();
    };
    this.server = tls ? https.createServer(tls, handle) : http.createServer(handle);
    this.server.on(tls ? 'secureConnection' : 'connection', () => this.connections++);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  json(p: string, doc: unknown): this {
    this.routes.set(p, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc)));
    return this;
  }

  hits(p: string): number {
    return this.fetches.get(p)?.length ?? 0;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

test('the JWKS attack at test size: no violation, /ping prompt', { timeout: 180_000 }, async () => {
  const r = await jwksAbuse.run({ size: 'test', log: () => undefined });
  assert.equal(r.violations, 0, r.details.join('\n'));
  assert.equal(r.figures['slow pings'], '0');
  assert.equal(r.figures['canary hits'], '0');
  assert.equal(r.figures['forged not 401'], '0');
});

describe('with --jwks-allow-private (local JWKS servers)', () => {
  let flora: FloraProcess;
  let jwks: ScriptedJwks;
  let aud = '';
  let n = 0;

  /** A provider for `route` on the scripted server; returns a JWT signer for it. */
  async function provider(route: string, uri = `http://127.0.0.1:${jwks.port}${route}`) {
    const iss = `https://p${++n}.example/`;
    await createProvider(flora, 'sec', `p${n}`, iss, uri);
    return {
      genuine: (kid: string | undefined, key = signing.privateKey) => genuineJwt({ iss, aud }, key, kid),
      forged: (kid?: string) => forgedJwt({ iss, aud }, kid, 256),
    };
  }

  before(async () => {
    jwks = await new ScriptedJwks().start();
    flora = await startFlora({ env: { FLORA_JWKS_ALLOW_PRIVATE: 'true', FLORA_LOG_QUERIES: 'false' } });
    aud = await audienceFor(flora, 'sec');
  });
  after(async () => {
    await flora.stop();
    await jwks.stop();
  });

  test('a forged JWT gets exactly the 401 of a missing secret, and no fetch once the set is cached', { timeout: 60_000 }, async () => {
    jwks.json('/one', { keys: [jwk(signing.publicKey, 'k1')] });
    const p = await provider('/one');
    assert.equal((await timedPost(flora.url, p.genuine('k1'))).status, 200);
    const forged = await timedPost(flora.url, p.forged('k1'));
    assertUnauthorized(forged, 'forged JWT');
    const missing = await timedPost(flora.url, undefined);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers['www-authenticate'], UNAUTHORIZED.auth);
    assert.equal(jwks.hits('/one'), 1);
  });

  test('a redirect is not followed: the JWT gets 401 and the target is never fetched', { timeout: 60_000 }, async () => {
    jwks.json('/target', { keys: [jwk(signing.publicKey, 'k1')] });
    jwks.routes.set('/moved', (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${jwks.port}/target` }).end());
    const p = await provider('/moved');
    assertUnauthorized(await timedPost(flora.url, p.genuine('k1')), 'JWT of a redirecting provider');
    assert.equal(jwks.hits('/moved'), 1);
    assert.equal(jwks.hits('/target'), 0);
    await logged(flora, /JWKS "http:\/\/127\.0\.0\.1:\d+\/moved" not usable: HTTP 302: redirects are not followed; not fetched again for 1 s/);
  });

  test('several keys: the kid is required and only its key is tried', { timeout: 60_000 }, async () => {
    jwks.json('/two', { keys: [jwk(other.publicKey, 'k1'), jwk(signing.publicKey, 'k2')] });
    const p = await provider('/two');
    assert.equal((await timedPost(flora.url, p.genuine('k2'))).status, 200);
    assertUnauthorized(await timedPost(flora.url, p.genuine(undefined)), 'no kid, two keys');
    assertUnauthorized(await timedPost(flora.url, p.genuine('k1')), 'the kid of another key');
  });

  test('keys out of bounds are left out when the set is read; the rest still serve', { timeout: 60_000 }, async () => {
    const bigExponent = { kty: 'RSA', kid: 'big-e', n: other.publicKey.export({ format: 'jwk' }).n, e: randomBytes(375).toString('base64url') };
    const evenExponent = { ...jwk(other.publicKey, 'even-e'), e: 'AQAA' };
    const ec = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'ec' };
    jwks.json('/mixed', { keys: [jwk(small.publicKey, 'small'), bigExponent, evenExponent, ec, jwk(signing.publicKey, 'good'), { kty: 'RSA', kid: 'junk', n: 1 }] });
    const p = await provider('/mixed');
    assert.equal((await timedPost(flora.url, p.genuine('good'))).status, 200);
    assertUnauthorized(await timedPost(flora.url, p.genuine('small', small.privateKey)), '1024-bit key');
  });

  test('a set of more than 100 keys is refused whole', { timeout: 60_000 }, async () => {
    const filler = Array.from({ length: 100 }, (_, i) => jwk(other.publicKey, `f${i}`));
    jwks.json('/many', { keys: [jwk(signing.publicKey, 'good'), ...filler] });
    const p = await provider('/many');
    assertUnauthorized(await timedPost(flora.url, p.genuine('good')), '101 keys');
    await logged(flora, /JWKS "[^"]+\/many" not usable: 101 keys \(at most 100\)/);
  });

  test('a body over 1 MiB is cut, declared or streamed', { timeout: 60_000 }, async () => {
    const doc = JSON.stringify({ keys: [jwk(signing.publicKey, 'good')], pad: 'x'.repeat(1024 * 1024) });
    jwks.routes.set('/declared', (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(doc) }).end(doc));
    jwks.routes.set('/streamed', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(doc.slice(0, 1000));
      res.end(doc.slice(1000));
    });
    const declared = await provider('/declared');
    assertUnauthorized(await timedPost(flora.url, declared.genuine('good')), 'declared length');
    await logged(flora, /\/declared" not usable: a body of \d+ bytes \(at most 1048576\)/);
    const streamed = await provider('/streamed');
    assertUnauthorized(await timedPost(flora.url, streamed.genuine('good')), 'streamed body');
    await logged(flora, /\/streamed" not usable: a body over 1048576 bytes/);
  });

  test('a failing provider: one shared fetch, then none before the back-off, then it recovers', { timeout: 60_000 }, async () => {
    let up = false;
    jwks.routes.set('/flaky', (_req, res) => {
      if (up) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk(signing.publicKey, 'k1')] }));
      setTimeout(() => res.writeHead(500).end('down'), 200);
    });
    const p = await provider('/flaky');
    const first = await Promise.all(Array.from({ length: 10 }, () => timedPost(flora.url, p.genuine('k1'))));
    for (const a of first) assertUnauthorized(a, 'while the JWKS fails');
    assert.equal(jwks.hits('/flaky'), 1, 'concurrent verifications share one fetch');
    for (let i = 0; i < 5; i++) assertUnauthorized(await timedPost(flora.url, p.genuine('k1')), 'within the back-off');
    assert.equal(jwks.hits('/flaky'), 1, 'no fetch within the back-off');
    up = true;
    await waitFor('the provider to recover', async () => (await timedPost(flora.url, p.genuine('k1'))).status === 200, 20_000);
    const times = jwks.fetches.get('/flaky') ?? [];
    assert.equal(backoffBreaches(times), 0, `fetched at ${times.map((t) => t - times[0]).join(', ')} ms`);
  });

  test('a JWKS server that never answers: 401 within the fetch timeout, /ping prompt meanwhile', { timeout: 60_000 }, async () => {
    jwks.routes.set('/hang', () => undefined);
    const p = await provider('/hang');
    const { value, ping } = await whilePinging(flora.url, () => timedPost(flora.url, p.genuine('k1')), 'test');
    assertUnauthorized(value, 'hanging JWKS');
    assert.ok(value.ms < 15_000, `answered after ${value.ms} ms`);
    assert.equal(ping.slow, 0, `ping max ${ping.maxMs} ms`);
    await logged(flora, /\/hang" not usable: no complete answer within the timeout/);
  });

  test('https: the URL host is the TLS server name and the Host header, the checked address is connected to', { timeout: 60_000 }, async () => {
    // Needs its own server: the certificate is trusted through the process environment.
    const dir = path.join(ROOT, 'test', 'fixtures', 'tls');
    const secure = await new ScriptedJwks({ key: readFileSync(path.join(dir, 'localhost.key')), cert: readFileSync(path.join(dir, 'localhost.crt')) }).start();
    const seen: { servername?: string | false | null; host?: string }[] = [];
    secure.routes.set('/jwks', (req, res) => {
      seen.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk(signing.publicKey, 'k1')] }));
    });
    const tlsFlora = await startFlora({ env: { FLORA_JWKS_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: path.join(dir, 'localhost.crt') } });
    try {
      const tlsAud = await audienceFor(tlsFlora, 'tls');
      await createProvider(tlsFlora, 'tls', 'idp', 'https://tls.example/', `https://localhost:${secure.port}/jwks`);
      const token = genuineJwt({ iss: 'https://tls.example/', aud: tlsAud }, signing.privateKey, 'k1');
      assert.equal((await timedPost(tlsFlora.url, token)).status, 200, tlsFlora.stderr());
      assert.deepEqual(seen, [{ servername: 'localhost', host: `localhost:${secure.port}` }]);
    } finally {
      await tlsFlora.stop();
      await secure.stop();
    }
  });
});

describe('without --jwks-allow-private (the default)', () => {
  let flora: FloraProcess;
  let jwks: ScriptedJwks;
  let aud = '';

  before(async () => {
    jwks = await new ScriptedJwks().start();
    jwks.json('/jwks', { keys: [jwk(signing.publicKey, 'k1')] });
    flora = await startFlora({ env: { FLORA_JWKS_ALLOW_PRIVATE: 'false', FLORA_LOG_QUERIES: 'false' } });
    aud = await audienceFor(flora, 'sec');
  });
  after(async () => {
    await flora.stop();
    await jwks.stop();
  });

  test('non-public addresses are accepted as jwks_uri values but never connected to: the JWT gets 401, the log says why', { timeout: 60_000 }, async () => {
    const cases: [string, RegExp][] = [
      [`http://127.0.0.1:${jwks.port}/jwks`, /127\.0\.0\.1 is a loopback address: refused without a connection \(--jwks-allow-private allows it\)/],
      [`http://localhost:${jwks.port}/jwks`, /localhost is (127\.0\.0\.1|::1), a loopback address: refused without a connection/],
      [`https://[::ffff:127.0.0.1]:${jwks.port}/jwks`, /::ffff:7f00:1 is a loopback address/],
      [`https://[::1]:${jwks.port}/jwks`, /::1 is a loopback address/],
      ['https://169.254.169.254/jwks', /169\.254\.169\.254 is a link-local address/],
      ['https://10.1.2.3/jwks', /10\.1\.2\.3 is a private address/],
      ['https://[fd00::1]/jwks', /fd00::1 is a unique-local address/],
    ];
    for (const [i, [uri, reason]] of cases.entries()) {
      const iss = `https://off${i}.example/`;
      const created = JSON.parse(await createProvider(flora, 'sec', `off${i}`, iss, uri)) as { resource: { jwks_uri: string } };
      assert.equal(created.resource.jwks_uri, uri);
      const started = Date.now();
      assertUnauthorized(await timedPost(flora.url, genuineJwt({ iss, aud }, signing.privateKey, 'k1')), uri);
      assert.ok(Date.now() - started < 2_000, `${uri}: refused after ${Date.now() - started} ms`);
      await logged(flora, reason, uri);
    }
    assert.equal(jwks.connections, 0);
  });
});
