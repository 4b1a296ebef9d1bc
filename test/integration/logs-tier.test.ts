// The query log and the log-export API across a tier of processes on one PostgreSQL database (issue
// 15): each process has its own data directory (as on separate machines), and they share nothing but
// the database. An export made through one process has the records of every process, once; requests
// are the same through every process; an export whose process dies is finished by another; and a
// PostgreSQL outage is answered with 503s, never 500s, and survived.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { httpRequest, type FloraProcess } from '../helpers/server';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { Client as PgClient } from 'pg';
import { buildRecord } from '../../src/logs/record';
import { Redactor } from '../../src/logs/redact';
import { assertEachOnce, download, logsApi, pollUntil, ROOT_SECRET, startLogged, tagged, TERMINAL, window, type LogRecord } from '../helpers/logs';

let pg: Postgres;
let a: FloraProcess;
let b: FloraProcess;
const extra: FloraProcess[] = [];

before(async () => {
  pg = await startPostgres();
  // Both settle before a failure is thrown: one started beside a failed one is stopped by after().
  const started = await Promise.allSettled([startLogged({ args: ['--storage', pg.url] }), startLogged({ args: ['--storage', pg.url] })]);
  if (started[0].status === 'fulfilled') a = started[0].value;
  if (started[1].status === 'fulfilled') b = started[1].value;
  for (const r of started) if (r.status === 'rejected') throw r.reason;
});
after(async () => {
  for (const p of [a, b]) if (p) assert.equal(await p.stop(), 0, `graceful exit:\n${p.stderr()}`);
  for (const p of extra) await p.stop('SIGKILL');
  await pg?.stop();
});

/** Requests an export of `range` through `srv`, waits for it there and downloads it. */
async function exportThrough(srv: FloraProcess, body: Record<string, string>): Promise<LogRecord[]> {
  const made = await logsApi(srv, 'POST', '/api/v1/logs?type=query', body, ROOT_SECRET);
  assert.equal(made.status, 200, JSON.stringify(made.json));
  const done = await pollUntil(srv, made.json.request_id as string, ROOT_SECRET);
  assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
  return (await download(done.json.presigned_url as string)).records;
}

