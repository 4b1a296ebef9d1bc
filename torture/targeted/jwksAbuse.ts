// Issue 30, eighth row: a database admin creates access providers whose `jwks_uri` (1) redirects to
// another local port (an internal service: the canary), (2) serves 500 keys with 3,000-bit
// exponents, (3) streams a huge body (400 MB; 128 MiB at test size), (4) fails; then, with no key at
// all, anyone sends forged JWTs carrying those providers' iss/aud. Redirects used to be followed
// anywhere, each forged JWT cost seconds of a blocked event loop, the huge body was read whole, and
// every forged JWT fetched a failing provider again.
//
// The server runs with FLORA_JWKS_ALLOW_PRIVATE=true, else the local hostile servers could not be
// reached at all; a second server with the setting off must refuse a loopback `jwks_uri` without
// making any connection, even for a correctly signed JWT.
//
// Must be 0: canary hits; pings over 500 ms; RSS growth over RSS_BOUND_MB (beyond a warm-up of the
// same traffic without a secret); fetches of a failing provider closer together than the back-off
// allows; forged JWTs answered anything but 401; the huge body read to its end; genuine JWTs refused
// by the allowing server or accepted by the refusing one; connections the refusing server made.

import { JWKS_DEFAULTS } from '../../src/model/jwks/cache';
import { rawQuery, startFlora, timedPost, type FloraProcess, type TimedResponse } from '../../test/helpers/server';
import { RssSampler, rssOf } from '../probes';
import { Verdict, type TargetedAttack, type TargetedOptions, type TargetedResult } from './attack';
import { whilePinging } from './pingWatch';
import { Canary, CASES, forgedJwt, genuineJwt, HonestJwks, HostileJwks, type Case, type Claims } from './jwksServers';

const SIZES = {
  /** `burst` forged JWTs per provider at once, then one per provider every 50 ms for `windowMs`; `timed` for the cost figures. */
  test: { hugeBytes: 128 * 1024 * 1024, burst: 4, windowMs: 4_000, timed: 40 },
  torture: { hugeBytes: 400 * 1024 * 1024, burst: 32, windowMs: 30_000, timed: 400 },
};

/** Timer and clock granularity between the two processes. */
const BACKOFF_SLACK_MS = 50;

/**
 * RSS the attack may add to the server after a warm-up with the same traffic and no secret. That
 * traffic alone keeps RSS swinging by up to some 55 MB (measured over a minute of requests without a
 * secret, or with forged JWTs of failed providers: the same plateau, no leak). Under the bounds a
 * fetch holds at most 1 MiB of body (about 3 MiB with its text and parse), one fetch per provider at a
 * time (four here), and no key of a refused document is kept: about 12 MiB. A body read whole adds
 * about twice its size: +256 MB for the test size's 128 MiB, +820 MB for 400 MB.
 */
const RSS_BOUND_MB = 100;
/** The warm-up without a secret lasts at most this long after its burst. */
const WARM_UP_MS = 5_000;

const ISSUERS: Record<Case | 'good', string> = {
  redirect: 'https://redirect.example/',
  'big-exponents': 'https://big-exponents.example/',
  huge: 'https://huge.example/',
  fail: 'https://fail.example/',
  good: 'https://good.example/',
};

/** Creates database `name` with root; returns the `aud` its JWTs carry. */
export async function audienceFor(flora: FloraProcess, name: string): Promise<string> {
  const body = await rawQuery(flora.url, flora.secret, JSON.stringify({ create_database: { object: { name } } }));
  const gid = (JSON.parse(body) as { resource?: { global_id?: string } }).resource?.global_id;
  if (!gid) throw new Error(`CreateDatabase answered ${body}`);
  return `https://db.fauna.com/db/${gid}`;
}

/** CreateAccessProvider with database `db`'s admin key; returns the answer's body. */
export async function createProvider(flora: FloraProcess, db: string, name: string, issuer: string, jwksUri: string): Promise<string> {
  const query = { create_access_provider: { object: { name, issuer, jwks_uri: jwksUri } } };
  const body = await rawQuery(flora.url, `${flora.secret}:${db}:admin`, JSON.stringify(query));
  if (!body.includes('"resource"')) throw new Error(`CreateAccessProvider ${name} answered ${body}`);
  return body;
}

