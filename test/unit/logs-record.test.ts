// Query-log records (src/logs/record.ts) and header redaction (src/logs/redact.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecord, exportedLine, formatTs, lineDb, linePath, lineTs, recentLine } from '../../src/logs/record';
import { Redactor } from '../../src/logs/redact';
import type { RequestLogEntry } from '../../src/logs/types';

const KEY_SECRET = 'fnAGq3Zf7yUAAAAAaBcDeFgHiJkLmNoPqRsTuVwXyZ0';
const opts = { regionGroup: 'us-std', redactor: new Redactor(['Sup3rR00tK3y']) };
const base: RequestLogEntry = { method: 'POST', headers: {}, status: 200, bytesIn: 10, bytesOut: 20, queryTimeMs: 3.4 };
const at = Date.UTC(2024, 4, 10, 18, 5, 42, 871);

test('TS is UTC `YYYY-MM-DD HH:mm:ss.SSS Z`', () => {
  assert.equal(formatTs(at), '2024-05-10 18:05:42.871 Z');
});

test('every field, in alphabetical order, with _db last', () => {
  const line = buildRecord(
    {
      ...base,
      headers: { 'user-agent': 'faunadb-js', 'x-forwarded-for': '10.0.0.1', authorization: `Bearer ${KEY_SECRET}` },
      metrics: { computeOps: 2, byteReadOps: 3, byteWriteOps: 4, storageBytesRead: 0, storageBytesWrite: 0, txnRetries: 1 },
      database: { id: 42n, path: ['app', 'tenant1'] },
      fql: '{"get":{"ref":{"collection":"users"},"id":"1"}}',
      tags: [['route', 'checkout']],
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    },
    at,
    opts,
  );
  const rec = JSON.parse(line) as Record<string, unknown>;
  assert.deepEqual(Object.keys(rec), [
    'API_VERSION', 'BYTES_IN', 'BYTES_OUT', 'BYTE_READ_OPS', 'BYTE_WRITE_OPS', 'COMPUTE_OPS', 'DATABASE', 'FQL_SHAPE',
    'QUERY_TIME_MS', 'RATE_LIMITS_HIT', 'REGION_GROUP', 'REQUEST_HEADERS', 'REQUEST_METHOD', 'RESPONSE_CODE', 'TAGS',
    'TRACEPARENT', 'TS', 'TXN_RETRIES', '_db',
  ]);
  assert.deepEqual(rec, {
    API_VERSION: '4', BYTES_IN: 10, BYTES_OUT: 20, BYTE_READ_OPS: 3, BYTE_WRITE_OPS: 4, COMPUTE_OPS: 2,
    DATABASE: ['us-std', 'app', 'tenant1'], FQL_SHAPE: '{"get":{"ref":{"collection":"users"},"id":"?"}}',
    QUERY_TIME_MS: 3, RATE_LIMITS_HIT: [], REGION_GROUP: 'us-std',
    REQUEST_HEADERS: '{"user_agent":"faunadb-js","x_forwarded_for":"10.0.0.1"}', REQUEST_METHOD: 'POST',
    RESPONSE_CODE: '200', TAGS: { route: 'checkout' }, TRACEPARENT: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    TS: '2024-05-10 18:05:42.871 Z', TXN_RETRIES: 1, _db: '42',
  });
  assert.equal(lineTs(line), '2024-05-10 18:05:42.871 Z');
  assert.equal(lineDb(line), '42');
  const exported = JSON.parse(exportedLine(line)) as Record<string, unknown>;
  assert.equal('_db' in exported, false);
  assert.equal(Object.keys(exported).length, 18);
});

test('no database: DATABASE [], no _db; API_VERSION is the FQL version whatever the header said', () => {
  const line = buildRecord({ ...base, headers: { 'x-faunadb-api-version': '2.7' } }, at, opts);
  const rec = JSON.parse(line) as Record<string, unknown>;
  assert.deepEqual(rec.DATABASE, []);
  assert.equal(rec.API_VERSION, '4');
  assert.equal(rec.REQUEST_HEADERS, '{"x_faunadb_api_version":"2.7"}');
  assert.equal(rec.FQL_SHAPE, '');
  assert.equal(rec.TRACEPARENT, '');
  assert.equal(lineDb(line), undefined);
  assert.equal(exportedLine(line).endsWith('"TXN_RETRIES":0}'), true);
});

