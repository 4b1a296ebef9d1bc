// newestLines (src/logs/recent.ts): the newest records of a scan whose batches come in no global
// time order (a tier's processes each write their own files), newest first, at most `limit`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RangeScan, ScanBatch } from '../../src/logs/backend';
import { newestLines } from '../../src/logs/recent';

const line = (ms: number) => `{"N":${ms},"TS":"2026-01-01 00:00:${String(Math.floor(ms / 1000)).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')} Z","TXN_RETRIES":0}`;

function scan(batches: number[][]): RangeScan {
  return {
    bytesTotal: 0,
    async *[Symbol.asyncIterator](): AsyncIterator<ScanBatch> {
      for (const b of batches) yield { text: b.map((ms) => `${line(ms)}\n`).join(''), records: b.length, scanned: 0 };
    },
  };
}

test('the newest lines, newest first, across batches out of order', async () => {
  const got = await newestLines(scan([[1000, 3000, 5000], [], [2000, 4000, 6000], [500]]), 4);
  assert.deepEqual(got, [6000, 5000, 4000, 3000].map(line));
});

test('lines of the same millisecond: the later written is the newer, kept first and kept by the limit', async () => {
  const tied = (n: number) => `{"N":${n},"TS":"2026-01-01 00:00:01.000 Z"}`;
  const batch: ScanBatch = { text: [1, 2, 3].map((n) => `${tied(n)}\n`).join(''), records: 3, scanned: 0 };
  const one: RangeScan = { bytesTotal: 0, async *[Symbol.asyncIterator]() { yield batch; } };
  assert.deepEqual(await newestLines(one, 2), [tied(3), tied(2)]);
});

test('cut back while scanning, the newest survive whatever the order; fewer lines than the limit come whole', async () => {
  const times = Array.from({ length: 50 }, (_, i) => ((i * 37) % 50) * 100 + 100); // 100..5000, shuffled
  const got = await newestLines(scan(times.map((t) => [t])), 3);
  assert.deepEqual(got, [5000, 4900, 4800].map(line));
  assert.deepEqual(await newestLines(scan([[200], [100]]), 10), [200, 100].map(line));
  assert.deepEqual(await newestLines(scan([]), 10), []);
});
