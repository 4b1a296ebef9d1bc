// Jobs a client starts and then polls (backups, exports, imports), each kept as a JSON file in a
// folder of the data directory, rewritten as it progresses. Files rather than store records: a
// backup must not write into the store it copies, and any process of a `--workers` tier (one data
// directory) answers about any job. A job whose process died while it ran reads as Failed. Across
// machines (PostgreSQL) a job is known only to the machine that ran it.

import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Progress is saved at most this often. */
const SAVE_EVERY_MS = 500;

/** The jobs this process is running: a job file naming this pid but not listed here was left by an earlier process that had the same pid (a restarted container's PID 1). */
const runningHere = new Set<string>();

/** Whether the process that wrote a Running job is still running it. */
function stillRunning(job: FileJob): boolean {
  return job.pid === process.pid ? runningHere.has(job.id) : alive(job.pid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class JobFiles<J extends FileJob> {
  constructor(
    readonly dir: string,
    /** What a job makes, as its Failed message names it ("backup"). */
    private readonly what: string,
  ) {}

  path(id: string, ext: string): string {
    return join(this.dir, `${id}${ext}`);
  }

  /** A new Running job with `fields`, saved. */
  async create(fields: Omit<J, keyof FileJob>): Promise<J> {
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
    await this.save(job).catch((e: unknown) => console.error(`flora: cannot save ${this.what} job ${job.id}: ${(e as Error).message}`));
    runningHere.delete(job.id); // after its final state is written: a reader never sees it Running and not running
  }

  /** A job by id; undefined when there is none. */
  async get(id: string): Promise<J | undefined> {
    if (!ID.test(id)) return undefined;
    const job = await this.read(id);
    if (job?.state !== 'Running' || stillRunning(job)) return job;
    // A job of this process may have finished between the read and the check (its final state is
    // written before it leaves runningHere): read once more before calling it stopped.
    const again = job.pid === process.pid ? await this.read(id) : job;
    if (again?.state !== 'Running') return again;
    return { ...again, state: 'Failed', error: `the process running this ${this.what} stopped before it was complete` };
  }

  private async read(id: string): Promise<J | undefined> {
    try {
      return JSON.parse(await readFile(this.path(id, '.json'), 'utf8')) as J;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** The jobs that pass `keep`, newest first, at most `limit` (each read as `get` reads it). */
  async list(keep: (job: J) => boolean, limit: number): Promise<J[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const ids = names.filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -'.json'.length))).map((n) => n.slice(0, -'.json'.length));
    // A job removed between the listing and its read is skipped like one never made.
    const jobs: J[] = [];
    for (const job of await Promise.all(ids.map((id) => this.get(id)))) if (job !== undefined && keep(job)) jobs.push(job);
    return jobs.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0)).slice(0, limit);
  }
}
