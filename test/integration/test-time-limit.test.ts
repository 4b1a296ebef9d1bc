// npm test's time limit for a test file (scripts/testDeadlines.ts): node --test with npm test's
// arguments over small files written here (outside test/, so npm test never runs them), with a
// limit of 3 s. Each hung file fails within seconds naming the test that was running, or where it
// was stuck, whether it hung in a test, in a hook, at its top level or after its tests, and the
// processes it had started are killed; a file that passes beside them passes.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nodeTestArgs } from '../../scripts/runTests';
import { marksDir } from '../../scripts/testMarks';
import { running } from '../helpers/procs';
import { ROOT } from '../helpers/server';

const FILES: Record<string, string> = {
  'fine.test.js': `
    const { test } = require('node:test');
    test('quick', () => {});`,
  'in-test.test.js': `
    const { describe, test } = require('node:test');
    describe('a suite', () => {
      test('passes', () => {});
      test('waits forever', () => new Promise(() => setInterval(() => {}, 1000)));
      test('never reached', () => {});
    });`,
  'in-hook.test.js': `
    const { before, describe, test } = require('node:test');
    const { spawn } = require('node:child_process');
    describe('a hooked suite', () => {
      before(() => {
        console.log('child', spawn('sleep', ['1000']).pid);
        return new Promise(() => {});
      });
      test('after the hook', () => {});
    });`,
  'leaks-a-child.test.js': `
    const { test } = require('node:test');
    const { spawn } = require('node:child_process');
    test('starts a child and leaves it', () => console.log('child', spawn('sleep', ['1000']).pid));`,
  'top-level-loop.test.js': `
    const { test } = require('node:test');
    for (;;) {}`,
  'top-level-await.test.mjs': `
    import { test } from 'node:test';
    await new Promise(() => setInterval(() => {}, 1000));
    test('never declared', () => {});`,
  'spins.test.js': `
    const { describe, test } = require('node:test');
    describe('loops', () => {
      test('waits a moment', () => new Promise((resolve) => setTimeout(resolve, 50)));
      test('spins', () => { for (;;) {} });
    });`,
};

let dir: string;
let out = '';
let code: number | null;
let elapsedMs: number;
let runnerPid: number | undefined;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'flora-time-limit-'));
  const files = Object.keys(FILES).map((name) => path.join(dir, name));
  await Promise.all(Object.entries(FILES).map(([name, text]) => writeFile(path.join(dir, name), text)));
  const env: NodeJS.ProcessEnv = { ...process.env, FLORA_TEST_FILE_TIMEOUT: '3', FLORA_TEST_BASE: dir, FLORA_TEST_FILES: String(files.length) };
  // (This file runs under node --test too: its child mode must not reach the node --test started here.)
  delete env.NODE_TEST_CONTEXT;
  const started = Date.now();
  const proc = spawn(process.execPath, nodeTestArgs(files, path.join(dir, 'test.log')), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  runnerPid = proc.pid;
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => (out += chunk));
  code = await new Promise((resolve) => proc.on('exit', resolve));
  elapsedMs = Date.now() - started;
});

after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The failure block of `file` in the summary. */
function failureOf(file: string): string {
  const m = new RegExp(`^\\d+\\) ${file.replace('.', '\\.')}\\n((?: {3}.*\\n)*)`, 'm').exec(out);
  assert.ok(m, `a failure of ${file} in:\n${out}`);
  return m[1];
}

test('every hung file fails, within seconds, and the run ends with the others passed', () => {
  assert.equal(code, 1, out);
  // Four rounds of two files at the most, each ended by the limit.
  assert.ok(elapsedMs < 40_000, `took ${elapsedMs} ms`);
  for (const name of Object.keys(FILES)) assert.match(out, new RegExp(`^\\[\\d/7\\] ${name === 'fine.test.js' ? 'ok  ' : 'FAIL'} ${name.replace('.', '\\.')} `, 'm'));
  assert.match(out, /^FAILED: 7 files, /m);
  assert.ok(!existsSync(marksDir(runnerPid!)), 'the files\' marks of running tests are gone');
});

test('a test that waits forever is named, with the limit and how to change it', () => {
  assert.match(failureOf('in-test.test.js'), /^ {3}a suite > waits forever\n {3}still running after the file's time limit of 3\.0 s \(FLORA_TEST_FILE_TIMEOUT, in seconds\); killed\n/);
});

test('a hook that waits forever names its suite, and the child it started is killed', () => {
  const text = failureOf('in-hook.test.js');
  assert.match(text, /^ {3}a hooked suite\n {3}still running after .*; killed, and the process it had started\n/);
  const pid = Number(/\| child (\d+)/.exec(text)?.[1]);
  assert.ok(pid > 0 && !running(pid), text);
});

test('a process kept alive after its tests, by a child it started: killed with it', () => {
  const text = failureOf('leaks-a-child.test.js');
  assert.match(text, /^ {3}\(the file itself, outside any test\)\n {3}its tests were over, but its process had not exited after .*: a child process, server, socket or timer left open/);
  const pid = Number(/\| child (\d+)/.exec(text)?.[1]);
  assert.ok(pid > 0 && !running(pid), text);
});

test('stuck at its top level, in a loop or waiting', () => {
  for (const file of ['top-level-loop.test.js', 'top-level-await.test.mjs'])
    assert.match(failureOf(file), /^ {3}\(the file itself, outside any test\)\n {3}no test had started after .*: stuck at its top level/);
  assert.match(failureOf('top-level-loop.test.js'), /Its process was busy running code \(a synchronous loop\?\)/);
});

test('a test in a synchronous loop is named too, though node cannot report that it started', () => {
  assert.match(failureOf('spins.test.js'), /^ {3}loops > spins\n {3}still running after .*; killed\n {3}Its process was busy running code \(a synchronous loop\?\)\.\n/);
});
