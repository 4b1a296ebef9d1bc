// The query log and the log-export API across LMDB workers (`flora start --workers 2`: two processes
// on one data directory, and so one log directory, taking connections in turn). Each writes its own
// hour files; an export requested through one connection and polled through others has every
// worker's records once; workers killed in the middle of an export leave it to their replacements.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { killWorkers, workerPids, type FloraProcess } from '../helpers/server';
import { assertEachOnce, download, logsApi, pollUntil, ROOT_SECRET, startLogged, tagged, window } from '../helpers/logs';

let tier: FloraProcess;

before(async () => {
  tier = await startLogged({ args: ['--workers', '2'], env: { FLORA_TEST_EXPORT_DELAY_MS: '50', FLORA_TEST_LEASE_MS: '1500' } });
});
after(async () => {
  assert.equal(await tier.stop(), 0, `graceful exit:\n${tier.stderr()}`);
});

describe('LMDB workers sharing a data directory', () => {
  test('each worker its own hour files; an export through one, downloaded through the other, has every record once', async () => {
    // Two clients, two connections: one to each worker.
    const { start, end } = await window(() => Promise.all([tagged(tier, 'one', 150), tagged(tier, 'two', 100)]));
    const made = await logsApi(tier, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    assert.equal(made.status, 200, JSON.stringify(made.json));
    const done = await pollUntil(tier, made.json.request_id as string, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assertEachOnce((await download(done.json.presigned_url as string)).records, { one: 150, two: 100 });

    const names = await readdir(path.join(tier.dataDir, 'logs', 'query'));
    const tags = new Set(names.map((n) => /^query-\d{4}-\d{2}-\d{2}T\d{2}\.([\w-]+)\.ndjson$/.exec(n)?.[1]));
    assert.ok(!tags.has(undefined), `only tagged names: ${names.join(', ')}`);
    assert.ok(tags.size >= 2, `one tag per worker: ${names.join(', ')}`);
  });

  test('one idempotency token given to both workers at once makes one request', async () => {
    const token = randomUUID();
    const body = { region_group: 'us-std', time_start: '2020-01-01T00:00:00Z', time_end: '2020-01-02T00:00:00Z', idempotency_token: token };
    // Four requests at once, each on its own connection: both workers take some.
    const answers = await Promise.all([1, 2, 3, 4].map(() => logsApi(tier, 'POST', '/api/v1/logs?type=query', body, ROOT_SECRET)));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(new Set(answers.map((r) => r.json.request_id)).size, 1);
  });

  test('the workers killed while one runs an export: a replacement completes it, each record once', async () => {
    const { start, end } = await window(() => Promise.all([tagged(tier, 's', 900), tagged(tier, 'one', 200)]));
    const made = await logsApi(tier, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const id = made.json.request_id as string;
    await pollUntil(tier, id, ROOT_SECRET, (r) => r.json.state === 'Requested' && ((r.json.progress as { records: number } | undefined)?.records ?? 0) > 0);
    // Whichever worker runs it dies (both do); the supervisor starts two more.
    await killWorkers(tier, workerPids(tier));
    const done = await pollUntil(tier, id, ROOT_SECRET, undefined, 90_000);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assertEachOnce((await download(done.json.presigned_url as string)).records, { s: 900, one: 200 });
  });
});
