// scripts/testProgress.ts: npm test's line per file and summary, from node:test's reporter events
// in the order node 20 emits them (recorded from runs of small files).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFailure, formatFileLine, TestProgress, type TestEvent } from '../../scripts/testProgress';

const A = '/r/dist/test/a.test.js';
const B = '/r/dist/test/b.test.js';
const C = '/r/dist/test/c.test.js';

/** An error as node:test reports it: ERR_TEST_FAILURE of a kind, around what the test threw. */
function failure(failureType: string, cause: unknown, extra: object = {}): Error {
  return Object.assign(new Error('test failed'), { code: 'ERR_TEST_FAILURE', failureType, cause, ...extra });
}

const ev = {
  start: (file: string, name: string, nesting = 0): TestEvent => ({ type: 'test:start', data: { file, name, nesting } }),
  pass: (file: string, name: string, nesting = 0, more: Partial<TestEvent['data']> = {}): TestEvent => ({
    type: 'test:pass',
    data: { file, name, nesting, details: { duration_ms: 1 }, ...more },
  }),
  fail: (file: string, name: string, nesting: number, error: unknown, type?: string): TestEvent => ({
    type: 'test:fail',
    data: { file, name, nesting, details: { duration_ms: 1, error, ...(type ? { type } : {}) } },
  }),
  /** The runner's own completion of a file: when its process ended. */
  fileDone: (file: string, ms: number, error?: unknown): TestEvent => ({
    type: 'test:complete',
    data: { file, name: file, nesting: 0, details: { duration_ms: ms, passed: error === undefined, ...(error ? { error } : {}) } },
  }),
  stderr: (file: string, message: string): TestEvent => ({ type: 'test:stderr', data: { file, message } }),
  /** A test's start and end as they happen (not in declaration order). */
  dequeue: (file: string, name: string, nesting = 0): TestEvent => ({ type: 'test:dequeue', data: { file, name, nesting } }),
  complete: (file: string, name: string, nesting = 0): TestEvent => ({ type: 'test:complete', data: { file, name, nesting, details: { duration_ms: 1, passed: true } } }),
  total: (message: string): TestEvent => ({ type: 'test:diagnostic', data: { nesting: 0, message } }),
};

function run(events: TestEvent[], progress = new TestProgress({ displayName: (f) => f.replace('/r/dist/test/', ''), totalFiles: 3, logFile: 'dist/test.log' })) {
  const printed: { after: number; lines: string[] }[] = [];
  events.forEach((e, i) => {
    const lines = progress.push(e);
    if (lines.length > 0) printed.push({ after: i, lines });
  });
  return { printed, end: progress.end() };
}

test('a file is printed when its process ends while it is the one reported, else when the next file’s events begin', () => {
  const assertionError = Object.assign(new Error('1 == 2'), { code: 'ERR_ASSERTION' });
  const { printed, end } = run([
    { type: 'test:enqueue', data: { file: A, name: A, nesting: 0 } },
    ev.start(A, 'suite', 0),
    ev.start(A, 'one', 1),
    ev.pass(A, 'one', 1),
    ev.fileDone(B, 120), // b ends first; its events wait until a is reported
    ev.start(A, 'two', 1),
    ev.fail(A, 'two', 1, failure('testCodeFailure', assertionError)),
    ev.fail(A, 'suite', 0, failure('subtestsFailed', '1 subtest failed'), 'suite'),
    ev.fileDone(A, 2345, failure('subtestsFailed', 'test failed', { exitCode: 1 })), // 8
    ev.start(B, 'b1'),
    ev.pass(B, 'b1'),
    ev.start(C, 'c1'), // 11: b is done
    ev.pass(C, 'c1', 0, { skip: true }),
    ev.fileDone(C, 50), // 13
    ev.total('tests 4'),
    ev.total('pass 2'),
    ev.total('fail 1'),
    ev.total('skipped 1'),
    ev.total('duration_ms 2500.5'),
  ]);
  assert.deepEqual(
    printed.map((p) => [p.after, p.lines]),
    [
      [8, ['[1/3] FAIL a.test.js                                1 passed, 1 failed         2.3 s']],
      [11, ['[2/3] ok   b.test.js                                1 passed                   0.1 s']],
      [13, ['[3/3] ok   c.test.js                                0 passed, 1 skipped        0.1 s']],
    ],
  );
  assert.equal(end[0], '');
  assert.equal(end[1], 'Failures (1):');
  assert.equal(end[3], '1) a.test.js');
  assert.equal(end[4], '   suite > two');
  assert.match(end[5], /^ {3}Error: 1 == 2$/);
  assert.deepEqual(end.slice(-2), ['FAILED: 3 files, 4 tests: 2 passed, 1 failed, 1 skipped (2.5 s)', 'Full output: dist/test.log']);
});

