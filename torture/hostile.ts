// The torture suite's hostile-input part: `clients` workers send hostile requests (attacks.ts) to
// one real Flora process for `seconds`, while a probe pings it and a sampler reads its memory. Every
// request must be answered below 500 before its deadline; the process must stay up; its memory must
// stay within the configured bound and come back down once the load stops.

import { startFlora, type FloraProcess, type StartOptions } from '../test/helpers/server';
import { prng } from '../test/helpers/prng';
import { drawAttack, fqlAttack, jsonText, SETUP, type Attack, type Target } from './attacks';
import { PingProbe, RssSampler, Sender, type Outcome } from './probes';
import { shrink } from './shrink';
import type { Part } from './part';
import { runTargeted, withTargeted } from './targeted/run';

export interface HostileOptions {
  seconds: number;
  clients: number;
  seed: number;
  /** Extra environment for the server (limits). */
  env?: Record<string, string>;
  /** How long a request may go unanswered before it counts as a hang (ms). */
  deadlineMs?: number;
  /** How long memory is watched after the load, coming back down (ms). */
  settleMs?: number;
  /** Time spent shrinking failures to their shortest reproductions (s); 0 = none. */
  shrinkSeconds?: number;
  /** Prints progress lines. */
  log?: (line: string) => void;
}

export interface Failure {
  attack: Attack;
  outcome: Outcome | { kind: 'crash'; detail: string };
  /** The shortest FQL found that still fails (FQL attacks only). */
  shortest?: string;
}

export interface HostileReport {
  seed: number;
  seconds: number;
  clients: number;
  requests: number;
  byStatus: Map<string, number>;
  byKind: Map<string, number>;
  /** Responses with status >= 500, but for 503 `time out`. */
  errors5xx: number;
  /** 503 `time out`: a query that outlived its own X-Query-Timeout (Fauna's answer; not a fault). */
  timeouts: number;
  hangs: number;
  crashes: number;
  /** Connections closed without an HTTP answer (raw malformed requests). */
  unanswered: number;
  unansweredSamples: { attack: Attack; detail: string }[];
  failures: Failure[];
  pingP50: number;
  pingP99: number;
  pingMax: number;
  pings: number;
  rssIdle: number;
  rssPeak: number;
  rssAfter: number;
}

const QUERY_TIMEOUT_MS = 10_000;

/** RSS a default server may reach under hostile load, and how far above idle it may stay after it. */
export const RSS_BOUND_MB = 1024;
export const RSS_AFTER_SLACK_MB = 256;

/** What a hostile run must show: no 5xx, no hang, no crash, memory bounded and given back. */
export function hostileVerdict(r: HostileReport): string[] {
  const problems: string[] = [];
  if (r.errors5xx) problems.push(`${r.errors5xx} responses >= 500`);
  if (r.hangs) problems.push(`${r.hangs} hangs`);
  if (r.crashes) problems.push(`${r.crashes} crashes`);
  if (r.rssPeak > RSS_BOUND_MB * 1048576) problems.push(`RSS peaked at ${(r.rssPeak / 1048576).toFixed(0)} MB (bound ${RSS_BOUND_MB} MB)`);
  if (!r.crashes && r.rssAfter > r.rssIdle + RSS_AFTER_SLACK_MB * 1048576)
    problems.push(`RSS stayed at ${(r.rssAfter / 1048576).toFixed(0)} MB after the load (idle ${(r.rssIdle / 1048576).toFixed(0)} MB)`);
  return problems;
}

export const hostilePart: Part = {
  name: 'hostile',
  about: 'hostile FQL, GraphQL and HTTP from many clients: no 5xx, hang or crash; memory bounded',
  async run(opts) {
    const report = await runHostile(opts);
    const { row, details } = summarize(report);
    return withTargeted({ row, details, problems: hostileVerdict(report) }, await runTargeted('hostile', { size: 'torture', log: opts.log }));
  },
};

