// The crash part's model of what the store must hold: given the store as read back after a
// restart, it finds lost acknowledged writes, half-applied unanswered transactions and phantoms,
// and settles unanswered transactions as applied or not.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrashModel, type Data, type Observed } from '../../torture/crash/model';

const d = (id: string, n: number, tx: string): Data => ({ key: `k${id}`, owner: 0, n, tx });

/** A model with documents 1 and 2 created by tx a at ts 10, and 1 updated by tx b at ts 20. */
function base(): CrashModel {
  const m = new CrashModel();
  m.begin('a', [
    { id: '1', action: 'create', before: null, after: d('1', 1, 'a') },
    { id: '2', action: 'create', before: null, after: d('2', 2, 'a') },
  ]);
  m.ack('a', 10n);
  m.begin('b', [{ id: '1', action: 'update', before: d('1', 1, 'a'), after: d('1', 5, 'b') }]);
  m.ack('b', 20n);
  return m;
}

const held = (): Map<string, Observed> =>
  new Map([
    ['1', { data: d('1', 5, 'b'), events: [{ ts: 10n, action: 'create', tx: 'a' }, { ts: 20n, action: 'update', tx: 'b' }] }],
    ['2', { data: d('2', 2, 'a'), events: [{ ts: 10n, action: 'create', tx: 'a' }] }],
  ]);

const all = new Set(['1', '2', '3']);

test('the store holding exactly what was acknowledged: nothing reported', () => {
  const v = base().settle(held(), all);
  assert.deepEqual([v.lost, v.torn, v.phantom], [[], [], []]);
});

test('an acknowledged version missing is lost: in the current state, and in the history', () => {
  const store = held();
  store.set('1', { data: d('1', 1, 'a'), events: [{ ts: 10n, action: 'create', tx: 'a' }] });
  const v = base().settle(store, all);
  assert.equal(v.lost.length, 2, v.lost.join('\n'));
  const gone = held();
  gone.delete('2');
  assert.match(base().settle(gone, all).lost.join(), /^2: acknowledged/);
});

test('an unanswered transaction is settled: all of it there (applied) or none (dropped), half is torn', () => {
  const pending = (m: CrashModel) =>
    m.begin('c', [
      { id: '2', action: 'delete', before: d('2', 2, 'a'), after: null },
      { id: '3', action: 'create', before: null, after: d('3', 3, 'c') },
    ]);
  let m = base();
  pending(m);
  assert.deepEqual(m.settle(held(), all).droppedPending, 1);

  m = base();
  pending(m);
  const applied = held();
  applied.set('2', { data: null, events: [{ ts: 10n, action: 'create', tx: 'a' }, { ts: 30n, action: 'delete', tx: null }] });
  applied.set('3', { data: d('3', 3, 'c'), events: [{ ts: 30n, action: 'create', tx: 'c' }] });
  const v = m.settle(applied, all);
  assert.deepEqual([v.appliedPending, v.torn, v.lost, v.phantom], [1, [], [], []]);
  assert.equal(m.state('3')?.tx, 'c', 'the applied transaction is now part of what the store must hold');
  assert.deepEqual([...m.stateAt(25n).keys()].sort(), ['1', '2']);
  assert.deepEqual([...m.stateAt(30n).keys()].sort(), ['1', '3']);

  m = base();
  pending(m);
  const half = held();
  half.set('3', { data: d('3', 3, 'c'), events: [{ ts: 30n, action: 'create', tx: 'c' }] });
  assert.match(m.settle(half, all).torn.join(), /tx c half applied/);

  m = base();
  pending(m);
  const split = held();
  split.set('2', { data: null, events: [{ ts: 10n, action: 'create', tx: 'a' }, { ts: 31n, action: 'delete', tx: null }] });
  split.set('3', { data: d('3', 3, 'c'), events: [{ ts: 30n, action: 'create', tx: 'c' }] });
  assert.match(m.settle(split, all).torn.join(), /tx c applied at several ts/);
});

test('a refused transaction leaves nothing; what it wrote would be a phantom or a lost write', () => {
  const m = base();
  m.begin('r', [{ id: '4', action: 'create', before: null, after: d('4', 4, 'r') }]);
  m.refuse('r');
  const store = held();
  store.set('4', { data: d('4', 4, 'r'), events: [] });
  assert.match(m.settle(store, all).phantom.join(), /^4: .* was never written/);
});

test('a history with a version nobody acknowledged is a phantom', () => {
  const store = held();
  store.set('2', { data: d('2', 2, 'a'), events: [{ ts: 10n, action: 'create', tx: 'a' }, { ts: 15n, action: 'update', tx: 'zz' }] });
  assert.match(base().settle(store, all).phantom.join(), /2 version 1: acknowledged none, history has update@15/);
});
