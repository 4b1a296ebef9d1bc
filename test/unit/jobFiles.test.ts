// JobFiles (src/jobs/jobFiles.ts): a job's file follows it to Complete or Failed; a Running job
// whose process is gone reads as Failed, whether that process has exited or was an earlier one
// with this same pid (a restarted container's PID 1); list is newest first and filtered. A folder
// runs at most `running` jobs at once (TooManyJobs), keeps at most `kept` (the oldest finished go),
// and forgets finished jobs past the retention, with every file named after them.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { JobFiles, TooManyJobs, type FileJob, type JobLimits } from '../../src/jobs/jobFiles';

interface TestJob extends FileJob {
  label: string;
}

const dir = mkdtempSync(path.join(tmpdir(), 'flora-jobs-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const DAY = 86_400_000;
/** Limits of a folder none of these tests reach. */
const LIMITS: JobLimits = { running: 2, kept: 50, retentionMs: 7 * DAY };
const files = new JobFiles<TestJob>(dir, 'test job', LIMITS);

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
  assert.deepEqual(await new JobFiles<TestJob>(path.join(dir, 'none'), 'x', LIMITS).list(() => true, 10), [], 'no folder yet: no jobs');
});

let folders = 0;
/** JobFiles in a folder of their own, with `limits`. */
const withLimits = (limits: JobLimits) => new JobFiles<TestJob>(path.join(dir, `limited-${++folders}`), 'test job', limits);

test('running: one job more than the limit is refused, also when asked for at the same moment; a finished one frees its place', async () => {
  const files = withLimits({ running: 1, kept: 10, retentionMs: DAY });
  const [a, b] = await Promise.allSettled([files.create({ label: 'a' }), files.create({ label: 'b' })]);
  assert.equal([a, b].filter((r) => r.status === 'fulfilled').length, 1);
  const refused = [a, b].find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.ok(refused.reason instanceof TooManyJobs && refused.reason.running === 1);
  const running = (a.status === 'fulfilled' ? a : (b as PromiseFulfilledResult<TestJob>)).value;
  await files.run(running, async () => ({}));
  assert.equal((await files.create({ label: 'c' })).state, 'Running');
});

test('kept: the oldest finished jobs go, every file named after them with them', async () => {
  const files = withLimits({ running: 5, kept: 2, retentionMs: DAY });
  const ids: string[] = [];
  for (const label of ['1', '2', '3']) {
    const job = await files.create({ label });
    mkdirSync(files.path(job.id, ''));
    writeFileSync(files.path(job.id, '.report.json'), '{}');
    await files.run(job, async () => ({}));
    ids.push(job.id);
  }
  assert.deepEqual((await files.list(() => true, 10)).map((j) => j.label), ['3', '2']);
  assert.equal(await files.get(ids[0]), undefined);
  assert.ok(!readdirSync(files.dir).some((n) => n.startsWith(ids[0])), 'nothing of the first job is left');
});

test('retention: a finished job past it is neither listed nor read, and prune removes it; a running one stays', async () => {
  const files = withLimits({ running: 5, kept: 10, retentionMs: 0 });
  const done = await files.create({ label: 'done' });
  writeFileSync(files.path(done.id, '.report.json'), '{}');
  await files.run(done, async () => ({}));
  assert.deepEqual(await files.list(() => true, 10), []);
  assert.equal(await files.get(done.id), undefined);
  await files.prune();
  assert.deepEqual(readdirSync(files.dir), []);
  const running = await files.create({ label: 'running' });
  await files.prune();
  assert.deepEqual((await files.list(() => true, 10)).map((j) => j.id), [running.id]);
});

test('discard: a job whose source never arrived is gone, its place free again', async () => {
  const files = withLimits({ running: 1, kept: 10, retentionMs: DAY });
  const job = await files.create({ label: 'upload' });
  mkdirSync(files.path(job.id, ''));
  await files.discard(job);
  assert.equal(existsSync(files.path(job.id, '')), false);
  assert.equal(await files.get(job.id), undefined);
  assert.equal((await files.create({ label: 'next' })).state, 'Running');
});
