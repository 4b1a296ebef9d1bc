// The commit log record (storage/commitLog.ts): what one process tells the others of a commit.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeLogRecord, encodeLogRecord, logKey, logKeyTs, type LoggedCommit } from '../../src/storage/commitLog';

const b = (...bytes: number[]) => Uint8Array.from(bytes);

test('a record round-trips; the documents and index keys validation needs are derived from it', () => {
  const commit: LoggedCommit = {
    ts: 1_795_000_000_000_123n,
    keys: ['d:1:1024:7', 'a:schema 1'],
    versions: [
      { key: { db: 1n, coll: 1024, id: 7n }, ts: 1_795_000_000_000_123n, action: 'update', rewrite: false },
      { key: { db: 1n, coll: 1024, id: 8n }, ts: 1_000n, action: null, rewrite: true },
    ],
    entries: [
      { db: 1n, index: 2048, key: b(3, 1), action: 'add', payload: b(9) },
      { db: 1n, index: 2048, key: b(2), action: 'remove', payload: b() },
      { db: 2n, index: 2049, key: b(5), action: 'add', payload: b(1, 2) },
    ],
    unreported: true,
  };
  const r = decodeLogRecord(commit.ts, encodeLogRecord(commit));
  assert.deepEqual({ ts: r.ts, keys: r.keys, versions: r.versions, entries: r.entries, unreported: r.unreported }, commit);
  assert.deepEqual(r.docs, [commit.versions[0].key, commit.versions[1].key]);
  // Per index, sorted, as the commit's own write set.
  assert.deepEqual(r.indexes, new Map([['1.2048', [b(2), b(3, 1)]], ['2.2049', [b(5)]]]));
  assert.equal(decodeLogRecord(5n, encodeLogRecord({ ts: 5n, keys: [], versions: [], entries: [], unreported: false })).indexes, undefined);
});

test('records are keyed by their ts, in ts order; another format is refused, not misread', () => {
  assert.equal(logKeyTs(logKey(123456789n)), 123456789n);
  assert.ok(Buffer.compare(Buffer.from(logKey(255n)), Buffer.from(logKey(256n))) < 0);
  const bytes = encodeLogRecord({ ts: 1n, keys: [], versions: [], entries: [], unreported: false });
  bytes[0] = 99;
  assert.throws(() => decodeLogRecord(1n, bytes), /commit log record at 1 has format 99; this release reads format 1/);
});
