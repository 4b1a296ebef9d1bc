// Closed-loop load for the overload part: each client sends a query, waits for its answer and sends
// the next, until the load is stopped. Even clients speak HTTP/1.1 on a keep-alive connection of
// their own; odd ones HTTP/2, sharing a session per H2_CLIENTS_PER_SESSION (as the driver multiplexes
// its queries on one session). Every answer is classified (answers.ts); the latency of each is kept.
// A refused client waits what Retry-After says (give or take half, so they do not come back all at
// once), but one in IMPATIENT_EVERY retries almost at once: the server must stay responsive to a
// retry storm too. The generator's own event-loop delay is measured: latencies include it.

import * as http from 'node:http';
import * as http2 from 'node:http2';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { classifyAnswer, type Verdict, VERDICTS } from './answers';

/** HTTP/2 clients sharing one session. */
const H2_CLIENTS_PER_SESSION = 50;
/** Answers of each kind (but ok) kept as examples for the report. */
const SAMPLES_PER_VERDICT = 3;
/** One client in this many ignores Retry-After. */
const IMPATIENT_EVERY = 10;
/** How long an impatient client, or one refused without a Retry-After, waits before it retries (ms). */
const IMPATIENT_MS = 10;

export interface LoadOptions {
  url: string;
  secret: string;
  clients: number;
  /** How long the clients keep sending. */
  seconds: number;
  /** A request unanswered this long is a hang (ms). */
  deadlineMs: number;
  /** The body of client `client`'s next query (FQL v4 wire JSON). */
  nextQuery: (client: number) => string;
  /** Random numbers in [0, 1) (the back-off jitter). */
  rand: () => number;
  /** Every client on this protocol (default: even clients HTTP/1.1, odd ones HTTP/2). */
  protocol?: 'h1' | 'h2';
  /** One client in this many ignores Retry-After (default IMPATIENT_EVERY). */
  impatientEvery?: number;
}

export interface LoadResult {
  clients: number;
  /** Wall time the load ran (s). */
  elapsed: number;
  counts: Record<Verdict, number>;
  /** Latency of each success (ms), in completion order. */
  okMs: number[];
  /** The same over each protocol. */
  okMsBy: { h1: number[]; h2: number[] };
  /** How long the server says it evaluated each success (x-query-time, ms). */
  okQueryMs: number[];
  /** Latency of each 429 (ms): how long a refusal took. */
  refusedMs: number[];
  samples: { verdict: Verdict; detail: string }[];
  /** The generator's event-loop delay, p99 and max (ms): how late it may have read an answer. */
  lagP99: number;
  lagMax: number;
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  /** x-query-time: how long the server evaluated it (ms). */
  queryMs: number;
  body: string;
}

