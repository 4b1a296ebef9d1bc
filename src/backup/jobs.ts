// Backup jobs (POST /api/v1/backups): a backup written to a file in the data directory while the
// client polls, then downloaded. A job is two files under <dataDir>/backups/ (jobs/jobFiles.ts):
//
//   <id>.json            its state (BackupJob), rewritten as it progresses
//   <id>.flora-backup    the backup, written as <id>.flora-backup.part and renamed once complete
//
// They are the top database's jobs, within its limits (JobLimits: running at once, kept, retention).

import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFiles, type FileJob, type JobLimits } from '../jobs/jobFiles';
import type { Store } from '../storage/types';
import { BACKUP_SUFFIX, type EngineKind } from './format';
import { backupHeader, writeBackup, type BackupProgress } from './writeBackup';

export interface BackupJob extends FileJob {
  records: number;
  /** Compressed bytes written so far (the file's size once Complete). */
  bytes: number;
  /** The backup's transaction time, once its snapshot is open. */
  issued_ts?: string;
  /** SHA-256 of its records, once Complete (the trailer's). */
  sha256?: string;
}

export class BackupJobs {
  private readonly files: JobFiles<BackupJob>;

  constructor(
    dataDir: string,
    private readonly store: Store,
    private readonly engine: EngineKind,
    limits: JobLimits,
  ) {
    this.files = new JobFiles(join(dataDir, 'backups'), 'backup', limits);
  }

  /** Starts a backup into a file; resolves with the job once its snapshot is open. TooManyJobs when the limit runs. */
  async start(): Promise<BackupJob> {
    const snapshot = await this.store.openSnapshot();
    try {
      const header = await backupHeader(snapshot, this.engine);
      const job = await this.files.create({ records: 0, bytes: 0, issued_ts: header.issued_ts });
      const onProgress = (p: BackupProgress) => {
        job.records = p.records;
        job.bytes = p.bytes;
      };
      const part = this.files.path(job.id, `${BACKUP_SUFFIX}.part`);
      const work = async () => {
        const done = await writeBackup(snapshot, header, createWriteStream(part), onProgress);
        await rename(part, this.files.path(job.id, BACKUP_SUFFIX));
        return { records: done.records, bytes: done.bytes, sha256: done.trailer.sha256 };
      };
      void this.files.run(job, work, () => rm(part, { force: true })).finally(() => snapshot.close());
      return { ...job };
    } catch (e) {
      await snapshot.close();
      throw e;
    }
  }

  /** The newest backup jobs first, at most `limit` (none past the retention). */
  list(limit: number): Promise<BackupJob[]> {
    return this.files.list(() => true, limit);
  }

  /** Removes the finished backups past the retention (server/jobHousekeeping.ts, hourly). */
  prune(): Promise<void> {
    return this.files.prune();
  }

  /** A job by id; undefined when there is none. */
  get(id: string): Promise<BackupJob | undefined> {
    return this.files.get(id);
  }

  /** The file of a Complete job. */
  async open(job: BackupJob): Promise<{ size: number; body: ReadStream }> {
    const file = this.files.path(job.id, BACKUP_SUFFIX);
    const { size } = await stat(file);
    return { size, body: createReadStream(file) };
  }
}
