// Abandoned queries (issue 30, third row): a client key sends long queries with X-Query-Timeout
// 600000 on one HTTP/2 connection and disconnects after 1.5 s. The server used to evaluate each to
// its end, every turn (--max-concurrent-queries) taken, so that every other client, root included,
// waited in line and got 429 for as long as they ran. Now a query whose client is gone is cancelled
// at its next budget check: right after the disconnect root's queries are answered at once, /ping
// stays prompt, and the process's CPU goes back to idle. A long query answered before the disconnect
// is a violation too: it was never abandoned, and the rest would pass with nothing attacked.
//
// The query (Map over 3,000 Identify calls) is made expensive in compute ops by another fix;
// this one is a plain loop of lambda calls, with the compute limit raised so that it runs for minutes.

import { procCpuSeconds } from '../../bench/procStatus';
import { makeKey, startFlora, timedPost, type RawResponse } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedOptions, type TargetedResult } from './attack';
import { FqlSession, longExpr } from './fqlSession';
import { whilePinging } from './pingWatch';

/** Sizes: the (64 on one connection, the default 64 turns), and npm test's. */
const SIZES = {
  torture: { queries: 64, turns: 64 },
  test: { queries: 8, turns: 4 },
} as const;

/** The client disconnects this long after sending (the 1.5 s). */
const DISCONNECT_AFTER_MS = 1_500;
/** Root's queries after the disconnect must be answered (200) within this. */
const ROOT_PROMPT_MS = 2_000;
/** Root queries sent one after the other right after the disconnect. */
const ROOT_PROBES = 10;
/** The process's CPU, measured over this window once the root probes are done, must be below IDLE_CPU. */
const CPU_WINDOW_MS = 2_000;
const IDLE_CPU = 0.25;

/**
 * Server flags: the compute limit raised so that longQuery runs for minutes, not its 12,000 ops; and
 * no client share of the turns, so that one client key can take every turn: what frees them for
 * others here is cancellation alone (the share is long-queries' matter).
 */
export const LONG_QUERY_FLAGS = ['--compute-ops-limit', '1000000000', '--client-query-share', '1'];

/** longExpr at its default size: minutes of CPU. */
export function longQuery(): string {
  return JSON.stringify(longExpr());
}

/**
 * `n` long queries on one HTTP/2 session with `secret`; the session is destroyed after `afterMs`.
 * Resolves with the answers that came before: a query answered (or refused) that soon was never
 * abandoned while it ran.
 */
async function abandonOnH2(url: string, secret: string, n: number, afterMs: number): Promise<RawResponse[]> {
  const session = new FqlSession(url);
  const body = longQuery();
  const answered: RawResponse[] = [];
  for (let i = 0; i < n; i++) session.post(secret, body, { 'x-query-timeout': '600000' }).then((a) => answered.push(a), () => undefined);
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  const early = [...answered];
  session.destroy();
  return early;
}

async function run(opts: TargetedOptions): Promise<TargetedResult> {
  const size = SIZES[opts.size];
  const flora = await startFlora({ args: [...LONG_QUERY_FLAGS, '--max-concurrent-queries', String(size.turns)] });
  const verdict = new Verdict();
  try {
    const secret = await makeKey(flora, 'client');
    const pid = flora.proc.pid!;
    opts.log(`    ${size.queries} long queries on one HTTP/2 connection (client key, X-Query-Timeout 600000), dropped after ${DISCONNECT_AFTER_MS} ms`);
    // While they run, pings wait for the slices of every one of them (not counted: they are live queries).
    const before = await whilePinging(flora.url, () => abandonOnH2(flora.url, secret, size.queries, DISCONNECT_AFTER_MS), opts.size);
    const { value, ping } = await whilePinging(flora.url, async () => {
      const probes = [];
      for (let i = 0; i < ROOT_PROBES; i++) probes.push(await timedPost(flora.url, flora.secret));
      const cpu0 = procCpuSeconds(pid);
      await new Promise((resolve) => setTimeout(resolve, CPU_WINDOW_MS));
      const cpu = procCpuSeconds(pid) - cpu0;
      return { probes, cpuShare: cpu / (CPU_WINDOW_MS / 1000) };
    }, opts.size);
    const { probes, cpuShare } = value;
    // Else root is prompt and the CPU idle only because nothing long ever ran.
    const early = before.value;
    verdict.fail(early.length, () => `${early.length} of the ${size.queries} long queries answered before their client left, e.g. ${early[0].status} ${early[0].body.slice(0, 120)}: the attack did not run`);
    for (const [i, p] of probes.entries()) {
      verdict.fail(
        p.status !== 200 || p.ms > ROOT_PROMPT_MS,
        `root query ${i + 1} after the disconnect: ${p.status} in ${p.ms.toFixed(0)} ms (must be 200 within ${ROOT_PROMPT_MS} ms): ${p.body.slice(0, 120)}`,
      );
    }
    verdict.fail(cpuShare > IDLE_CPU, `abandoned queries still running: the server used ${(cpuShare * 100).toFixed(0)}% of a core over ${CPU_WINDOW_MS} ms after the root queries`);
    verdict.ping(ping, 'after the disconnect');
    return verdict.result({
      'root max ms': Math.max(...probes.map((p) => p.ms)).toFixed(0),
      'root non-200': String(probes.filter((p) => p.status !== 200).length),
      'CPU after disconnect %': (cpuShare * 100).toFixed(0),
      'ping max ms while they ran': before.ping.maxMs.toFixed(0),
    });
  } finally {
    await flora.stop('SIGKILL');
  }
}

export const abandonedQueries: TargetedAttack = {
  name: 'abandoned-queries',
  part: 'hostile',
  about: 'long client-key queries (X-Query-Timeout 600000) dropped by their client after 1.5 s: cancelled, root answered at once, CPU idle, /ping prompt',
  run,
};
