// The torture suite's fuzz part: hostile input at volume. `clients` senders keep one HTTP/1.1
// keep-alive connection or HTTP/2 session each and send small, grammar-aware inputs as fast as the
// server answers: FQL over the wire format (fuzzFql.ts), GraphQL drawn from the imported schema's
// introspection (fuzzGraphql.ts), and HTTP itself (fuzzHttp.ts). Meanwhile 1,000 idle connections
// are held open, slow clients trickle and stall (connections.ts), a probe pings the server and a
// sampler reads its memory. Every answer must be below 500 (but for 503 `time out`) and well formed
// (responseShape.ts); nothing may hang or crash the server; memory must stay bounded and come back
// down; the idle connections must be closed at the server's idle timeout and no descriptor leak.

import { startFlora, type FloraProcess } from '../test/helpers/server';
import { prng } from '../test/helpers/prng';
import type { Attack } from './attacks';
import { fdCount, IdleConnections, slowClient, type SlowOutcome } from './connections';
import { drawFql, FQL_SETUP, type Rand } from './fuzzFql';
import { drawGraphql, FUZZ_SDL, GRAPHQL_SETUP, INTROSPECTION, schemaOf, type GraphqlSchema } from './fuzzGraphql';
import { drawHttp } from './fuzzHttp';
import { mb, RSS_AFTER_SLACK_MB, RSS_BOUND_MB } from './hostile';
import type { Part, PartOptions, PartResult } from './part';
import { MemorySampler, settledMemory, type Memory } from './memory';
import { PingProbe, Sender, type Outcome } from './probes';
import { judge, type Dialect } from './responseShape';
import { shrink } from './shrink';
import { wireText } from './wireText';

export interface FuzzOptions extends PartOptions {
  /** Idle connections held open during the run (default 1000). */
  idle?: number;
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** Time spent shrinking failures (s; default 60). */
  shrinkSeconds?: number;
  /** How long memory may take to come back down after the load (ms; default 120 s). */
  settleMs?: number;
}

/** Server settings for the run: short body and idle timeouts, so slow and idle clients cycle within it. */
const DEFAULT_ENV = { FLORA_LOG_QUERIES: 'false', FLORA_BODY_TIMEOUT_MS: '5000', FLORA_IDLE_TIMEOUT_MS: '15000' };
const QUERY_TIMEOUT_MS = 10_000;
/** A request unanswered this long is a hang (generous: the fuzzer shares the machine's cores). */
const DEADLINE_MS = QUERY_TIMEOUT_MS + 50_000;
/** Descriptors the server may hold after the run beyond those it held before (log files, timers). */
const FD_SLACK = 10;
/** Slowest ping allowed while the fuzzer runs (generous: the machine is shared; typical p99 is ~200 ms). */
const PING_BOUND_MS = 10_000;
const NO_MEMORY: Memory = { rss: 0, anon: 0 };

type Lane = 'fql' | 'graphql' | 'http';

interface Input {
  lane: Lane;
  kind: string;
  attack: Attack;
  /** The FQL expression, for shrinking. */
  fql?: unknown;
}

export interface FuzzFailure {
  input: Input;
  what: string;
  /** The shortest input found that still fails. */
  shortest?: string;
}

export interface FuzzReport {
  seed: number;
  seconds: number;
  clients: number;
  inputs: Record<Lane, number>;
  slow: number;
  elapsedMs: number;
  byOutcome: Map<string, number>;
  errors5xx: number;
  timeouts: number;
  hangs: number;
  crashes: number;
  malformed: number;
  /** Requests over a kept connection that ended without an answer. */
  dropped: number;
  /** Requests sent again because their kept connection closed as they went out. */
  resent: number;
  resentSamples: string[];
  /** Raw malformed HTTP closed without an answer (allowed: counted). */
  rawClosed: number;
  failures: FuzzFailure[];
  idleHeld: number;
  idleReopened: number;
  idleLeftOpen: number;
  fdsBefore: number;
  fdsAfter: number;
  /** Resident memory (all, and anonymous: see memory.ts) when idle, at the peak, and after the load. */
  memIdle: Memory;
  memPeak: Memory;
  memAfter: Memory;
  pingP99: number;
  pingMax: number;
  /** Pings that failed or took over 30 s. */
  pingFailures: number;
}

