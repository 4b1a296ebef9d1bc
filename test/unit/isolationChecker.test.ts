// The list-append checker of the torture suite's isolation part, on hand-made histories: each
// anomaly class must be found, and valid histories (serial, concurrent, with failed and indeterminate
// transactions) must pass clean.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkListAppend } from '../../torture/checker/listAppend';
import type { AnomalyKind, MicroOp, Outcome, Txn } from '../../torture/checker/history';

type Op = ['a', string, number] | ['r', string, number[]];

let nextId = 0;
/** A transaction; by default ok, on its own client, at a time after the ones before it. */
function t(ops: Op[], opts: { outcome?: Outcome; client?: number; ts?: number; start?: number; end?: number } = {}): Txn {
  const id = nextId++;
  const micro: MicroOp[] = ops.map(([f, key, v]) => (f === 'a' ? { f: 'append', key, value: v } : { f: 'r', key, value: opts.outcome === 'ok' || !opts.outcome ? v : null }));
  return { id, client: opts.client ?? id, outcome: opts.outcome ?? 'ok', ops: micro, start: opts.start ?? id * 10, end: opts.end ?? id * 10 + 5, ts: opts.ts };
}

function kinds(history: Txn[]): AnomalyKind[] {
  return [...new Set(checkListAppend(history).anomalies.map((a) => a.kind))].sort();
}

describe('valid histories', () => {
  test('a serial history with times', () => {
    const h = [
      t([['a', 'x', 1], ['r', 'x', [1]]], { ts: 10 }),
      t([['r', 'x', [1]], ['a', 'y', 1], ['a', 'x', 2]], { ts: 20 }),
      t([['r', 'x', [1, 2]], ['r', 'y', [1]]], { ts: 20 }),
      t([['a', 'y', 2], ['r', 'y', [1, 2]]], { ts: 30 }),
    ];
    assert.deepEqual(kinds(h), []);
    assert.ok(checkListAppend(h).edges > 0);
  });

  test('concurrent transactions, a failed one never seen, an indeterminate one seen', () => {
    const h = [
      t([['a', 'x', 1]], { start: 0, end: 50, ts: 10 }),
      t([['a', 'x', 2]], { start: 0, end: 50, outcome: 'fail' }),
      t([['a', 'x', 3]], { start: 0, end: 50, outcome: 'info' }),
      t([['r', 'x', [1]], ['a', 'y', 1]], { start: 5, end: 60, ts: 15 }),
      t([['r', 'x', [1, 3]], ['r', 'y', [1]]], { start: 70, end: 80, ts: 40 }),
      // A read-only snapshot may be older than writes that had not finished when it began.
      t([['r', 'x', []]], { start: 1, end: 95, ts: 5 }),
    ];
    assert.deepEqual(kinds(h), []);
  });
});

describe('anomalies', () => {
  test('G0: write cycle', () => {
    const h = [t([['a', 'x', 1], ['a', 'y', 2]]), t([['a', 'x', 2], ['a', 'y', 1]]), t([['r', 'x', [1, 2]], ['r', 'y', [1, 2]]])];
    assert.ok(kinds(h).includes('G0'), kinds(h).join());
  });

  test('G1a: aborted read', () => {
    const h = [t([['a', 'x', 1]], { outcome: 'fail' }), t([['r', 'x', [1]]])];
    assert.deepEqual(kinds(h), ['G1a']);
  });

  test('G1b: intermediate read', () => {
    const h = [t([['a', 'x', 1], ['a', 'x', 2]]), t([['r', 'x', [1]]]), t([['r', 'x', [1, 2]]])];
    assert.deepEqual(kinds(h), ['G1b']);
  });

  test('G1c: circular information flow', () => {
    const h = [t([['a', 'x', 1], ['r', 'y', [1]]]), t([['a', 'y', 1], ['r', 'x', [1]]])];
    assert.deepEqual(kinds(h), ['G1c']);
  });

  test('G-single: read skew', () => {
    const h = [t([['a', 'x', 1], ['a', 'y', 1]]), t([['r', 'x', []], ['r', 'y', [1]]]), t([['r', 'x', [1]]])];
    assert.deepEqual(kinds(h), ['G-single']);
  });

  test('G2: write skew', () => {
    const h = [
      t([['r', 'x', []], ['r', 'y', []], ['a', 'x', 1]]),
      t([['r', 'x', []], ['r', 'y', []], ['a', 'y', 1]]),
      t([['r', 'x', [1]], ['r', 'y', [1]]]),
    ];
    assert.deepEqual(kinds(h), ['G2']);
  });

  test('lost update', () => {
    const h = [t([['r', 'x', []], ['a', 'x', 1]]), t([['r', 'x', []], ['a', 'x', 2]]), t([['r', 'x', [1, 2]]])];
    assert.ok(kinds(h).includes('lost-update'), kinds(h).join());
  });

  test('internal inconsistency: a transaction not reading its own append', () => {
    assert.deepEqual(kinds([t([['a', 'x', 1], ['r', 'x', []]])]), ['internal']);
    assert.deepEqual(kinds([t([['r', 'x', []], ['a', 'x', 1], ['r', 'x', [1, 1]]])]), ['duplicate', 'internal']);
  });

  test('a value read twice, a value nobody wrote', () => {
    assert.deepEqual(kinds([t([['a', 'x', 1]]), t([['r', 'x', [1, 1]]])]), ['duplicate']);
    assert.deepEqual(kinds([t([['r', 'x', [9]]])]), ['garbage-read']);
  });

  test('reads of one key that disagree on its order', () => {
    const h = [t([['a', 'x', 1]]), t([['a', 'x', 2]]), t([['r', 'x', [1, 2]]]), t([['r', 'x', [2, 1]]])];
    assert.ok(kinds(h).includes('incompatible-order'), kinds(h).join());
  });

  test('a dependency against the times: reading a write from the future', () => {
    const h = [t([['a', 'x', 1]], { ts: 20, start: 0, end: 10 }), t([['r', 'x', [1]]], { ts: 10, start: 0, end: 10 })];
    assert.deepEqual(kinds(h), ['ts-order']);
  });

  test('a committed write that a later read misses', () => {
    const h = [t([['a', 'x', 1]], { ts: 10 }), t([['r', 'x', []]], { ts: 20 })];
    assert.deepEqual(kinds(h), ['lost-write']);
  });

  test('real time: a write transaction that began after another finished, with an earlier time', () => {
    const h = [t([['a', 'x', 1]], { ts: 30, start: 0, end: 1 }), t([['a', 'y', 1]], { ts: 20, start: 2, end: 3 })];
    assert.deepEqual(kinds(h), ['realtime']);
  });

  test('real time: a read that began after a write finished, at a snapshot without it (a stale read)', () => {
    const h = [t([['a', 'x', 1]], { ts: 30, start: 0, end: 1 }), t([['r', 'x', []]], { ts: 20, start: 2, end: 3 })];
    assert.deepEqual(kinds(h), ['realtime']);
    // At the write's own time the snapshot holds it: no anomaly.
    assert.deepEqual(kinds([t([['a', 'x', 1]], { ts: 30, start: 0, end: 1 }), t([['r', 'x', [1]]], { ts: 30, start: 2, end: 3 })]), []);
  });

  test('a client going back in time', () => {
    const h = [t([['r', 'x', []]], { client: 1, ts: 30, start: 0, end: 1 }), t([['r', 'x', []]], { client: 1, ts: 20, start: 2, end: 3 })];
    assert.deepEqual(kinds(h), ['session']);
  });
});
