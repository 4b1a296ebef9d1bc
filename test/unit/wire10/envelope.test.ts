// Response bodies, header parsing, error codes and statuses (FQL2Response, RequestParams,
// QueryLogTags, FQL2ProtocolSpec).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protocolErrorBody, queryFailureBody, successBody, type QueryInfo } from '../../../src/wire/v10/envelope';
import { badRequest, ProtocolFailure, PROTOCOL_ERRORS } from '../../../src/wire/v10/errors';
import { parseDriverEnv, parseQueryHeaders, queryTagsText, responseTraceparent, traceIdOf } from '../../../src/wire/v10/headers';
import { Module } from '../../../src/wire/v10/model';

const stats = {
  computeOps: 1,
  readOps: 2,
  writeOps: 3,
  queryTimeMs: 4,
  contentionRetries: 0,
  storageBytesRead: 5,
  storageBytesWrite: 6,
  rateLimitsHit: [],
};
const STATS =
  '{"compute_ops":1,"read_ops":2,"write_ops":3,"query_time_ms":4,"contention_retries":0,' +
  '"storage_bytes_read":5,"storage_bytes_write":6,"rate_limits_hit":[]}';
const info: QueryInfo = { summary: '', txnTs: 1700000000000000n, stats, schemaVersion: 1690000000000000n, tags: [] };

test('success body', () => {
  assert.equal(
    successBody(1n, 'simple', info),
    `{"data":1,"summary":"","txn_ts":1700000000000000,"stats":${STATS},"schema_version":1690000000000000}`,
  );
  assert.equal(
    successBody(1n, 'tagged', { ...info, summary: 'info: x', tags: [['b', '2'], ['a', '1']] }, 'Int'),
    `{"data":{"@int":"1"},"static_type":"Int","summary":"info: x","txn_ts":1700000000000000,"stats":${STATS},` +
      '"query_tags":"b=2,a=1","schema_version":1690000000000000}',
  );
  assert.equal(JSON.parse(successBody(1n, 'decorated', info)).data, '1');
  assert.equal(JSON.parse(successBody(new Map([['a', 'x\ny']]), 'decorated', info)).data, '{\n  a: <<-END\n    x\n    y\n  END\n}');
  const limited = { ...stats, rateLimitsHit: ['compute', 'write'] as const };
  assert.match(successBody(null, 'simple', { ...info, stats: limited }), /"rate_limits_hit":\["compute","write"\]/);
});

test('query failure body', () => {
  assert.equal(
    queryFailureBody({ code: 'abort', message: 'Query aborted.', abort: new Module('Math') }, 'tagged', info),
    `{"error":{"code":"abort","message":"Query aborted.","abort":{"@mod":"Math"}},"summary":"","txn_ts":1700000000000000,` +
      `"stats":${STATS},"schema_version":1690000000000000}`,
  );
  const body = queryFailureBody(
    {
      code: 'constraint_failure',
      message: 'Failed to create document in collection `Function`.',
      constraintFailures: [{ paths: [['name'], ['a', 0]], message: 'The identifier `my_double` is already taken.' }],
    },
    'simple',
    info,
  );
  assert.deepEqual(JSON.parse(body).error.constraint_failures, [
    { paths: [['name'], ['a', 0]], message: 'The identifier `my_double` is already taken.' },
  ]);
  assert.ok(!queryFailureBody({ code: 'x', message: 'y', constraintFailures: [] }, 'simple', info).includes('constraint_failures'));
});

test('protocol error body', () => {
  assert.equal(
    protocolErrorBody(badRequest("Invalid header 'x-query-tags': invalid tags")),
    `{"error":{"code":"invalid_request","message":"Invalid header 'x-query-tags': invalid tags"}}`,
  );
  assert.equal(
    protocolErrorBody(new ProtocolFailure('too_many_requests', 'Rate limit exceeded'), { stats, tags: [['a', '1']] }),
    `{"error":{"code":"limit_exceeded","message":"Rate limit exceeded"},"stats":${STATS},"query_tags":"a=1"}`,
  );
});

test('codes and statuses', () => {
  const seen = Object.entries(PROTOCOL_ERRORS).map(([kind]) => {
    const f = new ProtocolFailure(kind as keyof typeof PROTOCOL_ERRORS, 'm');
    return `${f.code} ${f.status}`;
  });
  assert.deepEqual(seen, [
    'unauthorized 401',
    'forbidden 403',
    'not_found 404',
    'method_not_allowed 405',
    'conflict 409',
    'forbidden 410',
    'invalid_request 400',
    'request_size_exceeded 413',
    'limit_exceeded 429',
    'time_out 440',
    'internal_error 500',
    'time_out 503',
    'internal_error 540',
    'contended_transaction 409',
  ]);
});

function headers(h: Record<string, string>) {
  return parseQueryHeaders((name) => h[name]);
}

function badHeader(h: Record<string, string>, message: string): void {
  assert.throws(
    () => headers(h),
    (e: unknown) => e instanceof ProtocolFailure && e.code === 'invalid_request' && e.message === message,
    message,
  );
}

