// Issue 30, rows 6, 7 and 10: the export/import jobs API on the main port. Each targeted attack
// (torture/targeted: job-ownership, job-flood, import-path) runs at its `test` size with no
// violation, and each answer the issue demands is asserted as a client gets it: a re-created
// database sees none of the deleted one's jobs, a renamed or moved one keeps its own; an import
// report is capped and kept apart from the job's state; a database at its limit of running jobs
// gets 429 with Retry-After, keeps its newest jobs, loses finished ones past the retention; an
// upload that stalls is cut by the body timeout, and the job of an upload cut off or too large is
// gone (unit/uploads: streamed inside the pool); a server path is for the root secret only (not
// one scoped to a database), inside --import-dir, refused alike whether the file exists.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { query as q } from 'faunadb';
import { ClientPool, startFlora, waitFor, type FloraProcess } from '../helpers/server';
import { importPath, RECORD } from '../../torture/targeted/importPath';
import { jobFlood } from '../../torture/targeted/jobFlood';
import { jobOwnership } from '../../torture/targeted/jobOwnership';
import { api, filesBelow, untilDone } from '../../torture/targeted/jobApi';
import { whilePinging } from '../../torture/targeted/pingWatch';
import type { TargetedAttack } from '../../torture/targeted/attack';

/** A job file of the layout before jobs were owned by a database's id: owned by a name. */
const LEGACY_ID = '00000000-0000-4000-8000-0000000000aa';

const tmp = mkdtempSync(path.join(tmpdir(), 'flora-security-jobs-'));
const importDir = path.join(tmp, 'imports');
const outside = path.join(tmp, 'outside');
let srv: FloraProcess;
let pool: ClientPool;

before(async () => {
  mkdirSync(importDir);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.ndjson'), RECORD);
  symlinkSync(path.join(outside, 'secret.ndjson'), path.join(importDir, 'link'));
  symlinkSync(path.join(outside, 'missing.ndjson'), path.join(importDir, 'dangling'));
  const dataDir = path.join(tmp, 'data');
  mkdirSync(path.join(dataDir, 'transfers'), { recursive: true });
  const now = new Date().toISOString();
  writeFileSync(path.join(dataDir, 'transfers', `${LEGACY_ID}.json`), JSON.stringify({ id: LEGACY_ID, kind: 'export', owner: '', database: '', state: 'Complete', created: now, updated: now, pid: 1, progress: { records: 0 } }));
  srv = await startFlora({ dataDir, env: { FLORA_IMPORT_DIR: importDir, FLORA_JOBS_RUNNING: '1', FLORA_JOBS_KEPT: '3', FLORA_BODY_TIMEOUT_MS: '3000' } });
  pool = new ClientPool(srv.url);
});
after(async () => {
  await pool?.close();
  await srv?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function attackHolds(attack: TargetedAttack): Promise<void> {
  const result = await attack.run({ size: 'test', log: () => undefined });
  assert.equal(result.violations, 0, `${attack.name}: ${result.details.join('\n')}`);
}

const adminKey = async (db?: string) =>
  ((await pool.client(srv.secret).query(q.CreateKey(db === undefined ? { role: 'admin' } : { database: q.Database(db), role: 'admin' }))) as { secret: string }).secret;

/** An upload whose body starts and then stalls (chunked HTTP/1.1): it holds its job while open. */
function stalledUpload(secret: string): { answer: Promise<{ status: number; body: string }>; finish: () => void; cut: () => void } {
  const req = http.request(`${srv.url}/api/v1/imports`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'transfer-encoding': 'chunked' } });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
  req.write(RECORD);
  return { answer, finish: () => req.end(), cut: () => req.destroy() };
}

/** An upload of `bytes` of blank lines in chunks (no content-length), until its answer comes. */
async function chunkedUpload(secret: string, bytes: number): Promise<{ status: number; body: string }> {
  const req = http.request(`${srv.url}/api/v1/imports`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'transfer-encoding': 'chunked' } });
  let answered = false;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
  const chunk = Buffer.alloc(1 << 20, 0x0a);
  for (let sent = 0; sent < bytes && !answered && !req.destroyed; sent += chunk.length) {
    if (!req.write(chunk)) await Promise.race([new Promise((resolve) => req.once('drain', resolve)), answer.catch(() => undefined)]);
  }
  if (!answered) req.end();
  return answer;
}

