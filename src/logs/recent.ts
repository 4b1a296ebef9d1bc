// The newest records of the query log, for a live view (GET /api/v1/logs/_recent, docs/query-log-api.md).
// An export request is the wrong tool for that: each one is kept for a week and listed by
// `_list`, waits until its time_end has passed, and runs one at a time behind other exports; a view
// that refreshes every few seconds would bury the real exports under its own. This reads the same
// log (any backend's LogSource) directly and keeps only what it answers with.

import type { RangeScan } from './backend';
import { lineTs } from './record';

interface Kept {
  /** The line's TS text (`YYYY-MM-DD HH:mm:ss.SSS Z`): sorts in time order, to the millisecond. */
  ts: string;
  /** Its place in the scan: a file holds its lines in the order they were written, so within one millisecond a later line is newer. */
  seq: number;
  line: string;
}

const newestFirst = (a: Kept, b: Kept) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : b.seq - a.seq);

/**
 * The newest `limit` lines (newest first) of a scan whose batches are in no particular global order
 * (in a tier, each process writes its own files). Memory stays about 2 × limit lines: the kept
 * lines are cut back to `limit` each time they double.
 */
export async function newestLines(scan: RangeScan, limit: number): Promise<string[]> {
  let kept: Kept[] = [];
  let seq = 0;
  for await (const batch of scan) {
    if (batch.records === 0) continue;
    for (const line of batch.text.split('\n')) if (line !== '') kept.push({ ts: lineTs(line) ?? '', seq: seq++, line });
    if (kept.length >= 2 * limit) kept = kept.sort(newestFirst).slice(0, limit);
  }
  return kept.sort(newestFirst).slice(0, limit).map((k) => k.line);
}