test('header defaults', () => {
  assert.deepEqual(headers({}), {
    format: 'simple',
    typecheck: undefined,
    linearized: false,
    performanceHints: false,
    lastTxnTs: 0n,
    timeoutMs: 120_000,
    maxContentionRetries: undefined,
    tags: [],
  });
});

test('header values and their errors', () => {
  const h = headers({
    'x-format': 'tagged',
    'x-typecheck': 'FALSE',
    'x-linearized': 'true',
    'x-performance-hints': 'True',
    'x-last-txn-ts': '123',
    'x-query-timeout-ms': '1000',
    'x-max-contention-retries': '2',
    'x-query-tags': 'foo=bar,a_1=B2',
  });
  assert.equal(h.format, 'tagged');
  assert.equal(h.typecheck, false);
  assert.equal(h.linearized, true);
  assert.equal(h.performanceHints, true);
  assert.equal(h.lastTxnTs, 123n);
  assert.equal(h.timeoutMs, 1000);
  assert.equal(h.maxContentionRetries, 2);
  assert.deepEqual(h.tags, [['a_1', 'B2'], ['foo', 'bar']]);
  assert.equal(queryTagsText(h.tags), 'a_1=B2,foo=bar');
  assert.equal(queryTagsText([]), undefined);
  assert.equal(headers({ 'x-format': 'decorated' }).format, 'decorated');

  badHeader({ 'x-format': 'foo' }, "Invalid header 'x-format': Invalid format foo");
  badHeader({ 'x-typecheck': 'foo' }, "Invalid header 'x-typecheck': Must be a boolean value.");
  badHeader({ 'x-linearized': 'foo' }, "Invalid header 'x-linearized': Must be a boolean value.");
  badHeader({ 'x-last-txn-ts': 'foo' }, "Invalid header 'x-last-txn-ts': Invalid timestamp 'foo'.");
  badHeader({ 'x-query-timeout-ms': 'x' }, "Invalid header 'x-query-timeout-ms': Invalid number 'x'.");
  badHeader({ 'x-query-timeout-ms': '0' }, "Invalid header 'x-query-timeout-ms': Must be greater than 0.");
  badHeader({ 'x-query-timeout-ms': '600001' }, "Invalid header 'x-query-timeout-ms': Must be less than or equal to 600000.");
  badHeader({ 'x-max-contention-retries': '-3' }, "Invalid header 'x-max-contention-retries': Must be between 0 and 7.");
  badHeader({ 'x-max-contention-retries': '9999999999' }, "Invalid header 'x-max-contention-retries': Invalid number '9999999999'.");
  badHeader({ 'x-query-tags': 'foo,,' }, "Invalid header 'x-query-tags': invalid tags");
  badHeader({ 'x-query-tags': 'a=1,a=2' }, "Invalid header 'x-query-tags': duplicate key");
  badHeader({ 'x-query-tags': `${'k'.repeat(41)}=1` }, "Invalid header 'x-query-tags': invalid key");
  badHeader({ 'x-query-tags': `k=${'v'.repeat(81)}` }, "Invalid header 'x-query-tags': invalid value");
  badHeader({ 'x-query-tags': Array.from({ length: 26 }, (_, i) => `k${i}=v`).join(',') }, "Invalid header 'x-query-tags': too many tags");
  badHeader({ 'x-query-tags': 'a='.padEnd(3001, 'x') }, "Invalid header 'x-query-tags': header is too long");
  // the pairs are checked from the last one back
  badHeader({ 'x-query-tags': `${'k'.repeat(41)}=1,k=${'v'.repeat(81)}` }, "Invalid header 'x-query-tags': invalid value");
  // request info first, then tags, then the request's own headers
  badHeader({ 'x-format': 'foo', 'x-query-tags': 'foo,,', 'x-last-txn-ts': 'x' }, "Invalid header 'x-last-txn-ts': Invalid timestamp 'x'.");
  badHeader({ 'x-format': 'foo', 'x-query-tags': 'foo,,' }, "Invalid header 'x-query-tags': invalid tags");
});

test('traceparent and x-driver-env', () => {
  const id = '0af7651916cd43dd8448eb211c80319c';
  assert.equal(traceIdOf(`00-${id}-b7ad6b7169203331-01`), id);
  assert.equal(traceIdOf(`00-${id.toUpperCase()}-b7ad6b7169203331-01`), id);
  assert.equal(traceIdOf(undefined), undefined);
  assert.equal(traceIdOf(`00-${'0'.repeat(32)}-b7ad6b7169203331-01`), undefined);
  assert.equal(traceIdOf(`00-${id}-${'0'.repeat(16)}-01`), undefined);
  assert.equal(traceIdOf(`00-${id}-b7ad6b7169203331-0`), undefined);
  assert.equal(responseTraceparent(id, '00f067aa0ba902b7'), `00-${id}-00f067aa0ba902b7-00`);
  assert.deepEqual(
    parseDriverEnv('driver=javascript-4.0.1;runtime=chrome-89;env=Netlify;os=linux'),
    new Map([
      ['driver', 'javascript-4.0.1'],
      ['runtime', 'chrome-89'],
      ['env', 'Netlify'],
      ['os', 'linux'],
    ]),
  );
});
