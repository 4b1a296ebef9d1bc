// The local servers the JWKS attack (jwksAbuse.ts) points access providers at, and the JWTs it
// sends. One hostile JWKS server answers each abusive `jwks_uri` and notes when it was fetched; a
// canary server stands for an internal service a redirect must never reach; an honest server serves
// a real key, for the genuine JWTs that must keep working.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** The abusive `jwks_uri`s, by path on the hostile server. */
export const CASES = ['redirect', 'big-exponents', 'huge', 'fail'] as const;
export type Case = (typeof CASES)[number];

/** The JWKS: 500 keys with 3,000-bit exponents (3,072-bit moduli: OpenSSL refuses exponents over 64 bits beyond that). */
export const BIG_KEYS = 500;
const BIG_MODULUS_BYTES = 384;
const BIG_EXPONENT_BYTES = 375;

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function randomOdd(bytes: number): Buffer {
  const b = randomBytes(bytes);
  b[0] = 0xff; // full length, and above any signature the attack sends (which starts below 0x80)
  b[bytes - 1] |= 1;
  return b;
}

/** Answers GET /internal/admin (and anything else): counts the hits a redirect must never make. */
export class Canary {
  hits = 0;
  private readonly server = http.createServer((_req, res) => {
    this.hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
  });
  port = 0;

  async start(): Promise<this> {
    this.port = await listen(this.server);
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

/** Serves each abusive JWKS at `/<case>` and records when each was fetched. */
export class HostileJwks {
  readonly fetches: Record<Case, number[]> = { redirect: [], 'big-exponents': [], huge: [], fail: [] };
  /** Bytes of the huge body written before the reader stopped, and whether it was read to the end. */
  hugeSent = 0;
  hugeCompleted = 0;
  port = 0;
  private readonly bigBody: string;
  private readonly server: http.Server;

  constructor(
    private readonly canaryPort: number,
    private readonly hugeBytes: number,
  ) {
    const keys = Array.from({ length: BIG_KEYS }, (_, i) => ({
      kty: 'RSA',
      kid: `big-${i}`,
      n: randomOdd(BIG_MODULUS_BYTES).toString('base64url'),
      e: randomOdd(BIG_EXPONENT_BYTES).toString('base64url'),
    }));
    this.bigBody = JSON.stringify({ keys });
    this.server = http.createServer((req, res) => this.answer(req, res));
  }

  async start(): Promise<this> {
    this.port = await listen(this.server);
    return this;
  }

  uri(c: Case): string {
    return `http://127.0.0.1:${this.port}/${c}`;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const c = (req.url ?? '').slice(1) as Case;
    if (!CASES.includes(c)) return void res.writeHead(404).end();
    this.fetches[c].push(Date.now());
    if (c === 'redirect') return void res.writeHead(302, { location: `http://127.0.0.1:${this.canaryPort}/internal/admin` }).end();
    if (c === 'big-exponents') return void res.writeHead(200, { 'content-type': 'application/json' }).end(this.bigBody);
    if (c === 'fail') return void res.writeHead(500).end('down');
    this.streamHuge(res);
  }

  /** A JSON document of `hugeBytes`, no content-length, written as fast as the reader takes it. */
  private streamHuge(res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    res.write('{"keys":[],"pad":"');
    const more = (): void => {
      while (this.hugeSent < this.hugeBytes) {
        this.hugeSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('"}');
    };
    res.on('finish', () => this.hugeCompleted++);
    res.on('error', () => undefined);
    more();
  }
}

/** Serves one real RSA key and counts every connection made to it (a refused fetch makes none). */
export class HonestJwks {
  readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  connections = 0;
  port = 0;
  private readonly server = http.createServer((_req, res) => {
    const jwk = { ...this.keys.publicKey.export({ format: 'jwk' }), kid: 'good', alg: 'RS256', use: 'sig' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });

  async start(): Promise<this> {
    this.server.on('connection', () => this.connections++);
    this.port = await listen(this.server);
    return this;
  }

  get uri(): string {
    return `http://127.0.0.1:${this.port}/jwks`;
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

export interface Claims {
  iss: string;
  aud: string;
}

function encode(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

function input(claims: Claims, kid: string | undefined, sub: string): string {
  const header = kid === undefined ? { alg: 'RS256', typ: 'JWT' } : { alg: 'RS256', typ: 'JWT', kid };
  return `${encode(header)}.${encode({ ...claims, sub, exp: Math.floor(Date.now() / 1000) + 600 })}`;
}

/** A JWT with the provider's iss/aud and a made-up signature (below any modulus, so it costs a full verification). */
export function forgedJwt(claims: Claims, kid?: string, signatureBytes = BIG_MODULUS_BYTES): string {
  const signature = randomBytes(signatureBytes);
  signature[0] &= 0x7f;
  return `${input(claims, kid, 'forged')}.${signature.toString('base64url')}`;
}

/** A JWT truly signed with `key`. */
export function genuineJwt(claims: Claims, key: KeyObject, kid: string | undefined, sub = 'genuine'): string {
  const text = input(claims, kid, sub);
  return `${text}.${sign('RSA-SHA256', Buffer.from(text), key).toString('base64url')}`;
}
