// The data directory's lock: taken over from processes that are gone, also when their pid now
// belongs to another process (pids are reused); refused while its owner runs; the workers of a dead
// supervisor are waited for, then stopped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

process.env.FLORA_TEST_ORPHANS_WAIT_MS = '200';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { lockDirectory } = require('../../src/storage/dirLock') as typeof import('../../src/storage/dirLock');

const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};

/** A lock file written by `content` naming a running `sleep` (the other process). */
async function withLockFile(content: (other: number) => string, fn: (dir: string, other: ChildProcess) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-lock-'));
  const other = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    writeFileSync(path.join(dir, 'flora.lock'), content(other.pid!));
    await fn(dir, other);
  } finally {
    other.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a running owner keeps the directory; the same pid with another start time is another process', async () => {
  await withLockFile(
    (other) => `${other}:${startOf(other)}`,
    async (dir) => assert.rejects(lockDirectory(dir), /another Flora process \(pid \d+\) already serves/),
  );
  await withLockFile(
    (other) => `${other}:1`,
    async (dir) => (await lockDirectory(dir)).release(),
  );
});

test('a dead owner whose worker still runs: the worker is stopped after the wait; a stranger under a worker pid is left alone', async () => {
  await withLockFile(
    (other) => `999999999\n${other}:${startOf(other)}`,
    async (dir, other) => {
      const killed = new Promise((r) => other.once('exit', (_code, signal) => r(signal)));
      const lock = await lockDirectory(dir);
      assert.equal(await killed, 'SIGKILL');
      lock.release();
    },
  );
  await withLockFile(
    (other) => `999999999\n${other}:1`,
    async (dir, other) => {
      const lock = await lockDirectory(dir);
      assert.equal(other.exitCode, null);
      assert.equal(other.signalCode, null, 'not killed');
      lock.members([process.pid]);
      assert.equal(readFileSync(path.join(dir, 'flora.lock'), 'utf8'), `${process.pid}:${startOf(process.pid)}\n${process.pid}:${startOf(process.pid)}`);
      lock.release();
    },
  );
});