test('counts: suites are not tests, skip and todo apart, a cancelled test’s parent says why, a failed hook is a failure', () => {
  const { printed, end } = run([
    ev.start(A, 'hooked', 0),
    ev.start(A, 'x', 1),
    ev.fail(A, 'x', 1, failure('cancelledByParent', 'test did not finish before its parent and was cancelled')),
    ev.fail(A, 'hooked', 0, failure('hookFailed', new Error('before failed')), 'suite'),
    ev.start(A, 'other', 0),
    ev.pass(A, 's', 1, { skip: true }),
    ev.pass(A, 't', 1, { todo: true }),
    ev.fail(A, 'failing todo', 1, failure('testCodeFailure', new Error('not yet')), undefined),
    ev.start(A, 'inner', 1),
    ev.start(A, 'deep', 2),
    ev.fail(A, 'deep', 2, failure('testCodeFailure', new Error('deep fail'))),
    ev.fail(A, 'inner', 1, failure('subtestsFailed', '1 subtest failed'), 'suite'),
    ev.pass(A, 'z', 1),
    ev.pass(A, 'other', 0, { details: { type: 'suite' } }),
  ].map((e) => (e.data.name === 'failing todo' ? { ...e, data: { ...e.data, todo: true } } : e)));
  assert.deepEqual(printed, []);
  assert.equal(end[0], '[1/3] FAIL a.test.js                                1 passed, 2 failed, 1 cancelled, 1 skipped, 2 todo');
  const titles = end.filter((_, i) => i > 0 && /^\d+\) /.test(end[i - 1]));
  assert.deepEqual(titles, ['   hooked', '   other > inner > deep']);
  assert.equal(end[end.length - 2], 'FAILED: 1 file, 7 tests: 1 passed, 2 failed, 1 cancelled, 1 skipped, 2 todo');
});