export const fuzzPart: Part = {
  name: 'fuzz',
  about: 'grammar-aware FQL, GraphQL and HTTP fuzzing at volume, 1,000 idle connections, slow clients: no 5xx, malformed error, hang, crash or leak',
  async run(opts) {
    return fuzzResult(await runFuzz(opts));
  },
};

export function fuzzResult(r: FuzzReport): PartResult {
  return { ...summarizeFuzz(r), problems: fuzzVerdict(r) };
}

/** What a fuzz run must show: every must-be-0 figure at 0, memory bounded and given back, no leak. */
export function fuzzVerdict(r: FuzzReport): string[] {
  const problems: string[] = [];
  if (r.errors5xx) problems.push(`${r.errors5xx} responses >= 500`);
  if (r.malformed) problems.push(`${r.malformed} malformed answers (not JSON, not in Fauna's shape, or a description that leaks internals)`);
  if (r.hangs) problems.push(`${r.hangs} hangs`);
  if (r.crashes) problems.push(`${r.crashes} crashes`);
  if (r.dropped) problems.push(`${r.dropped} requests dropped without an answer`);
  if (r.pingFailures || r.pingMax > PING_BOUND_MS) problems.push(`the ping probe: ${r.pingFailures} failed, slowest ${r.pingMax.toFixed(0)} ms (bound ${PING_BOUND_MS} ms)`);
  if (r.idleLeftOpen) problems.push(`${r.idleLeftOpen} idle connections still open after the idle timeout`);
  if (!r.crashes && r.fdsAfter > r.fdsBefore + FD_SLACK) problems.push(`file descriptors: ${r.fdsBefore} before, ${r.fdsAfter} after`);
  if (r.memPeak.rss > RSS_BOUND_MB * 1048576) problems.push(`RSS peaked at ${mb(r.memPeak.rss)} MB (bound ${RSS_BOUND_MB} MB)`);
  if (!r.crashes && r.memAfter.anon > r.memIdle.anon + RSS_AFTER_SLACK_MB * 1048576)
    problems.push(`anonymous memory stayed at ${mb(r.memAfter.anon)} MB after the load (idle ${mb(r.memIdle.anon)} MB)`);
  return problems;
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const log = opts.log;
  const env = { ...DEFAULT_ENV, ...opts.env };
  const bodyTimeoutMs = Number(env.FLORA_BODY_TIMEOUT_MS);
  const idleTimeoutMs = Number(env.FLORA_IDLE_TIMEOUT_MS);
  const srv = await startFlora({ env });
  let restarted: FloraProcess | undefined;
  const report: FuzzReport = {
    seed: opts.seed, seconds: opts.seconds, clients: opts.clients, inputs: { fql: 0, graphql: 0, http: 0 }, slow: 0, elapsedMs: 0,
    byOutcome: new Map(), errors5xx: 0, timeouts: 0, hangs: 0, crashes: 0, malformed: 0, dropped: 0, resent: 0, resentSamples: [], rawClosed: 0, failures: [],
    idleHeld: 0, idleReopened: 0, idleLeftOpen: 0, fdsBefore: 0, fdsAfter: 0, memIdle: NO_MEMORY, memPeak: NO_MEMORY, memAfter: NO_MEMORY, pingP99: 0, pingMax: 0, pingFailures: 0,
  };
  const sampler = new MemorySampler(() => srv.proc.pid ?? 0);
  const idle = new IdleConnections(srv.url, opts.idle ?? 1000);
  const fail = (input: Input, what: string) => {
    if (report.failures.length < 200) report.failures.push({ input, what });
    // Shown as they happen too: a long run's failures can be looked at before it ends.
    if (report.failures.length <= 20) log(`  failure: ${input.lane}/${input.kind}: ${what.slice(0, 300)}`);
  };
  try {
    const schema = await setUp(srv);
    const pid = srv.proc.pid!;
    // Idle: once the setup's garbage is collected (at most 5 s).
    report.memIdle = await settledMemory(pid, 0, 5000);
    report.fdsBefore = fdCount(pid);
    log(`server ${srv.url} (pid ${pid}), idle RSS ${mb(report.memIdle.rss)} MB (anonymous ${mb(report.memIdle.anon)}), ${report.fdsBefore} fds; ${opts.clients} clients for ${opts.seconds} s, seed ${opts.seed}`);

    await idle.start();
    report.idleHeld = idle.size;
    log(`  ${idle.size} idle connections open (${idle.failed} failed), server fds ${fdCount(pid)}`);

    const inFlight = new Set<Input>();
    let crashed = false;
    let stopping = false;
    srv.proc.once('exit', (code, signal) => {
      if (stopping) return;
      crashed = true;
      report.crashes++;
      const detail = `crash (exit ${code ?? signal}): ${srv.stderr().slice(-2000)}`;
      for (const input of inFlight) fail(input, detail);
    });

    const probe = new PingProbe(srv.url, 100);
    probe.start();
    sampler.start(250);
    const started = Date.now();
    const until = started + opts.seconds * 1000;
    let nextLog = started + 10_000;
    const count = (k: string) => report.byOutcome.set(k, (report.byOutcome.get(k) ?? 0) + 1);
    const progress = () => {
      if (Date.now() < nextLog) return;
      nextLog = Date.now() + 10_000;
      const n = report.inputs.fql + report.inputs.graphql + report.inputs.http;
      log(`  ${n} inputs (${Math.round(n / ((Date.now() - started) / 1000))}/s), ${report.failures.length} failures, RSS ${mb(sampler.last.rss)} MB (anonymous ${mb(sampler.last.anon)}, peak ${mb(sampler.peak.rss)}), ping p99 ${probe.percentile(99).toFixed(0)} ms, idle ${idle.size}`);
    };

    const sender = async (id: number) => {
      const rand = prng(opts.seed * 1000 + id);
      let send = new Sender(srv.url, DEADLINE_MS, bodyTimeoutMs);
      const http2 = id % 2 === 1; // half the senders on HTTP/2 sessions, half on HTTP/1.1 keep-alive
      while (Date.now() < until && !crashed) {
        const input = draw(rand, srv.secret, schema, http2);
        inFlight.add(input);
        let outcome: Outcome;
        try {
          outcome = await send.send(input.attack);
          if (outcome.kind === 'closed' && !input.attack.raw) {
            // A kept connection the server closed as the request went out (the keep-alive race every
            // HTTP client knows): sent again once on a fresh one, it must be answered.
            report.resent++;
            if (report.resentSamples.length < 5) report.resentSamples.push(`${input.kind}${http2 ? ' (HTTP/2)' : ''}: ${outcome.detail}`);
            send.close();
            send = new Sender(srv.url, DEADLINE_MS, bodyTimeoutMs);
            outcome = await send.send(input.attack);
          }
        } catch (e) {
          // The client library refused the request: it never reached the server.
          inFlight.delete(input);
          count(`${input.lane} unsendable: ${(e as Error).message.slice(0, 60)}`);
          continue;
        }
        inFlight.delete(input);
        if (crashed) break;
        report.inputs[input.lane]++;
        const verdict = assess(input, outcome);
        count(`${input.lane} ${verdict.outcome}`);
        if (verdict.kind === '5xx') report.errors5xx++;
        else if (verdict.kind === 'timeout') report.timeouts++;
        else if (verdict.kind === 'hang') report.hangs++;
        else if (verdict.kind === 'malformed') report.malformed++;
        else if (verdict.kind === 'dropped') report.dropped++;
        else if (verdict.kind === 'raw closed') report.rawClosed++;
        if (verdict.problem) fail(input, verdict.problem);
        progress();
      }
      send.close();
    };

    const slowLane = async (id: number) => {
      const rand = prng(opts.seed * 7919 + id);
      while (Date.now() < until && !crashed) {
        const o: SlowOutcome = await slowClient(srv.url, srv.secret, bodyTimeoutMs, rand);
        if (crashed) break;
        report.slow++;
        count(`slow ${o.kind} ${o.status}`);
        if (o.problem) {
          if (o.problem.startsWith('status 5')) report.errors5xx++;
          else if (o.problem.startsWith('no answer')) report.hangs++;
          else report.malformed++;
          const input: Input = { lane: 'http', kind: `slow-${o.kind}`, attack: { kind: `slow-${o.kind}` } };
          fail(input, `${o.problem} (after ${o.ms} ms)`);
        }
      }
    };

    const slowLanes = Math.max(2, Math.floor(opts.clients / 4));
    await Promise.all([...Array.from({ length: opts.clients }, (_, i) => sender(i)), ...Array.from({ length: slowLanes }, (_, i) => slowLane(i))]);
    report.elapsedMs = Date.now() - started;
    probe.stop();
    sampler.stop();
    report.pingP99 = probe.percentile(99);
    report.pingMax = probe.percentile(100);
    report.pingFailures = probe.failures;
    report.memPeak = sampler.peak;
    report.idleReopened = idle.reopened;
    stopping = true;
    if (!crashed) {
      // The server, not the client, must close what is left idle.
      report.idleLeftOpen = await idle.release(idleTimeoutMs + 15_000);
      log(`  idle connections left open ${idle.reopened ? `(reopened ${idle.reopened} during the run) ` : ''}after the idle timeout: ${report.idleLeftOpen}`);
      report.memAfter = await settledMemory(pid, report.memIdle.anon + RSS_AFTER_SLACK_MB * 1048576, opts.settleMs ?? 120_000);
      report.fdsAfter = await settledFds(pid, report.fdsBefore + FD_SLACK);
    }
    idle.destroy();
    // After a crash, shrinking runs on a server restarted over the same data (its schema is there).
    if (crashed) restarted = await startFlora({ env, dataDir: srv.dataDir });
    await shrinkFailures(report, restarted ?? srv, opts.shrinkSeconds ?? 60);
  } finally {
    idle.destroy();
    sampler.stop();
    await restarted?.stop('SIGKILL');
    await srv.stop('SIGKILL');
  }
  return report;
}

