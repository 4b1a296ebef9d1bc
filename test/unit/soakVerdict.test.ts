import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latencyCheck, memoryCheck, slopePerHour, warmupSeconds, type Point } from '../../bench/soakVerdict';

/** One sample a minute for `minutes`, value v(t in seconds). */
const series = (minutes: number, v: (t: number) => number): Point[] => Array.from({ length: minutes }, (_, i) => ({ t: (i + 1) * 60, v: v((i + 1) * 60) }));

test('slope per hour of a linear fit; NaN without two distinct times', () => {
  assert.equal(Math.round(slopePerHour(series(20, (t) => 100 + t / 60))), 60); // 1 MB a minute
  assert.ok(Number.isNaN(slopePerHour([{ t: 1, v: 5 }])));
  assert.ok(Number.isNaN(slopePerHour([{ t: 1, v: 5 }, { t: 1, v: 6 }])));
});

test('warm-up: 10% of the run, at most 5 minutes', () => {
  assert.equal(warmupSeconds(180), 18);
  assert.equal(warmupSeconds(3600), 300);
});

test('memory: a flat sawtooth passes, a steady leak and a late step fail, too few samples fail', () => {
  assert.ok(memoryCheck('m', series(20, (t) => 120 + ((t / 60) % 3) * 10), 16, 32).pass);
  const leak = memoryCheck('m', series(20, (t) => 120 + t / 60), 16, 100); // 60 MB/h
  assert.ok(!leak.pass);
  assert.match(leak.detail, /slope 60\.0 ± 0\.0 MB\/h/);
  // Noise wide enough that the slope does not stand out: the slope limit lets it pass.
  assert.ok(memoryCheck('m', series(6, (t) => [100, 160, 100, 160, 100, 170][t / 60 - 1]), 16, 100).pass);
  assert.ok(!memoryCheck('m', series(20, (t) => (t > 1000 ? 180 : 120)), 1000, 32).pass);
  assert.ok(!memoryCheck('m', series(2, () => 100), 16, 32).pass);
});

test('latency: last third against first third, with a slack for sub-millisecond noise', () => {
  assert.ok(latencyCheck('p99', series(12, () => 0.5).map((p, i) => ({ ...p, v: i > 8 ? 2 : 0.5 })), 1.5, 2).pass);
  assert.ok(!latencyCheck('p99', series(12, (t) => (t > 480 ? 30 : 10)), 1.5, 2).pass);
  assert.ok(latencyCheck('p99', series(12, (t) => (t > 480 ? 14 : 10)), 1.5, 2).pass);
});