test('row 6: the job-ownership attack achieves nothing', { timeout: 180_000 }, () => attackHolds(jobOwnership));

test("row 6: a re-created database's admin gets 404 for the deleted one's job; a renamed one keeps its jobs under its new path", { timeout: 120_000 }, async () => {
  const root = pool.client(srv.secret);
  await root.query(q.CreateDatabase({ name: 'acme' }));
  const old = await adminKey('acme');
  const started = await api(srv.url, 'POST', '/api/v1/exports', old, '{"keys":true}');
  assert.equal(started.status, 202, started.text);
  const done = await untilDone(srv.url, `/api/v1/exports/${started.json!.id}`, old);
  assert.equal(done.json!.owner, 'acme');
  await root.query(q.Delete(q.Database('acme')));
  await root.query(q.CreateDatabase({ name: 'acme' }));
  const tenant = await adminKey('acme');
  const id = started.json!.id as string;
  for (const route of [`/api/v1/exports/${id}`, `/api/v1/exports/${id}/files/manifest.json`]) {
    const r = await api(srv.url, 'GET', route, tenant);
    assert.deepEqual([r.status, r.json], [404, { message: `No export '${id}'.` }], route);
  }
  const list = await api(srv.url, 'GET', '/api/v1/exports', tenant);
  assert.deepEqual([list.status, list.json], [200, { jobs: [] }]);
  // Its files go with it (the deletion is heard, the folder swept).
  const goneFrom = (jobId: string) => async () => !(await filesBelow(path.join(srv.dataDir, 'transfers'))).some((f) => f.path.includes(jobId));
  await waitFor("the deleted acme's job files to go", goneFrom(id), 15_000);

  await root.query(q.CreateDatabase({ name: 'orig' }));
  const key = await adminKey('orig');
  const kept = await api(srv.url, 'POST', '/api/v1/exports', key, '{}');
  await untilDone(srv.url, `/api/v1/exports/${kept.json!.id}`, key);
  await root.query(q.CreateDatabase({ name: 'doomed' }));
  const doomedKey = await adminKey('doomed');
  const doomed = await api(srv.url, 'POST', '/api/v1/exports', doomedKey, '{}');
  await untilDone(srv.url, `/api/v1/exports/${doomed.json!.id}`, doomedKey);
  await root.query(q.Update(q.Database('orig'), { name: 'renamed' }));
  // A sweep after the rename: the one that removes the files of a database deleted after it.
  await root.query(q.Delete(q.Database('doomed')));
  await waitFor("the deleted doomed's job files to go", goneFrom(doomed.json!.id as string), 15_000);
  assert.ok((await filesBelow(path.join(srv.dataDir, 'transfers'))).some((f) => f.path.includes(kept.json!.id as string)), "the swept renamed database's job files stay");
  const after = await api(srv.url, 'GET', `/api/v1/exports/${kept.json!.id}`, key);
  assert.deepEqual([after.status, after.json!.state, after.json!.owner], [200, 'Complete', 'renamed']);
  const asRoot = await api(srv.url, 'GET', `/api/v1/exports/${kept.json!.id}`, `${srv.secret}:renamed:admin`);
  assert.equal(asRoot.status, 200, 'the root secret scoped to the database by its new name');
});

