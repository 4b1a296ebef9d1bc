// The torture suite's overload part in its short, seeded form (npm run torture runs it long, and on
// a tier of two workers too): capacity measured in a few short steps, then ten times the clients
// against one process whose admission limits are small enough that they must refuse. Every request
// must be answered — ok, or 429 with Retry-After, or 503, in Fauna's shape — with no reset, no hang,
// no crash, memory bounded and no connection left open. Latency and recovery are printed, not
// asserted: they depend on the machine.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overloadFaults, overloadSlowness, runOverload, summarize } from '../../torture/overload';

const SEED = Number(process.env.TORTURE_SEED ?? 20261126);

test(`overload: 10x the clients one process serves, for 6 s (seed ${SEED}): every request answered, memory bounded, no connection left`, async () => {
  const opts = { seconds: 6, clients: 200, seed: SEED, log: () => undefined, tiers: [1], stepSeconds: 1, maxStepClients: 16 };
  const reports = await runOverload({
    ...opts,
    // A small line, so that the load is refused in part whatever the machine's speed.
    env: { FLORA_MAX_CONCURRENT_QUERIES: '8', FLORA_MAX_QUEUED_QUERIES: '32', FLORA_MAX_QUEUE_MS: '250', FLORA_LOG_QUERIES: 'false' },
  });
  const { row, details } = summarize(reports, opts);
  console.log(JSON.stringify(row));
  for (const r of reports) console.log(overloadSlowness(r).join('\n'));
  const [r] = reports;
  assert.deepEqual(overloadFaults(r), [], details.join('\n'));
  assert.ok(r.overload.counts.ok > 100, `only ${r.overload.counts.ok} requests served`);
  assert.ok(r.overload.counts['429'] > 0, 'nothing was refused: the load did not exceed the admission limits');
});
