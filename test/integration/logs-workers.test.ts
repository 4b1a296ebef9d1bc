// The query log and the log-export API across LMDB workers: several processes on one data directory
// (and so one log directory), each started as a worker of `flora start --workers N` will be
// (helpers/lmdbWorker.ts stands in for the supervisor being built). Each writes its own hour files;
// an export through any of them has every worker's records once; a worker killed in the middle of an
// export leaves it to another.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { query as q } from 'faunadb';
import { ClientPool, type FloraProcess } from '../helpers/server';
import { download, logsApi, pollUntil, ROOT_SECRET, startLogged, window, type LogRecord } from '../helpers/logs';

const WORKER = path.join(__dirname, '..', 'helpers', 'lmdbWorker.js');

let dir: string;
let w1: FloraProcess;
let w2: FloraProcess;
const extra: FloraProcess[] = [];

const worker = (env: Record<string, string> = {}) => startLogged({ dataDir: dir, command: [WORKER], env });

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'flora-workers-'));
  w1 = await worker(); // the first one stamps the new directory's format
  w2 = await worker();
});
after(async () => {
  for (const w of [w1, w2]) if (w) assert.equal(await w.stop(), 0, `graceful exit:\n${w.stderr()}`);
  for (const w of extra) await w.stop('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function tagged(srv: FloraProcess, name: string, n: number): Promise<void> {
  const pool = new ClientPool(srv.url);
  try {
    const c = pool.client(ROOT_SECRET);
    for (let i = 0; i < n; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => c.query(q.Add(i + k, 1), { tags: { p: name, i: String(i + k) } })));
    }
  } finally {
    await pool.close();
  }
}

function assertEachOnce(records: LogRecord[], expected: Record<string, number>): void {
  const seen = records.map((r) => `${r.TAGS.p}-${r.TAGS.i}`);
  const want = Object.entries(expected).flatMap(([p, n]) => Array.from({ length: n }, (_, i) => `${p}-${i}`));
  assert.equal(seen.length, want.length, 'as many records as requests');
  assert.deepEqual([...seen].sort(), [...want].sort());
}

describe('LMDB workers sharing a data directory', () => {
  test('each worker its own hour files; an export through one, downloaded through the other, has every record once', async () => {
    const { start, end } = await window(() => Promise.all([tagged(w1, 'one', 150), tagged(w2, 'two', 100)]));
    const made = await logsApi(w1, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    assert.equal(made.status, 200, JSON.stringify(made.json));
    const done = await pollUntil(w2, made.json.request_id as string, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assert.equal(new URL(done.json.presigned_url as string).origin, w2.url);
    assertEachOnce((await download(done.json.presigned_url as string)).records, { one: 150, two: 100 });

    const names = await readdir(path.join(dir, 'logs', 'query'));
    const tags = new Set(names.map((n) => /^query-\d{4}-\d{2}-\d{2}T\d{2}\.([\w-]+)\.ndjson$/.exec(n)?.[1]));
    assert.ok(!tags.has(undefined), `only tagged names: ${names.join(', ')}`);
    assert.ok(tags.size >= 2, `one tag per worker: ${names.join(', ')}`);
  });

  test('one idempotency token given to both workers at once makes one request', async () => {
    const token = randomUUID();
    const body = { region_group: 'us-std', time_start: '2020-01-01T00:00:00Z', time_end: '2020-01-02T00:00:00Z', idempotency_token: token };
    const answers = await Promise.all([w1, w2, w1, w2].map((w) => logsApi(w, 'POST', '/api/v1/logs?type=query', body, ROOT_SECRET)));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(new Set(answers.map((r) => r.json.request_id)).size, 1);
  });

  test('a worker killed while it runs an export: another worker completes it, each record once', async () => {
    const slow = await worker({ FLORA_TEST_EXPORT_DELAY_MS: '50' });
    extra.push(slow);
    const { start, end } = await window(() => Promise.all([tagged(slow, 's', 900), tagged(w1, 'one', 200)]));
    const made = await logsApi(slow, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const id = made.json.request_id as string;
    await pollUntil(slow, id, ROOT_SECRET, (r) => r.json.state === 'Requested' && ((r.json.progress as { records: number } | undefined)?.records ?? 0) > 0);
    assert.equal(await slow.stop('SIGKILL'), 137);
    const done = await pollUntil(w2, id, ROOT_SECRET, undefined, 90_000);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assertEachOnce((await download(done.json.presigned_url as string)).records, { s: 900, one: 200 });
  });
});
