// Issue 30, first row: with a client key, one HTTP/2 connection opens 48 `POST /` streams that each
// declare `content-length: 8388608` and send one byte, and renews them as they end. Reserving the
// declared length locked every other client out of the shared memory (429) for as long as the
// streams stayed open. Then the same connection sends almost all of each body and stalls, to hold
// real bytes. Must hold: root and another client of the same key are answered (never 429), /ping
// stays prompt, and every trickling stream is cut with 408 once the rate grace and a check have passed.

import * as http2 from 'node:http2';
import { setTimeout as delay } from 'node:timers/promises';
import { defaultConfig } from '../../src/config';
import { BODY_RATE_CHECK_MS } from '../../src/server/bodyRate';
import { h2Answer, makeKey, startFlora, timedPost, type TimedResponse } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedOptions, type TargetedResult } from './attack';
import { Bystander } from './fqlSession';
import { whilePinging } from './pingWatch';

/** What every attacking stream declares: the issue's `content-length: 8388608`. */
export const DECLARED = 8 * 1024 * 1024;
const STREAMS = 48;
/** The noisy shared machine: a cut may come this much after the grace and one check. */
const SLACK_MS = 3_000;

const SIZES = {
  /** Trickling streams are held (and renewed) this long; then `fill` streams send all but a byte. */
  test: { trickleMs: 11_000, fill: 12, fillHoldMs: 3_000 },
  torture: { trickleMs: 35_000, fill: STREAMS, fillHoldMs: 10_000 },
};

/** A trickling stream is answered 408 within this long of its start (default settings). */
function cutWithinMs(): number {
  return defaultConfig().bodyRateGraceMs + BODY_RATE_CHECK_MS + SLACK_MS;
}

export const h2Reserve: TargetedAttack = {
  name: 'h2-reserve',
  part: 'hostile',
  about: `one HTTP/2 connection, client key, ${STREAMS} POST / streams declaring 8 MiB and sending 1 byte (renewed), then all but 1 byte: others never 429, trickles cut with 408`,
  async run(opts: TargetedOptions): Promise<TargetedResult> {
    const size = SIZES[opts.size];
    const flora = await startFlora({ env: { FLORA_LOG_QUERIES: 'false' } });
    try {
      const clientSecret = await makeKey(flora, 'client');
      // A key in every browser has been seen before. Its first check (BCrypt), which 48 streams at once
      // would each run while the cache is cold, is the BCrypt rows' matter, not this one's.
      await timedPost(flora.url, clientSecret, { http2: true });
      const { value, ping } = await whilePinging(flora.url, async () => {
        // Other clients query one after another, each on its own connection: root over both protocols, and the attacker's key.
        const others = [
          new Bystander('root h2', flora.url, flora.secret, true),
          new Bystander('root h1', flora.url, flora.secret),
          new Bystander('client key h2', flora.url, clientSecret, true),
        ];
        let trickles, fill;
        try {
          opts.log(`    ${STREAMS} trickling streams for ${size.trickleMs} ms`);
          trickles = await trickleStreams(flora.url, clientSecret, STREAMS, size.trickleMs);
          opts.log(`    ${size.fill} streams sending all but one byte, held ${size.fillHoldMs} ms`);
          fill = await fillStreams(flora.url, clientSecret, size.fill, size.fillHoldMs);
        } finally {
          // They query until stopped: an attack that throws must stop them too, or the run never ends.
          await Promise.all(others.map((o) => o.stop()));
        }
        // Everything the attack held is given back: a full body of the same key is served.
        const after = await timedPost(flora.url, clientSecret, { body: fullBody(), http2: true });
        return { trickles, fill, others: others.flatMap((o) => o.answers.map((a) => ({ who: o.who, ...a }))), after };
      }, opts.size);
      const { trickles, fill, others, after } = value;
      const limit = cutWithinMs();
      const late = trickles.filter((t) => t.status !== 408 || t.ms > limit);
      const refused = (a: Answer) => a.status === 429 || a.status === 0 || a.status >= 500;
      const refusedOthers = others.filter(refused);
      const verdict = new Verdict();
      verdict.fail(refusedOthers.length, () => `${refusedOthers.length} of ${others.length} queries of other clients refused, e.g. ${describe(refusedOthers[0])}`);
      verdict.fail(late.length, () => `${late.length} of ${trickles.length} trickling streams not cut with 408 within ${limit} ms, e.g. ${late[0].status || 'no answer'} after ${late[0].ms} ms`);
      verdict.fail(refused(after), `after the attack a full ${DECLARED}-byte body of the client key got ${after.status} ${after.body.slice(0, 120)}`);
      verdict.ping(ping);
      if (verdict.violations > 0) verdict.details.push('reproduce: npm run torture -- --part hostile (targeted h2-reserve)');
      const cuts = trickles.filter((t) => t.status === 408).map((t) => t.ms);
      return verdict.result({
        'trickling streams': String(trickles.length),
        'cut 408 max ms': cuts.length ? String(Math.max(...cuts)) : '-',
        'fill streams held/429': `${fill.held}/${fill.refused}`,
        'other queries': String(others.length),
        'others refused': String(refusedOthers.length),
        'others max ms': Math.max(0, ...others.map((a) => a.ms)).toFixed(0),
      });
    } finally {
      await flora.stop();
    }
  },
};

