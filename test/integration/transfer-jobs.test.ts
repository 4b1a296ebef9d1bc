// Export and import jobs over HTTP (/api/v1/exports, /api/v1/imports): the request-then-poll shape
// of the log-export API, run by the server with the caller's secret; each refusal in its shape.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { query as q, type Client } from 'faunadb';
import { ClientPool, startFlora, type FloraProcess } from '../helpers/server';

let srv: FloraProcess;
let pool: ClientPool;
let root: Client;
/** The folder server paths may be imported from (--import-dir). */
const importDir = mkdtempSync(path.join(tmpdir(), 'flora-import-dir-'));

before(async () => {
  srv = await startFlora({ env: { FLORA_IMPORT_DIR: importDir } });
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  await root.query(q.Do(q.CreateDatabase({ name: 'app' }), q.CreateDatabase({ name: 'other' })));
  const app = pool.client(`${srv.secret}:app:admin`);
  await app.query(q.CreateCollection({ name: 'notes' }));
  for (let i = 1; i <= 30; i++) await app.query(q.Create(q.Ref(q.Collection('notes'), String(i)), { data: { n: i, text: `note ${i}` } }));
});
after(async () => {
  await pool?.close();
  await srv?.stop();
  rmSync(importDir, { recursive: true, force: true });
});

