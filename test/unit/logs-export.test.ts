// Export requests (src/logs/jobs.ts) and the export runner (src/logs/runner.ts) on real files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { IDEMPOTENCY_WINDOW_MS, JobStore, type ExportJob } from '../../src/logs/jobs';
import { buildRecord } from '../../src/logs/record';
import { Redactor } from '../../src/logs/redact';
import { ExportRunner, MAX_ATTEMPTS, type RunnerOptions } from '../../src/logs/runner';
import { UrlSigner } from '../../src/logs/signing';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-logx-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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

const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
};

test('jobs persist, reload, and list newest first in pages with a states filter', async () => {
  await withDir(async (dir) => {
    const store = await JobStore.open(dir);
    const made: ExportJob[] = [];
    for (let i = 0; i < 7; i++) made.push(await store.put(job({ created_ms: 1000 + i, state: i % 2 ? 'Complete' : 'Pending' })));
    await store.update(made[0].request_id, { state: 'Failed', error: 'x' });
    await writeFile(path.join(dir, 'junk.json'), '{not json');
    await writeFile(path.join(dir, 'half.json.tmp'), '{');

    const again = await JobStore.open(dir);
    assert.equal(again.all().length, 7);
    assert.equal(again.get(made[0].request_id)?.state, 'Failed');
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);

    const ids: string[] = [];
    let token: string | undefined;
    for (let pages = 0; ; pages++) {
      const page = again.list(() => true, undefined, 3, token);
      ids.push(...page.results.map((j) => j.request_id));
      if (!page.next_token) {
        assert.equal(pages, 2);
        break;
      }
      token = page.next_token;
    }
    assert.deepEqual(ids, made.map((j) => j.request_id).reverse());
    const complete = again.list(() => true, ['Complete'], 100);
    assert.deepEqual(complete.results.map((j) => j.created_ms), [1005, 1003, 1001]);
    assert.equal(complete.next_token, null);
    assert.deepEqual(again.list((j) => j.created_ms < 1002, ['Failed', 'Complete'], 100).results.map((j) => j.created_ms), [1001, 1000]);
  });
});

test('idempotency: same owner and token within 24 hours', async () => {
  await withDir(async (dir) => {
    const store = await JobStore.open(dir);
    const now = Date.now();
    const t = '6f1c1a50-8d1e-4b52-9d47-1d0d8a3e0c11';
    const j = await store.put(job({ idempotency_token: t, owner_db: '5', created_ms: now }));
    assert.equal(store.findIdempotent('5', t, now + 1000)?.request_id, j.request_id);
    assert.equal(store.findIdempotent('6', t, now + 1000), undefined);
    assert.equal(store.findIdempotent('5', t, now + IDEMPOTENCY_WINDOW_MS), undefined);
  });
});

interface Rig {
  store: JobStore;
  runner: ExportRunner;
  logDir: string;
  filesDir: string;
}

async function rig(dir: string, over: Partial<RunnerOptions> = {}): Promise<Rig> {
  const logDir = path.join(dir, 'query');
  const filesDir = path.join(dir, 'files');
  await mkdir(logDir, { recursive: true });
  const store = await JobStore.open(path.join(dir, 'jobs'));
  const runner = new ExportRunner(store, {
    logDir,
    filesDir,
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
  return { store, runner, logDir, filesDir };
}

const opts = { regionGroup: 'us-std', redactor: new Redactor() };
const H = Date.UTC(2024, 4, 10, 18);

/** Writes records at the given ms offsets from H (and dbs) into hour files. */
async function seed(logDir: string, records: [number, bigint | undefined, string][]): Promise<void> {
  const byFile = new Map<string, string[]>();
  for (const [offset, db, tag] of records) {
    const ms = H + offset;
    const line = buildRecord(
      { method: 'POST', headers: {}, status: 200, bytesIn: 1, bytesOut: 1, queryTimeMs: 1, tags: { t: tag }, database: db === undefined ? undefined : { id: db, path: ['x'] } },
      ms,
      opts,
    );
    const file = path.join(logDir, `query-${new Date(ms).toISOString().slice(0, 13)}.ndjson`);
    byFile.set(file, [...(byFile.get(file) ?? []), line]);
  }
  for (const [file, lines] of byFile) await writeFile(file, `${lines.join('\n')}\n`, { flag: 'a' });
}

async function exported(r: Rig, id: string): Promise<string[]> {
  const text = gunzipSync(await readFile(r.runner.fileOf(id))).toString('utf8');
  return text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { TAGS: { t: string } }).TAGS.t);
}

