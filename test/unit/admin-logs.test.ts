// The Query log and Jobs tabs' pure parts (src/admin/percentiles.ts, logRecords.ts, logExports.ts,
// jobs.ts): percentiles and chart buckets, reading records, the filters a user types (and the
// message for each mistake), the export range, and a job's counts in words.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buckets, percentile } from '../../src/admin/percentiles';
import { coveredWindow, matches, OWN_SOURCE, parseFilter, toRow, type LogRow } from '../../src/admin/logRecords';
import { exportRange } from '../../src/admin/logExports';
import { jobCounts, jobTitle } from '../../src/admin/jobs';
import { axisNumber } from '../../src/admin/chart';

test('percentile by nearest rank', () => {
  const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(v, 50), 5);
  assert.equal(percentile(v, 95), 10);
  assert.equal(percentile(v, 10), 1);
  assert.equal(percentile(v, 100), 10);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(hundred, 99), 99);
  assert.equal(percentile(hundred, 95), 95);
  assert.equal(percentile([7], 99), 7);
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.throws(() => percentile(v, 0), RangeError);
  assert.throws(() => percentile(v, 101), RangeError);
});

test('buckets: every bucket present, rate per second, percentiles per bucket, null when empty, outside samples left out', () => {
  const samples = [
    { ms: 1000, value: 10 }, { ms: 1500, value: 30 }, { ms: 1999, value: 20 }, // bucket 0: [1000, 2000)
    { ms: 3000, value: 5 }, // bucket 2
    { ms: 999, value: 1000 }, { ms: 4000, value: 1000 }, // outside
  ];
  const b = buckets(samples, 1000, 4000, 1000);
  assert.equal(b.length, 3);
  assert.deepEqual(b.map((x) => x.start), [1000, 2000, 3000]);
  assert.deepEqual(b.map((x) => x.count), [3, 0, 1]);
  assert.deepEqual(b.map((x) => x.rate), [3, 0, 1]);
  assert.deepEqual([b[0].p50, b[0].p95, b[0].p99], [20, 30, 30]);
  assert.deepEqual([b[1].p50, b[1].p95, b[1].p99], [null, null, null]);
  assert.equal(b[2].p99, 5);
  assert.equal(buckets(samples, 0, 10_000, 5000)[0].rate, 6 / 5, 'six samples in five seconds');
  assert.throws(() => buckets(samples, 0, 1, 0), RangeError);
});

const record = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  API_VERSION: '4', BYTES_IN: 12, BYTES_OUT: 40, BYTE_READ_OPS: 2, BYTE_WRITE_OPS: 1, COMPUTE_OPS: 3, DATABASE: ['us-std', 'shop', 'eu'],
  FQL_SHAPE: '{"add":["?","?"]}', QUERY_TIME_MS: 7, RATE_LIMITS_HIT: [], REGION_GROUP: 'us-std',
  REQUEST_HEADERS: '{"user_agent":"x"}', REQUEST_METHOD: 'POST', RESPONSE_CODE: '200', TAGS: {}, TRACEPARENT: '', TS: '2026-11-26 23:10:42.871 Z', TXN_RETRIES: 0, ...over,
});

test('a record as a row: the database below the region group, numbers, the dashboard source', () => {
  const r = toRow(record());
  assert.equal(r.database, 'shop/eu');
  assert.equal(r.status, 200);
  assert.equal(r.ms, Date.UTC(2026, 10, 26, 23, 10, 42, 871));
  assert.deepEqual([r.timeMs, r.computeOps, r.readOps, r.writeOps, r.bytesIn, r.bytesOut], [7, 3, 2, 1, 12, 40]);
  assert.equal(r.source, '');
  assert.equal(toRow(record({ DATABASE: [] })).database, '');
  assert.equal(toRow(record({ REQUEST_HEADERS: JSON.stringify({ x_fauna_source: OWN_SOURCE }) })).source, OWN_SOURCE);
  assert.equal(toRow(record({ REQUEST_HEADERS: 'not json' })).source, '', 'a broken field reads as empty');
  assert.ok(Number.isNaN(toRow(record({ TS: 'yesterday' })).ms), 'a TS that is not one: no time');
  assert.equal(toRow(record({ REQUEST_PATH: '/query/1' })).path, '/query/1');
  assert.equal(toRow(record()).path, '', 'a record of an earlier version has no path');
});

