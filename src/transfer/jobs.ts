// Export and import jobs (POST /api/v1/exports, /api/v1/imports; server/transferApi.ts): the same
// `flora export` and `flora import` work, run by the server itself with the caller's secret (so a
// key sees and writes only what it may), its queries in process. A job is files under
// <dataDir>/transfers/ (jobs/jobFiles.ts): `<id>.json`, its state; `<id>/`, an export's tree or an
// import's uploaded source.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFiles, type FileJob } from '../jobs/jobFiles';
import { runExport, type ExportFormat } from './export';
import type { WrittenFile } from './export/lineFile';
import type { ExportProgress } from './export/progress';
import { runImport } from './import/run';
import { QueryClient, type Transport } from './queryClient';

export interface TransferJob extends FileJob {
  kind: 'export' | 'import';
  /** The requester's database (a path), which alone may see the job. */
  owner: string;
  /** The database exported, or imported into, below the requester's. */
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
  /** Import, once Complete: its report. */
  report?: unknown;
}

export interface ExportRequest {
  database: string;
  format: ExportFormat;
  history: boolean;
  keys: boolean;
}

/** Where the server's own queries go: in process, with the requester's secret. */
const IN_PROCESS = 'flora (in process)';

export class TransferJobs {
  readonly files: JobFiles<TransferJob>;

  constructor(
    dataDir: string,
    private readonly transport: Transport,
  ) {
    this.files = new JobFiles(join(dataDir, 'transfers'), 'transfer');
  }

  /** The folder of a job's tree (an export's files, an import's upload). */
  treeOf(job: TransferJob): string {
    return this.files.path(job.id, '');
  }

  async startExport(secret: string, owner: string, req: ExportRequest): Promise<TransferJob> {
    const job = await this.files.create({ kind: 'export', owner, database: req.database, progress: progress(), format: req.format, history: req.history, keys: req.keys });
    const counts: ExportProgress = { started() {}, records: (n) => void (job.progress.records += n), finished() {}, done() {} };
    const work = async () => {
      const result = await runExport({
        url: IN_PROCESS,
        secret,
        database: req.database.split('/').filter((p) => p !== ''),
        out: this.treeOf(job),
        format: req.format,
        history: req.history,
        keys: req.keys,
        gzip: true,
        progress: counts,
        transport: this.transport,
      });
      return { snapshot_ts: String(result.snapshotTs), files: [...result.files] };
    };
    void this.files.run(job, work, () => rm(this.treeOf(job), { recursive: true, force: true }));
    return { ...job };
  }

  /**
   * Saves `body` (one file: a driver dump, NDJSON or a JSON array, gzipped or not) and imports it;
   * or, with `path` (the root secret only: it reads the server's files), imports what is there.
   * Saving is part of the job, so a file that cannot be written fails the job (never left Running).
   */
  async startImport(secret: string, owner: string, database: string, source: { body: Buffer } | { path: string }): Promise<TransferJob> {
    const job = await this.files.create({ kind: 'import', owner, database, progress: progress() });
    const work = async () => {
      const report = await runImport({
        source: 'path' in source ? source.path : await saveUpload(source.body, this.treeOf(job)),
        client: new QueryClient(IN_PROCESS, secret, [], this.transport),
        database,
        onProgress: (s) => Object.assign(job.progress, { written: s.done, existing: s.existing, problems: s.problems, bytes_done: s.bytesDone, bytes_total: s.bytesTotal }),
      });
      return { report: report.toJSON() };
    };
    void this.files.run(job, work);
    return { ...job };
  }
}

function progress(): TransferJob['progress'] {
  return { records: 0, written: 0, existing: 0, problems: 0 };
}

/** The body into `dir`, named by what it holds (gzip, a JSON array, or lines) so the readers take it. */
async function saveUpload(body: Buffer, dir: string): Promise<string> {
  const gzip = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  const array = !gzip && body.subarray(0, 64).toString('utf8').trimStart().startsWith('[');
  const named = join(dir, gzip ? 'upload.ndjson.gz' : array ? 'upload.json' : 'upload.ndjson');
  await mkdir(dir, { recursive: true });
  await writeFile(named, body);
  return named;
}
