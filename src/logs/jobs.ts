// Export requests ("log retrievals") and their state, kept in the store as meta records, so that
// every process of a tier sees the same requests (created through one, polled, listed and downloaded
// through another) whether the store is LMDB shared by workers or PostgreSQL shared across machines,
// and a restart finds every request where it was. Changes are transactions: two processes given one
// idempotency token at once make one request (both read the index, one commit conflicts and is
// re-run, and then finds the other's), and the runner's changes commit only while it holds the
// request's lease (runner.ts).
//
//   logs:job:<request_id>   the request (ExportJob as JSON)
//   logs:jobs               the index: every request kept, with what creating and scheduling need
//                           (creation time, owner, idempotency token, whether it still has to run)
//
// The store's meta records have no range reads, hence the index; it changes when a request is made,
// when one stops having to run, and when old ones are pruned, never on progress.

import type { Store, Txn } from '../storage/types';

export const LOG_STATES = ['Pending', 'Requested', 'CreatingNewUrl', 'Complete', 'DoesNotExist', 'Failed', 'TimedOut'] as const;
export type LogState = (typeof LOG_STATES)[number];

export function isLogState(s: unknown): s is LogState {
  return typeof s === 'string' && (LOG_STATES as readonly string[]).includes(s);
}

/** States a client stops polling at (a Complete request's URL may still be re-minted later). */
export const TERMINAL_STATES: ReadonlySet<LogState> = new Set(['Complete', 'DoesNotExist', 'Failed', 'TimedOut']);

/** States in which a request still has to be extracted. */
export function isOpen(state: LogState): boolean {
  return state === 'Pending' || state === 'Requested';
}

export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export interface Progress {
  bytes_scanned: number;
  bytes_total: number;
  records: number;
}

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
  /** Extraction runs started (a crash loop fails the request after a few); the last one wrote the file. */
  attempts: number;
  records?: number;
  /** Size of the gzip file. */
  bytes?: number;
  error?: string;
  /** The process that accepted the request (Leases.holder): it runs it unless it is gone. */
  creator?: string;
  /** Extraction progress, as last saved by the process running it (shared stores). */
  progress?: Progress;
}

export interface ListPage {
  results: ExportJob[];
  next_token: string | null;
}

/** One request in the index: [id, created_ms, owner_db, idempotency token or '', 1 if open]. */
type IndexEntry = [string, number, string, string, 0 | 1];

const INDEX_KEY = meta('logs:jobs');

function meta(name: string): Uint8Array {
  return Buffer.from(name, 'utf8');
}

function jobKey(id: string): Uint8Array {
  return meta(`logs:job:${id}`);
}

function decodeJob(v: Uint8Array | undefined): ExportJob | undefined {
  if (!v) return undefined;
  try {
    const job = JSON.parse(Buffer.from(v).toString('utf8')) as ExportJob;
    return typeof job.request_id === 'string' && isLogState(job.state) ? job : undefined;
  } catch {
    return undefined; // unreadable: left alone rather than guessed at
  }
}

function encode(v: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(v), 'utf8');
}

async function readIndex(txn: Txn): Promise<IndexEntry[]> {
  const v = await txn.getMeta(INDEX_KEY);
  if (!v) return [];
  try {
    const entries = JSON.parse(Buffer.from(v).toString('utf8')) as unknown;
    return Array.isArray(entries) ? (entries as IndexEntry[]) : [];
  } catch {
    return [];
  }
}

function entryOf(job: ExportJob): IndexEntry {
  return [job.request_id, job.created_ms, job.owner_db, job.idempotency_token ?? '', isOpen(job.state) ? 1 : 0];
}

/** Reads of requests inside a transaction someone else runs (the API's authenticated one). */
export const jobReads = {
  get: async (txn: Txn, id: string): Promise<ExportJob | undefined> => decodeJob(await txn.getMeta(jobKey(id))),

  /** Every request kept, in no particular order. */
  all: async (txn: Txn): Promise<ExportJob[]> => {
    const index = await readIndex(txn);
    const jobs = await Promise.all(index.map((e) => txn.getMeta(jobKey(e[0]))));
    return jobs.map(decodeJob).filter((j): j is ExportJob => j !== undefined);
  },

  /** The request `ownerDb` made with `token` within the idempotency window, if any. */
  idempotent: async (txn: Txn, ownerDb: string, token: string, nowMs: number): Promise<ExportJob | undefined> => {
    const hit = (await readIndex(txn)).find((e) => e[2] === ownerDb && e[3] === token && nowMs - e[1] < IDEMPOTENCY_WINDOW_MS);
    return hit ? decodeJob(await txn.getMeta(jobKey(hit[0]))) : undefined;
  },
};