/** Fetches closer together than the server's back-off allows: the i-th gap must be at least first·2^(i-1), capped. */
export function backoffBreaches(times: readonly number[]): number {
  let breaches = 0;
  for (let i = 1; i < times.length; i++) {
    const wait = Math.min(JWKS_DEFAULTS.backoffMs * 2 ** (i - 1), JWKS_DEFAULTS.maxBackoffMs);
    if (times[i] - times[i - 1] < wait - BACKOFF_SLACK_MS) breaches++;
  }
  return breaches;
}

/** `burst` waves at once, then one wave every 50 ms (or as each ends) for `windowMs`. */
async function traffic(burst: number, windowMs: number, wave: (i: number) => Promise<TimedResponse[]>): Promise<TimedResponse[]> {
  const answers = (await Promise.all(Array.from({ length: burst }, (_, i) => wave(i)))).flat();
  const end = Date.now() + windowMs;
  for (let i = 0; Date.now() < end; i++) {
    const tick = new Promise((resolve) => setTimeout(resolve, 50));
    answers.push(...(await wave(i)));
    await tick;
  }
  return answers;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
}

export const jwksAbuse: TargetedAttack = {
  name: 'jwks-abuse',
  part: 'access',
  about:
    'providers whose jwks_uri redirects, serves 500 keys with 3,000-bit exponents, streams a huge body or fails; forged JWTs with no key: no canary hit, /ping prompt, RSS bounded, failures backed off, every forged JWT 401; loopback refused when not allowed',
  async run(opts: TargetedOptions): Promise<TargetedResult> {
    const size = SIZES[opts.size];
    const verdict = new Verdict();
    const figures: Record<string, string> = {};
    const canary = await new Canary().start();
    const hostile = await new HostileJwks(canary.port, size.hugeBytes).start();
    const honest = await new HonestJwks().start();
    const unreachable = await new HonestJwks().start();
    try {
      Object.assign(figures, await attack(opts, size, hostile, honest, verdict));
      const status = await refusedWhenNotAllowed(unreachable, verdict);
      figures['loopback (setting off): answer/connections'] = `${status}/${unreachable.connections}`;
      verdict.fail(canary.hits, `the canary (GET /internal/admin on another local port) was hit ${canary.hits} times through the redirect`);
      figures['canary hits'] = String(canary.hits);
    } finally {
      await Promise.all([canary.stop(), hostile.stop(), honest.stop(), unreachable.stop()]);
    }
    if (verdict.violations > 0) verdict.details.push('reproduce: npm run torture -- --part access (targeted jwks-abuse)');
    return verdict.result(figures);
  },
};

