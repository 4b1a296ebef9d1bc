// What server/jobHousekeeping.ts runs on the job files: TransferJobs.removeGone removes the folders
// of databases that no longer exist (and asks about none when there is none); TransferJobs.prune
// and BackupJobs.prune remove the finished jobs past the retention, every file named after them,
// and what earlier versions left in the transfers folder once it is older than the retention.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BackupJobs } from '../../src/backup/jobs';
import type { JobLimits } from '../../src/jobs/jobFiles';
import type { Store } from '../../src/storage/types';
import { TransferJobs } from '../../src/transfer/jobs';
import type { Transport } from '../../src/transfer/queryClient';

const DAY = 86_400_000;
const LIMITS: JobLimits = { running: 2, kept: 50, retentionMs: DAY };
const noQueries: Transport = async () => {
  throw new Error('housekeeping runs no queries');
};
const tmp = mkdtempSync(path.join(tmpdir(), 'flora-job-housekeeping-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let dirs = 0;
const dataDir = () => path.join(tmp, `data-${++dirs}`);

/** A finished job's files in `dir`, last updated `daysAgo`: its state, `others` named after it. */
function finished(dir: string, id: string, daysAgo: number, others: string[] = []): void {
  mkdirSync(dir, { recursive: true });
  const updated = new Date(Date.now() - daysAgo * DAY).toISOString();
  writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ id, state: 'Complete', created: updated, updated, pid: process.pid }));
  for (const name of others) writeFileSync(path.join(dir, `${id}${name}`), '{}');
}

const ids = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

test("removeGone: a deleted database's folder goes; the others, and what earlier versions left, stay", async () => {
  const data = dataDir();
  const transfers = path.join(data, 'transfers');
  finished(path.join(transfers, '1'), ids(1), 0, ['.report.json']);
  finished(path.join(transfers, '2'), ids(2), 0, ['.report.json']);
  finished(transfers, ids(3), 30); // an earlier version's job, owned by a name
  const jobs = new TransferJobs(data, noQueries, LIMITS);
  const asked: string[][] = [];
  await jobs.removeGone(async (dbs) => {
    asked.push(dbs.map(String).sort());
    return new Set([1n]);
  });
  assert.deepEqual(asked, [['1', '2']]);
  assert.deepEqual(readdirSync(transfers).sort(), [`${ids(3)}.json`, '1']);
  assert.equal((await jobs.of(1n).get(ids(1)))?.state, 'Complete');
});

test('removeGone: no folder of jobs, nothing asked', async () => {
  const jobs = new TransferJobs(dataDir(), noQueries, LIMITS);
  await jobs.removeGone(async () => assert.fail('asked about no database'));
});

test('prune: finished jobs past the retention go with their files, recent ones stay; so do files of earlier versions, by age', async () => {
  const data = dataDir();
  const transfers = path.join(data, 'transfers');
  const folder = path.join(transfers, '7');
  finished(folder, ids(1), 2, ['.report.json']);
  mkdirSync(path.join(folder, ids(1)));
  writeFileSync(path.join(folder, ids(1), 'upload.ndjson'), 'x\n');
  finished(folder, ids(2), 0, ['.report.json']);
  finished(transfers, ids(3), 0);
  finished(transfers, ids(4), 0);
  const old = new Date(Date.now() - 2 * DAY);
  utimesSync(path.join(transfers, `${ids(4)}.json`), old, old);
  await new TransferJobs(data, noQueries, LIMITS).prune();
  assert.deepEqual(readdirSync(folder).sort(), [`${ids(2)}.json`, `${ids(2)}.report.json`]);
  assert.deepEqual(readdirSync(transfers).sort(), [`${ids(3)}.json`, '7']);
});

test('BackupJobs.prune: a finished backup past the retention goes with its file', async () => {
  const data = dataDir();
  const backups = path.join(data, 'backups');
  finished(backups, ids(1), 2, ['.flora-backup']);
  finished(backups, ids(2), 0, ['.flora-backup']);
  await new BackupJobs(data, {} as Store, 'lmdb', LIMITS).prune();
  assert.deepEqual(readdirSync(backups).sort(), [`${ids(2)}.flora-backup`, `${ids(2)}.json`]);
});
