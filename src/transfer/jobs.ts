// Export and import jobs (POST /api/v1/exports, /api/v1/imports; server/transferApi.ts): the same
// `flora export` and `flora import` work, run by the server itself with the caller's secret (so a
// key sees and writes only what it may), its queries in process.
//
// A job belongs to the database that started it by that database's internal id, which no other
// database ever takes: a database deleted and created again under its name starts with no jobs, and
// a renamed or moved one keeps its own. Its files (jobs/jobFiles.ts), under
// <dataDir>/transfers/<database id>/:
//
//   <id>.json          its state (small: what a list reads)
//   <id>.report.json   an import's report, once Complete (read when the job itself is asked for)
//   <id>/              an export's tree, or an import's upload
//
// removeGone() removes the jobs of databases that no longer exist, prune() the finished jobs past
// the retention (server/jobHousekeeping.ts runs them). Job files of earlier versions
// (transfers/<id>.json, owned by a database's name) are never listed or served: prune removes them
// once they are older than the retention.

import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { namesIn } from '../dirNames';
import { JobFiles, type FileJob, type JobLimits } from '../jobs/jobFiles';
import { runExport, type ExportFormat } from './export';
import type { WrittenFile } from './export/lineFile';
import type { ExportProgress } from './export/progress';
import { runImport } from './import/run';
import { QueryClient, type Transport } from './queryClient';

export interface TransferJob extends FileJob {
  kind: 'export' | 'import';
  /** The database exported, or imported into, below the one that started the job. */
  database: string;
  /**
   * Export: records written so far; import: documents written, already there, not taken, and the
   * bytes of its source read out of their total (the one measure of how far an import has got).
   */
  progress: { records: number; written: number; existing: number; problems: number; bytes_done?: number; bytes_total?: number };
  format?: ExportFormat;
  history?: boolean;
  keys?: boolean;
  /** Export, once Complete: its transaction time and files (paths relative to the tree). */
  snapshot_ts?: string;
  files?: WrittenFile[];
}

export interface ExportRequest {
  database: string;
  format: ExportFormat;
  history: boolean;
  keys: boolean;
}

/** Where the server's own queries go: in process, with the requester's secret. */
const IN_PROCESS = 'flora (in process)';
/** A folder of jobs is named by its database's id. */
const OWNER = /^\d+$/;
const REPORT = '.report.json';
/** A job's report lists this many problems and counts the rest (a client's upload of bad lines makes a small file). */
const REPORT_PROBLEMS = 100;

export class TransferJobs {
  private readonly root: string;

  constructor(
    dataDir: string,
    private readonly transport: Transport,
    private readonly limits: JobLimits,
  ) {
    this.root = join(dataDir, 'transfers');
  }

  /** The jobs of database `db` (its internal id). */
  of(db: bigint): JobFiles<TransferJob> {
    return new JobFiles(join(this.root, String(db)), 'transfer', this.limits);
  }

  /** The folder of a job's tree (an export's files, an import's upload). */
  treeOf(db: bigint, job: TransferJob): string {
    return this.of(db).path(job.id, '');
  }

  /** Starts an export of `req.database` below database `db`, as `secret`; TooManyJobs when `db` runs its limit. */
  async startExport(secret: string, db: bigint, req: ExportRequest): Promise<TransferJob> {
    const files = this.of(db);
    const job = await files.create({ kind: 'export', database: req.database, progress: progress(), format: req.format, history: req.history, keys: req.keys });
    const tree = this.treeOf(db, job);
    const counts: ExportProgress = { started() {}, records: (n) => void (job.progress.records += n), finished() {}, done() {} };
    const work = async () => {
      const result = await runExport({
        url: IN_PROCESS,
        secret,
        database: req.database.split('/').filter((p) => p !== ''),
        out: tree,
        format: req.format,
        history: req.history,
        keys: req.keys,
        gzip: true,
        progress: counts,
        transport: this.transport,
      });
      return { snapshot_ts: String(result.snapshotTs), files: [...result.files] };
    };
    void files.run(job, work, () => rm(tree, { recursive: true, force: true }));
    return { ...job };
  }

  /**
   * A Running import into `database` below database `db`, which holds one of its running places
   * while its source arrives (an upload into treeOf); then runImport, or discard. TooManyJobs when
   * `db` runs its limit.
   */
  createImport(db: bigint, database: string): Promise<TransferJob> {
    return this.of(db).create({ kind: 'import', database, progress: progress() });
  }

  /** Imports `source` (a file or folder: an upload saved, or a server path) as `secret`; the report is kept apart from the state. */
  runImport(db: bigint, job: TransferJob, secret: string, source: string): TransferJob {
    const files = this.of(db);
    const work = async () => {
      const report = await runImport({
        source,
        client: new QueryClient(IN_PROCESS, secret, [], this.transport),
        database: job.database,
        bounds: { maxProblems: REPORT_PROBLEMS },
        onProgress: (s) => Object.assign(job.progress, { written: s.done, existing: s.existing, problems: s.problems, bytes_done: s.bytesDone, bytes_total: s.bytesTotal }),
      });
      await writeFile(files.path(job.id, REPORT), JSON.stringify(report));
      return {};
    };
    void files.run(job, work);
    return { ...job };
  }

  /** An import created whose source never arrived: gone, as if never made. */
  discard(db: bigint, job: TransferJob): Promise<void> {
    return this.of(db).discard(job);
  }

  /** A Complete import's report (undefined when it has none). */
  report(db: bigint, job: TransferJob): Promise<unknown> {
    return this.of(db).readJson<unknown>(job.id, REPORT);
  }

  /** The databases that have jobs (their ids). */
  private async owners(): Promise<bigint[]> {
    return (await namesIn(this.root)).filter((n) => OWNER.test(n)).map((n) => BigInt(n));
  }

  /** Removes the jobs of the databases `exists` says are gone. */
  async removeGone(exists: (dbs: bigint[]) => Promise<Set<bigint>>): Promise<void> {
    const owners = await this.owners();
    if (owners.length === 0) return;
    const live = await exists(owners);
    for (const db of owners) if (!live.has(db)) await rm(join(this.root, String(db)), { recursive: true, force: true });
  }

  /** Removes the finished jobs past the retention, and what earlier versions left that is older. */
  async prune(): Promise<void> {
    for (const db of await this.owners()) await this.of(db).prune();
    const cutoff = Date.now() - this.limits.retentionMs;
    for (const name of await namesIn(this.root)) {
      if (OWNER.test(name)) continue;
      const s = await stat(join(this.root, name)).catch(() => undefined);
      if (s && s.mtimeMs <= cutoff) await rm(join(this.root, name), { recursive: true, force: true });
    }
  }

  /** What earlier versions left in the folder (jobs owned by a name): never listed; counted for a notice. */
  async legacyEntries(): Promise<number> {
    return (await namesIn(this.root)).filter((n) => !OWNER.test(n)).length;
  }
}

function progress(): TransferJob['progress'] {
  return { records: 0, written: 0, existing: 0, problems: 0 };
}