/** The forged JWTs against the allowing server; its figures. */
async function attack(opts: TargetedOptions, size: (typeof SIZES)['test'], hostile: HostileJwks, honest: HonestJwks, verdict: Verdict): Promise<Record<string, string>> {
  const flora = await startFlora({ env: { FLORA_JWKS_ALLOW_PRIVATE: 'true', FLORA_LOG_QUERIES: 'false' } });
  try {
    const aud = await audienceFor(flora, 'jwks');
    for (const c of CASES) await createProvider(flora, 'jwks', c, ISSUERS[c], hostile.uri(c));
    await createProvider(flora, 'jwks', 'good', ISSUERS.good, honest.uri);
    const claims = (c: Case | 'good'): Claims => ({ iss: ISSUERS[c], aud });
    const pid = flora.proc.pid!;
    opts.log(`    warm-up: the same traffic without a secret`);
    await traffic(size.burst, Math.min(size.windowMs, WARM_UP_MS), () => Promise.all(CASES.map(() => timedPost(flora.url, undefined))));
    const rssBefore = rssOf(pid);
    const rss = new RssSampler(() => pid);
    rss.start();
    const forged: TimedResponse[] = [];
    const { value, ping } = await whilePinging(flora.url, async () => {
      // Half with a kid of the big set, half without (every key tried, before the bounds).
      const wave = (i: number) => Promise.all(CASES.map((c) => timedPost(flora.url, forgedJwt(claims(c), i % 2 ? 'big-1' : undefined))));
      opts.log(`    ${size.burst} forged JWTs per provider at once, then one each every 50 ms for ${size.windowMs} ms`);
      forged.push(...(await traffic(size.burst, size.windowMs, wave)));
      // The cost of a forged JWT once its provider's set is cached, next to a request with no secret.
      const genuine = await timedPost(flora.url, genuineJwt(claims('good'), honest.keys.privateKey, 'good'));
      const cached: number[] = [];
      const missing: number[] = [];
      for (let i = 0; i < size.timed; i++) {
        const a = await timedPost(flora.url, forgedJwt(claims('good'), 'good', 256));
        forged.push(a);
        cached.push(a.ms);
        missing.push((await timedPost(flora.url, undefined)).ms);
      }
      return { genuine, cached, missing };
    }, opts.size).finally(() => rss.stop());
    const growthMb = (rss.peak - rssBefore) / 1048576;
    const wrong = forged.filter((a) => a.status !== 401);
    const breaches = CASES.map((c) => backoffBreaches(hostile.fetches[c]));
    verdict.ping(ping);
    verdict.fail(growthMb > RSS_BOUND_MB, `RSS grew by ${growthMb.toFixed(0)} MB (bound ${RSS_BOUND_MB} MB)`);
    CASES.forEach((c, i) => {
      verdict.fail(breaches[i], () => `${c}: ${breaches[i]} fetches sooner than the back-off allows (fetched at +${hostile.fetches[c].map((t) => t - hostile.fetches[c][0]).join(', +')} ms)`);
    });
    verdict.fail(wrong.length, () => `${wrong.length} of ${forged.length} forged JWTs not refused with 401, e.g. ${wrong[0].status} ${wrong[0].body.slice(0, 120)}`);
    verdict.fail(hostile.hugeCompleted, `the huge JWKS (${size.hugeBytes} bytes) was read to its end ${hostile.hugeCompleted} times`);
    verdict.fail(value.genuine.status !== 200, `a genuine JWT of an honest provider got ${value.genuine.status} ${value.genuine.body.slice(0, 120)}`);
    return {
      'forged JWTs': String(forged.length),
      'forged not 401': String(wrong.length),
      'fetches redirect/big/huge/fail': CASES.map((c) => hostile.fetches[c].length).join('/'),
      'back-off breaches': String(breaches.reduce((a, b) => a + b, 0)),
      'huge bytes sent/read whole': `${hostile.hugeSent}/${hostile.hugeCompleted}`,
      'RSS growth MB (beyond the same traffic without a secret)': growthMb.toFixed(0),
      'forged JWT (cached set) p50 ms': median(value.cached).toFixed(1),
      'no secret p50 ms': median(value.missing).toFixed(1),
      'genuine JWT': String(value.genuine.status),
    };
  } finally {
    await flora.stop();
  }
}

/** With the setting off, a loopback jwks_uri is refused before any connection, even for a genuine JWT; the JWT's status. */
async function refusedWhenNotAllowed(local: HonestJwks, verdict: Verdict): Promise<number> {
  const flora = await startFlora({ env: { FLORA_JWKS_ALLOW_PRIVATE: 'false', FLORA_LOG_QUERIES: 'false' } });
  try {
    const aud = await audienceFor(flora, 'jwks');
    await createProvider(flora, 'jwks', 'local', ISSUERS.good, local.uri);
    const answer = await timedPost(flora.url, genuineJwt({ iss: ISSUERS.good, aud }, local.keys.privateKey, 'good'));
    verdict.fail(local.connections, `with the setting off, the server connected ${local.connections} times to a loopback jwks_uri`);
    verdict.fail(answer.status !== 401, `with the setting off, a JWT of a loopback provider got ${answer.status} ${answer.body.slice(0, 120)}`);
    return answer.status;
  } finally {
    await flora.stop();
  }
}
