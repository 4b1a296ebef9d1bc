// Jobs a client starts and then polls (backups, exports, imports), each kept as files in a folder
// of the data directory (one folder per owner), rewritten as it progresses:
//
//   <id>.json      its state: small, what a list reads
//   <id>.<what>    what it made (a report, a backup file), read when asked for
//   <id>/          a tree of files (an export's, an import's upload)
//
// Files rather than store records: a backup must not write into the store it copies, and any process
// of a `--workers` tier (one data directory) answers about any job. A job whose process died while it
// ran reads as Failed. Across machines (PostgreSQL) a job is known only to the machine that ran it.
// A folder runs and keeps a bounded number of jobs (JobLimits), so reading all its states is cheap.

import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { namesIn } from '../dirNames';
import { log } from '../diag/log';
import { pidExists } from '../pids';

export type JobState = 'Running' | 'Complete' | 'Failed';

export interface FileJob {
  id: string;
  state: JobState;
  created: string;
  updated: string;
  /** The process running it. */
  pid: number;
  error?: string;
}

export interface JobLimits {
  /** Jobs of one folder Running at once: one more is refused (TooManyJobs). */
  running: number;
  /** Jobs one folder keeps: the oldest finished ones are removed to make room for a new one. */
  kept: number;
  /** A finished job is removed this long after its last update (prune). */
  retentionMs: number;
}

/** A new job would make the folder run more than its limit at once. */
export class TooManyJobs extends Error {
  constructor(readonly running: number) {
    super(`${running} job(s) running already`);
  }
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Progress is saved at most this often. */
const SAVE_EVERY_MS = 500;

/** The jobs this process is running: a job file naming this pid but not listed here was left by an earlier process that had the same pid (a restarted container's PID 1). */
const runningHere = new Set<string>();

/** Each folder's last creation in this process: creations in one folder wait for each other (count, then create). */
const creating = new Map<string, Promise<unknown>>();

function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (creating.get(key) ?? Promise.resolve()).then(fn, fn);
  const settled = run.catch(() => undefined);
  creating.set(key, settled);
  void settled.then(() => creating.get(key) === settled && creating.delete(key));
  return run;
}

const byCreated = (a: FileJob, b: FileJob): number => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0);

/** Whether the process that wrote a Running job is still running it. */
function stillRunning(job: FileJob): boolean {
  return job.pid === process.pid ? runningHere.has(job.id) : pidExists(job.pid);
}

export class JobFiles<J extends FileJob> {
  constructor(
    readonly dir: string,
    /** What a job makes, as its Failed message names it ("backup"). */
    private readonly what: string,
    private readonly limits: JobLimits,
  ) {}

  path(id: string, ext: string): string {
    return join(this.dir, `${id}${ext}`);
  }

  /**
   * A new Running job with `fields`, saved; TooManyJobs when the folder runs its limit already. The
   * oldest finished jobs are removed to keep the folder within its limit (and those past retention).
   * Within a tier, two processes creating at the same moment may each count the other's job out.
   */
  create(fields: Omit<J, keyof FileJob>): Promise<J> {
    return oneAtATime(this.dir, async () => {
      const jobs = await this.all();
      if (jobs.filter((j) => j.state === 'Running').length >= this.limits.running) throw new TooManyJobs(this.limits.running);
      const over = jobs.length + 1 - this.limits.kept;
      const finished = jobs.filter((j) => j.state !== 'Running').sort(byCreated);
      for (const [i, j] of finished.entries()) if (i < over || this.expired(j)) await this.remove(j.id);
      await mkdir(this.dir, { recursive: true });
      const now = new Date().toISOString();
      const job = { ...fields, id: randomUUID(), state: 'Running', created: now, updated: now, pid: process.pid } as J;
      runningHere.add(job.id);
      try {
        await this.save(job);
      } catch (e) {
        runningHere.delete(job.id);
        throw e;
      }
      return job;
    });
  }