test('row 6: a job file of an earlier version (owned by a name) is neither listed nor served, and the server says so', { timeout: 60_000 }, async () => {
  const list = await api(srv.url, 'GET', '/api/v1/exports', srv.secret);
  assert.equal(list.status, 200);
  assert.ok(!(list.json!.jobs as { id: string }[]).some((j) => j.id === LEGACY_ID));
  assert.equal((await api(srv.url, 'GET', `/api/v1/exports/${LEGACY_ID}`, srv.secret)).status, 404);
  assert.match(srv.stderr(), /1 export\/import job file\(s\) of an earlier version \(owned by a database's name\) are no longer listed/);
});

test('row 7: the job-flood attack achieves nothing', { timeout: 300_000 }, () => attackHolds(jobFlood));

test("row 7: an import's report lists the first 100 problems and counts the rest, apart from the job's state; lists and /ping stay prompt", { timeout: 120_000 }, async () => {
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'flood' }));
  const key = await adminKey('flood');
  const started = await api(srv.url, 'POST', '/api/v1/imports', key, 'x\n'.repeat(5000));
  assert.equal(started.status, 202, started.text);
  assert.equal(started.json!.report, undefined);
  const done = await untilDone(srv.url, `/api/v1/imports/${started.json!.id}`, key);
  assert.equal(done.json!.state, 'Complete', done.text);
  assert.equal(done.json!.progress.problems, 5000);
  assert.equal(done.json!.report.problems.length, 100);
  assert.equal(done.json!.report.problems_omitted, 4900);
  assert.deepEqual(done.json!.report.problems[99], { file: done.json!.report.problems[99].file, line: 100, reason: done.json!.report.problems[0].reason });
  const { value: list, ping } = await whilePinging(srv.url, () => api(srv.url, 'GET', '/api/v1/imports', key), 'test');
  const listed = (list.json!.jobs as Record<string, unknown>[]).find((j) => j.id === started.json!.id)!;
  assert.equal(listed.state, 'Complete');
  assert.equal(listed.report, undefined, 'a list leaves the report out');
  assert.equal(ping.slow, 0, `/ping max ${ping.maxMs} ms`);
  const files = await filesBelow(path.join(srv.dataDir, 'transfers'));
  const state = files.find((f) => f.path.endsWith(`${started.json!.id}.json`))!;
  const report = files.find((f) => f.path.endsWith(`${started.json!.id}.report.json`))!;
  assert.ok(state.bytes < 4096, `the state is small: ${state.bytes} bytes`);
  assert.ok(report.bytes < 64 * 1024, `the report is bounded: ${report.bytes} bytes`);
});

test('row 7: a database runs one job at a time here: the next gets 429 with Retry-After; a stalled upload is cut by the body timeout with 408', { timeout: 120_000 }, async () => {
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'busy' }));
  const key = await adminKey('busy');
  const first = stalledUpload(key);
  await waitFor('the stalled upload to hold its job', async () => ((await api(srv.url, 'GET', '/api/v1/imports', key)).json!.jobs as unknown[]).length === 1);
  for (const [method, route, body] of [['POST', '/api/v1/imports', RECORD], ['POST', '/api/v1/exports', '{}']] as const) {
    const refused = await api(srv.url, method, route, key, body);
    assert.equal(refused.status, 429, `${route}: ${refused.text}`);
    assert.deepEqual(refused.json, { message: 'Too many jobs running: a database runs at most 1 export and import job(s) at once; try again once one is done.' });
    assert.equal(refused.headers.get('retry-after'), '5');
  }
  // Another database is not held up by this one.
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'idle' }));
  assert.equal((await api(srv.url, 'POST', '/api/v1/exports', await adminKey('idle'), '{}')).status, 202);
  const cut = await first.answer;
  assert.deepEqual([cut.status, JSON.parse(cut.body)], [408, { message: 'The upload did not arrive within 3000 ms.' }]);
  assert.deepEqual((await api(srv.url, 'GET', '/api/v1/imports', key)).json!.jobs, [], 'the job of an upload that never arrived is gone');
  first.finish();
  const next = await api(srv.url, 'POST', '/api/v1/imports', key, RECORD);
  assert.equal(next.status, 202, next.text);
  assert.equal((await untilDone(srv.url, `/api/v1/imports/${next.json!.id}`, key)).json!.state, 'Complete');
});

test("row 7: the job of an upload cut off by its client, or over 64 MiB, is gone, its place free", { timeout: 120_000 }, async () => {
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'cut' }));
  const key = await adminKey('cut');
  const jobs = async () => (await api(srv.url, 'GET', '/api/v1/imports', key)).json!.jobs as unknown[];
  const cutOff = stalledUpload(key);
  cutOff.answer.catch(() => undefined);
  await waitFor('the upload to hold its job', async () => (await jobs()).length === 1);
  cutOff.cut();
  await waitFor('the job of the upload cut off to go', async () => (await jobs()).length === 0);
  const large = await chunkedUpload(key, 65 * 1024 * 1024);
  assert.deepEqual([large.status, JSON.parse(large.body)], [413, { message: `An upload is at most ${64 * 1024 * 1024} bytes: import larger files with 'flora import'.` }]);
  assert.deepEqual(await jobs(), [], 'the job of the upload too large is gone');
  const next = await api(srv.url, 'POST', '/api/v1/imports', key, RECORD);
  assert.equal(next.status, 202, next.text);
  assert.equal((await untilDone(srv.url, `/api/v1/imports/${next.json!.id}`, key)).json!.state, 'Complete');
});