/** The schema the inputs refer to, and the GraphQL schema as its introspection describes it. */
async function setUp(srv: FloraProcess): Promise<GraphqlSchema> {
  const send = new Sender(srv.url, DEADLINE_MS);
  const must = async (attack: Attack, what: string) => {
    const o = await send.send(attack);
    if (o.kind !== 'answer' || o.status >= 300) throw new Error(`setup (${what}) failed: ${JSON.stringify(o).slice(0, 400)}`);
    return o.body;
  };
  try {
    const auth = { authorization: `Bearer ${srv.secret}` };
    for (const fql of FQL_SETUP) await must(fqlAttack(srv.secret, fql, false), wireText(fql).slice(0, 80));
    await must({ kind: 'setup', http: { method: 'POST', path: '/import', headers: auth, body: FUZZ_SDL } }, 'import');
    for (const fql of GRAPHQL_SETUP) await must(fqlAttack(srv.secret, fql, false), wireText(fql).slice(0, 80));
    const body = await must({ kind: 'setup', http: { method: 'POST', path: '/graphql', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: INTROSPECTION }) } }, 'introspection');
    return schemaOf(JSON.parse(body));
  } finally {
    send.close();
  }
}

function fqlAttack(secret: string, fql: unknown, http2: boolean): Attack {
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-query-timeout': String(QUERY_TIMEOUT_MS) };
  return { kind: 'fql', fql, http: { method: 'POST', path: '/', headers, body: wireText(fql), http2 } };
}

