// Export requests ("log retrievals") and their persisted state: one JSON file per request under
// `<exports>/jobs/`, replaced atomically on every change, all of them loaded at start. A restart thus
// finds every request where it was; the runner resumes the unfinished ones.

import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

export const LOG_STATES = ['Pending', 'Requested', 'CreatingNewUrl', 'Complete', 'DoesNotExist', 'Failed', 'TimedOut'] as const;
export type LogState = (typeof LOG_STATES)[number];

export function isLogState(s: unknown): s is LogState {
  return typeof s === 'string' && (LOG_STATES as readonly string[]).includes(s);
}

/** States a client stops polling at (a Complete request's URL may still be re-minted later). */
export const TERMINAL_STATES: ReadonlySet<LogState> = new Set(['Complete', 'DoesNotExist', 'Failed', 'TimedOut']);

export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export interface ExportJob {
  request_id: string;
  state: LogState;
  /** As requested, normalised to ISO 8601 UTC. */
  time_start: string;
  time_end: string;
  start_ms: number;
  end_ms: number;
  /** A database export: its path including the region group. */
  database?: string;
  /** A region-group export. */
  region_group?: string;
  /** Scope id whose subtree is exported; null = every record (the top database's admin). */
  scope_db: string | null;
  /** Scope id of the requester's database: who may see this request. */
  owner_db: string;
  idempotency_token?: string;
  created_ms: number;
  updated_ms: number;
  /** Incremented each time a download URL is minted. */
  version: number;
  url_expires_ms?: number;
  /** Extraction runs started (a crash loop fails the request after a few). */
  attempts: number;
  records?: number;
  /** Size of the gzip file. */
  bytes?: number;
  error?: string;
}

export interface ListPage {
  results: ExportJob[];
  next_token: string | null;
}

export class JobStore {
  private readonly jobs = new Map<string, ExportJob>();
  /** Per job, the write in progress: writes of one job are applied in order. */
  private readonly writes = new Map<string, Promise<void>>();

  private constructor(private readonly dir: string) {}

  static async open(dir: string): Promise<JobStore> {
    await mkdir(dir, { recursive: true });
    const store = new JobStore(dir);
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      if (name.endsWith('.tmp')) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const job = JSON.parse(await readFile(file, 'utf8')) as ExportJob;
        if (typeof job.request_id === 'string' && isLogState(job.state)) store.jobs.set(job.request_id, job);
      } catch {
        // A job file that cannot be read is left alone rather than guessed at.
      }
    }
    return store;
  }

  get(id: string): ExportJob | undefined {
    return this.jobs.get(id);
  }

  all(): ExportJob[] {
    return [...this.jobs.values()];
  }

  /** The request made by `ownerDb` with `token` within the idempotency window, if any. */
  findIdempotent(ownerDb: string, token: string, nowMs: number): ExportJob | undefined {
    for (const job of this.jobs.values()) {
      if (job.owner_db === ownerDb && job.idempotency_token === token && nowMs - job.created_ms < IDEMPOTENCY_WINDOW_MS) {
        return job;
      }
    }
    return undefined;
  }

  async put(job: ExportJob): Promise<ExportJob> {
    this.jobs.set(job.request_id, job);
    await this.persist(job);
    return job;
  }

  async update(id: string, patch: Partial<ExportJob>, nowMs = Date.now()): Promise<ExportJob> {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`unknown export ${id}`);
    const next: ExportJob = { ...job, ...patch, updated_ms: nowMs };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (next as unknown as Record<string, unknown>)[k];
    this.jobs.set(id, next);
    await this.persist(next);
    return next;
  }

  async remove(id: string): Promise<void> {
    this.jobs.delete(id);
    await this.queue(id, () => unlink(this.file(id)).catch(() => undefined));
  }

  /**
   * One page of the jobs `visible` accepts, newest first, optionally only in `states`.
   * `nextToken` is the opaque token of the previous page (undefined/invalid → first page).
   */
  list(visible: (job: ExportJob) => boolean, states: readonly LogState[] | undefined, maxResults: number, nextToken?: string): ListPage {
    const after = nextToken === undefined ? undefined : decodeToken(nextToken);
    const wanted = states && states.length ? new Set(states) : undefined;
    const sorted = this.all()
      .filter((j) => visible(j) && (!wanted || wanted.has(j.state)))
      .sort(newestFirst);
    let from = 0;
    if (after) {
      from = sorted.findIndex((j) => newestFirst(j, { created_ms: after.created, request_id: after.id } as ExportJob) > 0);
      if (from < 0) from = sorted.length;
    }
    const results = sorted.slice(from, from + maxResults);
    const more = from + maxResults < sorted.length;
    const last = results[results.length - 1];
    return { results, next_token: more && last ? encodeToken(last) : null };
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private persist(job: ExportJob): Promise<void> {
    const text = JSON.stringify(job);
    return this.queue(job.request_id, async () => {
      const tmp = `${this.file(job.request_id)}.tmp`;
      await writeFile(tmp, text);
      await rename(tmp, this.file(job.request_id));
    });
  }

  private queue(id: string, work: () => Promise<void>): Promise<void> {
    const prev = this.writes.get(id) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(work);
    this.writes.set(id, next);
    void next.finally(() => {
      if (this.writes.get(id) === next) this.writes.delete(id);
    }).catch(() => undefined);
    return next;
  }
}

function newestFirst(a: ExportJob, b: ExportJob): number {
  if (a.created_ms !== b.created_ms) return b.created_ms - a.created_ms;
  return a.request_id < b.request_id ? -1 : a.request_id > b.request_id ? 1 : 0;
}

function encodeToken(job: ExportJob): string {
  return Buffer.from(JSON.stringify([job.created_ms, job.request_id])).toString('base64url');
}

/** A next_token's position, or undefined when it is not one of ours. */
export function decodeToken(token: string): { created: number; id: string } | undefined {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string') {
      return { created: v[0], id: v[1] };
    }
  } catch {
    // fall through
  }
  return undefined;
}