export interface UpdateOptions {
  /** Inside the transaction, before anything is written: throws to refuse (a lease check). */
  fence?: (txn: Txn) => Promise<void>;
  /** The change applies only to a request this accepts; otherwise the request is returned unchanged. */
  when?: (job: ExportJob) => boolean;
}

export class JobStore {
  constructor(private readonly store: Store) {}

  /**
   * One request. `fresh`: as of now, with every commit of every process that completed before the
   * call (a shared store's snapshots may otherwise be a few ms behind another process's commits).
   */
  async get(id: string, fresh = false): Promise<ExportJob | undefined> {
    return (await this.read((txn) => jobReads.get(txn, id), fresh)).result;
  }

  async all(fresh = false): Promise<ExportJob[]> {
    return (await this.read((txn) => jobReads.all(txn), fresh)).result;
  }

  /** Requests that still have to be extracted (Pending, Requested). */
  async open(): Promise<ExportJob[]> {
    const { result } = await this.store.run(async (txn) => {
      const ids = (await readIndex(txn)).filter((e) => e[4] === 1).map((e) => e[0]);
      return (await Promise.all(ids.map((id) => jobReads.get(txn, id)))).filter((j): j is ExportJob => j !== undefined);
    });
    return result;
  }

  /**
   * Adds `job`, unless its owner made a request with the same idempotency token within the window:
   * then that one is returned (`created` false). Atomic across processes.
   */
  async create(job: ExportJob, nowMs = Date.now()): Promise<{ job: ExportJob; created: boolean }> {
    const { result } = await this.store.run(async (txn) => {
      if (job.idempotency_token) {
        const same = await jobReads.idempotent(txn, job.owner_db, job.idempotency_token, nowMs);
        if (same) return { job: same, created: false };
      }
      await this.insert(txn, job);
      return { job, created: true };
    });
    return result;
  }

  /** Adds `job` as it is (tests, and requests carried over from the job files of earlier versions). */
  async put(job: ExportJob): Promise<ExportJob> {
    await this.store.run((txn) => this.insert(txn, job));
    return job;
  }

  /**
   * Applies `patch` to a request (a key set to undefined is removed) and stamps updated_ms. Returns
   * the request as it is afterwards, unchanged if `when` refused it; undefined if it does not exist.
   */
  async update(id: string, patch: Partial<ExportJob>, opts: UpdateOptions = {}, nowMs = Date.now()): Promise<ExportJob | undefined> {
    const { result } = await this.store.run(async (txn) => {
      await opts.fence?.(txn);
      const job = await jobReads.get(txn, id);
      if (!job || (opts.when && !opts.when(job))) return job;
      const next: ExportJob = { ...job, ...patch, updated_ms: nowMs };
      for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (next as unknown as Record<string, unknown>)[k];
      txn.putMeta(jobKey(id), encode(next));
      if (isOpen(job.state) !== isOpen(next.state)) {
        const index = await readIndex(txn);
        txn.putMeta(INDEX_KEY, encode(index.map((e) => (e[0] === id ? entryOf(next) : e))));
      }
      return next;
    });
    return result;
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const gone = new Set(ids);
    await this.store.run(async (txn) => {
      for (const id of ids) txn.putMeta(jobKey(id), null);
      txn.putMeta(INDEX_KEY, encode((await readIndex(txn)).filter((e) => !gone.has(e[0]))));
    });
  }

  /** One page of the requests `visible` accepts, newest first, optionally only in `states`. */
  async list(visible: (job: ExportJob) => boolean, states: readonly LogState[] | undefined, maxResults: number, nextToken?: string): Promise<ListPage> {
    return listPage(await this.all(), visible, states, maxResults, nextToken);
  }

  private async insert(txn: Txn, job: ExportJob): Promise<void> {
    const index = await readIndex(txn);
    if (index.some((e) => e[0] === job.request_id)) return;
    txn.putMeta(jobKey(job.request_id), encode(job));
    index.push(entryOf(job));
    txn.putMeta(INDEX_KEY, encode(index));
  }

  private read<T>(fn: (txn: Txn) => Promise<T>, fresh: boolean) {
    return this.store.run(fn, fresh && this.store.shared ? { minSnapshotTs: this.store.now() } : {});
  }
}

/**
 * One page of `jobs` that `visible` accepts, newest first, optionally only in `states`.
 * `nextToken` is the opaque token of the previous page (undefined/invalid → first page).
 */
export function listPage(
  jobs: readonly ExportJob[],
  visible: (job: ExportJob) => boolean,
  states: readonly LogState[] | undefined,
  maxResults: number,
  nextToken?: string,
): ListPage {
  const after = nextToken === undefined ? undefined : decodeToken(nextToken);
  const wanted = states && states.length ? new Set(states) : undefined;
  const sorted = jobs.filter((j) => visible(j) && (!wanted || wanted.has(j.state))).sort(newestFirst);
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