test('a tag named _db or TS cannot pass for the record\'s own', () => {
  const line = buildRecord({ ...base, tags: [['a', 'b'], ['_db', '7'], ['TS', '9999']] }, at, opts);
  assert.equal(lineDb(line), undefined);
  assert.equal(lineTs(line), '2024-05-10 18:05:42.871 Z');
  assert.deepEqual((JSON.parse(exportedLine(line)) as { TAGS: unknown }).TAGS, { a: 'b', _db: '7', TS: '9999' });
});

test('the path is kept after _db; the exported line is the same byte for byte as without it', () => {
  const entry: RequestLogEntry = { ...base, database: { id: 42n, path: ['app'] }, fqlShape: 'Foo.all()', apiVersion: '10', tags: [['step', 'a1']] };
  const withPath = buildRecord({ ...entry, path: '/query/1' }, at, opts);
  assert.equal(withPath, `${buildRecord(entry, at, opts).slice(0, -1)},"_path":"/query/1"}`);
  assert.equal(
    exportedLine(withPath),
    '{"API_VERSION":"10","BYTES_IN":10,"BYTES_OUT":20,"BYTE_READ_OPS":0,"BYTE_WRITE_OPS":0,"COMPUTE_OPS":0,"DATABASE":["us-std","app"],' +
      '"FQL_SHAPE":"Foo.all()","QUERY_TIME_MS":3,"RATE_LIMITS_HIT":[],"REGION_GROUP":"us-std","REQUEST_HEADERS":"{}","REQUEST_METHOD":"POST",' +
      '"RESPONSE_CODE":"200","TAGS":{"step":"a1"},"TRACEPARENT":"","TS":"2024-05-10 18:05:42.871 Z","TXN_RETRIES":0}',
  );
  assert.equal(lineDb(withPath), '42');
  assert.equal(lineTs(withPath), '2024-05-10 18:05:42.871 Z');
  assert.equal(linePath(withPath), '/query/1');
  // A request in no database: `_db` is empty, the path is still found.
  assert.equal(linePath(buildRecord({ ...base, path: '/' }, at, opts)), '/');
});

test("_recent's form: the exported line with REQUEST_PATH after REQUEST_METHOD, in alphabetical order", () => {
  const line = buildRecord({ ...base, path: '/graphql', tags: [['RESPONSE_CODE', 'x'], ['_path', '/tag']] }, at, opts);
  const recent = recentLine(line);
  const rec = JSON.parse(recent) as Record<string, unknown>;
  const keys = Object.keys(rec);
  assert.deepEqual(keys, [...keys].sort(), 'alphabetical');
  assert.equal(keys.length, 19);
  assert.equal(rec.REQUEST_PATH, '/graphql');
  assert.equal(rec.RESPONSE_CODE, '200');
  assert.deepEqual(rec.TAGS, { RESPONSE_CODE: 'x', _path: '/tag' });
  assert.equal(recent.replace(',"REQUEST_PATH":"/graphql"', ''), exportedLine(line));
});

test('a line of an earlier version (no _path) reads as before, whatever its tags are named', () => {
  const old = buildRecord({ ...base, database: { id: 7n, path: ['app'] }, tags: [['a', 'b'], ['_path', '/x'], ['RESPONSE_CODE', '1']] }, at, opts);
  assert.equal(old.endsWith(',"_db":"7"}'), true);
  assert.equal(linePath(old), undefined);
  assert.equal(recentLine(old), exportedLine(old));
  assert.equal(lineDb(old), '7');
});

test('a path is escaped, scrubbed of secrets and clipped', () => {
  const odd = '/a"b\\c\u0001';
  const line = buildRecord({ ...base, path: odd }, at, opts);
  assert.equal(linePath(line), odd);
  assert.equal((JSON.parse(recentLine(line)) as { REQUEST_PATH: string }).REQUEST_PATH, odd);
  assert.equal(linePath(buildRecord({ ...base, path: `/x/${KEY_SECRET}/y` }, at, opts)), '/x/***/y');
  assert.equal(linePath(buildRecord({ ...base, path: '/x/Sup3rR00tK3y' }, at, opts)), '***', 'the root secret: hidden whole');
  const long = linePath(buildRecord({ ...base, path: `/${'p'.repeat(5000)}` }, at, opts))!;
  assert.equal(long.length, 512);
  assert.equal(long.endsWith('p…'), true);
});

