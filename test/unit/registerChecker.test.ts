// The register checker of the torture suite's isolation part, on hand-made histories: reads are
// judged against the order the transactions' times give; each anomaly must be found, valid
// histories (with failed and indeterminate writes) must pass clean.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRegisters } from '../../torture/checker/register';
import type { AnomalyKind, Outcome, RegisterOp, Txn } from '../../torture/checker/history';

type Op = ['w', string, number] | ['r', string, number];

let nextId = 0;
/** A transaction; by default ok, on its own client, at a time after the ones before it. */
function t(ops: Op[], ts: number | undefined, outcome: Outcome = 'ok', client?: number): Txn<RegisterOp> {
  const id = nextId++;
  const micro: RegisterOp[] = ops.map(([f, key, v]) => (f === 'w' ? { f, key, value: v } : { f, key, value: outcome === 'ok' ? v : null }));
  return { id, client: client ?? id, outcome, ops: micro, start: id * 10, end: id * 10 + 5, ts };
}

const kinds = (h: Txn<RegisterOp>[]): AnomalyKind[] => [...new Set(checkRegisters(h).anomalies.map((a) => a.kind))].sort();

test('valid: reads of the last write before their time, own writes, unknown and failed writes', () => {
  const h = [
    t([['r', 'x', 0], ['w', 'x', 1], ['r', 'x', 1]], 10),
    t([['w', 'x', 2]], undefined, 'fail'),
    t([['w', 'x', 3]], undefined, 'info'),
    t([['r', 'x', 1], ['w', 'y', 1]], 20),
    // A read-only snapshot at a commit's own time sees it.
    t([['r', 'y', 1]], 20),
    // The unknown write may have committed at any time.
    t([['r', 'x', 3], ['r', 'y', 1]], 30),
  ];
  assert.deepEqual(kinds(h), []);
});

test('G1a: a read of a failed write', () => assert.deepEqual(kinds([t([['w', 'x', 1]], undefined, 'fail'), t([['r', 'x', 1]], 10)]), ['G1a']));
test('G1b: a read of an intermediate write', () => assert.deepEqual(kinds([t([['w', 'x', 1], ['w', 'x', 2]], 10), t([['r', 'x', 1]], 20)]), ['G1b']));
test('internal: not reading its own write', () => assert.deepEqual(kinds([t([['w', 'x', 1], ['r', 'x', 0]], 10)]), ['internal']));
test('garbage: a value nobody wrote', () => assert.deepEqual(kinds([t([['r', 'x', 7]], 10)]), ['garbage-read']));
test('stale read: missing a write committed before its time', () => {
  assert.deepEqual(kinds([t([['w', 'x', 1]], 10), t([['w', 'x', 2]], 20), t([['r', 'x', 1]], 30)]), ['stale-read']);
  assert.deepEqual(kinds([t([['w', 'x', 1]], 10), t([['r', 'x', 0]], 30)]), ['stale-read']);
});
test('future read: a write committed after its time', () => {
  // (Begun before the write finished: a snapshot at 20 is then allowed, what it read is not.)
  const read = { ...t([['r', 'x', 1]], 20) };
  const write = t([['w', 'x', 1]], 30);
  assert.deepEqual(kinds([write, { ...read, start: write.start }]), ['future-read']);
  // Begun after it finished, the snapshot is stale as well.
  assert.deepEqual(kinds([t([['w', 'x', 1]], 30), t([['r', 'x', 1]], 20)]), ['future-read', 'realtime']);
  // A write transaction does not see a commit at its own time (only itself commits then; and the
  // second began after the first finished, so its time had to be greater).
  assert.deepEqual(kinds([t([['w', 'x', 1]], 30), t([['r', 'x', 1], ['w', 'y', 1]], 30)]), ['future-read', 'realtime']);
});
