// The `--workers` supervisor's failure paths: a worker that cannot start stops the tier (exit 1,
// with the reason); workers that keep dying stop it too rather than restarting forever; workers
// whose supervisor was killed stop, and nobody else takes their directory before they have.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as http2 from 'node:http2';
import { Client, query as q } from 'faunadb';
import { FLORA_BIN, startFlora, waitFor, workerPids } from '../helpers/server';
import { commandLine } from '../helpers/procs';
import { running } from '../helpers/procs';
import { workerExecArgv } from '../../src/tier/supervisor';

// (A port in use is found by the supervisor before any worker starts: cli-messages.test.ts.)
test('a worker that cannot start stops the tier: exit 1 and the reason', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-sup-'));
  try {
    const run = spawnSync(process.execPath, [FLORA_BIN, 'start', '--workers', '2', '--port', '0', '--data-dir', dir], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, FLORA_NO_BUILD_CHECK: '1', FLORA_FAILPOINTS: 'tier.worker-start' },
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /failpoint tier\.worker-start/);
    assert.match(run.stderr, /flora: a worker exited with code 1 while starting; stopping/);
    assert.doesNotMatch(run.stdout, /Flora listening/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('workers that keep dying stop the tier (exit 1) instead of being restarted forever', async () => {
  const flora = await startFlora({ args: ['--workers', '2'] });
  const restarts = () => (flora.stderr().match(/started worker/g) ?? []).length;
  for (let kills = 0; !/workers keep failing, stopping/.test(flora.stderr()); kills++) {
    assert.ok(kills <= 11, `still restarting after ${kills} deaths:\n${flora.stderr()}`);
    const before = restarts();
    process.kill(workerPids(flora)[0], 'SIGKILL');
    await waitFor('a restart or the stop', () => restarts() > before || /keep failing/.test(flora.stderr()));
  }
  assert.equal(restarts(), 10, 'ten restarts within the minute, then no more');
  await waitFor('the supervisor to exit', () => flora.proc.exitCode !== null);
  assert.equal(await flora.stop(), 1);
});


// Found by the torture suite's crash part: the workers of a supervisor killed outright went on
// serving their open connections, writing (collector, index builds), and a new server on the same
// directory took its lock beside them.
test('kill -9 of the supervisor: its workers stop by themselves, and a new owner takes the directory only once they have', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-sup-'));
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const tier = await startFlora({ dataDir: dir, args: ['--workers', '2'] });
    const root = new Client({ secret: tier.secret, domain: '127.0.0.1', port: tier.port, scheme: 'http' });
    closers.push(() => root.close({ force: true }));
    await root.query(q.CreateCollection({ name: 'kept' }));
    const pids = workerPids(tier);
    // An open session would have kept a graceful stop waiting.
    const session = http2.connect(tier.url);
    session.on('error', () => undefined);
    closers.push(async () => void session.destroy());
    const frozen = pids[0];
    process.kill(frozen, 'SIGSTOP');
    await tier.stop('SIGKILL');

    // A new owner waits for the workers to stop; one that does not (here: stopped by a signal) it
    // stops itself, as a worker stuck for good would be.
    const next = await startFlora({ dataDir: dir, env: { FLORA_TEST_ORPHANS_WAIT_MS: '1000' } });
    assert.match(next.stderr(), new RegExp(`flora: stopping workers \\(pids ${frozen}\\) of a tier whose supervisor died \\(kill -9\\)`));
    closers.push(async () => void (await next.stop()));
    assert.deepEqual(pids.filter(running), [], 'every worker of the dead tier has exited');
    const c = new Client({ secret: next.secret, domain: '127.0.0.1', port: next.port, scheme: 'http' });
    closers.push(() => c.close());
    assert.equal(await c.query(q.Exists(q.Collection('kept'))), true);
    closers.pop();
    await c.close();
    closers.pop();
    assert.equal(await next.stop(), 0);
  } finally {
    // Also after a failed assertion: an open session or client would keep the file from ending.
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
});

test('workers run with a young-generation semi-space pinned at 32 MiB, or at the maximum NODE_OPTIONS sets', async () => {
  const tier = await startFlora({ args: ['--workers', '2'] });
  try {
    const pids = workerPids(tier);
    assert.equal(pids.length, 2);
    for (const pid of pids) {
      assert.ok(commandLine(pid).includes('--max-semi-space-size=32'), commandLine(pid).join(' '));
      assert.ok(commandLine(pid).includes('--min-semi-space-size=32'), commandLine(pid).join(' '));
    }
  } finally {
    await tier.stop();
  }
  const own = await startFlora({ args: ['--workers', '2'], env: { NODE_OPTIONS: '--max-semi-space-size=8' } });
  try {
    for (const pid of workerPids(own)) {
      assert.ok(!commandLine(pid).some((a) => a.startsWith('--max-semi-space-size')), commandLine(pid).join(' '));
      assert.ok(commandLine(pid).includes('--min-semi-space-size=8'), commandLine(pid).join(' '));
    }
  } finally {
    await own.stop();
  }
  assert.deepEqual(workerExecArgv(['--inspect'], ''), ['--inspect', '--max-semi-space-size=32', '--min-semi-space-size=32']);
  assert.deepEqual(workerExecArgv(['--max_semi_space_size=4'], ''), ['--max_semi_space_size=4', '--min-semi-space-size=4']);
  assert.deepEqual(workerExecArgv(['--min-semi-space-size=2'], ''), ['--min-semi-space-size=2']);
});