const row = (over: Partial<LogRow>): LogRow => ({ ...toRow(record()), ...over });
const filter = (database = '', status = '', slow = '', own = false) => parseFilter({ database, status, slow, own }, 'us-std');

test('filters: database by whole path segments, status ok/errors/code, slow ≥ N ms, own reads hidden', () => {
  const rows = [
    row({ database: 'shop', status: 200, timeMs: 5 }),
    row({ database: 'shop/eu', status: 404, timeMs: 50 }),
    row({ database: 'shopping', status: 500, timeMs: 120 }),
    row({ database: '', status: 401, timeMs: 1 }),
    row({ database: '', status: 200, timeMs: 2, source: OWN_SOURCE }),
  ];
  const pick = (f: ReturnType<typeof filter>) => rows.filter((r) => matches(r, f)).map((r) => `${r.database}:${r.status}`);
  assert.deepEqual(pick(filter()), ['shop:200', 'shop/eu:404', 'shopping:500', ':401']);
  assert.deepEqual(pick(filter('', '', '', true)).length, 5, 'own reads shown when asked');
  assert.deepEqual(pick(filter('shop')), ['shop:200', 'shop/eu:404'], 'a prefix of whole names: not shopping');
  assert.deepEqual(pick(filter('/us-std/shop/')), ['shop:200', 'shop/eu:404'], 'the region group and slashes are allowed');
  assert.deepEqual(pick(filter('shop/eu')), ['shop/eu:404']);
  assert.deepEqual(pick(filter('', 'ok')), ['shop:200']);
  assert.deepEqual(pick(filter('', ' Errors ')), ['shop/eu:404', 'shopping:500', ':401']);
  assert.deepEqual(pick(filter('', '404')), ['shop/eu:404']);
  assert.deepEqual(pick(filter('', '', '50')), ['shop/eu:404', 'shopping:500'], 'at least N ms');
  assert.deepEqual(pick(filter('shop', 'errors', '10')), ['shop/eu:404'], 'filters combine');
});

test('filters: a method, and requests that ran no query left out (but not failed ones)', () => {
  const rows = [
    row({ method: 'POST', shape: 'Get(Ref(Collection("a"), "1"))', status: 200 }),
    row({ method: 'GET', shape: '', status: 200 }),
    row({ method: 'POST', shape: '', status: 401 }),
    row({ method: 'GET', shape: '', status: 404 }),
  ];
  const pick = (method: string, queriesOnly: boolean) =>
    rows.filter((r) => matches(r, parseFilter({ database: '', status: '', slow: '', own: false, method, queriesOnly }))).map((r) => `${r.method}:${r.status}`);
  assert.deepEqual(pick('', false), ['POST:200', 'GET:200', 'POST:401', 'GET:404']);
  assert.deepEqual(pick(' get ', false), ['GET:200', 'GET:404'], 'any case, spaces ignored');
  assert.deepEqual(pick('', true), ['POST:200', 'POST:401', 'GET:404']);
  assert.deepEqual(pick('POST', true), ['POST:200', 'POST:401']);
  assert.throws(() => parseFilter({ database: '', status: '', slow: '', own: false, method: 'GET /' }), /^Error: The method filter 'GET \/' is not an HTTP method such as GET or POST\.$/);
});

test('filters: a path contains the text typed (a prefix too); a record without a path matches only no filter', () => {
  const rows = [row({ path: '/' }), row({ path: '/query/1' }), row({ path: '/graphql' }), row({ path: '/api/v1/logs/_recent' }), row({ path: '' })];
  const pick = (path: string) => rows.filter((r) => matches(r, parseFilter({ database: '', status: '', slow: '', own: false, path }))).map((r) => r.path);
  assert.deepEqual(pick(''), ['/', '/query/1', '/graphql', '/api/v1/logs/_recent', '']);
  assert.deepEqual(pick('  '), pick(''), 'spaces only: no filter');
  assert.deepEqual(pick('/query'), ['/query/1']);
  assert.deepEqual(pick(' graphql '), ['/graphql'], 'anywhere in the path, spaces around ignored');
  assert.deepEqual(pick('/'), ['/', '/query/1', '/graphql', '/api/v1/logs/_recent']);
  assert.deepEqual(pick('/api/v1/'), ['/api/v1/logs/_recent']);
});

