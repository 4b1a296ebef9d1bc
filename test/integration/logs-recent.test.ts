// GET /api/v1/logs/_recent (docs/query-log-api.md) with plain HTTP: the newest records at once,
// newest first, limited in number and time; a key sees its own subtree only; each bad parameter
// and credential gets its status and message.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest, type FloraProcess } from '../helpers/server';
import { exportLogs, logsApi, ROOT_SECRET, startLogged, type LogRecord } from '../helpers/logs';

let srv: FloraProcess;
let appKey = '';

async function rootQuery(expr: unknown, secret = ROOT_SECRET): Promise<unknown> {
  const res = await httpRequest(srv.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify(expr) });
  return (JSON.parse(res.body) as { resource?: unknown }).resource;
}

const recent = (query: string, secret: string | null = ROOT_SECRET) => logsApi(srv, 'GET', `/api/v1/logs/_recent${query}`, undefined, secret);
const records = (a: { json: Record<string, unknown> }) => a.json.records as LogRecord[];

before(async () => {
  srv = await startLogged();
  await rootQuery({ create_database: { object: { name: 'app' } } });
  await rootQuery({ create_database: { object: { name: 'other' } } });
  appKey = (await rootQuery({ select: 'secret', from: { create_key: { object: { role: 'admin', database: { database: 'app' } } } } })) as string;
  // Three requests in app (one of them an error), one in other, tagged to be found again.
  for (const [secret, tag, body] of [
    [`${ROOT_SECRET}:app:admin`, 'a1', '{"add":[1,2]}'],
    [`${ROOT_SECRET}:app:admin`, 'a2', '{"get":{"collection":"missing"}}'],
    [`${ROOT_SECRET}:other:admin`, 'o1', '{"add":[3,4]}'],
    [`${ROOT_SECRET}:app:admin`, 'a3', '{"now":null}'],
  ]) {
    await httpRequest(srv.url, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'x-fauna-tags': `step=${tag}` }, body });
  }
});
after(async () => {
  assert.equal(await srv?.stop(), 0);
});

const steps = (rs: LogRecord[]) => rs.map((r) => r.TAGS.step).filter((s) => s !== undefined);

test('the root sees every record at once, newest first, in the export file form', async () => {
  const a = await recent('?type=query');
  assert.equal(a.status, 200, JSON.stringify(a.json));
  assert.equal(a.json.region_group, 'us-std');
  assert.deepEqual(steps(records(a)), ['a3', 'o1', 'a2', 'a1'], 'written before the read, newest first');
  const rs = records(a);
  for (let i = 1; i < rs.length; i++) assert.ok(rs[i - 1].TS >= rs[i].TS, 'newest first');
  const failed = rs.find((r) => r.TAGS.step === 'a2')!;
  assert.equal(failed.RESPONSE_CODE, '400');
  assert.deepEqual(failed.DATABASE, ['us-std', 'app']);
  assert.equal('_db' in failed, false, 'the internal field is not shown');
});

test('limit keeps the newest; database narrows to a subtree; an admin key sees only its own', async () => {
  assert.deepEqual(steps(records(await recent('?limit=200&database=us-std/other'))), ['o1']);
  // app's requests (no reads of the log among them): a1, a2, a3 in that order.
  assert.deepEqual(steps(records(await recent('?limit=2&database=us-std/app'))), ['a3', 'a2'], 'the two newest');
  assert.equal(records(await recent('?limit=2')).length, 2);
  const app = await recent('', appKey);
  assert.equal(app.status, 200);
  assert.deepEqual(steps(records(app)), ['a3', 'a2', 'a1']);
  assert.ok(records(app).every((r) => r.DATABASE[1] === 'app'));
  const outside = await recent('?database=us-std/other', appKey);
  assert.equal(outside.status, 404);
  assert.equal(outside.json.message, "Database 'us-std/other' not found.");
});