test('row 7: a database keeps its newest jobs (3 here): the oldest finished ones go', { timeout: 120_000 }, async () => {
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'many' }));
  const key = await adminKey('many');
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await api(srv.url, 'POST', '/api/v1/exports', key, '{}');
    assert.equal(r.status, 202, r.text);
    await untilDone(srv.url, `/api/v1/exports/${r.json!.id}`, key);
    ids.push(r.json!.id as string);
  }
  const listed = ((await api(srv.url, 'GET', '/api/v1/exports', key)).json!.jobs as { id: string }[]).map((j) => j.id);
  assert.deepEqual(listed, ids.slice(2).reverse());
  assert.equal((await api(srv.url, 'GET', `/api/v1/exports/${ids[0]}`, key)).status, 404);
});

test('row 7: finished jobs go after the retention', { timeout: 120_000 }, async () => {
  const small = await startFlora({ env: { FLORA_JOB_RETENTION_DAYS: '0.00003' } });
  try {
    const started = await api(small.url, 'POST', '/api/v1/exports', small.secret, '{}');
    assert.equal(started.status, 202, started.text);
    assert.equal((await untilDone(small.url, `/api/v1/exports/${started.json!.id}`, small.secret)).json!.state, 'Complete');
    await waitFor('the finished export to pass its retention (2.6 s)', async () => (await api(small.url, 'GET', `/api/v1/exports/${started.json!.id}`, small.secret)).status === 404);
    assert.deepEqual((await api(small.url, 'GET', '/api/v1/exports', small.secret)).json!.jobs, []);
    // 8 MiB of blank lines (nothing to import, read fast): streamed to its file.
    const upload = await api(small.url, 'POST', '/api/v1/imports', small.secret, Buffer.alloc(8 * 1024 * 1024, 0x0a));
    assert.equal(upload.status, 202, upload.text);
    const done = await untilDone(small.url, `/api/v1/imports/${upload.json!.id}`, small.secret);
    assert.deepEqual([done.json!.state, done.json!.progress.bytes_total], ['Complete', 8 * 1024 * 1024]);
    // The expired export's files were removed when a job was next created in its database.
    assert.ok(!(await filesBelow(path.join(small.dataDir, 'transfers'))).some((f) => f.path.includes(started.json!.id)));
  } finally {
    await small.stop();
  }
});

test('row 10: the import-path attack achieves nothing', { timeout: 180_000 }, () => attackHolds(importPath));

test('row 10: a server path is for the root secret only, inside --import-dir, and every refusal reads the same', { timeout: 120_000 }, async () => {
  const topAdmin = await adminKey();
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'scoped' }));
  const ask = (secret: string, file: string) => api(srv.url, 'POST', `/api/v1/imports?path=${encodeURIComponent(file)}`, secret);
  // A top-level admin key, and the root secret scoped to a database, are not the root secret.
  for (const secret of [topAdmin, `${srv.secret}:scoped:admin`]) {
    for (const file of ['/etc/shadow', '/etc/flora-no-such-file', path.join(importDir, 'link')]) {
      const r = await ask(secret, file);
      assert.deepEqual([r.status, r.json], [403, { message: 'Permission denied: importing from a path on the server needs the root secret.' }], file);
    }
  }
  const refused = { message: "Permission denied: 'path' must name a file or folder inside the server's import directory." };
  const paths = ['/etc/shadow', '/etc/flora-no-such-file', `${importDir}/../outside/secret.ndjson`, `${importDir}/../outside/missing.ndjson`, '../outside/secret.ndjson', path.join(importDir, 'link'), path.join(importDir, 'dangling'), path.join(importDir, 'none.ndjson')];
  for (const file of paths) {
    const r = await ask(srv.secret, file);
    assert.deepEqual([r.status, r.json], [403, refused], file);
  }
  assert.deepEqual((await api(srv.url, 'GET', '/api/v1/imports', topAdmin)).json!.jobs, [], 'nothing ran');
  // Off unless configured.
  const off = await startFlora();
  try {
    const r = await api(off.url, 'POST', `/api/v1/imports?path=${encodeURIComponent('/etc/shadow')}`, off.secret);
    assert.deepEqual([r.status, r.json], [403, { message: 'Permission denied: importing from a path on the server is off; start Flora with --import-dir <folder> (FLORA_IMPORT_DIR).' }]);
  } finally {
    await off.stop();
  }
});
