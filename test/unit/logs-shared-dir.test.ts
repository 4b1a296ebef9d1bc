// Processes sharing one log directory (LMDB workers on one machine): each writes its own hour files,
// an export reads every file of an hour (the single-file names of a lone process too), and each
// process says how far its log is written so that an export waits for the others.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileTag } from '../../src/logs/backends';
import { DirExportFiles } from '../../src/logs/dirExportFiles';
import { FileSink } from '../../src/logs/fileSink';
import { FileLogSource } from '../../src/logs/fileSource';
import { FileWatermarks } from '../../src/logs/fileWatermarks';
import { hourStartOfFile } from '../../src/logs/files';
import { JobStore, type ExportJob } from '../../src/logs/jobs';
import { buildRecord } from '../../src/logs/record';
import { Redactor } from '../../src/logs/redact';
import { ExportRunner } from '../../src/logs/runner';
import { UrlSigner } from '../../src/logs/signing';
import { LogWriter } from '../../src/logs/writer';
import { Leases } from '../../src/tier/leases';
import { withStore } from '../helpers/store';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-logshare-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const H = Date.UTC(2024, 4, 10, 18);
const hourKey = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const opts = { regionGroup: 'us-std', redactor: new Redactor() };

function record(ms: number, tag: string, db = 0n): string {
  return buildRecord({ method: 'POST', headers: {}, status: 200, bytesIn: 1, bytesOut: 1, queryTimeMs: 1, tags: { t: tag }, database: { id: db, path: [] } }, ms, opts);
}

test('file names: a tag per process, and the single-file names of a lone process, both found', () => {
  assert.equal(hourStartOfFile('query-2024-05-10T18.ndjson'), H);
  assert.equal(hourStartOfFile('query-2024-05-10T18.4242-a1b2c3d4.ndjson'), H);
  assert.equal(hourStartOfFile('query-2024-05-10T18.a.b.ndjson'), undefined);
  assert.equal(hourStartOfFile('query-2024-05-10T18.4242-a1b2c3d4.ndjson.tmp'), undefined);
  assert.equal(fileTag('host.example.com:4242:a1b2c3d4'), '4242-a1b2c3d4');
  assert.throws(() => new FileSink('/tmp', '../escape'), /invalid query log tag/);
});

