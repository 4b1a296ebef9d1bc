import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admission } from '../../src/model/admission';
import { QueryCancelled, TooBusy } from '../../src/model/budget';

/** Lets the promise callbacks queued so far run. */
const settle = () => new Promise((r) => setImmediate(r));

test('below `running`, every query gets its turn at once', async () => {
  const gate = new Admission({ running: 3, queued: 0, queueMs: 1000 });
  const leaves = [await gate.enter(), await gate.enter(), await gate.enter()];
  assert.equal(gate.running, 3);
  assert.ok(gate.full);
  leaves[0]();
  leaves[0](); // a turn ends once, however often its end is called
  assert.equal(gate.running, 2);
  assert.ok(!gate.full);
  await gate.enter();
  assert.equal(gate.running, 3);
});

test('past `running` queries wait in line, first come first served, and a full line refuses with TooBusy and Retry-After', async () => {
  const gate = new Admission({ running: 1, queued: 2, queueMs: 60_000 });
  const first = await gate.enter();
  const order: string[] = [];
  const b = Promise.resolve(gate.enter()).then((leave) => (order.push('b'), leave));
  const c = Promise.resolve(gate.enter()).then((leave) => (order.push('c'), leave));
  assert.equal(gate.queued, 2);
  assert.ok(gate.full);
  const refused = await Promise.resolve(gate.enter()).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(refused instanceof TooBusy);
  assert.equal(refused.status, 429);
  assert.equal(refused.code, 'too many requests');
  assert.equal(refused.headers['retry-after'], '1');

  first(); // the turn passes to b, not to a newcomer
  await settle();
  assert.deepEqual(order, ['b']);
  assert.equal(gate.running, 1);
  (await b)();
  (await c)();
  assert.deepEqual(order, ['b', 'c']);
  assert.equal(gate.running, 0);
  assert.equal(gate.queued, 0);
});

test('a line whose head has waited `queueMs` refuses newcomers, though it has room', async () => {
  let now = 0;
  const gate = new Admission({ running: 1, queued: 100, queueMs: 500 }, () => now);
  const first = await gate.enter();
  const waiting = gate.enter();
  now = 499;
  assert.ok(!gate.full);
  first(); // the head is served in time
  const second = await waiting;
  const third = Promise.resolve(gate.enter());
  now = 998;
  assert.ok(!gate.full);
  now = 999;
  assert.ok(gate.full);
  second(); // too late for the third, which waited as long as a query may
  await assert.rejects(third, TooBusy);
  assert.equal(gate.running, 0);
});

test('a query whose turn has not come in `queueMs` is refused with TooBusy; those behind it still wait', async () => {
  let now = 0;
  const gate = new Admission({ running: 1, queued: 100, queueMs: 500 }, () => now);
  const first = await gate.enter();
  const late = Promise.resolve(gate.enter());
  now = 300;
  const inTime = gate.enter();
  now = 500;
  first(); // the turn would go to `late`, whose time is up: it goes to `inTime`
  await assert.rejects(late, TooBusy);
  (await inTime)();
  assert.equal(gate.running, 0);
  assert.equal(gate.queued, 0);
});

test('waiters past their time are refused even when no turn ends (the line is swept)', async () => {
  const gate = new Admission({ running: 1, queued: 100, queueMs: 50 });
  const first = await gate.enter();
  const started = performance.now();
  // The sweep does not keep a process alive by itself (a server's sockets do): this test's timer does.
  const alive = setInterval(() => undefined, 1000);
  await assert.rejects(Promise.resolve(gate.enter()), TooBusy);
  clearInterval(alive);
  assert.ok(performance.now() - started >= 45);
  first();
  assert.equal(gate.running, 0);
});

test('a long line is served in its order', async () => {
  const gate = new Admission({ running: 1, queued: 5000, queueMs: 60_000 });
  const first = await gate.enter();
  const served: number[] = [];
  const all = Array.from({ length: 3000 }, (_, i) => Promise.resolve(gate.enter()).then((leave) => (served.push(i), leave())));
  first();
  await Promise.all(all);
  assert.deepEqual(served, Array.from({ length: 3000 }, (_, i) => i));
  assert.equal(gate.running, 0);
});

