// The `--workers` supervisor's failure paths: a worker that cannot start stops the tier (exit 1,
// with the reason); workers that keep dying stop it too rather than restarting forever.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FLORA_BIN, startFlora, waitFor, workerPids } from '../helpers/server';

test('a worker that cannot listen stops the tier: exit 1 and the reason', async () => {
  const taken = createServer();
  await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok));
  const port = (taken.address() as { port: number }).port;
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-sup-'));
  try {
    const run = spawnSync(process.execPath, [FLORA_BIN, 'start', '--workers', '2', '--port', String(port), '--data-dir', dir], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' },
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`flora: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    assert.match(run.stderr, /flora: a worker exited with code 1 while starting; stopping/);
    assert.doesNotMatch(run.stdout, /Flora listening/);
  } finally {
    taken.close();
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
