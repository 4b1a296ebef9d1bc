// The query log on disk: NDJSON files per UTC hour holding exactly the records whose TS falls in that
// hour. A lone process writes `query-YYYY-MM-DDTHH.ndjson`; processes sharing the directory (LMDB
// workers) each write their own `query-YYYY-MM-DDTHH.<tag>.ndjson`, so that appends of different
// processes never interleave, and an export reads every file of an hour, of both kinds. The file
// names are the index: the files of a time range are found by listing the directory, and nothing
// else has to be kept consistent with them.

import { stat, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { namesIn } from '../dirNames';

const HOUR_MS = 3_600_000;
const FILE_RE = /^query-(\d{4}-\d{2}-\d{2})T(\d{2})(?:\.[A-Za-z0-9_-]{1,64})?\.ndjson$/;
/** What a process tag may be made of: it becomes part of file names. */
export const TAG_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** `YYYY-MM-DDTHH` of a record TS (`YYYY-MM-DD HH:mm:ss.SSS Z`). */
export function hourKeyOfTs(ts: string): string {
  return `${ts.slice(0, 10)}T${ts.slice(11, 13)}`;
}

/** The hour file of `hourKey` (`YYYY-MM-DDTHH`), of the process tagged `tag` when the directory is shared. */
export function fileNameOfHour(hourKey: string, tag?: string): string {
  return tag === undefined ? `query-${hourKey}.ndjson` : `query-${hourKey}.${tag}.ndjson`;
}

export interface HourFile {
  path: string;
  /** Start of the hour (ms since the epoch). */
  startMs: number;
  size: number;
}

/** The hour a file name covers, as its start in ms, or undefined for other files. */
export function hourStartOfFile(name: string): number | undefined {
  const m = FILE_RE.exec(name);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}:00:00Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Log files that may hold records in [startMs, endMs), oldest hour first (the files of an hour by name). */
export async function filesInRange(dir: string, startMs: number, endMs: number): Promise<HourFile[]> {
  const out: HourFile[] = [];
  for (const name of await namesIn(dir)) {
    const start = hourStartOfFile(name);
    if (start === undefined || start + HOUR_MS <= startMs || start >= endMs) continue;
    const file = path.join(dir, name);
    try {
      out.push({ path: file, startMs: start, size: (await stat(file)).size });
    } catch {
      // removed by retention meanwhile
    }
  }
  return out.sort((a, b) => a.startMs - b.startMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Removes hour files that ended more than `retentionDays` before `nowMs`; returns how many. */
export async function removeExpired(dir: string, retentionDays: number, nowMs: number): Promise<number> {
  const cutoff = nowMs - retentionDays * 24 * HOUR_MS;
  let removed = 0;
  for (const name of await namesIn(dir)) {
    const start = hourStartOfFile(name);
    if (start === undefined || start + HOUR_MS > cutoff) continue;
    try {
      await unlink(path.join(dir, name));
      removed++;
    } catch {
      // already gone
    }
  }
  return removed;
}
