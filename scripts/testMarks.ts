// Loaded into each test file's process by `npm test` (node --require, which node --test passes on
// to the files' processes): keeps the names of the tests running there, from the start to the end
// of each (root-level beforeEach and afterEach hooks run around the file's own), in a file that the
// time limit reads when it kills the process (testDeadlines.ts). Written synchronously, so that it
// names a test stuck in a synchronous loop, which also keeps node from reporting that it started.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, type TestContext } from 'node:test';
import { isMainThread } from 'node:worker_threads';

/** Where the test file run by process `pid` under node --test's process `runnerPid` names its running tests, one a line. */
export function marksFile(runnerPid: number, pid: number): string {
  return path.join(marksDir(runnerPid), String(pid));
}

/** The folder of the marks of node --test's process `runnerPid`, removed at the end of its run. */
export function marksDir(runnerPid: number): string {
  return path.join(tmpdir(), `flora-test-running-${runnerPid}`);
}

// node --test runs the files' processes with NODE_TEST_CONTEXT set; its own process loads this too,
// and so do the worker threads and forked processes (which have an IPC channel) of a test file.
if (process.env.NODE_TEST_CONTEXT !== undefined && isMainThread && process.send === undefined) {
  const file = marksFile(process.ppid, process.pid);
  const running = new Set<string>();
  // (No test fails for want of its mark: the time limit then names it from node's events.)
  const write = () => {
    try {
      writeFileSync(file, [...running].join('\n'));
    } catch {
      // the folder could not be made
    }
  };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch {
    // written nowhere, then
  }
  // (Each-hooks are given the test's context.)
  beforeEach((t) => {
    running.add((t as TestContext).fullName);
    write();
  });
  afterEach((t) => {
    running.delete((t as TestContext).fullName);
    write();
  });
  process.on('exit', () => rmSync(file, { force: true }));
}
