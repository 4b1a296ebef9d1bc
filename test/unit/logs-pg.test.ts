// The query log's PostgreSQL backend (src/logs/pg*.ts) against a real PostgreSQL: batch inserts and
// range scans with database filters across pages, retention, export files in pieces kept per
// attempt, watermarks.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Pool } from 'pg';
import { PgExportFiles } from '../../src/logs/pgExportFiles';
import { openLogPool } from '../../src/logs/pgPool';
import { PgLogSink, PgLogSource } from '../../src/logs/pgQueryLog';
import { PgWatermarks } from '../../src/logs/pgWatermarks';
import { buildRecord, exportedLine, recentLine } from '../../src/logs/record';
import { Redactor } from '../../src/logs/redact';
import { startPostgres, type Postgres } from '../helpers/postgres';

let pg: Postgres;
let pool: Pool;

before(async () => {
  pg = await startPostgres();
  pool = await openLogPool(pg.url);
  await openLogPool(pg.url).then((again) => again.end()); // a second start finds the tables there
});
after(async () => {
  await pool?.end();
  await pg?.stop();
});

const H = Date.UTC(2024, 4, 10, 18);
const opts = { regionGroup: 'us-std', redactor: new Redactor() };

function lines(records: [number, bigint | undefined, string][]): Buffer {
  return Buffer.from(
    records
      .map(([offset, db, tag]) =>
        buildRecord({ method: 'POST', headers: {}, status: 200, bytesIn: 1, bytesOut: 1, queryTimeMs: 1, tags: { t: tag }, database: db === undefined ? undefined : { id: db, path: ['x'] } }, H + offset, opts),
      )
      .map((l) => `${l}\n`)
      .join(''),
  );
}

async function scanned(source: PgLogSource, startMs: number, endMs: number, dbs: string[] | null, batchBytes?: number): Promise<{ tags: string[]; batches: number; total: number; last: number }> {
  const scan = await source.scan({ startMs, endMs, dbs: dbs && new Set(dbs) }, batchBytes);
  const tags: string[] = [];
  let batches = 0;
  let last = 0;
  for await (const b of scan) {
    batches++;
    last = b.scanned;
    const got = b.text.split('\n').filter(Boolean);
    assert.equal(got.length, b.records);
    for (const l of got) {
      assert.ok(!l.includes('"_db"'), 'exported form');
      tags.push((JSON.parse(l) as { TAGS: { t: string } }).TAGS.t);
    }
  }
  return { tags, batches, total: scan.bytesTotal, last };
}

test('records go in by batches and come out by range and database, in time order, across pages', async () => {
  const sink = new PgLogSink(pool);
  const source = new PgLogSource(pool);
  await sink.write('2024-05-10T18', [lines([[5, 10n, 'b'], [1, 11n, 'a'], [-1, 10n, 'before']]), lines([[3_600_000, 20n, 'c'], [3_600_001, undefined, 'anon']])]);
  const many: [number, bigint, string][] = Array.from({ length: 100 }, (_, i) => [10 + i, 10n, `m${i}`]);
  await sink.write('2024-05-10T18', [lines(many), Buffer.from('{"torn":\n')]);

  const all = await scanned(source, H, H + 3_600_002, null);
  assert.deepEqual(all.tags, ['a', 'b', ...many.map((m) => m[2]), 'c', 'anon']);
  assert.equal(all.last, all.total, 'progress ends at the total');
  const paged = await scanned(source, H, H + 3_600_002, null, 4096); // a few records a page
  assert.deepEqual(paged.tags, all.tags);
  assert.ok(paged.batches > 5, `${paged.batches} pages`);
  assert.deepEqual((await scanned(source, H, H + 3_600_002, ['11', '20'])).tags, ['a', 'c']);
  assert.deepEqual((await scanned(source, H + 1, H + 5, null)).tags, ['a'], 'start inclusive, end exclusive');
  assert.deepEqual((await scanned(source, H + 5, H + 10, null)).tags, ['b']);
  assert.deepEqual((await scanned(source, H + 7_200_000, H + 9_000_000, null)).tags, []);

  // Retention: whole hours that ended before the cutoff go.
  await source.removeBefore(H + 3_600_000 + 1800_000);
  assert.deepEqual((await scanned(source, 0, H + 9_000_000, null)).tags, ['c', 'anon']);
});

