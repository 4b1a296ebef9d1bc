// Export requests (src/logs/jobs.ts, in a real LMDB store) and the export runner (src/logs/runner.ts)
// on real hour files and export files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DirExportFiles } from '../../src/logs/dirExportFiles';
import { FileLogSource } from '../../src/logs/fileSource';
import { IDEMPOTENCY_WINDOW_MS, JobStore, type ExportJob } from '../../src/logs/jobs';
import { importLegacyJobs } from '../../src/logs/legacy';
import { buildRecord } from '../../src/logs/record';
import { Redactor } from '../../src/logs/redact';
import { ExportRunner, MAX_ATTEMPTS, type RunnerOptions } from '../../src/logs/runner';
import { UrlSigner } from '../../src/logs/signing';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import type { Store } from '../../src/storage/types';
import { Leases } from '../../src/tier/leases';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-logx-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The store of `dir` (a lone process's LMDB), opened again after a close as on a restart. */
async function storeIn(dir: string): Promise<Store> {
  return openStore(await openLmdbEngine(path.join(dir, 'store')));
}

let seq = 0;
function job(over: Partial<ExportJob> = {}): ExportJob {
  const now = Date.now();
  return {
    request_id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    state: 'Pending',
    time_start: '', time_end: '', start_ms: 0, end_ms: now - 1000,
    region_group: 'us-std', scope_db: null, owner_db: '0',
    created_ms: now, updated_ms: now, version: 0, attempts: 0,
    ...over,
  };
}

const until = async (cond: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 1000; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
};

test('jobs persist across a restart, and list newest first in pages with a states filter', async () => {
  await withDir(async (dir) => {
    const store = await storeIn(dir);
    const jobs = new JobStore(store);
    const made: ExportJob[] = [];
    for (let i = 0; i < 7; i++) made.push(await jobs.put(job({ created_ms: 1000 + i, state: i % 2 ? 'Complete' : 'Pending' })));
    await jobs.update(made[0].request_id, { state: 'Failed', error: 'x' });
    await store.close();

    const store2 = await storeIn(dir);
    try {
      const again = new JobStore(store2);
      assert.equal((await again.all()).length, 7);
      assert.equal((await again.get(made[0].request_id))?.state, 'Failed');
      assert.deepEqual((await again.open()).map((j) => j.created_ms).sort(), [1002, 1004, 1006], 'what still has to run');

      const ids: string[] = [];
      let token: string | undefined;
      for (let pages = 0; ; pages++) {
        const page = await again.list(() => true, undefined, 3, token);
        ids.push(...page.results.map((j) => j.request_id));
        if (!page.next_token) {
          assert.equal(pages, 2);
          break;
        }
        token = page.next_token;
      }
      assert.deepEqual(ids, made.map((j) => j.request_id).reverse());
      const complete = await again.list(() => true, ['Complete'], 100);
      assert.deepEqual(complete.results.map((j) => j.created_ms), [1005, 1003, 1001]);
      assert.equal(complete.next_token, null);
      assert.deepEqual((await again.list((j) => j.created_ms < 1002, ['Failed', 'Complete'], 100)).results.map((j) => j.created_ms), [1001, 1000]);

      await again.remove([made[1].request_id, made[2].request_id]);
      assert.equal((await again.all()).length, 5);
      assert.equal(await again.get(made[1].request_id), undefined);
    } finally {
      await store2.close();
    }
  });
});

test('idempotency: same owner and token within 24 hours, one request even when asked at once', async () => {
  await withDir(async (dir) => {
    const store = await storeIn(dir);
    try {
      const jobs = new JobStore(store);
      const now = Date.now();
      const t = '6f1c1a50-8d1e-4b52-9d47-1d0d8a3e0c11';
      const first = await jobs.create(job({ idempotency_token: t, owner_db: '5', created_ms: now }), now);
      assert.equal(first.created, true);
      const again = await jobs.create(job({ idempotency_token: t, owner_db: '5' }), now + 1000);
      assert.deepEqual([again.created, again.job.request_id], [false, first.job.request_id]);
      assert.equal((await jobs.create(job({ idempotency_token: t, owner_db: '6' }), now + 1000)).created, true, 'another owner');
      assert.equal((await jobs.create(job({ idempotency_token: t, owner_db: '5' }), now + IDEMPOTENCY_WINDOW_MS)).created, true, 'past the window');

      // Concurrent creations with one new token: their transactions conflict, and the one re-run finds the other's.
      const u = '7f1c1a50-8d1e-4b52-9d47-1d0d8a3e0c12';
      const racing = await Promise.all([1, 2, 3].map(() => jobs.create(job({ idempotency_token: u, owner_db: '5' }))));
      assert.equal(racing.filter((r) => r.created).length, 1);
      assert.equal(new Set(racing.map((r) => r.job.request_id)).size, 1);
    } finally {
      await store.close();
    }
  });
});

test('export requests of earlier versions (job files) are carried into the store, once', async () => {
  await withDir(async (dir) => {
    const exportsDir = path.join(dir, 'exports');
    await mkdir(path.join(exportsDir, 'jobs'), { recursive: true });
    const old = job({ state: 'Complete', version: 1, attempts: 1 });
    await writeFile(path.join(exportsDir, 'jobs', `${old.request_id}.json`), JSON.stringify(old));
    await writeFile(path.join(exportsDir, 'jobs', 'junk.json'), '{not json');
    await writeFile(path.join(exportsDir, 'jobs', 'half.json.tmp'), '{');
    const store = await storeIn(dir);
    try {
      const jobs = new JobStore(store);
      assert.equal(await importLegacyJobs(exportsDir, jobs, undefined), 1);
      assert.deepEqual(await jobs.get(old.request_id), old);
      assert.deepEqual(await readdir(exportsDir), [], 'the job files are gone');
      assert.equal(await importLegacyJobs(exportsDir, jobs, undefined), 0);
    } finally {
      await store.close();
    }
  });
});

interface Rig {
  store: Store;
  jobs: JobStore;
  runner: ExportRunner;
  files: DirExportFiles;
  logDir: string;
  filesDir: string;
  /** Stops the runner and closes the store (a graceful stop). */
  close(): Promise<void>;
}

async function rig(dir: string, over: Partial<RunnerOptions> = {}): Promise<Rig> {
  const logDir = path.join(dir, 'query');
  const filesDir = path.join(dir, 'files');
  await mkdir(logDir, { recursive: true });
  const store = await storeIn(dir);
  const jobs = new JobStore(store);
  const files = new DirExportFiles(filesDir);
  const runner = new ExportRunner(jobs, {
    source: new FileLogSource(logDir),
    files,
    leases: new Leases(store),
    shared: false,
    signer: new UrlSigner(Buffer.alloc(32, 1)),
    urlTtlMs: 60_000,
    timeoutMs: 60_000,
    flushLog: async () => undefined,
    // db 10 has a child 11; 20 is elsewhere
    subtree: async (db) => new Set(db === 10n ? ['10', '11'] : [String(db)]),
    warn: () => undefined,
    ...over,
  });
  await runner.start();
  return {
    store, jobs, runner, files, logDir, filesDir,
    close: async () => {
      await runner.close();
      await store.close();
    },
  };
}

const opts = { regionGroup: 'us-std', redactor: new Redactor() };
const H = Date.UTC(2024, 4, 10, 18);

/** The stored line of a record at `ms` offset from H. */
function recordAt(offset: number, db: bigint | undefined, tag: string): string {
  return buildRecord(
    { method: 'POST', headers: {}, status: 200, bytesIn: 1, bytesOut: 1, queryTimeMs: 1, tags: { t: tag }, database: db === undefined ? undefined : { id: db, path: ['x'] } },
    H + offset,
    opts,
  );
}

/** Writes records at the given ms offsets from H (and dbs) into hour files. */
async function seed(logDir: string, records: [number, bigint | undefined, string][]): Promise<void> {
  const byFile = new Map<string, string[]>();
  for (const [offset, db, tag] of records) {
    const file = path.join(logDir, `query-${new Date(H + offset).toISOString().slice(0, 13)}.ndjson`);
    byFile.set(file, [...(byFile.get(file) ?? []), recordAt(offset, db, tag)]);
  }
  for (const [file, lines] of byFile) await writeFile(file, `${lines.join('\n')}\n`, { flag: 'a' });
}

async function exported(r: Rig, id: string): Promise<string[]> {
  const text = gunzipSync(await readFile(r.files.fileOf(id))).toString('utf8');
  return text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { TAGS: { t: string } }).TAGS.t);
}

