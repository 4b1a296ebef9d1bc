// Export requests of earlier versions, kept as one JSON file each under `<logDir>/exports/jobs/`:
// carried into the store (jobs.ts) the first time the log system opens, then the files go. An export
// file they completed stays where it was (the log directory) or, when exports now live in
// PostgreSQL, is copied there. Safe when several processes do it at once: a request already in the
// store is left as it is.

import { createReadStream } from 'node:fs';
import { readdir, readFile, rmdir, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ExportFiles } from './backend';
import { isLogState, type ExportJob, type JobStore } from './jobs';

/** Returns how many requests were carried over. */
export async function importLegacyJobs(exportsDir: string, jobs: JobStore, files: ExportFiles | undefined): Promise<number> {
  const dir = path.join(exportsDir, 'jobs');
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0; // none: a new directory, or carried over already
  }
  let carried = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    if (name.endsWith('.json')) {
      let job: ExportJob | undefined;
      try {
        const parsed = JSON.parse(await readFile(file, 'utf8')) as ExportJob;
        if (typeof parsed.request_id === 'string' && isLogState(parsed.state)) job = parsed;
      } catch {
        // unreadable: dropped, as the earlier version ignored it too
      }
      if (job && !(await jobs.get(job.request_id))) {
        if (files && (job.state === 'Complete' || job.state === 'CreatingNewUrl')) await copyFile(exportsDir, job, files);
        await jobs.put(job);
        carried++;
      }
    }
    await unlink(file).catch(() => undefined);
  }
  await rmdir(dir).catch(() => undefined);
  return carried;
}

/** Copies a completed export's file from the log directory into `files` (as its last attempt). */
async function copyFile(exportsDir: string, job: ExportJob, files: ExportFiles): Promise<void> {
  const source = path.join(exportsDir, 'files', `${job.request_id}.jsonl.gz`);
  const upload = await files.create(job.request_id, job.attempts);
  try {
    await pipeline(createReadStream(source), upload.stream);
    await upload.commit();
    await unlink(source).catch(() => undefined);
  } catch {
    await upload.discard(); // the file is gone: the request answers Failed when its URL is next made
  }
}