test('torn lines are not records', () => {
  const line = buildRecord(base, at, opts);
  assert.equal(lineTs(line.slice(0, -1)), undefined);
  assert.equal(lineTs(line.slice(0, line.indexOf('"TS"'))), undefined);
  assert.equal(lineTs(line.slice(40)), undefined);
});

test('REQUEST_HEADERS: an allow-list, never credentials', () => {
  const r = new Redactor(['Sup3rR00tK3y']);
  const headers = JSON.parse(
    r.requestHeaders({
      authorization: `Basic ${Buffer.from(`${KEY_SECRET}:`).toString('base64')}`,
      cookie: 'session=abc',
      'x-api-key': 'k',
      'proxy-authorization': 'Bearer x',
      referer: `http://x/?secret=${KEY_SECRET}`,
      'user-agent': `agent ${KEY_SECRET} Bearer abc.def`,
      'x-forwarded-for': '10.0.0.1',
      'x-fauna-driver': 'Sup3rR00tK3y:app:admin',
      'x-query-timeout': '5000',
      origin: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3In0.c2lnbmF0dXJl',
    }),
  ) as Record<string, string>;
  assert.deepEqual(headers, {
    user_agent: 'agent *** ***',
    x_forwarded_for: '10.0.0.1',
    origin: '***',
    x_fauna_driver: '***',
    x_query_timeout: '5000',
  });
});

test('REQUEST_HEADERS: X-Last-Seen-Txn changes with every request and is always the one sent', () => {
  const r = new Redactor(['Sup3rR00tK3y']);
  const base = { 'user-agent': 'driver', 'x-query-timeout': '5000' };
  for (const txn of ['1795355083354374', '1795355083354375', '7']) {
    assert.deepEqual(JSON.parse(r.requestHeaders({ ...base, 'x-last-seen-txn': txn })), { user_agent: 'driver', x_query_timeout: '5000', x_last_seen_txn: txn });
  }
  // Alone, and a value that is not a number (scrubbed like any other value).
  assert.deepEqual(JSON.parse(r.requestHeaders({ 'x-last-seen-txn': '42' })), { x_last_seen_txn: '42' });
  assert.deepEqual(JSON.parse(r.requestHeaders({ ...base, 'x-last-seen-txn': 'Sup3rR00tK3y' })), { user_agent: 'driver', x_last_seen_txn: '***', x_query_timeout: '5000' });
  assert.deepEqual(JSON.parse(r.requestHeaders({ ...base, 'x-last-seen-txn': 'a"b' })), { user_agent: 'driver', x_last_seen_txn: 'a"b', x_query_timeout: '5000' });
});

test('REQUEST_HEADERS: v10 drivers\' X-Last-Txn-Ts is always the one sent, beside X-Last-Seen-Txn', () => {
  const r = new Redactor(['Sup3rR00tK3y']);
  const base = { 'user-agent': 'driver', 'x-format': 'tagged', 'x-driver-env': 'driver=js' };
  for (const ts of ['1795355083354374', '1795355083354375']) {
    assert.deepEqual(JSON.parse(r.requestHeaders({ ...base, 'x-last-txn-ts': ts })), { user_agent: 'driver', x_driver_env: 'driver=js', x_last_txn_ts: ts });
    assert.deepEqual(JSON.parse(r.requestHeaders({ ...base, 'x-last-txn-ts': ts, 'x-last-seen-txn': '7' })), {
      user_agent: 'driver', x_driver_env: 'driver=js', x_last_seen_txn: '7', x_last_txn_ts: ts,
    });
  }
  assert.deepEqual(JSON.parse(r.requestHeaders({ 'x-last-txn-ts': '42' })), { x_last_txn_ts: '42' });
  assert.deepEqual(JSON.parse(r.requestHeaders({ ...base, 'x-last-txn-ts': 'Sup3rR00tK3y' })), { user_agent: 'driver', x_driver_env: 'driver=js', x_last_txn_ts: '***' });
});

test('tag values that look like secrets are scrubbed', () => {
  const rec = JSON.parse(buildRecord({ ...base, tags: { k: KEY_SECRET, root: 'xSup3rR00tK3yx' } }, at, opts)) as { TAGS: unknown };
  assert.deepEqual(rec.TAGS, { k: '***', root: '***' });
});