test('paths: kept in their own column, shown only in _recent\'s form; rows of a table made before it read without one', async () => {
  const T = H + 10 * 3_600_000;
  const entry = { method: 'POST', headers: {}, status: 200, bytesIn: 1, bytesOut: 1, queryTimeMs: 1 };
  // A table of an earlier version: no path column, a row in it; the next start adds the column.
  await pool.query('ALTER TABLE flora_query_log DROP COLUMN path');
  const old = buildRecord({ ...entry, tags: { t: 'old' } }, T, opts);
  await pool.query({ text: 'INSERT INTO flora_query_log (ts_ms, db, line) VALUES ($1, $2, $3)', values: [T, '', exportedLine(old)] });
  await openLogPool(pg.url).then((again) => again.end());
  const built = [buildRecord({ ...entry, path: '/query/1', tags: { t: 'v10' } }, T + 1, opts), buildRecord({ ...entry, path: '/a"b', tags: { t: 'odd' } }, T + 2, opts)];
  await new PgLogSink(pool).write('2024-05-11T04', [Buffer.from(built.map((l) => `${l}\n`).join(''))]);
  const read = async (paths: boolean) => {
    const out: string[] = [];
    for await (const b of await new PgLogSource(pool).scan({ startMs: T, endMs: T + 3, dbs: null, paths })) out.push(...b.text.split('\n').filter(Boolean));
    return out;
  };
  assert.deepEqual(await read(false), [old, ...built].map(exportedLine), 'exports: the lines as ever');
  assert.deepEqual(await read(true), [old, ...built].map(recentLine));
  assert.deepEqual((await read(true)).map((l) => (JSON.parse(l) as { REQUEST_PATH?: string }).REQUEST_PATH), [undefined, '/query/1', '/a"b']);
});

test('export files: pieces per attempt; an earlier attempt\'s partial output goes with the next attempt', async () => {
  const files = new PgExportFiles(pool);
  const id = '00000000-0000-4000-8000-0000000000e1';
  const dead = await files.create(id, 1);
  dead.stream.write(Buffer.from('partial output of a process that died'));
  await new Promise((r) => setImmediate(r));
  assert.equal(await files.exists(id, 1), false, 'nothing before a piece is full');

  const data = randomBytes(2_500_000); // three pieces
  const upload = await files.create(id, 2);
  await pipeline(Readable.from([data.subarray(0, 1_000_000), data.subarray(1_000_000)]), upload.stream);
  assert.equal(await upload.commit(), data.length);
  assert.equal(await files.exists(id, 2), true);
  const file = (await files.open(id, 2))!;
  assert.equal(file.size, data.length);
  const chunks: Buffer[] = [];
  for await (const c of file.body) chunks.push(c as Buffer);
  assert.ok(Buffer.concat(chunks).equals(data));
  assert.equal(await files.open(id, 1), undefined);

  const discarded = await files.create('00000000-0000-4000-8000-0000000000e2', 1);
  await pipeline(Readable.from([Buffer.from('x')]), discarded.stream);
  await discarded.discard();
  assert.equal(await files.exists('00000000-0000-4000-8000-0000000000e2', 1), false);

  await files.remove(id);
  assert.equal(await files.open(id, 2), undefined);
});

test('watermarks: an export waits for the other live processes only', async () => {
  const a = new PgWatermarks(pool, 'host-a:1:aa');
  const b = new PgWatermarks(pool, 'host-b:2:bb');
  assert.equal(await a.caughtUp(5000), true);
  await a.publish(100);
  await b.publish(4000);
  assert.equal(await a.caughtUp(5000), false);
  assert.equal(await b.caughtUp(5000), false, 'a is behind too');
  await a.publish(6000);
  assert.equal(await b.caughtUp(5000), true);
  // b dies: its row goes stale (its stamp is the database's clock).
  await pool.query("UPDATE flora_query_log_writers SET seen = now() - interval '1 minute' WHERE writer = 'host-b:2:bb'");
  assert.equal(await a.caughtUp(5000), true);
  await pool.query("UPDATE flora_query_log_writers SET seen = now() - interval '2 days' WHERE writer = 'host-b:2:bb'");
  await a.prune();
  await a.close();
  assert.equal((await pool.query('SELECT count(*)::int AS n FROM flora_query_log_writers')).rows[0].n, 0);
});
