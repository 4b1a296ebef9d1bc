// One Flora process per data directory (until issue 15's multi-process commit protocol): a second
// process on the same LMDB files is refused (exit 2, naming the owner), and a lock whose process died
// (kill -9) is taken over.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, query as q } from 'faunadb';
import { FLORA_BIN, startFlora } from '../helpers/server';

function startAgain(dir: string): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, [FLORA_BIN, 'start', '--port', '0', '--data-dir', dir], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' },
  });
}

test('a second process on the same data directory is refused; a dead owner\'s lock is taken over', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-lock-'));
  try {
    const first = await startFlora({ dataDir: dir });
    const second = startAgain(dir);
    assert.equal(second.status, 2, second.stderr);
    assert.match(second.stderr, new RegExp(`^flora: cannot open the store: another Flora process \\(pid ${first.proc.pid}\\) already serves the data directory`, 'm'));
    const c = new Client({ secret: first.secret, endpoint: first.url });
    await c.query(q.CreateCollection({ name: 'kept' }));
    await c.close();
    // Killed without a chance to let go: the next process takes the lock and the data.
    await first.stop('SIGKILL');
    const next = await startFlora({ dataDir: dir });
    const d = new Client({ secret: next.secret, endpoint: next.url });
    assert.equal(await d.query(q.Exists(q.Collection('kept'))), true);
    await d.close();
    await next.stop();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
