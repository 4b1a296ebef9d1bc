// The query-log writer (src/logs/writer.ts) and the hour files (src/logs/files.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { filesInRange, hourStartOfFile, removeExpired } from '../../src/logs/files';
import { LogWriter } from '../../src/logs/writer';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-logw-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');

test('lines go to their hour file, in order, once flushed', async () => {
  await withDir(async (dir) => {
    const w = new LogWriter({ dir, flushMs: 10_000, maxBufferBytes: 1 << 20 });
    for (let i = 0; i < 5; i++) assert.equal(w.append(`{"n":${i}}`, '2024-05-10T18'), true);
    w.append('{"n":5}', '2024-05-10T19');
    w.append('{"n":6}', '2024-05-10T18');
    await w.flush();
    assert.deepEqual(await lines(path.join(dir, 'query-2024-05-10T18.ndjson')), ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":6}']);
    assert.deepEqual(await lines(path.join(dir, 'query-2024-05-10T19.ndjson')), ['{"n":5}']);
    assert.deepEqual({ ...w.stats(), peakBufferedBytes: 0 }, { written: 7, dropped: 0, failed: 0, bufferedBytes: 0, peakBufferedBytes: 0 });
    await w.close();
    assert.equal(w.append('{"late":1}', '2024-05-10T18'), false);
  });
});

test('the timer writes without anyone asking', async () => {
  await withDir(async (dir) => {
    const w = new LogWriter({ dir, flushMs: 5, maxBufferBytes: 1 << 20 });
    w.append('{"a":1}', '2024-05-10T18');
    const file = path.join(dir, 'query-2024-05-10T18.ndjson');
    for (let i = 0; i < 400 && w.stats().written < 1; i++) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await lines(file), ['{"a":1}']);
    await w.close();
  });
});

test('memory is bounded: past the buffer, lines are dropped and counted, never queued', async () => {
  await withDir(async (dir) => {
    const max = 64 * 1024;
    const w = new LogWriter({ dir, flushMs: 1, maxBufferBytes: max, batchBytes: 8 * 1024, warn: () => undefined });
    const line = `{"pad":"${'x'.repeat(990)}"}`;
    let accepted = 0;
    // 10 MB appended in one synchronous burst: the disk cannot possibly keep up.
    for (let i = 0; i < 10_000; i++) {
      if (w.append(line, '2024-05-10T18')) accepted++;
      assert.ok(w.stats().bufferedBytes <= max);
    }
    assert.ok(accepted > 0 && accepted < 100, `accepted ${accepted}`);
    assert.equal(w.stats().dropped, 10_000 - accepted);
    assert.ok(w.stats().peakBufferedBytes <= max);
    await w.flush();
    assert.equal((await lines(path.join(dir, 'query-2024-05-10T18.ndjson'))).length, accepted);
    // Once written, there is room again.
    assert.equal(w.append(line, '2024-05-10T18'), true);
    await w.close();
  });
});

test('flush() waits only for what was appended before it, even under a steady stream', async () => {
  await withDir(async (dir) => {
    const w = new LogWriter({ dir, flushMs: 1, maxBufferBytes: 1 << 24, batchBytes: 100 });
    let stop = false;
    const feeder = (async () => {
      let i = 0;
      while (!stop) {
        w.append(`{"i":${i++}}`, '2024-05-10T18');
        await new Promise((r) => setImmediate(r));
      }
    })();
    await new Promise((r) => setTimeout(r, 20));
    await w.flush(); // must resolve although lines keep coming
    stop = true;
    await feeder;
    await w.close();
  });
});

test('a write error is counted and never thrown; a torn last line is not glued to the next record', async () => {
  await withDir(async (dir) => {
    const blocked = path.join(dir, 'not-a-dir');
    await writeFile(blocked, 'x');
    const bad = new LogWriter({ dir: blocked, flushMs: 1, maxBufferBytes: 1 << 20, warn: () => undefined });
    bad.append('{"a":1}', '2024-05-10T18');
    await bad.flush();
    assert.equal(bad.stats().failed, 1);
    await bad.close();

    const file = path.join(dir, 'query-2024-05-10T18.ndjson');
    await writeFile(file, '{"a":1}\n{"torn":');
    const w = new LogWriter({ dir, flushMs: 1, maxBufferBytes: 1 << 20 });
    w.append('{"b":2}', '2024-05-10T18');
    await w.close();
    assert.deepEqual(await lines(file), ['{"a":1}', '{"torn":', '{"b":2}']);
  });
});

test('file names are the index: files of a range, and retention', async () => {
  await withDir(async (dir) => {
    assert.equal(hourStartOfFile('query-2024-05-10T18.ndjson'), Date.UTC(2024, 4, 10, 18));
    assert.equal(hourStartOfFile('query-2024-05-10T18.ndjson.tmp'), undefined);
    assert.equal(hourStartOfFile('notes.txt'), undefined);
    for (const h of ['2024-05-10T17', '2024-05-10T18', '2024-05-10T19', '2024-05-11T00']) {
      await writeFile(path.join(dir, `query-${h}.ndjson`), 'x\n');
    }
    await mkdir(path.join(dir, 'other'));
    const names = async (from: number, to: number) => (await filesInRange(dir, from, to)).map((f) => path.basename(f.path));
    assert.deepEqual(await names(Date.UTC(2024, 4, 10, 18, 30), Date.UTC(2024, 4, 10, 19, 0, 0, 1)), [
      'query-2024-05-10T18.ndjson',
      'query-2024-05-10T19.ndjson',
    ]);
    assert.deepEqual(await names(Date.UTC(2024, 4, 10, 18), Date.UTC(2024, 4, 10, 19)), ['query-2024-05-10T18.ndjson']);
    assert.deepEqual(await names(0, Date.UTC(2030, 0)), [
      'query-2024-05-10T17.ndjson', 'query-2024-05-10T18.ndjson', 'query-2024-05-10T19.ndjson', 'query-2024-05-11T00.ndjson',
    ]);
    assert.deepEqual(await filesInRange(path.join(dir, 'missing'), 0, 1e15), []);
    // 1 day of retention at 2024-05-12 00:30: hours ending before 2024-05-11 00:30 go.
    assert.equal(await removeExpired(dir, 1, Date.UTC(2024, 4, 12, 0, 30)), 3);
    assert.deepEqual((await readdir(dir)).sort(), ['other', 'query-2024-05-11T00.ndjson']);
  });
});