describe('two processes on one PostgreSQL', () => {
  test('an export requested through one, polled and downloaded through the other, has both processes\' records once', async () => {
    const { start, end } = await window(() => Promise.all([tagged(a, 'a', 120), tagged(b, 'b', 80)]));
    const created = await logsApi(a, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const id = created.json.request_id as string;
    // Seen through the other process at once, and followed there to the end.
    const seen = await logsApi(b, 'GET', `/api/v1/logs/${id}?type=query`, undefined, ROOT_SECRET);
    assert.equal(seen.status, 200, JSON.stringify(seen.json));
    const done = await pollUntil(b, id, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assert.equal(done.json.records, 200);
    const url = done.json.presigned_url as string;
    assert.equal(new URL(url).origin, b.url, 'a URL of the process polled');
    assertEachOnce((await download(url)).records, { a: 120, b: 80 });
    // The URL minted through b is good at a too (one signing key for the tier); same file.
    const atA = new URL(url);
    assertEachOnce((await download(`${a.url}${atA.pathname}${atA.search}`)).records, { a: 120, b: 80 });

    const listed = await logsApi(a, 'POST', '/api/v1/logs/_list?type=query', { states: ['Complete'] }, ROOT_SECRET);
    assert.ok((listed.json.results as { request_id: string }[]).some((r) => r.request_id === id), 'listed through a too');
  });

  test("an export waits for another process's records still in its memory (a long --log-flush-ms)", async () => {
    const lazy = await startLogged({ args: ['--storage', pg.url], env: { FLORA_LOG_FLUSH_MS: '3000' } });
    extra.push(lazy);
    const { start, end } = await window(() => Promise.all([tagged(lazy, 'l', 30), tagged(a, 'a', 10)]));
    const made = await logsApi(a, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const done = await pollUntil(b, made.json.request_id as string, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assertEachOnce((await download(done.json.presigned_url as string)).records, { l: 30, a: 10 });
    assert.equal(await lazy.stop(), 0);
  });

  test('retention deletes old records from PostgreSQL', async () => {
    const db = new PgClient({ connectionString: pg.url });
    await db.connect();
    try {
      const day = 24 * 3_600_000;
      const now = Date.now();
      // Records of 3 days ago and of 12 hours ago, as if logged then.
      await db.query("INSERT INTO flora_query_log (ts_ms, db, line) VALUES ($1, '', '{\"old\":1}'), ($2, '', '{\"recent\":1}')", [now - 3 * day, now - day / 2]);
      const keeper = await startLogged({ args: ['--storage', pg.url, '--log-retention-days', '2'] });
      extra.push(keeper);
      const lines = (await db.query<{ line: string }>("SELECT line FROM flora_query_log WHERE line LIKE '{\"old%' OR line LIKE '{\"recent%'")).rows.map((r) => r.line);
      assert.deepEqual(lines, ['{"recent":1}'], 'housekeeping at start removed what is past retention');
      assert.equal(await keeper.stop(), 0);
    } finally {
      await db.end();
    }
  });

  test('hour files an earlier version wrote beside a PostgreSQL store are copied into it, once', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'flora-oldlog-'));
    const queryDir = path.join(dataDir, 'logs', 'query');
    await mkdir(queryDir, { recursive: true });
    const from = Date.now() - 3 * 3_600_000;
    const lines = Array.from({ length: 25 }, (_, i) =>
      buildRecord(
        { method: 'POST', headers: {}, status: 200, bytesIn: 1, bytesOut: 1, queryTimeMs: 1, tags: { p: 'old', i: String(i) }, database: { id: 0n, path: [] } },
        from + i * 1000,
        { regionGroup: 'us-std', redactor: new Redactor() },
      ),
    );
    const file = path.join(queryDir, `query-${new Date(from).toISOString().slice(0, 13)}.ndjson`);
    const range = { region_group: 'us-std', time_start: new Date(from).toISOString(), time_end: new Date(from + 25_000).toISOString() };
    const gone = async () => {
      for (let i = 0; (await readdir(queryDir)).length > 0; i++) {
        assert.ok(i < 600, 'the hour file is taken in');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await writeFile(file, `${lines.join('\n')}\n{"torn":`);
    let old = await startLogged({ dataDir, args: ['--storage', pg.url] }); // finds the file at start
    try {
      await gone();
      const first = await exportThrough(b, range);
      assertEachOnce(first, { old: 25 });
      // The same file again (restored from a backup, say): not copied a second time.
      await writeFile(file, `${lines.join('\n')}\n`);
      old = await old.restart();
      await gone();
      assertEachOnce(await exportThrough(a, range), { old: 25 });
    } finally {
      assert.equal(await old.stop(), 0, old.stderr());
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('one idempotency token given to both processes at once makes one request', async () => {
    const body = {
      region_group: 'us-std', time_start: '2020-01-01T00:00:00Z', time_end: '2020-01-02T00:00:00Z', idempotency_token: randomUUID(),
    };
    for (let round = 0; round < 3; round++) {
      const token = randomUUID();
      const answers = await Promise.all([a, b, a, b].map((srv) => logsApi(srv, 'POST', '/api/v1/logs?type=query', { ...body, idempotency_token: token }, ROOT_SECRET)));
      for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(new Set(answers.map((r) => r.json.request_id)).size, 1, JSON.stringify(answers.map((r) => r.json)));
      const id = answers[0].json.request_id as string;
      const later = await logsApi(b, 'POST', '/api/v1/logs?type=query', { ...body, idempotency_token: token }, ROOT_SECRET);
      assert.equal(later.json.request_id, id);
      assert.equal((await pollUntil(a, id, ROOT_SECRET)).json.state, 'DoesNotExist');
    }
  });

  test('a process killed while it runs an export: another process completes it, each record once', async () => {
    const slow = await startLogged({ args: ['--storage', pg.url], env: { FLORA_TEST_EXPORT_DELAY_MS: '50' } });
    extra.push(slow);
    const { start, end } = await window(() => Promise.all([tagged(slow, 's', 900), tagged(a, 'a', 300)]));
    const created = await logsApi(slow, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const id = created.json.request_id as string;
    const midway = await pollUntil(slow, id, ROOT_SECRET, (r) => r.json.state === 'Requested' && ((r.json.progress as { records: number } | undefined)?.records ?? 0) > 0);
    const progress = midway.json.progress as { bytes_scanned: number; bytes_total: number; records: number };
    assert.ok(progress.records < 1200, JSON.stringify(progress));
    assert.equal(await slow.stop('SIGKILL'), 137);

    // Its lease runs out (10 s), and one of the others takes the export over from the start.
    const done = await pollUntil(b, id, ROOT_SECRET, undefined, 90_000);
    assert.equal(done.json.state, 'Complete', JSON.stringify(done.json));
    assertEachOnce((await download(done.json.presigned_url as string)).records, { s: 900, a: 300 });
  });

  test('PostgreSQL down for a while: the log-export API answers 503, then works again', async () => {
    const { start, end } = await window(() => tagged(a, 'o', 10));
    const made = await logsApi(a, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
    const done = await pollUntil(a, made.json.request_id as string, ROOT_SECRET);
    assert.equal(done.json.state, 'Complete');

    await pg.pause();
    try {
      const poll = await logsApi(b, 'GET', `/api/v1/logs/${made.json.request_id as string}?type=query`, undefined, ROOT_SECRET);
      assert.equal(poll.status, 503, JSON.stringify(poll.json));
      assert.match(poll.json.message as string, /unavailable/);
      const create = await logsApi(a, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: start, time_end: end }, ROOT_SECRET);
      assert.equal(create.status, 503, JSON.stringify(create.json));
      const list = await logsApi(b, 'POST', '/api/v1/logs/_list?type=query', {}, ROOT_SECRET);
      assert.equal(list.status, 503, JSON.stringify(list.json));
      const res = await fetch(done.json.presigned_url as string);
      assert.equal(res.status, 503);
      assert.match(((await res.json()) as { message: string }).message, /unavailable/);
    } finally {
      await pg.resume();
    }

    // Back: requests are served and logged again, and exports run.
    for (const srv of [a, b]) {
      for (let i = 0; ; i++) {
        const res = await httpRequest(srv.url, { method: 'POST', headers: { authorization: `Bearer ${ROOT_SECRET}` }, body: '{"add":[1,1]}' });
        if (res.status === 200) break;
        assert.equal(res.status, 503, res.body);
        assert.ok(i < 300, 'PostgreSQL is back, so is Flora');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const after = await window(() => tagged(b, 'r', 5));
    const again = await logsApi(a, 'POST', '/api/v1/logs?type=query', { region_group: 'us-std', time_start: after.start, time_end: after.end }, ROOT_SECRET);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    const final = await pollUntil(b, again.json.request_id as string, ROOT_SECRET);
    assert.ok(TERMINAL.includes(final.json.state as string));
    assert.equal(final.json.state, 'Complete', JSON.stringify(final.json));
    const records = (await download(final.json.presigned_url as string)).records;
    assert.deepEqual(records.filter((r) => r.TAGS.p === 'r').map((r) => r.TAGS.i).sort(), ['0', '1', '2', '3', '4']);
  });
});
