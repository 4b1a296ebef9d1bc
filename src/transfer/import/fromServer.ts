// A live FQL v4 server (another Flora, or Fauna's open-sourced core) as an import's source: its
// database tree is exported at one transaction time into a temporary folder (the flora export
// format, through its query API), which the import then reads like any export, and removes.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { runExport, streamProgress } from '../export';

export interface LiveSource {
  url: string;
  secret: string;
  /** The database to copy, below the secret's (`a/b`; '' = the secret's own). */
  database: string;
  /** Every version within retention too, not only the documents as they are. */
  history: boolean;
}

/** Runs `use` on a flora export of `from` taken now; the export is removed afterwards. */
export async function withLiveExport<T>(from: LiveSource, progress: (Writable & { isTTY?: boolean }) | undefined, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-import-live-'));
  try {
    const out = path.join(dir, 'export');
    await runExport({
      url: from.url,
      secret: from.secret,
      database: from.database.split('/').filter((s) => s !== ''),
      out,
      format: 'flora',
      history: from.history,
      keys: false,
      gzip: false,
      progress: progress ? streamProgress(progress, progress.isTTY === true) : undefined,
    });
    return await use(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