test('a query whose client left the line never gets a turn: skipped when its turn comes, or gone at the next sweep', async () => {
  const gate = new Admission({ running: 1, queued: 10, queueMs: 60_000 });
  const first = await gate.enter();
  const gone = { clientGone: false };
  const skipped = Promise.resolve(gate.enter(gone));
  const next = Promise.resolve(gate.enter({ clientGone: false }));
  gone.clientGone = true;
  first(); // the turn passes over the query whose client left
  await assert.rejects(skipped, QueryCancelled);
  const leave = await next;
  assert.equal(gate.queued, 0);

  const sweptClient = { clientGone: false };
  const swept = Promise.resolve(gate.enter(sweptClient));
  const kept = Promise.resolve(gate.enter());
  assert.equal(gate.queued, 2);
  sweptClient.clientGone = true;
  const alive = setInterval(() => undefined, 1000); // the sweep does not keep the process alive itself
  await assert.rejects(swept, QueryCancelled); // no turn ended: the sweep found it
  clearInterval(alive);
  assert.equal(gate.queued, 1);
  leave();
  (await kept)();
  assert.equal(gate.running, 0);
});

test('one owner takes only its share of the turns: its other queries wait while another owner passes them', async () => {
  const gate = new Admission({ running: 4, queued: 8, queueMs: 60_000, ownerShare: 0.5 });
  const key = { secret: 'k' };
  const held = [await gate.enter(undefined, key), await gate.enter(undefined, key)];
  assert.equal(gate.running, 2);
  // Turns are free, but not for this owner: it waits.
  const third = Promise.resolve(gate.enter(undefined, key));
  await settle();
  assert.equal(gate.queued, 1);
  assert.equal(gate.running, 2);
  // Another owner (root, or a request with no secret) runs, past the waiting one.
  const others = [await gate.enter(undefined, { secret: 'root' }), await gate.enter()];
  assert.equal(gate.running, 4);
  assert.equal(gate.queued, 1);
  // One of the owner's turns ends: its waiting query takes it.
  held[0]();
  const leave = await third;
  assert.equal(gate.running, 4);
  assert.equal(gate.queued, 0);
  for (const end of [leave, held[1], ...others]) end();
  assert.equal(gate.running, 0);
});

test("an owner's share of the line: beyond it TooBusy for that owner only; an address counts like a secret", async () => {
  const gate = new Admission({ running: 2, queued: 4, queueMs: 60_000, ownerShare: 0.5 });
  await gate.enter(undefined, { secret: 't1', address: '10.0.0.7' });
  // Two more tokens from the same address wait (its share of the turns is one)…
  void gate.enter(undefined, { secret: 't2', address: '10.0.0.7' });
  void gate.enter(undefined, { secret: 't3', address: '10.0.0.7' });
  await settle();
  assert.equal(gate.queued, 2);
  // … and a fourth is refused: the address's share of the line (two places) is taken.
  const refused = await Promise.resolve(gate.enter(undefined, { secret: 't4', address: '10.0.0.7' })).then(() => undefined, (e: unknown) => e);
  assert.ok(refused instanceof TooBusy);
  // Someone else still gets the free turn.
  await gate.enter(undefined, { secret: 'other', address: '10.0.0.8' });
  assert.equal(gate.running, 2);
});

test('a waiter over its share makes no newcomer of another owner look late', async () => {
  let now = 0;
  const gate = new Admission({ running: 2, queued: 8, queueMs: 1_000, ownerShare: 0.5 }, () => now);
  await gate.enter(undefined, { secret: 'k' });
  await gate.enter(undefined, { secret: 'root' });
  void Promise.resolve(gate.enter(undefined, { secret: 'k' })).catch(() => undefined);
  await settle();
  now = 1_000; // every turn taken, and the waiter over its share has waited queueMs
  assert.ok(!gate.full, 'only a waiter that could run makes the line look stalled');
});

test('a free turn goes at once to a query whose owners may run, whoever waits over their share', () => {
  // One turn and two places in line per owner. s1 runs from B; two more of s1's, from A, wait
  // (s1's turn is taken) and fill A's places in line. s2 from A holds no turn, nor does A: a turn is
  // free, so it runs now rather than queueing behind them (where A's full share refused it with 429).
  const gate = new Admission({ running: 2, queued: 4, queueMs: 60_000, ownerShare: 0.5 });
  const runs = gate.enter(undefined, { secret: 's1', address: 'B' });
  assert.equal(typeof runs, 'function');
  for (let i = 0; i < 2; i++) void Promise.resolve(gate.enter(undefined, { secret: 's1', address: 'A' })).catch(() => undefined);
  assert.equal(gate.queued, 2);
  const other = gate.enter(undefined, { secret: 's2', address: 'A' });
  assert.equal(typeof other, 'function', 'a turn at once, without a promise');
  assert.equal(gate.running, 2);
});