test('extraction: exactly the range [start, end), across hour files, torn lines skipped', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir);
    await seed(r.logDir, [
      [-1, 0n, 'before'], [0, 0n, 'first'], [1_800_000, undefined, 'anon'], [3_599_999, 11n, 'h18-last'],
      [3_600_000, 20n, 'h19-first'], [7_199_998, 10n, 'last'], [7_199_999, 10n, 'at-end'],
    ]);
    await writeFile(path.join(r.logDir, 'query-2024-05-10T19.ndjson'), '{"torn":\n', { flag: 'a' });
    const j = await r.store.put(job({ start_ms: H, end_ms: H + 7_199_999 }));
    r.runner.submitted();
    await until(() => r.store.get(j.request_id)!.state === 'Complete', 'Complete');
    const done = r.store.get(j.request_id)!;
    assert.equal(done.version, 1);
    assert.equal(done.records, 5);
    assert.ok(done.url_expires_ms! > Date.now());
    assert.deepEqual(await exported(r, j.request_id), ['first', 'anon', 'h18-last', 'h19-first', 'last']);
    const text = gunzipSync(await readFile(r.runner.fileOf(j.request_id))).toString('utf8');
    assert.ok(!text.includes('_db'));
    assert.match(r.runner.presignedPath(done), /^\/api\/v1\/logs\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.jsonl\.gz\?version=1&expires=\d+&signature=[\w-]+$/);
    await r.runner.close();
  });
});

test('extraction: a database covers its subtree; no record is DoesNotExist', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir);
    await seed(r.logDir, [[1, 10n, 'a'], [2, 11n, 'b'], [3, 20n, 'c'], [4, undefined, 'anon'], [5, 0n, 'root']]);
    const sub = await r.store.put(job({ start_ms: H, end_ms: H + 100, scope_db: '10' }));
    const none = await r.store.put(job({ start_ms: H + 1000, end_ms: H + 2000 }));
    r.runner.submitted();
    await until(() => ['Complete'].includes(r.store.get(sub.request_id)!.state) && r.store.get(none.request_id)!.state === 'DoesNotExist', 'done');
    assert.deepEqual(await exported(r, sub.request_id), ['a', 'b']);
    assert.deepEqual((await readdir(r.filesDir)).sort(), [`${sub.request_id}.jsonl.gz`]);
    await r.runner.close();
  });
});

test('a range still in the future waits (Pending), then TimedOut past the timeout', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir, { timeoutMs: 150 });
    const j = await r.store.put(job({ start_ms: Date.now() - 1000, end_ms: Date.now() + 86_400_000 }));
    r.runner.submitted();
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(r.store.get(j.request_id)!.state, 'Pending');
    await until(() => r.store.get(j.request_id)!.state === 'TimedOut', 'TimedOut');
    await r.runner.close();
  });
});

test('a future range runs once its end has passed', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir);
    const j = await r.store.put(job({ start_ms: 0, end_ms: Date.now() + 100 }));
    r.runner.submitted();
    await until(() => r.store.get(j.request_id)!.state === 'DoesNotExist', 'DoesNotExist');
    await r.runner.close();
  });
});

test('restart: an interrupted extraction runs again from the start; one interrupted too often fails', async () => {
  await withDir(async (dir) => {
    const r1 = await rig(dir, { chunkBytes: 64, chunkDelayMs: 5 });
    await seed(r1.logDir, Array.from({ length: 40 }, (_, i) => [i, 0n, `r${i}`] as [number, bigint, string]));
    const j = await r1.store.put(job({ start_ms: H, end_ms: H + 1000 }));
    r1.runner.submitted();
    await until(() => (r1.runner.progressOf(j.request_id)?.records ?? 0) > 3, 'some progress');
    await r1.runner.close();
    assert.equal(r1.store.get(j.request_id)!.state, 'Requested');
    assert.deepEqual(await readdir(r1.filesDir), []); // the partial file is gone

    const r2 = await rig(dir);
    await until(() => r2.store.get(j.request_id)!.state === 'Complete', 'Complete after restart');
    assert.deepEqual(await exported(r2, j.request_id), Array.from({ length: 40 }, (_, i) => `r${i}`));
    assert.equal(r2.store.get(j.request_id)!.attempts, 2);
    await r2.runner.close();

    const looping = await r2.store.put(job({ state: 'Requested', attempts: MAX_ATTEMPTS }));
    const r3 = await rig(dir);
    assert.equal(r3.store.get(looping.request_id)!.state, 'Failed');
    await r3.runner.close();
  });
});

test('an expired URL is re-minted: CreatingNewUrl, then Complete with version + 1', async () => {
  await withDir(async (dir) => {
    const r = await rig(dir, { urlTtlMs: 1 });
    await seed(r.logDir, [[1, 0n, 'a']]);
    const j = await r.store.put(job({ start_ms: H, end_ms: H + 100 }));
    r.runner.submitted();
    await until(() => r.store.get(j.request_id)!.state === 'Complete', 'Complete');
    const first = r.store.get(j.request_id)!;
    assert.equal((await r.runner.refreshUrl(first, first.url_expires_ms! - 1)).state, 'Complete');
    // Two polls at once see the expired URL: one new URL, not two.
    const [creating, racing] = await Promise.all([r.runner.refreshUrl(first, first.url_expires_ms!), r.runner.refreshUrl(first, first.url_expires_ms!)]);
    assert.equal(creating.state, 'CreatingNewUrl');
    assert.equal(racing.state, 'CreatingNewUrl');
    await until(() => r.store.get(j.request_id)!.state === 'Complete', 'Complete again');
    await new Promise((res) => setTimeout(res, 20));
    assert.equal(r.store.get(j.request_id)!.version, 2);
    await r.runner.close();
  });
});