export async function runHostile(opts: HostileOptions): Promise<HostileReport> {
  const log = opts.log ?? (() => undefined);
  // Generous: the load generator shares this machine's cores with the server it saturates.
  const deadlineMs = opts.deadlineMs ?? QUERY_TIMEOUT_MS + 50_000;
  const startOpts: StartOptions = { env: { FLORA_LOG_QUERIES: 'false', ...opts.env } };
  const bodyTimeoutMs = Number(startOpts.env!.FLORA_BODY_TIMEOUT_MS ?? 30_000);
  let srv: FloraProcess = await startFlora(startOpts);
  const target: Target = { secret: srv.secret, queryTimeoutMs: QUERY_TIMEOUT_MS };
  const report: HostileReport = {
    seed: opts.seed, seconds: opts.seconds, clients: opts.clients, requests: 0, byStatus: new Map(), byKind: new Map(),
    errors5xx: 0, timeouts: 0, hangs: 0, crashes: 0, unanswered: 0, unansweredSamples: [], failures: [], pingP50: 0, pingP99: 0, pingMax: 0, pings: 0,
    rssIdle: 0, rssPeak: 0, rssAfter: 0,
  };
  const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const sampler = new RssSampler(() => srv.proc.pid ?? 0);

  try {
    const setup = new Sender(srv.url, deadlineMs, bodyTimeoutMs);
    for (const fql of SETUP) {
      const o = await setup.send(fqlAttack('setup', target, fql));
      if (o.kind !== 'answer' || o.status >= 300) throw new Error(`setup failed: ${JSON.stringify(o).slice(0, 300)}`);
    }
    setup.close();
    report.rssIdle = await settledRss(srv.proc.pid!);
    log(`server ${srv.url} (pid ${srv.proc.pid}), idle RSS ${mb(report.rssIdle)} MB; ${opts.clients} clients for ${opts.seconds} s, seed ${opts.seed}`);

    // A crash ends the run: the requests in flight at that moment are the suspects.
    const inFlight = new Set<Attack>();
    let crashed = false;
    let stopping = false;
    srv.proc.once('exit', (code, signal) => {
      if (stopping) return;
      crashed = true;
      report.crashes++;
      const detail = `exit ${code ?? signal}: ${srv.stderr().slice(-2000)}`;
      for (const attack of inFlight) report.failures.push({ attack, outcome: { kind: 'crash', detail } });
      if (inFlight.size === 0) report.failures.push({ attack: { kind: 'crash' }, outcome: { kind: 'crash', detail } });
    });

    const probe = new PingProbe(srv.url);
    probe.start();
    sampler.start();
    const until = Date.now() + opts.seconds * 1000;
    const rand = prng(opts.seed);
    let nextLog = Date.now() + 5000;

    const worker = async (id: number) => {
      const sender = new Sender(srv.url, deadlineMs, bodyTimeoutMs);
      // Each worker draws from its own stream, so a seed reproduces the same requests per worker.
      const own = prng(opts.seed * 1000 + id + Math.floor(rand() * 1e6));
      while (Date.now() < until && !crashed) {
        const attack = drawAttack(own, target);
        inFlight.add(attack);
        const outcome = await sender.send(attack);
        inFlight.delete(attack);
        if (crashed) break;
        report.requests++;
        count(report.byKind, attack.kind);
        if (outcome.kind === 'answer') {
          count(report.byStatus, `${Math.floor(outcome.status / 100)}xx`);
          if (outcome.status === 429) count(report.byStatus, '429');
          if (outcome.status === 503 && outcome.body.includes('"time out"')) report.timeouts++;
          else if (outcome.status >= 500) {
            report.errors5xx++;
            report.failures.push({ attack, outcome });
          }
        } else if (outcome.kind === 'hang') {
          report.hangs++;
          report.failures.push({ attack, outcome });
        } else {
          report.unanswered++;
          count(report.byStatus, 'closed');
          if (report.unansweredSamples.length < 5) report.unansweredSamples.push({ attack, detail: outcome.detail });
        }
        if (Date.now() > nextLog) {
          nextLog = Date.now() + 5000;
          log(`  ${report.requests} requests, RSS ${mb(sampler.last)} MB (peak ${mb(sampler.peak)}), ping p99 ${probe.percentile(99).toFixed(0)} ms`);
        }
      }
      sender.close();
    };
    await Promise.all(Array.from({ length: opts.clients }, (_, i) => worker(i)));
    probe.stop();
    sampler.stop();
    report.pings = probe.latencies.length;
    report.pingP50 = probe.percentile(50);
    report.pingP99 = probe.percentile(99);
    report.pingMax = probe.percentile(100);
    report.rssPeak = sampler.peak;
    // After the load: memory goes back towards idle as V8 collects and gives pages back.
    report.rssAfter = crashed ? 0 : await settledRss(srv.proc.pid!, opts.settleMs ?? 15_000);

    // Failures shrunk to their shortest form, on the same server (a fresh one after a crash).
    stopping = true;
    if (crashed && report.failures.some((f) => f.attack.fql !== undefined)) srv = await startFlora(startOpts);
    if (crashed) {
      const sender = new Sender(srv.url, deadlineMs, bodyTimeoutMs);
      for (const fql of SETUP) await sender.send(fqlAttack('setup', target, fql));
      sender.close();
    }
    const shrinkUntil = Date.now() + (opts.shrinkSeconds ?? 120) * 1000;
    for (const f of report.failures.slice(0, 3)) {
      if (f.attack.fql === undefined || Date.now() >= shrinkUntil) continue;
      const sender = new Sender(srv.url, deadlineMs, bodyTimeoutMs);
      const fails = async (fql: unknown) => isFailure(await sender.send(fqlAttack(f.attack.kind, target, fql, { http2: f.attack.http?.http2 })));
      // A crash reproduces as a crash: the sender then sees the connection close.
      const reproduces = async (fql: unknown) => (await fails(fql)) || srv.proc.exitCode !== null;
      if (await reproduces(f.attack.fql)) f.shortest = jsonText(await shrink(f.attack.fql, reproduces, 80, shrinkUntil));
      sender.close();
      if (srv.proc.exitCode !== null) srv = await startFlora(startOpts);
    }
  } finally {
    sampler.stop();
    await srv.stop('SIGKILL');
  }
  return report;
}