async function call(method: string, path: string, secret: string | undefined, body?: string | Buffer) {
  const res = await fetch(`${srv.url}${path}`, { method, headers: secret ? { authorization: `Bearer ${secret}` } : {}, body: body === undefined ? undefined : typeof body === "string" ? body : new Uint8Array(body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, bytes, json: type.startsWith('application/json') ? (JSON.parse(bytes.toString()) as Record<string, any>) : undefined };
}

async function until(path: string, secret: string): Promise<Record<string, any>> {
  for (;;) {
    const r = await call('GET', path, secret);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    if (r.json!.state !== 'Running') return r.json!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('an export job: started, polled until Complete, its files downloaded; the file imported by an import job', async () => {
  const appAdmin = `${srv.secret}:app:admin`;
  const started = await call('POST', '/api/v1/exports', appAdmin, JSON.stringify({ history: true }));
  assert.equal(started.status, 202, JSON.stringify(started.json));
  assert.equal(started.json!.kind, 'export');
  const done = await until(`/api/v1/exports/${started.json!.id}`, appAdmin);
  assert.equal(done.state, 'Complete', done.error);
  assert.equal(done.progress.records > 30, true);
  const notes = (done.files as { path: string; records: number; download: string }[]).find((f) => f.path === 'db/collections/notes.ndjson.gz')!;
  assert.equal(notes.records, 30);
  const file = await call('GET', notes.download, appAdmin);
  assert.equal(file.status, 200);
  const lines = gunzipSync(file.bytes).toString().trim().split('\n');
  assert.equal(lines.length, 30);
  const manifest = await call('GET', `/api/v1/exports/${started.json!.id}/files/manifest.json`, appAdmin);
  assert.equal(JSON.parse(manifest.bytes.toString()).format, 'flora-export');
  // Only the database that asked sees the job, and only files it lists are served.
  assert.equal((await call('GET', `/api/v1/exports/${started.json!.id}`, srv.secret)).status, 404);
  assert.equal((await call('GET', `/api/v1/exports/${started.json!.id}`, `${srv.secret}:other:admin`)).status, 404);
  assert.equal((await call('GET', `/api/v1/exports/${started.json!.id}/files/..%2F..%2Ftransfers`, appAdmin)).status, 404);
  assert.equal((await call('GET', `/api/v1/exports/${started.json!.id}/files/db/schema.ndjson`, appAdmin)).status, 404);
  const malformed = await call('GET', `/api/v1/exports/${started.json!.id}/files/%E0`, appAdmin);
  assert.deepEqual([malformed.status, malformed.json!.message], [404, `Export '${started.json!.id}' has no file '%E0'.`], 'a malformed escape names no file');

  // The collection's file is a driver dump: an import job takes it as its body.
  const imported = await call('POST', '/api/v1/imports?database=copy', srv.secret, file.bytes);
  assert.equal(imported.status, 202, JSON.stringify(imported.json));
  const report = await until(`/api/v1/imports/${imported.json!.id}`, srv.secret);
  assert.equal(report.state, 'Complete', report.error);
  assert.deepEqual(report.report.collections, { notes: { written: 30, existing: 0 } });
  assert.deepEqual(report.progress, { records: 0, written: 30, existing: 0, problems: 0, bytes_done: file.bytes.length, bytes_total: file.bytes.length }, 'the whole upload read');
  const copy = pool.client(`${srv.secret}:copy:admin`);
  assert.equal(await copy.query(q.Count(q.Documents(q.Collection('notes')))), 30);
  assert.equal(await copy.query(q.Select(['data', 'text'], q.Get(q.Ref(q.Collection('notes'), '7')))), 'note 7');
});

test("an export's file removed after its job was read (the job removed meanwhile) is 404, not 500", async () => {
  const appAdmin = `${srv.secret}:app:admin`;
  const started = await call('POST', '/api/v1/exports', appAdmin, '{}');
  const id = started.json!.id as string;
  assert.equal((await until(`/api/v1/exports/${id}`, appAdmin)).state, 'Complete');
  // What a removal between the job's read and the file's would leave: the job, without the file.
  const transfers = path.join(srv.dataDir, 'transfers');
  const rel = path.join(id, 'db', 'collections', 'notes.ndjson.gz');
  const file = (readdirSync(transfers, { recursive: true }) as string[]).find((f) => f.endsWith(rel))!;
  rmSync(path.join(transfers, file));
  const gone = await call('GET', `/api/v1/exports/${id}/files/db/collections/notes.ndjson.gz`, appAdmin);
  assert.deepEqual([gone.status, gone.json], [404, { message: `Export '${id}' has no file 'db/collections/notes.ndjson.gz'.` }]);
});

test("GET /api/v1/exports and /imports list the jobs of the secret's database, newest first, and no one else's", async () => {
  const appAdmin = `${srv.secret}:app:admin`;
  const second = await call('POST', '/api/v1/exports', appAdmin, '{}');
  await until(`/api/v1/exports/${second.json!.id}`, appAdmin);
  const exports = await call('GET', '/api/v1/exports', appAdmin);
  assert.equal(exports.status, 200);
  const listed = exports.json!.jobs as { id: string; kind: string; state: string; files?: unknown[]; pid?: number; owner?: string }[];
  assert.ok(listed.length >= 2, 'the earlier export and this one');
  assert.equal(listed[0].id, second.json!.id, 'newest first');
  assert.ok(listed.every((j) => j.kind === 'export' && j.state === 'Complete' && Array.isArray(j.files) && j.pid === undefined && j.owner === 'app'));
  // The root's imports are not app's, and app's exports are not the root's.
  assert.deepEqual((await call('GET', '/api/v1/imports', appAdmin)).json!.jobs, []);
  assert.deepEqual((await call('GET', '/api/v1/exports', srv.secret)).json!.jobs, []);
  const imports = (await call('GET', '/api/v1/imports', srv.secret)).json!.jobs as { kind: string; database: string }[];
  assert.ok(imports.length >= 1 && imports.every((j) => j.kind === 'import'));
  assert.equal((await call('GET', '/api/v1/exports', undefined)).status, 401);
});

test('an import job reports the records it could not take; a failed import of nothing readable is Failed with why', async () => {
  const body = Buffer.from('{"ref":{"@ref":{"id":"1","collection":{"@ref":{"id":"things","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{"a":1}}\nnot json\n');
  const started = await call('POST', '/api/v1/imports?database=bad', srv.secret, body);
  const done = await until(`/api/v1/imports/${started.json!.id}`, srv.secret);
  assert.equal(done.state, 'Complete');
  assert.equal(done.report.problems.length, 1);
  assert.equal(done.report.problems[0].line, 2);
  // A JSON array of the same records is taken too (the upload is named by what it holds).
  const line = '{"ref":{"@ref":{"id":"7","collection":{"@ref":{"id":"things","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{"a":7}}';
  const array = await call('POST', '/api/v1/imports?database=array', srv.secret, `[${line}]`);
  const fromArray = await until(`/api/v1/imports/${array.json!.id}`, srv.secret);
  assert.equal(fromArray.state, 'Complete', fromArray.error);
  assert.deepEqual(fromArray.report.collections, { things: { written: 1, existing: 0 } });
  // A folder of the import directory with nothing to import in it.
  mkdirSync(path.join(importDir, 'empty'));
  const nothing = await call('POST', `/api/v1/imports?path=empty`, srv.secret);
  assert.equal(nothing.status, 202, JSON.stringify(nothing.json));
  const failed = await until(`/api/v1/imports/${nothing.json!.id}`, srv.secret);
  assert.equal(failed.state, 'Failed');
  assert.match(failed.error, /empty: no Fauna export found/);
});

test('refusals: each in the API shape, with the right status', async () => {
  const serverKey = ((await root.query(q.CreateKey({ role: 'server' }))) as { secret: string }).secret;
  assert.equal((await call('POST', '/api/v1/exports', undefined, '{}')).status, 401);
  assert.equal((await call('POST', '/api/v1/exports', 'nope', '{}')).status, 401);
  const forbidden = await call('POST', '/api/v1/exports', serverKey, '{}');
  assert.equal(forbidden.status, 403);
  assert.match(forbidden.json!.message, /root secret or an admin key/);
  const badFormat = await call('POST', '/api/v1/exports', srv.secret, JSON.stringify({ format: 'csv' }));
  assert.equal(badFormat.status, 400);
  assert.match(badFormat.json!.message, /'format' must be one of flora, fauna-simple, fauna-tagged/);
  assert.equal((await call('POST', '/api/v1/exports', srv.secret, JSON.stringify({ format: 'fauna-simple', history: true }))).status, 400);
  assert.equal((await call('POST', '/api/v1/exports', srv.secret, JSON.stringify({ extra: 1 }))).status, 400);
  assert.equal((await call('POST', '/api/v1/exports', srv.secret, '[1]')).status, 400);
  const wrongMethod = await call('DELETE', '/api/v1/exports', srv.secret);
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'GET, POST');
  assert.equal((await call('POST', '/api/v1/exports/00000000-0000-4000-8000-000000000000', srv.secret, '{}')).headers.get('allow'), 'GET');
  assert.equal((await call('GET', '/api/v1/exports/00000000-0000-4000-8000-000000000000', srv.secret)).status, 404);
  assert.equal((await call('GET', '/api/v1/imports/not-a-uuid', srv.secret)).status, 404);
  assert.equal((await call('POST', '/api/v1/imports', srv.secret, '')).status, 400);
  const scopedPath = await call('POST', '/api/v1/imports?path=/etc', `${srv.secret}:app:admin`);
  assert.equal(scopedPath.status, 403);
  assert.match(scopedPath.json!.message, /needs the root secret/);
});
