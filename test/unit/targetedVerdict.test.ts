// The verdict of a targeted attack (torture/targeted/attack.ts): violations with a line each, and the
// pings it is judged by, over several phases.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Verdict } from '../../torture/targeted/attack';

const report = (maxMs: number, slow: number) => ({ pings: 10, maxMs, p99Ms: maxMs, slow, limitMs: 1000 });

test('a verdict counts each failure with its line, and only failures', () => {
  const v = new Verdict();
  v.fail(false, 'never');
  v.fail(0, () => assert.fail('a line is not made for a count of 0'));
  v.fail(true, 'one');
  v.fail(3, () => 'three');
  const r = v.result({ kept: 'yes' });
  assert.deepEqual([r.violations, r.details, r.figures.kept], [4, ['one', 'three'], 'yes']);
});

test("pings of several phases: every phase's slow pings count, the figures are the slowest phase's", () => {
  const v = new Verdict();
  v.ping(report(1500, 2), 'during the import');
  v.ping(report(300, 0), 'during the lists');
  v.ping(report(900, 1), 'during the end');
  const r = v.result({});
  assert.equal(r.violations, 3);
  assert.equal(r.details.length, 2, 'a line for each phase with slow pings');
  assert.match(r.details[0], /during the import/);
  const quiet = new Verdict();
  quiet.ping(report(1500, 3));
  assert.deepEqual(r.figures, quiet.result({}).figures, 'the slowest phase, with all 3 slow pings');
});
