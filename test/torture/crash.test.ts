// The torture suite's crash part in its short, seeded form (npm run torture runs 50 trials and a
// 1 GB restart): writers under SIGKILL, a restart, and everything acknowledged checked — documents,
// history, index entries now and in the past, background work resumed. Two of the five trials
// restart as a tier of two workers and kill all its processes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCrash, summarize } from '../../torture/crash';

const SEED = Number(process.env.TORTURE_SEED ?? 20261126);

test(`5 kill -9 trials under 3 writers (seed ${SEED}): nothing acknowledged lost, nothing half there, indexes equal to scans`, async () => {
  const report = await runCrash({ seconds: 5, clients: 3, seed: SEED, trials: 5, preload: 600, restartGb: 0, log: () => undefined });
  const { row, details, problems } = summarize(report);
  console.log(JSON.stringify(row));
  assert.deepEqual(problems, [], details.join('\n'));
  assert.equal(report.trials, 5);
  assert.ok(report.acknowledged > 20, `only ${report.acknowledged} writes acknowledged`);
  assert.deepEqual([...report.background.keys()], ['index-build', 'graphql-import', 'log-export', 'collector', 'torn-log']);
});
