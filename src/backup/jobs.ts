// Backup jobs (POST /api/v1/backups): a backup written to a file in the data directory while the
// client polls, then downloaded. A job is two files under <dataDir>/backups/:
//
//   <id>.json            its state (BackupJob), rewritten as it progresses
//   <id>.flora-backup    the backup, written as <id>.flora-backup.part and renamed once complete
//
// Files rather than store records: the backup must not write into the store it copies, and any
// process of a `--workers` tier (one data directory) answers about any job. A job whose process
// died while it ran is reported Failed. Across machines (PostgreSQL) a job is known only to the
// machine that ran it.

import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../storage/types';
import { BACKUP_SUFFIX, type EngineKind } from './format';
import { backupHeader, writeBackup, type BackupProgress } from './writeBackup';

export type BackupJobState = 'Running' | 'Complete' | 'Failed';

export interface BackupJob {
  id: string;
  state: BackupJobState;
  created: string;
  updated: string;
  records: number;
  /** Compressed bytes written so far (the file's size once Complete). */
  bytes: number;
  /** The backup's transaction time, once its snapshot is open. */
  issued_ts?: string;
  /** SHA-256 of its records, once Complete (the trailer's). */
  sha256?: string;
  error?: string;
  /** The process writing it. */
  pid: number;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Progress is saved at most this often. */
const SAVE_EVERY_MS = 500;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class BackupJobs {
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly store: Store,
    private readonly engine: EngineKind,
  ) {
    this.dir = join(dataDir, 'backups');
  }

  private path(id: string, ext: string): string {
    return join(this.dir, `${id}${ext}`);
  }

  private async save(job: BackupJob): Promise<void> {
    // Written aside and renamed: a reader never sees half a state.
    const tmp = this.path(job.id, `.json.${process.pid}`);
    await writeFile(tmp, JSON.stringify({ ...job, updated: new Date().toISOString() }));
    await rename(tmp, this.path(job.id, '.json'));
  }

  /** Starts a backup into a file; resolves with the job once its snapshot is open. */
  async start(): Promise<BackupJob> {
    await mkdir(this.dir, { recursive: true });
    const now = new Date().toISOString();
    const job: BackupJob = { id: randomUUID(), state: 'Running', created: now, updated: now, records: 0, bytes: 0, pid: process.pid };
    const snapshot = await this.store.openSnapshot();
    try {
      const header = await backupHeader(snapshot, this.engine);
      job.issued_ts = header.issued_ts;
      await this.save(job);
      const onProgress = (p: BackupProgress) => {
        job.records = p.records;
        job.bytes = p.bytes;
      };
      const file = createWriteStream(this.path(job.id, `${BACKUP_SUFFIX}.part`));
      void this.run(job, () => writeBackup(snapshot, header, file, onProgress)).finally(() => snapshot.close());
    } catch (e) {
      await snapshot.close();
      throw e;
    }
    return { ...job };
  }

  private async run(job: BackupJob, write: () => Promise<{ records: number; bytes: number; trailer: { sha256: string } }>): Promise<void> {
    let saving: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      saving = saving.then(() => this.save(job)).catch(() => undefined);
    }, SAVE_EVERY_MS);
    try {
      const done = await write();
      await rename(this.path(job.id, `${BACKUP_SUFFIX}.part`), this.path(job.id, BACKUP_SUFFIX));
      Object.assign(job, { state: 'Complete', records: done.records, bytes: done.bytes, sha256: done.trailer.sha256 });
    } catch (e) {
      job.state = 'Failed';
      job.error = (e as Error).message;
      await rm(this.path(job.id, `${BACKUP_SUFFIX}.part`), { force: true });
    } finally {
      clearInterval(timer);
      await saving;
    }
    await this.save(job).catch((e: unknown) => console.error(`flora: cannot save backup job ${job.id}: ${(e as Error).message}`));
  }

  /** A job by id; undefined when there is none. */
  async get(id: string): Promise<BackupJob | undefined> {
    if (!ID.test(id)) return undefined;
    let job: BackupJob;
    try {
      job = JSON.parse(await readFile(this.path(id, '.json'), 'utf8')) as BackupJob;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    if (job.state === 'Running' && !alive(job.pid)) return { ...job, state: 'Failed', error: 'the process writing this backup stopped before it was complete' };
    return job;
  }

  /** The file of a Complete job. */
  async open(job: BackupJob): Promise<{ size: number; body: ReadStream }> {
    const file = this.path(job.id, BACKUP_SUFFIX);
    const { size } = await stat(file);
    return { size, body: createReadStream(file) };
  }
}