test('filters: each mistake gets a message that says what to type', () => {
  assert.throws(() => filter('shop//eu'), /has an empty name in it: write a path such as app\/tenant1/);
  assert.throws(() => filter('', 'bad'), /^Error: The status filter 'bad' is not one of: ok, errors, or an HTTP code such as 404\.$/);
  assert.throws(() => filter('', '99'), /not one of: ok, errors/);
  assert.throws(() => filter('', '', '-5'), /^Error: The slow-query threshold '-5' is not a number of milliseconds, e\.g\. 100\.$/);
  assert.throws(() => filter('', '', 'fast'), /not a number of milliseconds/);
});

test('the export range: empty end = now, empty start = an hour before the end; a reversed range is refused', () => {
  const now = Date.UTC(2026, 0, 1, 12);
  assert.deepEqual(exportRange('', '', now), { start: new Date(now - 3_600_000), end: new Date(now) });
  const end = exportRange('2026-01-01T10:00:00Z', '', now);
  assert.equal(end.start.toISOString(), '2026-01-01T10:00:00.000Z');
  assert.throws(() => exportRange('2026-01-01T13:00:00Z', '', now), /^Error: The start must be before the end\.$/);
  assert.throws(() => exportRange('', 'soon', now), /The end is not a date and time/);
});

test("a job's counts in words, and axis numbers", () => {
  assert.equal(jobCounts('export', { id: 'x', state: 'Running', created: '', progress: { records: 12, written: 0, existing: 0, problems: 0 } }), '12 record(s) written');
  assert.equal(jobCounts('import', { id: 'x', state: 'Complete', created: '', progress: { records: 0, written: 3, existing: 1, problems: 2 } }), '3 written, 1 already there, 2 not imported');
  assert.equal(jobCounts('backup', { id: 'x', state: 'Running', created: '', records: 5, bytes: 900 }), '5 record(s), 900 bytes');
  assert.deepEqual([0.25, 3.5, 3, 120, 1234, 25_000].map(axisNumber), ['0.25', '3.5', '3', '120', '1.2k', '25k']);
});

test("a listed job's title: kind, database, options and start time", () => {
  const created = '2026-11-26T23:59:01.123Z';
  assert.equal(jobTitle('export', { id: 'x', state: 'Complete', created, database: 't', format: 'flora', history: true }, ['app']), 'Export of app/t (flora, with history; 2026-11-26 23:59:01 UTC)');
  assert.equal(jobTitle('export', { id: 'x', state: 'Running', created, database: '', format: 'fauna-simple' }, []), 'Export of (root) (fauna-simple; 2026-11-26 23:59:01 UTC)');
  assert.equal(jobTitle('import', { id: 'x', state: 'Failed', created, database: 'copy' }, []), 'Import into copy (2026-11-26 23:59:01 UTC)');
  assert.equal(jobTitle('backup', { id: 'x', state: 'Complete', created }, []), 'Backup of every database (2026-11-26 23:59:01 UTC)');
});

test('the window a read covers: all of it, or from the oldest record when the read was cut at the limit', () => {
  const at = (...ms: number[]) => ms.map((m) => row({ ms: m }));
  const readAt = 100_000;
  assert.deepEqual(coveredWindow(at(99_000, 98_000), readAt, 60_000, 5), { fromMs: 40_000, cut: false }, 'fewer than the limit: the whole window');
  assert.deepEqual(coveredWindow(at(99_000, 98_000, 97_000), readAt, 60_000, 3), { fromMs: 97_000, cut: true }, 'cut: from the oldest read');
  assert.deepEqual(coveredWindow(at(99_000, 30_000), readAt, 60_000, 2), { fromMs: 40_000, cut: true }, 'never before the window');
  assert.deepEqual(coveredWindow([], readAt, 60_000, 0), { fromMs: 40_000, cut: false });
});