/** One input: 75% FQL, 15% GraphQL, 10% HTTP. */
function draw(rand: Rand, secret: string, schema: GraphqlSchema, http2: boolean): Input {
  const roll = rand();
  if (roll < 0.75) {
    const { kind, fql } = drawFql(rand);
    return { lane: 'fql', kind, attack: fqlAttack(secret, fql, http2), fql };
  }
  if (roll < 0.9) {
    const { kind, body } = drawGraphql(rand, schema);
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    return { lane: 'graphql', kind, attack: { kind, http: { method: 'POST', path: '/graphql', headers, body, http2 } } };
  }
  const attack = drawHttp(rand, secret);
  if (attack.http) {
    attack.http.http2 = http2;
    // Headers HTTP/2 forbids are refused by the client before they reach the server.
    if (http2) for (const h of H1_ONLY_HEADERS) delete attack.http.headers[h];
    // Node's HTTP/2 client ends GET, HEAD and DELETE streams with their headers: no body can follow.
    if (http2 && ['GET', 'HEAD', 'DELETE'].includes(attack.http.method)) attack.http.body = undefined;
  }
  return { lane: 'http', kind: attack.kind, attack };
}

const H1_ONLY_HEADERS = ['connection', 'upgrade', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'expect', 'host'];

interface Assessment {
  kind: 'ok' | '5xx' | 'timeout' | 'hang' | 'malformed' | 'dropped' | 'raw closed';
  outcome: string;
  problem?: string;
}

