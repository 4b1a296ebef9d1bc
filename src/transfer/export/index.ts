// `flora export`: a database tree read at one transaction time T through the public HTTP API, and
// written in the flora export format (docs/export-format.md: what `flora import` reads back
// exactly) or in Fauna's snapshot-export layout (simple or tagged encoding).
//
//   const result = await runExport({ url, secret, database: ['a'], out, format: 'flora', … });
//
// T is the server's Now() when the export starts; every read is At(T, …), so writes committed
// while it runs are not in it. The flora manifest is written last: a directory without one is an
// incomplete export.

import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MANIFEST_FILE, readFloraManifest, renderManifest, type FloraManifest } from '../floraFormat';
import { httpClient } from './client';
import type { Transport } from '../queryClient';
import { writeFaunaTree } from './faunaTree';
import { writeFloraTree } from './floraTree';
import type { WrittenFile } from './lineFile';
import { snapshotTime } from './pages';
import { silentProgress, type ExportProgress } from './progress';

export { QueryFailed, ServerUnreachable } from './client';
export { NoFaunaForm } from './faunaRecord';
export { streamProgress, type ExportProgress } from './progress';

export type ExportFormat = 'flora' | 'fauna-simple' | 'fauna-tagged';

export interface ExportOptions {
  readonly url: string;
  readonly secret: string;
  /** The database to export, relative to the secret's (empty: the secret's own). */
  readonly database: readonly string[];
  readonly out: string;
  readonly format: ExportFormat;
  readonly history: boolean;
  readonly keys: boolean;
  readonly gzip: boolean;
  readonly progress?: ExportProgress;
  /** Told T once it is taken, before any read (tests write then, to see that the export does not hold it). */
  readonly onSnapshot?: (ts: bigint) => void | Promise<void>;
  /** Fauna layout: bytes of JSON per data file before the next ordinal (default 128 MiB). */
  readonly faunaFileBytes?: number;
  /** How queries reach the server (default: HTTP to `url`; the server's own jobs run in process). */
  readonly transport?: Transport;
}

export interface ExportResult {
  readonly snapshotTs: bigint;
  readonly files: readonly WrittenFile[];
  readonly records: number;
}

/** A directory the export must not write into: the message says why. */
export class OutputRefused extends Error {}

export async function runExport(opts: ExportOptions): Promise<ExportResult> {
  if (opts.format !== 'flora' && (opts.history || opts.keys))
    throw new OutputRefused(`--history and --keys have no place in Fauna's snapshot layout: use --format flora`);
  await prepareOut(opts.out, opts.format);
  const client = httpClient(opts.url, opts.secret, opts.database, opts.transport);
  const progress = opts.progress ?? silentProgress;
  const ts = await snapshotTime(client);
  await opts.onSnapshot?.(ts);
  let files: WrittenFile[];
  if (opts.format === 'flora') {
    const tree = await writeFloraTree(client, { out: opts.out, ts, gzip: opts.gzip, history: opts.history, keys: opts.keys, progress });
    files = tree.files;
    const manifest: FloraManifest = {
      snapshotTs: ts,
      source: { url: opts.url, database: opts.database.join('/') },
      options: { history: opts.history, keys: opts.keys, gzip: opts.gzip },
      files,
      databases: tree.databases,
    };
    // Written aside and renamed: a manifest is either whole or absent.
    const file = path.join(opts.out, MANIFEST_FILE);
    await writeFile(file + '.partial', renderManifest(manifest));
    await rename(file + '.partial', file);
  } else {
    const encoding = opts.format === 'fauna-simple' ? 'simple' : 'tagged';
    files = (await writeFaunaTree(client, { out: opts.out, ts, gzip: opts.gzip, encoding, progress, fileBytes: opts.faunaFileBytes })).files;
  }
  const records = files.reduce((n, f) => n + f.records, 0);
  progress.done(`export at ${ts} complete: ${records} records in ${files.length} files, in ${opts.out}`);
  return { snapshotTs: ts, files, records };
}

/**
 * `out` must be new, empty, or an earlier export of the same format, which is replaced (its
 * manifest removed first, so that an export cut short is never taken for a complete one).
 */
async function prepareOut(out: string, format: ExportFormat): Promise<void> {
  let names: string[];
  try {
    if (!(await stat(out)).isDirectory()) throw new OutputRefused(`${out} is not a directory`);
    names = await readdir(out);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (names.length === 0) return;
  const earlier =
    format === 'flora'
      ? (await readFloraManifest(out).catch(() => undefined)) !== undefined || (names.includes('db') && !names.includes(MANIFEST_FILE))
      : names.includes('metadata_00.json');
  if (!earlier) throw new OutputRefused(`${out} is not empty and holds no earlier ${format} export: choose a new or empty directory`);
  const ours = format === 'flora' ? [MANIFEST_FILE, 'db'] : ['metadata_00.json', 'data', 'databases'];
  for (const name of ours) await rm(path.join(out, name), { recursive: true, force: true });
}