test('two writers on one directory: their own files, whole lines; one export has every record once', async () => {
  await withDir(async (dir) => {
    const queryDir = path.join(dir, 'query');
    const writers = ['4242-aaaa', '4343-bbbb'].map((tag) => new LogWriter({ sink: new FileSink(queryDir, tag), flushMs: 1, maxBufferBytes: 1 << 20, batchBytes: 512 }));
    const expected: string[] = [];
    const legacy = [record(H + 5, 'legacy-0'), record(H + 3_600_005, 'legacy-1')];
    expected.push('legacy-0', 'legacy-1');
    // Both writers append at once, to the same hours, in many small batches.
    const appends: Promise<void>[] = writers.map(async (w, n) => {
      for (let i = 0; i < 300; i++) {
        const ms = H + 100 + i * 20_000 + n; // across hours 18 and 19
        assert.equal(w.append(record(ms, `w${n}-${i}`), hourKey(ms), ms), true);
        if (i % 7 === 0) await new Promise((r) => setImmediate(r));
      }
    });
    for (let n = 0; n < 2; n++) for (let i = 0; i < 300; i++) expected.push(`w${n}-${i}`);
    await Promise.all(appends);
    await Promise.all(writers.map((w) => w.close()));
    // Written by an earlier version (a lone process): the same hours, the old names.
    await writeFile(path.join(queryDir, `query-${hourKey(H)}.ndjson`), `${legacy[0]}\n`);
    await writeFile(path.join(queryDir, `query-${hourKey(H + 3_600_000)}.ndjson`), `${legacy[1]}\n`);

    const names = (await readdir(queryDir)).sort();
    assert.deepEqual(names, [
      'query-2024-05-10T18.4242-aaaa.ndjson', 'query-2024-05-10T18.4343-bbbb.ndjson', 'query-2024-05-10T18.ndjson',
      'query-2024-05-10T19.4242-aaaa.ndjson', 'query-2024-05-10T19.4343-bbbb.ndjson', 'query-2024-05-10T19.ndjson',
    ]);
    for (const name of names) {
      const tag = /\.(\d+-\w+)\.ndjson$/.exec(name)?.[1];
      for (const line of (await readFile(path.join(queryDir, name), 'utf8')).split('\n').filter(Boolean)) {
        const t = (JSON.parse(line) as { TAGS: { t: string } }).TAGS.t;
        // Each process's file holds its own lines only, each whole.
        if (tag) assert.equal(t.slice(0, 2), tag === '4242-aaaa' ? 'w0' : 'w1', `${name}: ${line}`);
      }
    }

    await withStore(async (store) => {
      const jobs = new JobStore(store);
      const files = new DirExportFiles(path.join(dir, 'files'));
      const runner = new ExportRunner(jobs, {
        source: new FileLogSource(queryDir),
        files,
        leases: new Leases(store),
        shared: false,
        signer: new UrlSigner(Buffer.alloc(32, 1)),
        urlTtlMs: 60_000,
        timeoutMs: 60_000,
        flushLog: async () => undefined,
        subtree: async () => new Set(),
        chunkBytes: 4096,
      });
      await runner.start();
      const now = Date.now();
      const j: ExportJob = {
        request_id: '00000000-0000-4000-8000-0000000000aa', state: 'Pending', time_start: '', time_end: '',
        start_ms: H, end_ms: H + 2 * 3_600_000, region_group: 'us-std', scope_db: null, owner_db: '0',
        created_ms: now, updated_ms: now, version: 0, attempts: 0,
      };
      await jobs.put(j);
      runner.submitted();
      for (let i = 0; i < 1000 && (await jobs.get(j.request_id))!.state !== 'Complete'; i++) await new Promise((r) => setTimeout(r, 5));
      const done = (await jobs.get(j.request_id))!;
      assert.equal(done.state, 'Complete', JSON.stringify(done));
      const tags = gunzipSync(await readFile(files.fileOf(j.request_id)))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { TAGS: { t: string } }).TAGS.t);
      assert.equal(tags.length, expected.length, 'each record once');
      assert.deepEqual([...tags].sort(), [...expected].sort());
      assert.equal(done.records, expected.length);
      await runner.close();
    });
  });
});

test("a writer's watermark: the oldest line not yet written, else now", async () => {
  await withDir(async (dir) => {
    const w = new LogWriter({ sink: new FileSink(dir, 'x'), flushMs: 60_000, maxBufferBytes: 1 << 20 });
    assert.equal(w.through(1000), 1000);
    w.append(record(H + 7, 'a'), hourKey(H), H + 7);
    w.append(record(H + 3, 'b'), hourKey(H), H + 3);
    assert.equal(w.through(H + 100), H + 3);
    await w.flush();
    assert.equal(w.through(H + 100), H + 100);
    await w.close();
  });
});

test('watermarks in a shared directory: an export waits for live processes only', async () => {
  await withDir(async (dir) => {
    const a = new FileWatermarks(dir, 'a');
    const b = new FileWatermarks(dir, 'b');
    assert.equal(await a.caughtUp(5000), true, 'nobody else');
    await a.publish(1000);
    assert.equal(await a.caughtUp(5000), true, 'its own mark does not hold it up');
    await b.publish(4000);
    assert.equal(await a.caughtUp(5000), false, 'b is behind');
    assert.equal(await a.caughtUp(4000), true);
    await b.publish(6000);
    assert.equal(await a.caughtUp(5000), true);
    await b.publish(10);
    // A process that stopped being heard from (killed) is not waited for.
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(dir, 'b.json'), old, old);
    assert.equal(await a.caughtUp(5000), true);
    await b.publish(10);
    assert.equal(await a.caughtUp(5000), false);
    await b.close(); // a graceful stop
    assert.equal(await a.caughtUp(5000), true);
    assert.deepEqual(await readdir(dir), ['a.json']);
    // Housekeeping forgets processes gone for a day.
    await new FileWatermarks(dir, 'c').publish(1);
    const dayAgo = new Date(Date.now() - 25 * 3_600_000);
    await utimes(path.join(dir, 'c.json'), dayAgo, dayAgo);
    await a.prune();
    assert.deepEqual(await readdir(dir), ['a.json']);
  });
});