const stateOf = async (r: Rig, id: string) => (await r.jobs.get(id))!.state;

test('extraction: exactly the range [start, end), across hour files, torn lines skipped', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir);
    await seed(r.logDir, [
      [-1, 0n, 'before'], [0, 0n, 'first'], [1_800_000, undefined, 'anon'], [3_599_999, 11n, 'h18-last'],
      [3_600_000, 20n, 'h19-first'], [7_199_998, 10n, 'last'], [7_199_999, 10n, 'at-end'],
    ]);
    await writeFile(path.join(r.logDir, 'query-2024-05-10T19.ndjson'), '{"torn":\n', { flag: 'a' });
    const j = await r.jobs.put(job({ start_ms: H, end_ms: H + 7_199_999 }));
    r.runner.submitted();
    await until(async () => (await stateOf(r, j.request_id)) === 'Complete', 'Complete');
    const done = (await r.jobs.get(j.request_id))!;
    assert.equal(done.version, 1);
    assert.equal(done.records, 5);
    assert.ok(done.url_expires_ms! > Date.now());
    assert.deepEqual(await exported(r, j.request_id), ['first', 'anon', 'h18-last', 'h19-first', 'last']);
    const text = gunzipSync(await readFile(r.files.fileOf(j.request_id))).toString('utf8');
    assert.ok(!text.includes('_db'));
    assert.match(r.runner.presignedPath(done), /^\/api\/v1\/logs\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.jsonl\.gz\?version=1&expires=\d+&signature=[\w-]+$/);
    await r.close();
  });
});

