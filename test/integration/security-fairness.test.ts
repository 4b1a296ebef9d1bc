// Issue 30, "a client key can make no other client wait more than a fraction of a second": as many
// live CPU-bound queries as the process evaluates at once (64) must not hold the event loop for a
// slice each between two polls of its sockets. Paused queries take turns (src/loop/turns.ts), one
// slice per turn of the loop, so /ping stays prompt while they run, and every one of them still
// finishes. The targeted attack (torture/targeted/longQueries.ts) at test size.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { longQueries } from '../../torture/targeted/longQueries';

test('64 long queries at once from one client key: /ping stays prompt and every query is answered', { timeout: 120_000 }, async () => {
  const result = await longQueries.run({ size: 'test', log: () => undefined });
  const why = [JSON.stringify(result.figures), ...result.details].join('\n');
  assert.equal(result.figures['slow pings'], '0', why);
  assert.equal(result.figures['answered 200'], '64', why);
  assert.equal(result.violations, 0, why);
});
