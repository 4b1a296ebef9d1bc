// JobFiles (src/jobs/jobFiles.ts): a job's file follows it to Complete or Failed; a Running job
// whose process is gone reads as Failed, whether that process has exited or was an earlier one
// with this same pid (a restarted container's PID 1); list is newest first and filtered.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { JobFiles, type FileJob } from '../../src/jobs/jobFiles';

interface TestJob extends FileJob {
  label: string;
}

const dir = mkdtempSync(path.join(tmpdir(), 'flora-jobs-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const files = new JobFiles<TestJob>(dir, 'test job');

/** A job file as a process that is gone left it: Running, under `pid`. */
function leftRunning(id: string, pid: number): void {
  const now = new Date().toISOString();
  writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ id, state: 'Running', created: now, updated: now, pid, label: 'left' }));
}

test('a job runs to Complete with what its work returns, or to Failed with its error', async () => {
  const ok = await files.create({ label: 'ok' });
  assert.equal((await files.get(ok.id))?.state, 'Running', 'running in this process');
  await files.run(ok, async () => ({ label: 'done' }));
  assert.deepEqual([(await files.get(ok.id))?.state, (await files.get(ok.id))?.label], ['Complete', 'done']);
  const bad = await files.create({ label: 'bad' });
  let cleaned = false;
  await files.run(bad, async () => Promise.reject(new Error('disk full')), async () => (cleaned = true));
  const failed = await files.get(bad.id);
  assert.deepEqual([failed?.state, failed?.error, cleaned], ['Failed', 'disk full', true]);
});

test('a Running job whose process exited, or that this pid never ran, reads as Failed', async () => {
  const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
  leftRunning('00000000-0000-4000-8000-000000000001', exited);
  leftRunning('00000000-0000-4000-8000-000000000002', process.pid);
  for (const id of ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']) {
    const job = await files.get(id);
    assert.equal(job?.state, 'Failed', id);
    assert.equal(job?.error, 'the process running this test job stopped before it was complete');
  }
});

test('list: newest first, only the jobs kept, at most the limit; unknown or malformed ids are absent', async () => {
  const all = await files.list(() => true, 100);
  assert.ok(all.length >= 4);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].created >= all[i].created, 'newest first');
  assert.deepEqual((await files.list((j) => j.label === 'done', 100)).map((j) => j.label), ['done']);
  assert.equal((await files.list(() => true, 2)).length, 2);
  assert.equal(await files.get('00000000-0000-4000-8000-00000000dead'), undefined);
  assert.equal(await files.get('../etc/passwd'), undefined);
  assert.deepEqual(await new JobFiles<TestJob>(path.join(dir, 'none'), 'x').list(() => true, 10), [], 'no folder yet: no jobs');
});