/** A stream's answer, and how long after the stream opened it came whole. */
type Answer = Pick<TimedResponse, 'status' | 'ms' | 'body'>;

function describe(a: Answer & { who: string }): string {
  return `${a.who} ${a.status || 'no answer'} after ${a.ms.toFixed(0)} ms ${a.body.slice(0, 120)}`;
}

/** A cheap query padded to exactly DECLARED bytes. */
export function fullBody(): Buffer {
  const body = Buffer.alloc(DECLARED, 0x20);
  body.write('{"add":[1,2]}');
  return body;
}

function attackHeaders(secret: string): http2.OutgoingHttpHeaders {
  return {
    ':method': 'POST',
    ':path': '/',
    authorization: `Bearer ${secret}`,
    'content-type': 'application/json',
    'content-length': String(DECLARED),
  };
}

/** Resolves with the stream's answer (status 0 without one) and how long after it opened it came whole. */
function outcome(stream: http2.ClientHttp2Stream, opened: number): Promise<Answer> {
  return h2Answer(stream).then(
    (a) => ({ ...a, ms: Date.now() - opened }),
    () => ({ status: 0, ms: Date.now() - opened, body: '' }),
  );
}

/** The attacker's connection. Its own session memory is unbounded: a client with megabytes still to
 *  send would otherwise refuse the server's early answers itself (ENHANCE_YOUR_CALM). */
function connect(url: string): http2.ClientHttp2Session {
  const session = http2.connect(url, { maxSessionMemory: 1 << 20 });
  session.on('error', () => undefined);
  return session;
}

/**
 * `count` streams on one connection, one byte each, each reopened as soon as it ends, for `holdMs`;
 * the streams still open then are reset. The answers of the streams that ended by themselves.
 */
async function trickleStreams(url: string, secret: string, count: number, holdMs: number): Promise<Answer[]> {
  const session = connect(url);
  const ended: Answer[] = [];
  const open = new Set<http2.ClientHttp2Stream>();
  const until = Date.now() + holdMs;
  const lanes: Promise<void>[] = [];
  try {
    for (let i = 0; i < count; i++) {
      lanes.push(
        (async () => {
          while (Date.now() < until && !session.destroyed) {
            const opened = Date.now();
            const stream = session.request(attackHeaders(secret), { endStream: false });
            open.add(stream);
            const answer = outcome(stream, opened);
            stream.write('{');
            const a = await Promise.race([answer, delay(Math.max(0, until - Date.now())).then(() => undefined)]);
            open.delete(stream);
            if (a === undefined) {
              stream.close(http2.constants.NGHTTP2_CANCEL);
              // Open for less than the cut may take: not (yet) a verdict; else never answered.
              const ms = Date.now() - opened;
              if (ms > cutWithinMs()) ended.push({ status: 0, ms, body: '' });
              return;
            }
            ended.push(a);
          }
        })(),
      );
    }
    await Promise.all(lanes);
  } finally {
    for (const s of open) s.close(http2.constants.NGHTTP2_CANCEL);
    session.destroy();
  }
  return ended;
}

/**
 * `count` streams on one connection each send all but one byte of the declared body and stall for
 * `holdMs`, then are reset. How many were still held then, and how many were refused with 429.
 */
async function fillStreams(url: string, secret: string, count: number, holdMs: number): Promise<{ held: number; refused: number }> {
  const session = connect(url);
  const piece = Buffer.alloc(DECLARED - 1, 0x20);
  const streams: http2.ClientHttp2Stream[] = [];
  const answers: Promise<Answer>[] = [];
  let answered = 0;
  try {
    for (let i = 0; i < count; i++) {
      const stream = session.request(attackHeaders(secret), { endStream: false });
      streams.push(stream);
      answers.push(outcome(stream, Date.now()).then((a) => (answered++, a)));
      stream.write(piece);
    }
    await delay(holdMs);
    const held = streams.length - answered;
    for (const s of streams) if (!s.closed) s.close(http2.constants.NGHTTP2_CANCEL);
    const done = await Promise.all(answers.map((a) => Promise.race([a, delay(5_000).then(() => ({ status: 0, ms: holdMs, body: '' }))])));
    return { held, refused: done.filter((a) => a.status === 429).length };
  } finally {
    session.destroy();
  }
}
