// The Jobs tab's calls (src/server/transferApi.ts, backupApi.ts; docs/export-format.md,
// docs/backup-format.md): start an export, an import or a backup, read one back by id, list them.

import type { FloraClient } from './client';
import { apiJson } from './httpApi';

export type JobKind = 'export' | 'import' | 'backup';

export interface JobFile {
  path: string;
  records?: number;
  download: string;
}

export interface ImportProblem {
  file: string;
  line: number;
  element?: number;
  reason: string;
}

export interface ImportReport {
  collections: Record<string, { written: number; existing: number }>;
  /** The first problems; `problems_omitted` counts the rest. */
  problems: ImportProblem[];
  problems_omitted?: number;
  notes: string[];
  versions?: number;
}

/** An export, import or backup job as the API answers it (the fields a kind does not have are absent). */
export interface Job {
  id: string;
  state: 'Running' | 'Complete' | 'Failed';
  /** ISO time it was started. */
  created: string;
  error?: string;
  /** Export and import: the database, below the key's. Export: its options. */
  database?: string;
  format?: ExportOptions['format'];
  history?: boolean;
  keys?: boolean;
  /** Export and import. */
  progress?: { records: number; written: number; existing: number; problems: number; bytes_done?: number; bytes_total?: number };
  files?: JobFile[];
  /** Import, once Complete: read with the job by id (a list leaves it out). */
  report?: ImportReport;
  /** Backup. */
  records?: number;
  bytes?: number;
  download?: string;
}

export interface ExportOptions {
  format: 'flora' | 'fauna-simple' | 'fauna-tagged';
  history: boolean;
  keys: boolean;
}

/** Largest upload the import API takes (transferApi.ts UPLOAD_LIMIT). */
export const UPLOAD_LIMIT = 64 * 1024 * 1024;

const PATHS: Record<JobKind, string> = { export: '/api/v1/exports', import: '/api/v1/imports', backup: '/api/v1/backups' };

/** An export of the client's database (the job runs with its key, scoped to it). */
export const startExport = (client: FloraClient, options: ExportOptions): Promise<Job> =>
  apiJson(client, PATHS.export, { method: 'POST', body: options });

/** An import of one uploaded file into the client's database. */
export const startImport = (client: FloraClient, file: Blob): Promise<Job> => apiJson(client, PATHS.import, { method: 'POST', body: file });

/** A backup of the whole store (the root secret, or an admin key of the top database). */
export const startBackup = (client: FloraClient): Promise<Job> => apiJson(client, PATHS.backup, { method: 'POST' });

export const readJob = (client: FloraClient, kind: JobKind, id: string): Promise<Job> => apiJson(client, `${PATHS[kind]}/${encodeURIComponent(id)}`);

/** The jobs of a kind the key's database started (backups: every one, for the keys that may back up), newest first. */
export const listJobs = async (client: FloraClient, kind: JobKind): Promise<Job[]> => (await apiJson<{ jobs: Job[] }>(client, PATHS[kind])).jobs;
