// Row 2 of issue 30: BCrypt through queries. A client key sends one Map of Identify over 3,000
// wrong passwords, then one over 2,000 candidate passwords (the right one among them), each with
// X-Query-Timeout: 600000. Every BCrypt run is charged 1,000 compute ops (model/secrets.ts), so a
// query stops after about ten with 400 `bad request` (too much compute), or sooner with 429 once the
// identity's failed-login allowance is spent. Violations: a query answered anything else, one that
// made more than a handful of BCrypt runs (estimated from the server's CPU against one Identify's), a
// password found, a slow ping.

import { makeKey, startFlora } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedResult } from './attack';
import { whilePinging } from './pingWatch';
import { cpuMs, createUsers, docRef, firstError, FqlSession, PASSWORD } from './fqlSession';

/** More BCrypt runs than this in one query is a violation (the charge allows about ten). */
const HANDFUL = 30;

export const bcryptQuery: TargetedAttack = {
  name: 'bcrypt-query',
  part: 'hostile',
  about: 'a client key maps Identify over 3,000 wrong / 2,000 candidate passwords in one query: a handful of BCrypt runs per query, no password found, /ping prompt',
  async run({ size, log }): Promise<TargetedResult> {
    const wrong = size === 'torture' ? 3000 : 300;
    const candidates = size === 'torture' ? 2000 : 200;
    const flora = await startFlora();
    const session = new FqlSession(flora.url);
    const verdict = new Verdict();
    try {
      // Every thread's CPU (BCrypt runs on libuv's pool, not the main thread), in ms.
      const pid = flora.proc.pid!;
      await createUsers(session, flora.secret, ['1', '2', '3']);
      const key = await makeKey(flora, 'client');
      const client = (body: unknown) => session.post(key, body, { 'x-query-timeout': '600000' });

      // One Identify's CPU, from right passwords (a success takes no failed-login allowance).
      const rounds = 20;
      const before = cpuMs(pid);
      for (let i = 0; i < rounds; i++) await client({ identify: docRef('users', '3'), password: PASSWORD });
      const perIdentify = Math.max(0.5, (cpuMs(pid) - before) / rounds);

      const { value, ping } = await whilePinging(flora.url, async () => {
        const mapWrong = { map: { lambda: 'x', expr: { identify: docRef('users', '1'), password: 'wrong' } }, collection: Array.from({ length: wrong }, (_, i) => i) };
        const list = Array.from({ length: candidates }, (_, i) => `guess-${i}`);
        list[Math.floor(candidates * 0.75)] = PASSWORD;
        const mapGuess = {
          map: { lambda: 'p', expr: { if: { identify: docRef('users', '2'), password: { var: 'p' } }, then: { var: 'p' }, else: null } },
          collection: list,
        };
        const out = [];
        for (const [label, body] of [[`Identify × ${wrong} wrong`, mapWrong], [`Identify × ${candidates} candidates`, mapGuess]] as const) {
          const cpu0 = cpuMs(pid);
          const t0 = Date.now();
          const answer = await client(body);
          out.push({ label, answer, cpu: cpuMs(pid) - cpu0, ms: Date.now() - t0 });
        }
        return out;
      }, size);
      const figures: Record<string, string> = { 'CPU ms per Identify': perIdentify.toFixed(1) };
      for (const { label, answer, cpu, ms } of value) {
        const runs = Math.round(cpu / perIdentify);
        const err = firstError(answer);
        const said = err ? `${answer.status} ${err.code}: ${err.description}` : `${answer.status}`;
        log(`    ${label}: ${said}; ${ms} ms, server CPU ${cpu.toFixed(0)} ms (≈ ${runs} BCrypt runs)`);
        figures[`${label}: status`] = String(answer.status);
        figures[`${label}: ≈ BCrypt runs`] = String(runs);
        // Stopped by the compute charge or the failed-login throttle; anything else (an answer, a
        // refusal for another reason) is not the bound at work.
        const stopped =
          (answer.status === 400 && err?.code === 'bad request' && err.description.startsWith('Transaction does too much compute')) ||
          (answer.status === 429 && err?.code === 'too many requests');
        verdict.fail(!stopped, `${label}: ${said} after ${ms} ms: neither 400 'bad request' (too much compute) nor 429 'too many requests'`);
        verdict.fail(runs > HANDFUL, `${label}: ≈ ${runs} BCrypt runs (server CPU ${cpu.toFixed(0)} ms): more than ${HANDFUL} in one query`);
        verdict.fail(answer.body.includes(PASSWORD), `${label}: the password was found in one query`);
      }
      verdict.ping(ping);
      return verdict.result(figures);
    } finally {
      session.close();
      await flora.stop();
    }
  },
};