function assess(input: Input, o: Outcome): Assessment {
  if (o.kind === 'hang') return { kind: 'hang', outcome: 'hang', problem: `no answer within ${DEADLINE_MS} ms` };
  if (o.kind === 'closed') {
    if (input.attack.raw) return { kind: 'raw closed', outcome: 'closed' };
    return { kind: 'dropped', outcome: 'dropped', problem: `connection ended without an answer: ${o.detail}` };
  }
  if (o.status === 503 && o.body.includes('"time out"')) return { kind: 'timeout', outcome: 'time out' };
  if (o.status >= 500) return { kind: '5xx', outcome: String(o.status), problem: `status ${o.status}: ${o.body.slice(0, 500)}` };
  // HEAD answers and GOAWAYs have no body to judge; 204/304 neither.
  if (input.attack.http?.method === 'HEAD' || o.body === 'GOAWAY' || o.status === 204) return { kind: 'ok', outcome: String(o.status) };
  // Raw bytes may carry several pipelined requests: their status is judged, not the bodies run together.
  if (input.attack.raw) return { kind: 'ok', outcome: String(o.status) };
  const path = input.attack.http?.path ?? '/';
  const dialect: Dialect = path.startsWith('/graphql') ? 'graphql' : path.startsWith('/api/v1/logs') ? 'logs' : input.lane === 'fql' ? 'fql' : 'http';
  if (dialect === 'http' && isPlainTextAnswer(input, o)) return { kind: 'ok', outcome: String(o.status) };
  const request = typeof input.attack.http?.body === 'string' ? input.attack.http.body : (input.attack.http?.body?.toString('latin1') ?? '') + (input.attack.http?.path ?? '');
  const v = judge(dialect, o.status, o.body, request + JSON.stringify(input.attack.http?.headers ?? {}));
  return v.problem ? { kind: 'malformed', outcome: v.outcome, problem: v.problem } : { kind: 'ok', outcome: v.outcome };
}

/** Answers that are documented as text: /ping, /import (GraphQL's text/plain messages). */
function isPlainTextAnswer(input: Input, o: Outcome & { kind: 'answer' }): boolean {
  const path = input.attack.http?.path ?? '';
  return (path.startsWith('/ping') && o.status < 400) || (path.startsWith('/import') && !o.body.startsWith('{'));
}

/** Shrinks the first failures of each kind to their shortest reproductions. */
async function shrinkFailures(report: FuzzReport, srv: FloraProcess, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  const seen = new Set<string>();
  for (const f of report.failures) {
    if (Date.now() >= until) return;
    if (f.input.fql === undefined || seen.has(f.input.kind)) continue;
    seen.add(f.input.kind);
    const http2 = f.input.attack.http?.http2 ?? false;
    // Each attempt on a fresh connection: one a failure left broken must not make every candidate fail.
    const fails = async (fql: unknown) => {
      const send = new Sender(srv.url, DEADLINE_MS);
      const attack = fqlAttack(srv.secret, fql, http2);
      const o = await send.send(attack);
      send.close();
      return srv.proc.exitCode !== null || assess({ ...f.input, fql, attack }, o).problem !== undefined;
    };
    try {
      if (await fails(f.input.fql)) f.shortest = wireText(await shrink(f.input.fql, fails, 150, until));
    } catch {
      // A tree too deep to walk: its full text is the reproduction.
    }
    if (srv.proc.exitCode !== null) return;
  }
}

