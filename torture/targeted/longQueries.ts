// Many live long queries at once (issue 30: "a client key can make no other client wait more than a
// fraction of a second"): a client key sends as many CPU-bound queries as the process evaluates at
// once (--max-concurrent-queries, 64 by default) on one HTTP/2 connection and waits for their
// answers. Each query yields the loop every --slice-ms, but their pauses used to be immediates that
// all ran back to back in the next check phase: 64 slices of 10 ms before the loop read a socket again,
// so /ping took ~850 ms for as long as they ran. Now paused work takes turns from one line, one slice
// per turn of the event loop, and the queries that start in one turn share one first slice: /ping
// waits about one slice.
//
// Meanwhile root sends a point query every 100 ms: the client key holds only its share of the turns
// (--client-query-share), so root's queries run at once instead of waiting for one of the 64 to end.
//
// The queries stay within the default compute limit (nested Foreach loops of lambda calls that build
// nothing); what they cost together (the wall time until the last answer) is a figure to compare
// before and after: taking turns must not cost throughput.

import { procCpuSeconds } from '../../bench/procStatus';
import { makeKey, startFlora } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedOptions, type TargetedResult } from './attack';
import { Bystander, FqlSession, longExpr } from './fqlSession';
import { promptPingMs, whilePinging } from './pingWatch';

/** Sizes: the (the default 64 turns, queries of ~0.3 s of CPU each) and npm test's (shorter queries). */
const SIZES = {
  torture: { queries: 64, width: 700, outer: 1 },
  test: { queries: 64, width: 300, outer: 1 },
} as const;

/** Each query must be answered within this (the non-admin timeout cap is 30 s). */
const QUERY_TIMEOUT_MS = 30_000;

interface Answers {
  /** Statuses other than 200, with the start of their body. */
  failures: string[];
  /** Wall time from the first request sent to the last answer. */
  totalMs: number;
}

/** `n` copies of `body` on one HTTP/2 session with `secret`, all in flight at once; resolves when all are answered. */
async function concurrentOnH2(url: string, secret: string, n: number, body: string): Promise<Answers> {
  const session = new FqlSession(url);
  const started = performance.now();
  try {
    const answers = await Promise.all(
      Array.from({ length: n }, () =>
        session.post(secret, body, { 'x-query-timeout': String(QUERY_TIMEOUT_MS) }).then(
          (a) => (a.status === 200 ? undefined : `${a.status}: ${a.body.slice(0, 160)}`),
          (e: Error) => `stream error: ${e.message}`,
        ),
      ),
    );
    return { failures: answers.filter((a): a is string => a !== undefined), totalMs: performance.now() - started };
  } finally {
    session.close();
  }
}

async function run(opts: TargetedOptions): Promise<TargetedResult> {
  const size = SIZES[opts.size];
  const flora = await startFlora();
  const verdict = new Verdict();
  try {
    const secret = await makeKey(flora, 'client');
    const body = JSON.stringify(longExpr(size.width, 2, size.outer));
    // One query alone first: the secret's resolution is cached and the code warm, as on a server
    // that has been up (a cold start's first requests take several times as long).
    const alone = await concurrentOnH2(flora.url, secret, 1, body);
    if (alone.failures.length > 0) throw new Error(`the query alone: ${alone.failures[0]}`);
    const cpu0 = procCpuSeconds(flora.proc.pid!);
    opts.log(`    ${size.queries} CPU-bound queries (${size.outer * size.width ** 2} lambda calls each) at once on one HTTP/2 connection (client key)`);
    const { value, ping } = await whilePinging(
      flora.url,
      async () => {
        const root = new Bystander('root', flora.url, flora.secret);
        const answers = await concurrentOnH2(flora.url, secret, size.queries, body).finally(() => root.stop());
        return { ...answers, root: root.answers };
      },
      opts.size,
    );
    const cpu = procCpuSeconds(flora.proc.pid!) - cpu0;
    const rootMs = value.root.map((a) => a.ms);
    const rootSlow = rootMs.filter((ms) => ms > promptPingMs(opts.size)).length;
    const rootRefused = value.root.filter((a) => a.status !== 200).map((a) => `root: ${a.status || a.body}`);
    verdict.ping(ping, 'while the queries ran');
    verdict.fail(rootSlow, () => `${rootSlow} of root's queries answered after more than ${promptPingMs(opts.size)} ms (max ${Math.max(...rootMs).toFixed(0)} ms)`);
    verdict.fail(rootRefused.length, () => `root's queries refused: ${rootRefused.slice(0, 3).join(', ')}`);
    verdict.fail(value.failures.length, () => `${value.failures.length} queries not answered 200, e.g. ${value.failures[0]}`);
    return verdict.result({
      'ping p99 ms': ping.p99Ms.toFixed(0),
      'pings': String(ping.pings),
      'answered 200': String(size.queries - value.failures.length),
      'root queries': String(rootMs.length),
      'root max ms': Math.max(0, ...rootMs).toFixed(0),
      'one alone ms': alone.totalMs.toFixed(0),
      [`${size.queries} at once ms`]: value.totalMs.toFixed(0),
      'server CPU s': cpu.toFixed(1),
    });
  } finally {
    await flora.stop('SIGKILL');
  }
}

export const longQueries: TargetedAttack = {
  name: 'long-queries',
  part: 'hostile',
  about: "64 live CPU-bound client-key queries at once: /ping and root's queries stay prompt, every query answered",
  run,
};