function isFailure(o: Outcome): boolean {
  return o.kind === 'hang' || (o.kind === 'answer' && o.status >= 500 && !(o.status === 503 && o.body.includes('"time out"')));
}

/** RSS once it stops falling (sampled every 500 ms, at most `maxMs`). */
async function settledRss(pid: number, maxMs = 3000): Promise<number> {
  const sampler = new RssSampler(() => pid);
  let last = sampler.sample();
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = sampler.sample();
    if (now >= last * 0.99 && Date.now() > until - maxMs + 2000) return now;
    last = Math.min(last, now);
  }
  return sampler.sample();
}

export const mb = (bytes: number): string => (bytes / 1048576).toFixed(0);

/** The part's row of the summary table, and the failures with their reproductions. */
export function summarize(r: HostileReport): { row: Record<string, string>; details: string[] } {
  const status = [...r.byStatus].sort().map(([k, n]) => `${k} ${n}`).join(', ');
  const row = {
    seconds: String(r.seconds),
    clients: String(r.clients),
    seed: String(r.seed),
    requests: String(r.requests),
    '>=500': String(r.errors5xx),
    '503 time out': String(r.timeouts),
    hangs: String(r.hangs),
    crashes: String(r.crashes),
    unanswered: String(r.unanswered),
    'ping p50/p99/max ms': `${r.pingP50.toFixed(0)}/${r.pingP99.toFixed(0)}/${r.pingMax.toFixed(0)}`,
    'RSS idle/peak/after MB': `${mb(r.rssIdle)}/${mb(r.rssPeak)}/${mb(r.rssAfter)}`,
  };
  const details = [`hostile: ${status}`, `hostile kinds: ${[...r.byKind].sort().map(([k, n]) => `${k} ${n}`).join(', ')}`];
  for (const u of r.unansweredSamples) {
    const what = u.attack.raw ? JSON.stringify(u.attack.raw.bytes.toString('latin1').slice(0, 120)) + (u.attack.raw.holdMs ? ` (held ${u.attack.raw.holdMs} ms)` : '') : `${u.attack.http?.method} ${u.attack.http?.path}`;
    details.push(`unanswered ${u.attack.kind}: ${u.detail}: ${what}`);
  }
  for (const f of r.failures) {
    const what = f.outcome.kind === 'answer' ? `status ${f.outcome.status}: ${f.outcome.body.slice(0, 300)}` : f.outcome.kind === 'crash' ? `crash: ${f.outcome.detail}` : f.outcome.kind;
    const over = f.attack.http ? (f.attack.http.http2 ? ' (HTTP/2)' : ' (HTTP/1.1)') : '';
    details.push(`FAILURE (seed ${r.seed}) ${f.attack.kind}${over}: ${what}`);
    if (f.shortest) details.push(`  shortest reproduction: curl -s -H 'Authorization: Bearer secret' --data-binary '${f.shortest.slice(0, 2000)}' <url>/`);
    else if (f.attack.http) details.push(`  request: ${f.attack.http.method} ${f.attack.http.path} ${String(f.attack.http.body ?? '').slice(0, 300)}`);
    else if (f.attack.raw) details.push(`  bytes: ${JSON.stringify(f.attack.raw.bytes.toString('latin1').slice(0, 300))}`);
  }
  return { row, details };
}
