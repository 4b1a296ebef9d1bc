// One guarded GET of a JWKS document. The host is resolved once, every address checked
// (addresses.ts), and the connection made to the checked addresses themselves, so DNS cannot answer
// differently between the check and the connect (rebinding); the URL's host stays the Host header
// and, for https, the TLS server name. Redirects are not followed (as jose, PyJWT's PyJWKClient and
// Go's keyfunc do by default): a 3xx is a failure, so a JWKS URL can only ever reach its own host.
// The body is read as it arrives and cut beyond `maxBytes`; the whole fetch, DNS included, has one
// deadline.

import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedRange } from '../../net/addresses';

export interface FetchLimits {
  /** The whole fetch: lookup, connect, headers and body (ms). */
  timeoutMs: number;
  /** Largest body read (bytes). */
  maxBytes: number;
  /** Private, loopback, link-local… addresses allowed (local identity providers, tests). */
  allowPrivate: boolean;
}

/** A JWKS fetch that failed or was refused; the message says why (for the server's log). */
export class JwksFetchFailed extends Error {}

export interface Address {
  address: string;
  family: number;
}

/**
 * Resolves a host to its addresses. DNS (getaddrinfo) holds a thread of libuv's pool, which BCrypt
 * needs too, until it ends, whatever deadline its caller gives up at.
 */
export type HostLookup = (host: string) => Promise<Address[]>;

export const dnsLookupAll: HostLookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/** Fetches and parses the JSON document at `uri` within `limits`; throws JwksFetchFailed. */
export async function fetchJwksDocument(uri: string, limits: FetchLimits, lookup: HostLookup): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new JwksFetchFailed('not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new JwksFetchFailed(`unsupported scheme ${url.protocol}`);
  const deadline = Date.now() + limits.timeoutMs;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = await allowedAddresses(host, limits.allowPrivate, deadline, lookup);
  const body = await get(url, host, addresses, limits.maxBytes, deadline);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new JwksFetchFailed('the body is not JSON');
  }
}

/** The addresses of `host` the fetch may connect to, in the resolver's order; refuses when there is none. */
async function allowedAddresses(host: string, allowPrivate: boolean, deadline: number, lookup: HostLookup): Promise<Address[]> {
  const family = isIP(host);
  const candidates = family
    ? [{ address: host, family }]
    : await withDeadline(lookup(host), deadline, `resolving ${host}`).catch((e: unknown) => {
        throw e instanceof JwksFetchFailed ? e : new JwksFetchFailed(`cannot resolve ${host}: ${(e as Error).message}`);
      });
  const allowed = allowPrivate ? candidates : candidates.filter((c) => refusedRange(c.address) === undefined);
  if (allowed.length > 0) return allowed;
  const first = candidates[0];
  throw new JwksFetchFailed(
    first
      ? `${host} is ${first.address === host ? 'a' : `${first.address}, a`} ${refusedRange(first.address)} address: refused without a connection (--jwks-allow-private allows it)`
      : `${host} has no address`,
  );
}

function withDeadline<T>(p: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JwksFetchFailed(`timed out ${what}`)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function get(url: URL, host: string, to: Address[], maxBytes: number, deadline: number): Promise<Buffer> {
  // Every lookup the socket makes answers with the checked addresses (all of them for Node's
  // happy-eyeballs connect, which tries each in turn).
  const lookup = ((_h: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, to);
    else cb(null, to[0].address, to[0].family);
  }) as unknown as LookupFunction;
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<Buffer>((resolve, reject) => {
    const fail = (why: string) => {
      req.destroy();
      reject(new JwksFetchFailed(why));
    };
    const req = request(
      {
        host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'accept-encoding': 'identity' },
        lookup,
        agent: false,
        servername: isIP(host) ? undefined : host,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(`HTTP ${status}: redirects are not followed`);
        if (status !== 200) return fail(`HTTP ${status}`);
        const encoding = res.headers['content-encoding'];
        if (encoding !== undefined && encoding !== 'identity') return fail(`content-encoding ${encoding}`);
        const declared = Number(res.headers['content-length']);
        if (declared > maxBytes) return fail(`a body of ${declared} bytes (at most ${maxBytes})`);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(`a body over ${maxBytes} bytes`);
          chunks.push(chunk);
        });
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', (e) => fail(e.message));
      },
    );
    const timer = setTimeout(() => fail(`no complete answer within the timeout`), Math.max(0, deadline - Date.now()));
    req.on('error', (e) => fail(e.message));
    req.on('close', () => clearTimeout(timer));
    req.end();
  });
}
