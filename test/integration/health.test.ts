// Health checks (issue 34): /healthz while the process serves, /readyz while it should get traffic,
// both without a secret, on both protocols and kept out of the query log; on SIGTERM with --drain-ms
// /readyz answers 503 while queries are still served, then the server stops. In the runner's tier
// pass every server here is a tier (each worker drains); on PostgreSQL, a store that refuses
// connections makes /readyz answer 503 until it takes them again, and one that hangs, after 2000 ms.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as PgClient } from 'pg';
import { httpRequest, startFlora, waitFor, type FloraProcess } from '../helpers/server';
import { databaseFor } from '../helpers/postgres';
import { storedLog } from '../helpers/logs';

let flora: FloraProcess;

before(async () => {
  flora = await startFlora({ args: ['--drain-ms', '60000'] });
});

after(async () => {
  await flora?.stop('SIGKILL');
});

const get = async (path: string, http2 = false) => {
  const r = await httpRequest(flora.url, { path, http2 });
  return { status: r.status, body: r.body };
};

test('/healthz and /readyz answer without a secret, on HTTP/1.1 and HTTP/2', async () => {
  for (const http2 of [false, true]) {
    assert.deepEqual(await get('/healthz', http2), { status: 200, body: '{"status":"ok"}' });
    assert.deepEqual(await get('/readyz', http2), { status: 200, body: '{"status":"ready"}' });
  }
  const head = await httpRequest(flora.url, { path: '/readyz', method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['cache-control'], 'no-store');
});

test('health probes are not query-log records', async () => {
  const probe = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const ping = '00-1bf7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01';
  for (const path of ['/healthz', '/readyz']) await httpRequest(flora.url, { path, headers: { traceparent: probe } });
  await httpRequest(flora.url, { path: '/ping', headers: { traceparent: ping } });
  // The log is written in batches: once the ping's record is there, the probes' would be too.
  const text = async () => (await storedLog(flora).catch(() => [])).map((f) => f.text).join('\n'); // (no log file before the first batch)
  await waitFor('the ping in the query log', async () => (await text()).includes('1bf7651916cd43dd8448eb211c80319c'), 20_000);
  assert.ok(!(await text()).includes('0af7651916cd43dd8448eb211c80319c'));
});

test('on PostgreSQL, /readyz answers 503 while the store takes no connections', { skip: process.env.FLORA_TEST_PG_URL === undefined && 'the PostgreSQL pass runs it' }, async () => {
  const admin = new PgClient({ connectionString: process.env.FLORA_TEST_PG_URL });
  await admin.connect();
  const name = new URL(await databaseFor(process.env.FLORA_TEST_PG_URL!, flora.dataDir)).pathname.slice(1);
  try {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    await waitFor('a 503 from /readyz', async () => (await get('/readyz')).status === 503, 20_000);
    const r = await get('/readyz');
    assert.match(r.body, /^\{"status":"unavailable","reason":"the store (does not answer: .+|did not answer within 2000 ms)"\}$/);
    assert.deepEqual(await get('/healthz'), { status: 200, body: '{"status":"ok"}' });
  } finally {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await admin.end();
  }
  await waitFor('/readyz ready again', async () => (await get('/readyz')).status === 200, 30_000);
});

test('on PostgreSQL, /readyz answers 503 after 2000 ms when the store hangs', { skip: process.env.FLORA_TEST_PG_URL === undefined && 'the PostgreSQL pass runs it' }, async () => {
  // A table lock makes every read of Flora's table wait: the store neither answers nor fails.
  const admin = new PgClient({ connectionString: await databaseFor(process.env.FLORA_TEST_PG_URL!, flora.dataDir) });
  await admin.connect();
  try {
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE flora_kv IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const r = await get('/readyz');
    const waited = Date.now() - started;
    assert.deepEqual(r, { status: 503, body: '{"status":"unavailable","reason":"the store did not answer within 2000 ms"}' });
    assert.ok(waited >= 1_900, `answered after ${waited} ms`);
    assert.deepEqual(await get('/healthz'), { status: 200, body: '{"status":"ok"}' });
  } finally {
    await admin.query('ROLLBACK');
    await admin.end();
  }
  await waitFor('/readyz ready again', async () => (await get('/readyz')).status === 200, 30_000);
});

test('SIGTERM with --drain-ms: /readyz says draining while queries are still served; a second SIGTERM stops it', async () => {
  flora.proc.kill('SIGTERM');
  await waitFor('/readyz draining', async () => (await get('/readyz')).status === 503, 10_000);
  assert.deepEqual(await get('/readyz'), { status: 503, body: '{"status":"draining"}' });
  assert.deepEqual(await get('/healthz'), { status: 200, body: '{"status":"ok"}' });
  const q = await httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${flora.secret}` }, body: '{"add":[1,2]}' });
  assert.deepEqual([q.status, q.body], [200, '{"resource":3}']);
  flora.proc.kill('SIGTERM');
  assert.equal(await flora.stop(), 0);
});
