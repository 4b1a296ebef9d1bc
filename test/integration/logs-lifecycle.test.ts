// Export requests over time: restarts during an export (crash and graceful), future ranges, URL
// expiry and re-minting, timeouts, and the `flora export-logs` command.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { query as q } from 'faunadb';
import { ClientPool, FLORA_BIN, ROOT, type FloraProcess } from '../helpers/server';
import { clockPast, download, logsApi, pollUntil, ROOT_SECRET, startLogged, window } from '../helpers/logs';
import { JobStore } from '../../src/logs/jobs';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';

const cleanup: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-logs-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function started(srv: Promise<FloraProcess>): Promise<FloraProcess> {
  const s = await srv;
  cleanup.push(() => s.stop());
  return s;
}

async function tagged(srv: FloraProcess, tag: string, n: number): Promise<void> {
  const pool = new ClientPool(srv.url);
  try {
    const c = pool.client(ROOT_SECRET);
    await Promise.all(Array.from({ length: n }, (_, i) => c.query(q.Add(i, 1), { tags: { [tag]: String(i) } })));
  } finally {
    await pool.close();
  }
}

describe('restarts', () => {
  test('a crash in the middle of an export: the export runs again after restart, each record once', async () => {
    const dataDir = await tempDir();
    const slow = await started(startLogged({ dataDir, env: { FLORA_TEST_EXPORT_DELAY_MS: '40' } }));
    const N = 1200;
    const { start, end } = await window(() => tagged(slow, 'crash', N));
    const created = await logsApi(slow, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const id = created.json.request_id as string;
    const midway = await pollUntil(slow, id, ROOT_SECRET, (a) => a.json.state === 'Requested' && ((a.json.progress as { records: number } | undefined)?.records ?? 0) > 0);
    const progress = midway.json.progress as { bytes_scanned: number; bytes_total: number; records: number };
    assert.ok(progress.bytes_scanned < progress.bytes_total, JSON.stringify(progress));
    await slow.stop('SIGKILL');
    // What the killed process left in its store: the request, still Requested.
    const store = await openStore(await openLmdbEngine(dataDir));
    try {
      assert.equal((await new JobStore(store).get(id))?.state, 'Requested');
    } finally {
      await store.close();
    }

    const srv = await started(startLogged({ dataDir }));
    const done = await pollUntil(srv, id, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    const { records } = await download(done.json.presigned_url as string);
    assert.equal(records.length, N);
    assert.equal(new Set(records.map((r) => r.TAGS.crash)).size, N);
  });

  test('a graceful restart while an export waits for its range to end: it completes with records from both runs', async () => {
    const dataDir = await tempDir();
    let srv = await startLogged({ dataDir });
    const start = new Date(Date.now() - 1000).toISOString();
    // Long enough for a restart and six queries on a loaded machine: the export cannot finish earlier.
    const endMs = Date.now() + 8000;
    const created = await logsApi(srv, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: new Date(endMs).toISOString() }, ROOT_SECRET);
    const id = created.json.request_id as string;
    await tagged(srv, 'before', 3);
    assert.equal((await logsApi(srv, 'GET', `/api/v1/logs/${id}`, undefined, ROOT_SECRET)).json.state, 'Pending');
    srv = await srv.restart();
    cleanup.push(() => srv.stop());
    assert.equal((await logsApi(srv, 'GET', `/api/v1/logs/${id}`, undefined, ROOT_SECRET)).json.state, 'Pending');
    await tagged(srv, 'after', 3);
    assert.ok(Date.now() < endMs, 'the queries ran before the end of the range (machine too slow?)');
    const done = await pollUntil(srv, id, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete');
    assert.ok(Date.now() >= endMs);
    const { records } = await download(done.json.presigned_url as string);
    for (const tag of ['before', 'after']) {
      assert.deepEqual(records.filter((r) => r.TAGS[tag] !== undefined).map((r) => r.TAGS[tag]).sort(), ['0', '1', '2'], tag);
    }
  });
});

describe('URLs and timeouts', () => {
  test('an expired URL is refused; polling mints a new one (CreatingNewUrl, then Complete, version 2)', async () => {
    const srv = await started(startLogged({ env: { FLORA_LOG_URL_TTL_SECONDS: '2' } }));
    const { start, end } = await window(() => tagged(srv, 'u', 2));
    const created = await logsApi(srv, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const id = created.json.request_id as string;
    // `version` is in list results only (service.md "Log retrieval record").
    const listed = async () =>
      ((await logsApi(srv, 'POST', '/api/v1/logs/_list?type=query', {}, ROOT_SECRET)).json.results as Record<string, unknown>[]).find((r) => r.request_id === id)!;
    const first = await pollUntil(srv, id, ROOT_SECRET);
    assert.equal(first.json.state, 'Complete');
    assert.equal((await listed()).version, 1);
    const url1 = first.json.presigned_url as string;
    assert.equal((await download(url1)).records.length, 2);

    await clockPast(Date.parse(first.json.presigned_url_expiration_time as string));
    const late = await fetch(url1);
    assert.equal(late.status, 403);
    assert.deepEqual(await late.json(), { message: 'The URL has expired; poll the request again for a new one.' });

    const creating = await logsApi(srv, 'GET', `/api/v1/logs/${id}?type=query`, undefined, ROOT_SECRET);
    assert.equal(creating.json.state, 'CreatingNewUrl');
    assert.equal(creating.json.presigned_url, undefined);
    const second = await pollUntil(srv, id, ROOT_SECRET, (a) => a.json.state === 'Complete');
    assert.equal((await listed()).version, 2);
    assert.notEqual(second.json.presigned_url, url1);
    assert.equal((await download(second.json.presigned_url as string)).records.length, 2);
    assert.equal((await fetch(url1)).status, 403, 'the old URL stays refused');

    // Listing re-mints an expired URL too, before filtering: a result's state is the one filtered on.
    await clockPast(Date.parse(second.json.presigned_url_expiration_time as string));
    const complete = (await logsApi(srv, 'POST', '/api/v1/logs/_list?type=query', { states: ['Complete'] }, ROOT_SECRET)).json.results as Record<string, unknown>[];
    for (const r of complete) {
      assert.equal(r.state, 'Complete');
      assert.ok(Date.parse(r.presigned_url_expiration_time as string) > Date.now(), 'a listed URL is valid');
    }
    const third = await pollUntil(srv, id, ROOT_SECRET, (a) => a.json.state === 'Complete');
    assert.equal((await download(third.json.presigned_url as string)).records.length, 2);
    assert.equal((await listed()).version, 3);
  });

  test('an export whose range does not end before the timeout is TimedOut', async () => {
    const srv = await started(startLogged({ env: { FLORA_LOG_EXPORT_TIMEOUT_SECONDS: '1' } }));
    const created = await logsApi(srv, 'POST', '/api/v1/logs?type=query', {
      region_group: 'us-std', time_start: new Date(Date.now() - 60_000).toISOString(), time_end: new Date(Date.now() + 3_600_000).toISOString(),
    }, ROOT_SECRET);
    assert.equal(created.json.state, 'Pending');
    const done = await pollUntil(srv, created.json.request_id as string, ROOT_SECRET);
    assert.equal(done.json.state, 'TimedOut');
    const listed = await logsApi(srv, 'POST', '/api/v1/logs/_list?type=query', { states: ['TimedOut'] }, ROOT_SECRET);
    assert.deepEqual((listed.json.results as { request_id: string }[]).map((r) => r.request_id), [created.json.request_id]);
  });
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [FLORA_BIN, 'export-logs', ...args], { cwd: ROOT, env: { ...process.env, FLORA_SECRET: '' } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe('flora export-logs', () => {
  test('requests, polls with progress, downloads; empty ranges, bad usage and refusals', async () => {
    const srv = await started(startLogged());
    const { start, end } = await window(() => tagged(srv, 'cli', 4));
    const dir = await tempDir();
    const out = path.join(dir, 'logs.jsonl');
    const ok = await cli(['--url', srv.url, '--secret', ROOT_SECRET, '--start', start, '--end', end, '--out', out, '--gunzip', '--poll-ms', '50']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /^export [0-9a-f-]{36}: /);
    assert.match(ok.stderr, /state Complete: 4 records/);
    assert.match(ok.stderr, /4 records written to /);
    const lines = (await readFile(out, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { TAGS: { cli: string } });
    assert.deepEqual(lines.map((l) => l.TAGS.cli).sort(), ['0', '1', '2', '3']);

    const gz = await cli(['--url', srv.url, '--secret', ROOT_SECRET, '--database', 'us-std', '--start', start, '--end', end, '--out', '-', '--poll-ms', '50']);
    assert.equal(gz.code, 0, gz.stderr);
    assert.match(gz.stderr, /4 records written to stdout/);
    assert.equal(gz.stdout.length > 0, true);

    const empty = await cli(['--url', srv.url, '--secret', ROOT_SECRET, '--start', '2001-01-01T00:00:00Z', '--end', '2001-01-02T00:00:00Z', '--poll-ms', '50']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stderr, /no records in that range/);

    const usage = await cli(['--url', srv.url, '--start', '-1h']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /A secret is required/);
    const refused = await cli(['--url', srv.url, '--secret', 'nope', '--start', '-1h']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /HTTP 401.*Unauthorized/);
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: flora export-logs/);
  });
});
