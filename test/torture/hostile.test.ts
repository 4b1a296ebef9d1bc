// The torture suite's hostile part in its short, seeded form (npm run torture runs it long): many
// clients, hostile requests of every kind, against one real server. No answer may be a 5xx, none may
// hang, the process must stay up and its memory under the bound. Ping latency and memory after the
// load are printed, not asserted: they depend on the machine.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostileVerdict, runHostile, summarize } from '../../torture/hostile';

const SEED = Number(process.env.TORTURE_SEED ?? 20261124);

test(`hostile requests from 8 clients for 12 s (seed ${SEED}): no 5xx, no hang, no crash, memory bounded`, async () => {
  const report = await runHostile({
    seconds: 12,
    clients: 8,
    seed: SEED,
    settleMs: 1000,
    shrinkSeconds: 0,
    deadlineMs: 20_000,
    // Requests left half-sent are timed out by the server within the run.
    env: { FLORA_BODY_TIMEOUT_MS: '3000' },
  });
  const { row, details } = summarize(report);
  console.log(JSON.stringify(row));
  const problems = hostileVerdict(report).filter((p) => !p.includes('after the load'));
  assert.deepEqual(problems, [], details.join('\n'));
  assert.ok(report.requests > 50, `only ${report.requests} requests`);
});
