import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnLine, type Waiting } from '../../src/loop/turns';
import { Budget, DEFAULT_LIMITS, QueryCancelled, QueryTimeout } from '../../src/model/budget';

/** A line whose dispatcher runs only when the test says: `step()` is one turn of the loop. */
function steppedLine(): { line: TurnLine; pending: () => number; step: () => Promise<void> } {
  const runs: (() => void)[] = [];
  const line = new TurnLine((run) => runs.push(run));
  return {
    line,
    pending: () => runs.length,
    async step() {
      runs.shift()!();
      await new Promise((resolve) => setImmediate(resolve)); // every microtask the dispatch started has run
    },
  };
}

/** Work of `slices` slices: it logs its name each time it is resumed, then pauses again. */
async function work(line: TurnLine, name: string, slices: number, log: string[], waiting?: Waiting): Promise<void> {
  for (let i = 0; i < slices; i++) {
    await line.next(waiting);
    log.push(name);
  }
}

test('one resume per turn of the loop, in order, the work just resumed going to the back', { timeout: 10_000 }, async () => {
  const { line, pending, step } = steppedLine();
  const log: string[] = [];
  const done = Promise.all(['a', 'b', 'c'].map((name) => work(line, name, 3, log)));
  assert.equal(pending(), 1, 'one dispatcher, however many wait');
  const seen: string[] = [];
  while (pending() > 0) {
    const before = log.length;
    await step();
    assert.equal(log.length, before + 1, 'exactly one work resumed per dispatch');
    assert.ok(pending() <= 1);
    seen.push(log[log.length - 1]);
  }
  await done;
  assert.deepEqual(seen, ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c']);
  assert.equal(line.waiting, 0);
});

test('work that arrives later waits behind every work already in line: none starves', { timeout: 10_000 }, async () => {
  const { line, pending, step } = steppedLine();
  const log: string[] = [];
  const busy = [work(line, 'a', 50, log), work(line, 'b', 50, log)];
  await step(); // a ran, and is back in line behind b
  const late = work(line, 'late', 1, log);
  await step(); // b
  await step(); // a
  await step(); // late: its turn came after one round, not after a's and b's 50 slices
  assert.deepEqual(log, ['a', 'b', 'a', 'late']);
  await late;
  while (pending() > 0) await step();
  await Promise.all(busy);
  assert.equal(log.filter((n) => n === 'a').length, 50);
});

test('work that would only stop is woken out of turn at the next dispatch', { timeout: 10_000 }, async () => {
  const { line, pending, step } = steppedLine();
  const log: string[] = [];
  const gone = { stopDue: false };
  const broken: Waiting = {
    get stopDue(): boolean {
      throw new Error('cannot tell');
    },
  };
  const first = work(line, 'a', 1, log);
  const second = work(line, 'b', 1, log);
  const cancelled = work(line, 'gone', 1, log, gone);
  await step();
  assert.deepEqual(log, ['a'], 'nothing is due yet: the head alone');
  gone.stopDue = true;
  const faulty = work(line, 'broken', 1, log, broken);
  await step();
  assert.deepEqual(log, ['a', 'gone', 'broken', 'b'], 'the stopped ones at once, then the head');
  assert.equal(pending(), 0);
  await Promise.all([first, second, cancelled, faulty]);
});

test('on the real loop: one resume per check phase, and a lone work resumes at every turn', { timeout: 10_000 }, async () => {
  const line = new TurnLine();
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const turns: number[] = [];
  const worker = async (slices: number) => {
    for (let i = 0; i < slices; i++) {
      await line.next();
      turns.push(turn);
    }
  };
  await Promise.all([worker(20), worker(20), worker(20), worker(20)]);
  assert.equal(new Set(turns).size, turns.length, `two resumes in one turn of the loop: ${turns.join(' ')}`);
  const alone: number[] = [];
  for (let i = 0; i < 10; i++) {
    await line.next();
    alone.push(turn);
  }
  ticking = false;
  for (let i = 1; i < alone.length; i++) assert.equal(alone[i], alone[i - 1] + 1, `a lone work skipped turns: ${alone.join(' ')}`);
});

test('a paused query whose client leaves, or whose time runs out, while it waits in line stops at the next dispatch', { timeout: 10_000 }, async () => {
  const settled: string[] = [];
  const pausing = (name: string, budget: Budget) =>
    budget.pause().then(
      () => settled.push(name),
      (e: unknown) => settled.push(`${name}: ${(e as Error).constructor.name}`),
    );
  const client = { clientGone: false };
  const ahead = [1, 2, 3].map((i) => new Budget(DEFAULT_LIMITS, Date.now() + 60_000));
  const cancelled = new Budget(DEFAULT_LIMITS, Date.now() + 60_000, undefined, client);
  const late = new Budget(DEFAULT_LIMITS, Date.now() + 60_000);
  const all = [...ahead.map((b, i) => pausing(`q${i + 1}`, b)), pausing('cancelled', cancelled), pausing('late', late)];
  client.clientGone = true;
  late.capDeadline(Date.now() - 1);
  await Promise.all(all);
  assert.deepEqual(settled.slice(0, 3).sort(), [`cancelled: ${QueryCancelled.name}`, `late: ${QueryTimeout.name}`, 'q1'].sort());
  assert.deepEqual(settled.slice(3), ['q2', 'q3']);
});

test('work that starts in one turn of the loop shares one first slice', { timeout: 10_000 }, async () => {
  const { line, pending, step } = steppedLine();
  assert.equal(line.firstSliceEnd(110), 110, 'the first work of a turn keeps its own slice');
  assert.equal(line.firstSliceEnd(120), 110, 'work started after it ends where the first one does');
  assert.equal(line.firstSliceEnd(105), 105, 'and never later than its own');
  assert.equal(pending(), 1);
  await step(); // the next turn
  assert.equal(line.firstSliceEnd(130), 130);
});