test('a file that fails outside its tests: the exit code and its last output', () => {
  const { printed, end } = run([
    ev.stderr(A, 'Error: load fail\n    at Object.<anonymous> (/r/dist/test/a.test.js:1:7)\n'),
    ev.fileDone(A, 80, failure('testCodeFailure', 'test failed', { exitCode: 1, signal: null })),
    ev.start(A, A),
    ev.fail(A, A, 0, failure('testCodeFailure', 'test failed', { exitCode: 1, signal: null })),
    // A file whose process died after some tests passed: its line waits for the runner's verdict.
    ev.start(B, 'b1'),
    ev.pass(B, 'b1'),
    ev.fileDone(B, 90, failure('testCodeFailure', 'test failed', { exitCode: null, signal: 'SIGKILL' })),
    ev.start(B, B),
    ev.fail(B, B, 0, failure('testCodeFailure', 'test failed', { exitCode: null, signal: 'SIGKILL' })),
  ]);
  assert.deepEqual(
    printed.map((p) => [p.after, p.lines[0].slice(0, 70).trimEnd()]),
    [
      [3, '[1/3] FAIL a.test.js                                0 passed, 1 failed'],
      [8, '[2/3] FAIL b.test.js                                1 passed, 1 failed'],
    ],
  );
  const text = end.join('\n');
  assert.match(text, /1\) a\.test\.js\n {3}\(the file itself, outside any test\)\n {3}test failed \(the file's process exited with code 1\)\n {3}its last output:\n {3}\| Error: load fail\n {3}\| {5}at Object/);
  assert.match(text, /2\) b\.test\.js\n {3}\(the file itself, outside any test\)\n {3}test failed \(the file's process killed by SIGKILL\)/);
});

test('a file killed for its time: the test that was running (its process\'s word, else node\'s events) and why', () => {
  const killed = failure('testCodeFailure', 'test failed', { exitCode: null, signal: 'SIGKILL' });
  const progress = new TestProgress({ displayName: (f) => f.replace('/r/dist/test/', ''), totalFiles: 3 });
  const events = [
    // a: a suite whose first test failed and whose second hangs; node's verdict is then "subtests failed".
    ev.dequeue(A, 'suite', 0),
    ev.dequeue(A, 'one', 1),
    ev.complete(A, 'one', 1),
    ev.dequeue(A, 'two', 1),
    ev.stderr(A, 'waiting for Godot\n'),
    ev.fileDone(A, 300_100, failure('subtestsFailed', 'test failed', { exitCode: null, signal: 'SIGKILL' })),
    ev.start(A, 'suite', 0),
    ev.start(A, 'one', 1),
    ev.fail(A, 'one', 1, failure('testCodeFailure', new Error('one failed'))),
    ev.start(A, A),
    ev.fail(A, A, 0, failure('subtestsFailed', 'test failed', { exitCode: null, signal: 'SIGKILL' })),
    // b: its process named the test (node's events cannot, as it spins).
    ev.dequeue(B, 'b1'),
    ev.fileDone(B, 300_200, killed),
    ev.start(B, B),
    ev.fail(B, B, 0, killed),
    // c: its tests were over.
    ev.dequeue(C, 'c1'),
    ev.complete(C, 'c1'),
    ev.fileDone(C, 300_300, killed),
    ev.start(C, 'c1'),
    ev.pass(C, 'c1'),
    ev.start(C, C),
    ev.fail(C, C, 0, killed),
  ];
  progress.overTime(A, { limitMs: 300_000, killed: 3, busy: false });
  progress.overTime(B, { limitMs: 300_000, test: 'loops > spins', killed: 1, busy: true });
  progress.overTime(C, { limitMs: 300_000, killed: 2, busy: false });
  const { printed, end } = run(events, progress);
  assert.deepEqual(
    printed.flatMap((p) => p.lines.map((l) => l.slice(0, 70).trimEnd())),
    [
      '[1/3] FAIL a.test.js                                0 passed, 2 failed',
      '[2/3] FAIL b.test.js                                0 passed, 1 failed',
      '[3/3] FAIL c.test.js                                1 passed, 1 failed',
    ],
  );
  const text = end.join('\n');
  const limit = "the file's time limit of 300.0 s (FLORA_TEST_FILE_TIMEOUT, in seconds)";
  assert.ok(text.includes(`2) a.test.js\n   suite > two\n   still running after ${limit}; killed, and the 2 processes it had started\n   its last output:\n   | waiting for Godot`), text);
  assert.ok(text.includes(`3) b.test.js\n   loops > spins\n   still running after ${limit}; killed\n   Its process was busy running code (a synchronous loop?).`), text);
  assert.ok(text.includes(`4) c.test.js\n   (the file itself, outside any test)\n   its tests were over, but its process had not exited after ${limit}: a child process`), text);
  assert.ok(text.includes('killed, and the process it had started'), text);
});

test('a passing run says ok; without node’s totals the files’ counts are summed', () => {
  // (and a file reported again by the runner after its tests is printed once)
  const { end } = run([ev.start(A, 'a'), ev.pass(A, 'a'), ev.fileDone(A, 10), ev.start(A, A), ev.pass(A, A)], new TestProgress());
  assert.deepEqual(end, ['', 'ok: 1 file, 1 test: 1 passed, 0 failed']);
});

test('formatting: a file line, and a failure with node’s own stack frames left out', () => {
  assert.equal(
    formatFileLine({ file: A, passed: 12, failed: 0, cancelled: 0, skipped: 0, todo: 0, failures: [], durationMs: 61_234 }, 'integration/x.test.js'),
    'ok   integration/x.test.js                    12 passed                 61.2 s',
  );
  const error = new Error('boom');
  error.stack = 'Error: boom\n    at TestContext.<anonymous> (/r/dist/test/a.test.js:3:9)\n    at Test.run (node:internal/test_runner/test:796:25)\n    at async Promise.all (index 0)';
  assert.deepEqual(formatFailure({ file: A, path: ['s', 't'], error: failure('testCodeFailure', error) }, 2, 'a.test.js'), [
    '2) a.test.js',
    '   s > t',
    '   Error: boom',
    '       at TestContext.<anonymous> (/r/dist/test/a.test.js:3:9)',
  ]);
});

test('a skipped test\'s reason is printed once under its file\'s line', () => {
  const { printed } = run([
    ev.start(A, 'one'),
    ev.pass(A, 'one', 0, { skip: 'no Chromium: apt-get install -y chromium' }),
    ev.start(A, 'two'),
    ev.pass(A, 'two', 0, { skip: 'no Chromium: apt-get install -y chromium' }),
    ev.start(A, 'three'),
    ev.pass(A, 'three', 0, { skip: true }),
    ev.fileDone(A, 10),
  ]);
  assert.deepEqual(printed.flatMap((p) => p.lines), [
    '[1/3] ok   a.test.js                                0 passed, 3 skipped        0.0 s',
    '           skipped: no Chromium: apt-get install -y chromium',
  ]);
});
