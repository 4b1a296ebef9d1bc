import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Budget, DEFAULT_LIMITS, QueryCancelled, QueryTimeout } from '../../src/model/budget';

test('a query whose client is gone stops at its next look at the clock, and at every one after', async () => {
  const client = { clientGone: false };
  const budget = new Budget(DEFAULT_LIMITS, Date.now() + 60_000, undefined, client);
  for (let i = 0; i < 1000; i++) budget.tick();
  client.clientGone = true;
  assert.throws(() => {
    for (let i = 0; i < 1000; i++) budget.tick();
  }, QueryCancelled);
  // Something that caught it (a predicate, a GraphQL resolver) is stopped at its very next charge.
  assert.throws(() => budget.tick(), QueryCancelled);
  await assert.rejects(budget.pause(), QueryCancelled);
  assert.ok(new QueryCancelled() instanceof QueryTimeout, 'every path that stops on a timeout stops on it');
});

test('capDeadline only brings the deadline forward', () => {
  const budget = new Budget(DEFAULT_LIMITS, 10_000);
  budget.capDeadline(20_000);
  assert.equal(budget.deadline, 10_000);
  budget.capDeadline(5_000);
  assert.equal(budget.deadline, 5_000);
  assert.throws(() => budget.poll(), QueryTimeout);
});
