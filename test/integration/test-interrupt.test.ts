// Ctrl-C during `npm test` (scripts/runTests.ts): the runner over two small files written here
// (outside test/, so npm test never runs them on their own), one that passes and one that makes a
// data directory in the temporary folder and waits. A SIGINT to the whole process group (a
// terminal's Ctrl-C) or to the runner alone stops it at once: exit code 130, the finished file's
// line, the waiting one marked stopped, the summary so far; its process is gone, and so is every
// folder the run made.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { running } from '../helpers/procs';
import { ROOT, waitFor } from '../helpers/server';

const FILES: Record<string, string> = {
  'a-passes.test.js': `
    const { test } = require('node:test');
    test('quick', () => {});`,
  'b-waits.test.js': `
    const { test } = require('node:test');
    const { mkdtempSync, writeFileSync } = require('node:fs');
    const { tmpdir } = require('node:os');
    const path = require('node:path');
    test('makes a data directory and waits', () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'flora-test-'));
      writeFileSync(path.join(dir, 'data.mdb'), Buffer.alloc(1 << 20));
      writeFileSync(path.join(dir, 'pid'), String(process.pid));
      return new Promise(() => setInterval(() => {}, 1000));
    });`,
};

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'flora-interrupt-'));
  for (const [name, text] of Object.entries(FILES)) await writeFile(path.join(dir, name), text);
});
after(() => rm(dir, { recursive: true, force: true }));

/** The files under `root`, as paths. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? e.path, e.name));
}

for (const to of ['the process group', 'the runner alone'] as const) {
  test(`a SIGINT to ${to} stops the run at once, prints the summary so far and leaves no temporary folder`, { timeout: 60_000 }, async () => {
    const temp = await mkdtemp(path.join(dir, 'tmp-'));
    const logs = await mkdtemp(path.join(dir, 'logs-'));
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp, FLORA_TEST_LOG_DIR: logs };
    delete env.NODE_TEST_CONTEXT; // set for this file's process: the inner node --test would take itself for a file's
    delete env.FLORA_TEST_WORKERS;
    delete env.FLORA_TEST_PG_URL;
    const files = Object.keys(FILES).map((f) => path.join(dir, f));
    // Its own process group, as a terminal's job is.
    const runner = spawn(process.execPath, [path.join(ROOT, 'dist', 'scripts', 'runTests.js'), ...files], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    runner.stdout.on('data', (c: Buffer) => (out += c));
    runner.stderr.on('data', (c: Buffer) => (out += c));
    const exited = new Promise<number | null>((resolve) => runner.on('close', (code) => resolve(code)));
    try {
      await waitFor('the first file done and the second waiting', () => /^\[1\/2\] ok +\S*a-passes\.test\.js/m.test(out) && filesUnder(temp).some((f) => f.endsWith('/pid')));
      const pidFile = filesUnder(temp).find((f) => f.endsWith('/pid'))!;
      const waiting = Number(readFileSync(pidFile, 'utf8'));
      process.kill(to === 'the process group' ? -runner.pid! : runner.pid!, 'SIGINT');
      assert.equal(await exited, 130, out);
      assert.match(out, /^\[2\/2\] stop +\S*b-waits\.test\.js +0 passed$/m);
      assert.match(out, /^STOPPED \(1 running\): 2 files, 1 test: 1 passed, 0 failed$/m);
      assert.equal(running(waiting), false, 'the waiting file is stopped');
      assert.deepEqual(readdirSync(temp), [], 'the run left nothing in the temporary folder');
    } finally {
      try {
        process.kill(-runner.pid!, 'SIGKILL');
      } catch {
        // it ended
      }
    }
  });
}