test('bad parameters, credentials and methods are refused with a message', async () => {
  const cases: [string, string | null, number, RegExp][] = [
    ['?minutes=0', ROOT_SECRET, 400, /^minutes must be a whole number from 1 to 1440\.$/],
    ['?minutes=1441', ROOT_SECRET, 400, /^minutes must be a whole number from 1 to 1440\.$/],
    ['?limit=abc', ROOT_SECRET, 400, /^limit must be a whole number from 1 to 5000\.$/],
    ['?type=audit', ROOT_SECRET, 400, /^Unknown log type 'audit'/],
    ['?database=eu-std/app', ROOT_SECRET, 400, /^Unknown region group 'eu-std'/],
    ['?database=us-std/nope', ROOT_SECRET, 404, /^Database 'us-std\/nope' not found\.$/],
    ['', null, 401, /^Unauthorized: an Authorization/],
    ['', 'wrong-secret', 401, /^Unauthorized: the secret is invalid\.$/],
    ['', `${ROOT_SECRET}:app:server`, 403, /^Permission denied/],
  ];
  for (const [query, secret, status, message] of cases) {
    const a = await recent(query, secret);
    assert.equal(a.status, status, `${query} ${secret}: ${JSON.stringify(a.json)}`);
    assert.match(a.json.message as string, message);
  }
  const post = await logsApi(srv, 'POST', '/api/v1/logs/_recent', {}, ROOT_SECRET);
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET');
});

test("each record has its request's path (REQUEST_PATH, without the query string): v4, v10, GraphQL, jobs, the log API", async () => {
  await rootQuery({ create_database: { object: { name: 'paths' } } });
  const secret = `${ROOT_SECRET}:paths:admin`;
  const call = async (method: string, path: string, body?: string, status = 200) => {
    const res = await httpRequest(srv.url, { method, path, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body });
    assert.equal(res.status, status, `${path}: ${res.body}`);
  };
  await call('POST', '/', '{"add":[1,2]}');
  await call('GET', `/?q=${encodeURIComponent('{"now":null}')}`);
  await call('POST', '/query/1', JSON.stringify({ query: '1 + 1' }));
  await call('POST', '/import', 'type Note { text: String! }\ntype Query { notes: [Note!] }');
  await call('POST', '/graphql', JSON.stringify({ query: '{ notes { text } }' }));
  await call('POST', '/api/v1/exports', '{"format":"fauna-simple"}', 202); // logged by the jobs' own route, in no database
  const a = await recent('?database=us-std/paths&limit=10', secret);
  assert.equal(a.status, 200, JSON.stringify(a.json));
  const rs = records(a) as (LogRecord & { REQUEST_PATH?: string })[];
  assert.deepEqual(
    rs.map((r) => [r.REQUEST_METHOD, r.REQUEST_PATH, r.API_VERSION]),
    [['POST', '/graphql', '4'], ['POST', '/import', '4'], ['POST', '/query/1', '10'], ['GET', '/', '4'], ['POST', '/', '4']],
  );
  for (const r of rs) {
    const keys = Object.keys(r);
    assert.deepEqual(keys, [...keys].sort(), 'REQUEST_PATH in its alphabetical place');
    assert.equal(keys.length, 19);
  }
  const job = (records(await recent('?limit=20')) as (LogRecord & { REQUEST_PATH?: string })[]).find((r) => r.REQUEST_PATH === '/api/v1/exports');
  assert.deepEqual([job?.REQUEST_METHOD, job?.RESPONSE_CODE], ['POST', '202'], 'the job request, seen by the root');
  // The read itself is logged too, with its path and no query string.
  const again = records(await recent('?database=us-std/paths&limit=1', secret)) as (LogRecord & { REQUEST_PATH?: string })[];
  assert.deepEqual([again[0].REQUEST_METHOD, again[0].REQUEST_PATH], ['GET', '/api/v1/logs/_recent']);
});

test("a presigned download's record has the file's path, without the signature of its query string", async () => {
  const start = new Date(Date.now() - 60_000).toISOString();
  const end = new Date(Date.now() + 1_000).toISOString();
  const { id, final } = await exportLogs(srv, ROOT_SECRET, { region_group: 'us-std', time_start: start, time_end: end });
  assert.match(String(final.json.presigned_url), /\?.*signature=/);
  const path = `/api/v1/logs/${id}/${id}.jsonl.gz`;
  const seen = (records(await recent('?limit=50')) as (LogRecord & { REQUEST_PATH?: string })[]).filter((r) => r.REQUEST_PATH === path);
  assert.deepEqual(seen.map((r) => [r.REQUEST_METHOD, r.RESPONSE_CODE]), [['GET', '200']]);
  assert.ok(!JSON.stringify(seen).includes('signature'), JSON.stringify(seen));
});