type Sent = { kind: 'answer'; answer: Answer } | { kind: 'reset'; detail: string } | { kind: 'hang'; detail: string };

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const result: LoadResult = {
    clients: opts.clients,
    elapsed: 0,
    counts: Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>,
    okMs: [],
    okMsBy: { h1: [], h2: [] },
    okQueryMs: [],
    refusedMs: [],
    samples: [],
    lagP99: 0,
    lagMax: 0,
  };
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  // Every client keeps its connection between queries, as a real keep-alive client does.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: Infinity });
  const sessions: http2.ClientHttp2Session[] = [];
  const headers = {
    authorization: `Bearer ${opts.secret}`,
    'content-type': 'application/json',
    'x-faunadb-api-version': '4',
  };
  const started = performance.now();
  const until = started + opts.seconds * 1000;

  const sessionFor = (client: number): http2.ClientHttp2Session => {
    const i = Math.floor(client / (opts.protocol ? 1 : 2) / H2_CLIENTS_PER_SESSION);
    let s = sessions[i];
    if (!s || s.closed || s.destroyed) {
      s = sessions[i] = http2.connect(opts.url);
      s.on('error', () => undefined); // each stream reports its own failure
    }
    return s;
  };

  const client = async (id: number) => {
    const overH1 = opts.protocol ? opts.protocol === 'h1' : id % 2 === 0;
    while (performance.now() < until) {
      const body = opts.nextQuery(id);
      const t0 = performance.now();
      const sent = overH1 ? await h1(opts, agent, headers, body) : await h2(opts, sessionFor(id), headers, body);
      const ms = performance.now() - t0;
      const { verdict, detail } = verdictOf(sent, opts.deadlineMs);
      result.counts[verdict]++;
      if (verdict === 'ok') {
        result.okMs.push(ms);
        result.okMsBy[overH1 ? 'h1' : 'h2'].push(ms);
        if (sent.kind === 'answer') result.okQueryMs.push(sent.answer.queryMs);
      }
      else {
        if (verdict === '429') result.refusedMs.push(ms);
        if (result.samples.filter((s) => s.verdict === verdict).length < SAMPLES_PER_VERDICT)
          result.samples.push({ verdict, detail: `${overH1 ? 'HTTP/1.1' : 'HTTP/2'} at ${((t0 - started) / 1000).toFixed(1)} s: ${detail}` });
        const wait = Math.min(backOffMs(sent, id % (opts.impatientEvery ?? IMPATIENT_EVERY) === 0, opts.rand), until - performance.now());
        if (verdict !== 'hang' && wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, (_, i) => client(i)));
  result.elapsed = (performance.now() - started) / 1000;
  lag.disable();
  result.lagP99 = lag.percentile(99) / 1e6;
  result.lagMax = lag.max / 1e6;
  agent.destroy();
  for (const s of sessions) s?.close();
  return result;
}

function verdictOf(sent: Sent, deadlineMs: number): { verdict: Verdict; detail: string } {
  if (sent.kind === 'answer') return classifyAnswer(sent.answer.status, sent.answer.retryAfter, sent.answer.body);
  if (sent.kind === 'reset') return { verdict: 'reset', detail: sent.detail };
  return { verdict: 'hang', detail: `no answer in ${deadlineMs} ms (${sent.detail})` };
}

/** How long a refused client waits before its next query (ms). */
function backOffMs(sent: Sent, impatient: boolean, rand: () => number): number {
  const seconds = sent.kind === 'answer' ? Number(sent.answer.retryAfter) : NaN;
  if (impatient || !(seconds > 0)) return IMPATIENT_MS;
  return seconds * 1000 * (0.5 + rand());
}

function h1(opts: LoadOptions, agent: http.Agent, headers: Record<string, string>, body: string): Promise<Sent> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (s: Sent) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(s);
    };
    const req = http.request(new URL('/', opts.url), { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ kind: 'answer', answer: { status: res.statusCode ?? 0, retryAfter: header(res.headers['retry-after']), queryMs: Number(res.headers['x-query-time'] ?? 0), body: Buffer.concat(chunks).toString('utf8') } }));
      res.on('error', (e) => done({ kind: 'reset', detail: e.message }));
    });
    const timer = setTimeout(() => {
      // Where it stuck: a connection never accepted is the server's backlog, not its queries.
      const where = !req.socket ? 'no socket' : req.socket.connecting ? 'connection not established' : req.reusedSocket ? 'on a reused connection' : 'on a new connection';
      done({ kind: 'hang', detail: where });
      req.destroy();
    }, opts.deadlineMs);
    req.on('error', (e) => done({ kind: 'reset', detail: e.message }));
    req.end(body);
  });
}

function h2(opts: LoadOptions, session: http2.ClientHttp2Session, headers: Record<string, string>, body: string): Promise<Sent> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (s: Sent) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(s);
    };
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request({ ':method': 'POST', ':path': '/', ...headers });
    } catch (e) {
      resolve({ kind: 'reset', detail: (e as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      done({ kind: 'hang', detail: 'HTTP/2 stream' });
      stream.close(http2.constants.NGHTTP2_CANCEL);
    }, opts.deadlineMs);
    let status = 0;
    let retryAfter: string | undefined;
    let queryMs = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      retryAfter = header(h['retry-after']);
      queryMs = Number(h['x-query-time'] ?? 0);
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () =>
      done(status ? { kind: 'answer', answer: { status, retryAfter, queryMs, body: Buffer.concat(chunks).toString('utf8') } } : { kind: 'reset', detail: 'stream ended without headers' }),
    );
    stream.on('error', (e) => done({ kind: 'reset', detail: e.message }));
    stream.on('close', () => done({ kind: 'reset', detail: `stream closed (code ${stream.rstCode}) without an answer` }));
    stream.end(body);
  });
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The p-th percentile (0–100) of `xs` (ms); 0 for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
