// `npm run build && node dist/bench/auth.js [--seconds 1] [--rounds 6] [--concurrency 16]`
// Authentication cost through the official driver: point Get of a document authenticated by a
// token secret, by a JWT (access provider, JWKS on a local HTTP server) and by a key secret (role
// server), in the same run with interleaved rounds; then Login throughput (8 in flight).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign } from 'node:crypto';
import { Client, query as q } from 'faunadb';
import { startFlora } from '../test/helpers/server';
import { closedLoop, numberArg } from './harness';

const BCRYPT_COST = 5; // model/secrets.ts (@node-rs/bcrypt, on libuv's thread pool)

async function main(): Promise<void> {
  const seconds = numberArg('--seconds', 1);
  const rounds = numberArg('--rounds', 6);
  const concurrency = numberArg('--concurrency', 16);
  const docs = 1000;
  const flora = await startFlora();
  const root = new Client({ secret: flora.secret, endpoint: flora.url });
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256' };
  const jwks = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const clients: Client[] = [root];
  try {
    await root.query(q.CreateCollection({ name: 'bench', permissions: { read: 'public' } }));
    await root.query(q.CreateCollection({ name: 'users' }));
    for (let start = 1; start <= docs; start += 250)
      await root.query(Array.from({ length: 250 }, (_, i) => q.Create(q.Ref(q.Collection('bench'), String(start + i)), { data: { n: start + i, s: 'x'.repeat(64) } })));
    await root.query(q.Create(q.Ref(q.Collection('users'), '1'), { data: { name: 'u' }, credentials: { password: 'secret-password' } }));
    const key = (await root.query(q.CreateKey({ role: 'server' }))) as { secret: string };
    const token = (await root.query(q.Login(q.Ref(q.Collection('users'), '1'), { password: 'secret-password' }))) as { secret: string };
    await root.query(q.CreateAccessProvider({ name: 'bench', issuer: 'https://bench.example/', jwks_uri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks` }));
    const topGlobalId = 'yyyyyyyyyyyyy'; // zbase32(0): the top database
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${enc({ alg: 'RS256', kid: 'bench' })}.${enc({ iss: 'https://bench.example/', sub: 'bench', aud: `https://db.fauna.com/db/${topGlobalId}`, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
    const jwt = `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;

    const contenders: [string, Client][] = [
      ['key (server)', new Client({ secret: key.secret, endpoint: flora.url })],
      ['token', new Client({ secret: token.secret, endpoint: flora.url })],
      ['jwt', new Client({ secret: jwt, endpoint: flora.url })],
    ];
    clients.push(...contenders.map(([, c]) => c));
    const get = () => q.Get(q.Ref(q.Collection('bench'), String(1 + Math.floor(Math.random() * docs))));
    for (const [, c] of contenders) await closedLoop(() => c.query(get()), 0.5, concurrency); // warm-up
    const totals = new Map<string, { ops: number; secs: number }>(contenders.map(([n]) => [n, { ops: 0, secs: 0 }]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? contenders : [...contenders].reverse();
      for (const [name, c] of order) {
        const res = await closedLoop(() => c.query(get()), seconds, concurrency);
        const t = totals.get(name)!;
        t.ops += res.ops;
        t.secs += res.secs;
      }
    }
    const rate = (n: string) => totals.get(n)!.ops / totals.get(n)!.secs;
    const keyRate = rate('key (server)');
    console.log(`point Get through the driver, ${concurrency} in flight, ${rounds} interleaved rounds × ${seconds}s:`);
    for (const [name] of contenders)
      console.log(`  ${name.padEnd(13)} ${rate(name).toFixed(0)} ops/s  (ratio to key ${(rate(name) / keyRate).toFixed(2)})`);
    const ratio = rate('token') / keyRate;
    console.log(`  token/key ratio ${ratio.toFixed(2)} (target >= 0.9: ${ratio >= 0.9 ? 'PASS' : 'FAIL'})`);

    const user = q.Ref(q.Collection('users'), '1');
    const login = () => q.Login(user, { password: 'secret-password', ttl: q.TimeAdd(q.Now(), 1, 'hour') });
    await closedLoop(() => root.query(login()), 0.5, 8); // warm-up
    const l = await closedLoop(() => root.query(login()), Math.max(3, seconds * 3), 8);
    console.log(`Login (BCrypt cost ${BCRYPT_COST}, @node-rs/bcrypt), 8 in flight: ${(l.ops / l.secs).toFixed(0)} logins/s`);
  } finally {
    for (const c of clients) await c.close({ force: true });
    jwks.close();
    await flora.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
