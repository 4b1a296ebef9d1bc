// Two range scans whose first rows come from one engine read (one statement on PostgreSQL, where a
// read is a round trip): an index page's removal records and its present entries, so a page costs
// one round trip as it did before removals had their own records.

import type { Engine, KV, RangeOptions } from './engine';
import { keySuccessor } from './tuple';

/** Rows of each range fetched by the joint read; the rest come from the engine's own range scan. */
const FIRST_ROWS = 256;

export function jointRanges(engine: Engine, ranges: readonly RangeOptions[]): AsyncIterable<KV>[] {
  const first = engine.readHead({ keys: [], ranges: ranges.map((r) => ({ ...r, limit: Math.min(r.limit ?? FIRST_ROWS, FIRST_ROWS) })) });
  // Read once, even if a caller never iterates one of the ranges; a rejection reaches whoever does.
  first.catch(() => undefined);
  return ranges.map((r, i) => ({
    async *[Symbol.asyncIterator]() {
      const rows = (await first).ranges[i];
      yield* rows;
      const left = (r.limit ?? Infinity) - rows.length;
      if (rows.length < FIRST_ROWS || left <= 0) return;
      yield* engine.range(rest(r, rows[rows.length - 1].key, left));
    },
  }));
}

/** The part of `r` past `last` in its direction. */
function rest(r: RangeOptions, last: Uint8Array, left: number): RangeOptions {
  const limit = Number.isFinite(left) ? left : undefined;
  return r.reverse ? { start: r.start, end: last, reverse: true, limit } : { start: keySuccessor(last), end: r.end, limit };
}