  /** A job created but never run (its source never arrived): removed, as if never made. */
  async discard(job: J): Promise<void> {
    runningHere.delete(job.id);
    await this.remove(job.id);
  }

  /** Removes a job: its state first (from then on it is absent), then every file named after it. */
  async remove(id: string): Promise<void> {
    if (!ID.test(id)) return;
    await rm(this.path(id, '.json'), { force: true });
    const names = await namesIn(this.dir);
    await Promise.all(names.filter((n) => n === id || n.startsWith(`${id}.`)).map((n) => rm(join(this.dir, n), { recursive: true, force: true })));
  }

  /** Removes the finished jobs past the retention. */
  async prune(): Promise<void> {
    for (const j of await this.all()) if (this.expired(j)) await this.remove(j.id);
  }

  private expired(job: J): boolean {
    return job.state !== 'Running' && Date.parse(job.updated) <= Date.now() - this.limits.retentionMs;
  }

  async save(job: J): Promise<void> {
    // Written aside and renamed: a reader never sees half a state.
    const tmp = this.path(job.id, `.json.${process.pid}`);
    await writeFile(tmp, JSON.stringify({ ...job, updated: new Date().toISOString() }));
    await rename(tmp, this.path(job.id, '.json'));
  }

  /**
   * Runs `work`, saving `job` (which `work` updates as it goes) every so often; then Complete with
   * what `work` returns, or Failed with its error after `cleanUp`.
   */
  async run(job: J, work: () => Promise<Partial<J>>, cleanUp?: () => Promise<unknown>): Promise<void> {
    let saving: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      saving = saving.then(() => this.save(job)).catch(() => undefined);
    }, SAVE_EVERY_MS);
    try {
      Object.assign(job, await work(), { state: 'Complete' });
    } catch (e) {
      job.state = 'Failed';
      job.error = (e as Error).message;
      await cleanUp?.().catch(() => undefined);
    } finally {
      clearInterval(timer);
      await saving;
    }
    await this.save(job).catch((e: unknown) => log.error(`cannot save ${this.what} job ${job.id}: ${(e as Error).message}`));
    runningHere.delete(job.id); // after its final state is written: a reader never sees it Running and not running
  }

  /** A job by id; undefined when there is none (or it is past the retention, about to be removed). */
  async get(id: string): Promise<J | undefined> {
    const job = await this.load(id);
    return job && !this.expired(job) ? job : undefined;
  }

  /** A job by id as it stands: a Running one whose process is gone reads as Failed. */
  private async load(id: string): Promise<J | undefined> {
    if (!ID.test(id)) return undefined;
    const job = await this.readJson<J>(id, '.json');
    if (job?.state !== 'Running' || stillRunning(job)) return job;
    // A job of this process may have finished between the read and the check (its final state is
    // written before it leaves runningHere): read once more before calling it stopped.
    const again = job.pid === process.pid ? await this.readJson<J>(id, '.json') : job;
    if (again?.state !== 'Running') return again;
    return { ...again, state: 'Failed', error: `the process running this ${this.what} stopped before it was complete` };
  }

  /** A job's file `<id><ext>` (its state: '.json') parsed; undefined when there is none. */
  async readJson<T>(id: string, ext: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.path(id, ext), 'utf8')) as T;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** The jobs that pass `keep`, newest first, at most `limit`; none past the retention. */
  async list(keep: (job: J) => boolean, limit: number): Promise<J[]> {
    const jobs = (await this.all()).filter((j) => !this.expired(j) && keep(j));
    return jobs.sort((a, b) => byCreated(b, a)).slice(0, limit);
  }

  /** Every job of the folder, as `load` reads it. */
  private async all(): Promise<J[]> {
    const ids = (await namesIn(this.dir)).filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -'.json'.length))).map((n) => n.slice(0, -'.json'.length));
    // A job removed between the listing and its read is skipped like one never made.
    const jobs: J[] = [];
    for (const job of await Promise.all(ids.map((id) => this.load(id)))) if (job !== undefined) jobs.push(job);
    return jobs;
  }
}