test('extraction: a database covers its subtree; no record is DoesNotExist', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir);
    await seed(r.logDir, [[1, 10n, 'a'], [2, 11n, 'b'], [3, 20n, 'c'], [4, undefined, 'anon'], [5, 0n, 'root']]);
    const sub = await r.jobs.put(job({ start_ms: H, end_ms: H + 100, scope_db: '10' }));
    const none = await r.jobs.put(job({ start_ms: H + 1000, end_ms: H + 2000 }));
    r.runner.submitted();
    await until(async () => (await stateOf(r, sub.request_id)) === 'Complete' && (await stateOf(r, none.request_id)) === 'DoesNotExist', 'done');
    assert.deepEqual(await exported(r, sub.request_id), ['a', 'b']);
    assert.deepEqual((await readdir(r.filesDir)).sort(), [`${sub.request_id}.jsonl.gz`]);
    await r.close();
  });
});

test('a range still in the future waits (Pending), then TimedOut past the timeout', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir, { timeoutMs: 150 });
    const j = await r.jobs.put(job({ start_ms: Date.now() - 1000, end_ms: Date.now() + 86_400_000 }));
    r.runner.submitted();
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(await stateOf(r, j.request_id), 'Pending');
    await until(async () => (await stateOf(r, j.request_id)) === 'TimedOut', 'TimedOut');
    assert.deepEqual(await r.jobs.open(), [], 'TimedOut no longer has to run');
    await r.close();
  });
});

test('a future range runs once its end has passed', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir);
    const j = await r.jobs.put(job({ start_ms: 0, end_ms: Date.now() + 100 }));
    r.runner.submitted();
    await until(async () => (await stateOf(r, j.request_id)) === 'DoesNotExist', 'DoesNotExist');
    await r.close();
  });
});

test('restart: an interrupted extraction runs again from the start; one interrupted too often fails', async () => {
  await withDir(async (dir) => {
    const r1 = await rig(dir, { chunkBytes: 64, chunkDelayMs: 5 });
    await seed(r1.logDir, Array.from({ length: 40 }, (_, i) => [i, 0n, `r${i}`] as [number, bigint, string]));
    const j = await r1.jobs.put(job({ start_ms: H, end_ms: H + 1000 }));
    r1.runner.submitted();
    await until(async () => (r1.runner.progressOf(j.request_id)?.records ?? 0) > 3, 'some progress');
    await r1.close();
    const store = await storeIn(dir);
    assert.equal((await new JobStore(store).get(j.request_id))!.state, 'Requested');
    await store.close();
    assert.deepEqual(await readdir(r1.filesDir), []); // the partial file is gone

    const r2 = await rig(dir);
    await until(async () => (await stateOf(r2, j.request_id)) === 'Complete', 'Complete after restart');
    assert.deepEqual(await exported(r2, j.request_id), Array.from({ length: 40 }, (_, i) => `r${i}`));
    assert.equal((await r2.jobs.get(j.request_id))!.attempts, 2);
    const looping = await r2.jobs.put(job({ state: 'Requested', attempts: MAX_ATTEMPTS }));
    await r2.close();

    const r3 = await rig(dir);
    assert.equal(await stateOf(r3, looping.request_id), 'Failed');
    await r3.close();
  });
});

test('a partial file left by a killed process is removed at start', async () => {
  await withDir(async (dir) => {
    const filesDir = path.join(dir, 'files');
    await mkdir(filesDir, { recursive: true });
    await writeFile(path.join(filesDir, '00000000-0000-4000-8000-000000000999.1.jsonl.gz.tmp'), 'partial');
    const r = await rig(dir);
    assert.deepEqual(await readdir(filesDir), []);
    await r.close();
  });
});

test('an expired URL is re-minted: CreatingNewUrl, then Complete with version + 1', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir, { urlTtlMs: 1 });
    await seed(r.logDir, [[1, 0n, 'a']]);
    const j = await r.jobs.put(job({ start_ms: H, end_ms: H + 100 }));
    r.runner.submitted();
    await until(async () => (await stateOf(r, j.request_id)) === 'Complete', 'Complete');
    const first = (await r.jobs.get(j.request_id))!;
    assert.equal((await r.runner.refreshUrl(first, first.url_expires_ms! - 1)).state, 'Complete');
    // Two polls at once see the expired URL: one new URL, not two.
    const [creating, racing] = await Promise.all([r.runner.refreshUrl(first, first.url_expires_ms!), r.runner.refreshUrl(first, first.url_expires_ms!)]);
    assert.equal(creating.state, 'CreatingNewUrl');
    assert.equal(racing.state, 'CreatingNewUrl');
    await until(async () => (await stateOf(r, j.request_id)) === 'Complete', 'Complete again');
    await new Promise((res) => setTimeout(res, 20));
    assert.equal((await r.jobs.get(j.request_id))!.version, 2);
    await r.close();
  });
});