/** The server's descriptor count once it is at most `target`, or after 10 s. */
async function settledFds(pid: number, target: number): Promise<number> {
  const until = Date.now() + 10_000;
  while (fdCount(pid) > target && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  return fdCount(pid);
}

const rate = (r: FuzzReport): number => (r.inputs.fql + r.inputs.graphql + r.inputs.http) / Math.max(1, r.elapsedMs / 1000);

/** The row of the summary table, and the failures with their reproductions. */
export function summarizeFuzz(r: FuzzReport): { row: Record<string, string>; details: string[] } {
  const total = r.inputs.fql + r.inputs.graphql + r.inputs.http;
  const perSecond = rate(r);
  const row = {
    seconds: String(r.seconds),
    clients: String(r.clients),
    seed: String(r.seed),
    'inputs FQL/GraphQL/HTTP/slow': `${r.inputs.fql}/${r.inputs.graphql}/${r.inputs.http}/${r.slow}`,
    'inputs/s': perSecond.toFixed(0),
    '1M inputs in': perSecond ? `${(1e6 / perSecond / 60).toFixed(0)} min` : '-',
    '>=500': String(r.errors5xx),
    '503 time out': String(r.timeouts),
    crashes: String(r.crashes),
    hangs: String(r.hangs),
    malformed: String(r.malformed),
    dropped: String(r.dropped),
    'idle held': `${r.idleHeld}`,
    'fds before/after': `${r.fdsBefore}/${r.fdsAfter}`,
    'RSS idle/peak/after MB': `${mb(r.memIdle.rss)}/${mb(r.memPeak.rss)}/${mb(r.memAfter.rss)}`,
    'anon idle/peak/after MB': `${mb(r.memIdle.anon)}/${mb(r.memPeak.anon)}/${mb(r.memAfter.anon)}`,
    'ping p99/max ms': `${r.pingP99.toFixed(0)}/${r.pingMax.toFixed(0)}`,
  };
  const top = [...r.byOutcome].sort((a, b) => b[1] - a[1]);
  const details = [
    `fuzz: ${total} inputs in ${(r.elapsedMs / 1000).toFixed(0)} s; raw malformed HTTP closed without an answer: ${r.rawClosed}; requests sent again after their kept connection closed: ${r.resent}; idle connections reopened during the run: ${r.idleReopened}`,
    ...r.resentSamples.map((s) => `sent again: ${s}`),
    `fuzz outcomes: ${top.map(([k, n]) => `${k} ${n}`).join(', ')}`,
  ];
  for (const f of r.failures.slice(0, 20)) {
    details.push(`FAILURE (seed ${r.seed}) ${f.input.lane}/${f.input.kind}${f.input.attack.http?.http2 ? ' (HTTP/2)' : ''}: ${f.what.slice(0, 600)}`);
    if (f.shortest !== undefined) details.push(`  shortest reproduction: curl -s -H 'Authorization: Bearer secret' --data-binary '${f.shortest.slice(0, 2000)}' <url>/`);
    else if (f.input.attack.http) {
      const h = f.input.attack.http;
      const body = typeof h.body === 'string' ? h.body : h.body ? `<${h.body.length} bytes: ${JSON.stringify(h.body.toString('latin1').slice(0, 200))}>` : '';
      details.push(`  request: ${h.method} ${h.path} ${JSON.stringify(h.headers)} ${body.slice(0, 1500)}`);
    } else if (f.input.attack.raw) details.push(`  bytes: ${JSON.stringify(f.input.attack.raw.bytes.toString('latin1').slice(0, 300))}`);
  }
  if (r.failures.length > 20) details.push(`  … and ${r.failures.length - 20} more failures`);
  return { row, details };
}
