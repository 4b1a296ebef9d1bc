// `flora import` end to end: the command run as a user runs it, against a real server, reading
// fixture exports written from the descriptions (test/helpers/faunaExports.ts); what it
// wrote read back through the query API and the official driver.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, query as q } from 'faunadb';
import { FLORA_BIN, ROOT, startFlora, type FloraProcess } from '../helpers/server';
import { COLLECTIONS, DOCS, dumpCredential, dumpRecord, floraData, writeDump, writeSnapshot, type Encoding, type FixtureCredential, type Placed } from '../helpers/faunaExports';
import { QueryClient } from '../../src/transfer/queryClient';
import { decodeLiteral } from '../../src/wire/decode';
import { encodeValue } from '../../src/wire/encode';
import { parseIsoTime } from '../../src/wire/time';
import type { Obj, Value } from '../../src/values/types';

const PASSWORD = 'correct horse battery staple';
/** BCrypt (cost 4) of PASSWORD as Fauna's jBCrypt writes it (`$2a$`). */
const PASSWORD_HASH = '$2a$04$mvBd/SSiZ42aUMmxr/thS.1bzuxVFy301XzL7m9r3Bkff1KnBC2OW';
const CREDENTIAL: FixtureCredential = { id: '601', ts: '2025-01-09T19:07:26.642703Z', document: { coll: 'Coll0', id: '411' }, hashedPassword: PASSWORD_HASH };
const RECORDS: Placed[] = [...DOCS.map((doc) => ({ doc })), { cred: CREDENTIAL }];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function flora(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [FLORA_BIN, 'import', ...args], { cwd: ROOT, env: { ...process.env, FLORA_SECRET: '', FLORA_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

let srv: FloraProcess;
let dir: string;

before(async () => {
  srv = await startFlora();
  dir = await mkdtemp(path.join(tmpdir(), 'flora-import-'));
});
after(async () => {
  await srv?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A document of the imported database, read back as Flora values. */
async function stored(database: string, coll: string, id: string): Promise<{ ts: bigint; data: Obj }> {
  const client = new QueryClient(srv.url, srv.secret).scoped(database);
  const doc = decodeLiteral((await client.query(`{"get":{"ref":{"collection":"${coll}"},"id":"${id}"}}`)).resource) as Obj;
  return { ts: doc.get('ts') as bigint, data: doc.get('data') as Obj };
}

const µs = (iso: string) => parseIsoTime(iso)! / 1000n;

/** What a document stores of `v`: an object field set to null is no field (Fauna's rule). */
function withoutNulls(v: Value): Value {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v instanceof Map) return new Map([...v].filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)] as [string, Value]));
  return v;
}

async function assertImported(database: string, source: Encoding | 'dump'): Promise<void> {
  for (const d of DOCS) {
    const got = await stored(database, d.coll, d.id);
    assert.equal(got.ts, µs(d.ts), `${d.coll}/${d.id} keeps its ts`);
    const ctx = { txnTs: 0n };
    assert.equal(encodeValue(got.data, ctx), encodeValue(withoutNulls(floraData(d, source)), ctx), `${d.coll}/${d.id} data`);
  }
  // The user logs in with the password the hash was made from.
  const client = new Client({ secret: `${srv.secret}:${database}:admin`, domain: '127.0.0.1', port: srv.port, scheme: 'http' });
  const token = (await client.query(q.Login(q.Ref(q.Collection('Coll0'), '411'), { password: PASSWORD }))) as { secret: string };
  const user = new Client({ secret: token.secret, domain: '127.0.0.1', port: srv.port, scheme: 'http' });
  assert.deepEqual(await user.query(q.Select('id', q.CurrentIdentity())), '411');
}

describe('a Fauna snapshot export', () => {
  const variants: { encoding: Encoding; layout: 'jsonl' | 'json'; gzip: boolean }[] = [
    { encoding: 'tagged', layout: 'jsonl', gzip: true },
    { encoding: 'simple', layout: 'json', gzip: false },
    { encoding: 'tagged', layout: 'json', gzip: true },
    { encoding: 'simple', layout: 'jsonl', gzip: false },
  ];
  for (const v of variants) {
    test(`${v.encoding}, ${v.layout}${v.gzip ? '.gz' : ''}: documents with their ids, ts, values and refs; credentials that log in; a rerun writes nothing`, async () => {
      const name = `${v.encoding}-${v.layout}-${v.gzip ? 'gz' : 'plain'}`;
      const written = writeSnapshot(path.join(dir, name), { ...v, collections: COLLECTIONS, records: RECORDS, parts: 2 });
      const database = `imported/${name}`;
      const first = await flora([written.exportDir, '--url', srv.url, '--secret', srv.secret, '--database', database]);
      assert.equal(first.code, 0, first.stderr + first.stdout);
      assert.match(first.stdout, /Coll0\s+3\s+0\n/);
      assert.match(first.stdout, /Coll1\s+3\s+0\n/);
      assert.match(first.stdout, /credentials\s+1\s+0/);
      assert.match(first.stderr, /import .*6 written/, 'a progress line (stderr is not a terminal: plain lines)');
      if (v.encoding === 'simple') assert.match(first.stdout, /note: .*taken as refs/);
      await assertImported(database, v.encoding);
      const again = await flora([written.taskDir, '--url', srv.url, '--secret', srv.secret, '--database', database]);
      assert.equal(again.code, 0, again.stderr + again.stdout);
      assert.match(again.stdout, /Coll0\s+0\s+3\n/);
      assert.match(again.stdout, /credentials\s+0\s+1/);
    });
  }

  test('bad records are reported with file, line and reason; the good ones around them are imported; a refused document does not stop its batch', async () => {
    const future = { coll: 'Coll0', id: '700', ts: '2099-01-01T00:00:00Z', fields: [['desc', 'from the future']] as [string, never][] };
    const records: Placed[] = [
      ...RECORDS.slice(0, 3),
      { raw: '{"id":"800","coll":{"@mod":"Coll0"},"ts":', coll: 'Coll0' },
      { doc: future },
      ...RECORDS.slice(3),
    ];
    const written = writeSnapshot(path.join(dir, 'bad'), { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: COLLECTIONS, records });
    const reportFile = path.join(dir, 'bad-report.json');
    const run = await flora([written.exportDir, '--url', srv.url, '--secret', srv.secret, '--database', 'imported/bad', '--report', reportFile], {});
    assert.equal(run.code, 1, run.stderr + run.stdout);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as { problems: { file: string; line: number; reason: string }[]; collections: Record<string, { written: number }> };
    assert.deepEqual(report.problems.map((p) => [path.basename(p.file), p.line]), [
      [path.basename(written.placements[3].file), written.placements[3].line],
      [path.basename(written.placements[4].file), written.placements[4].line],
    ]);
    assert.match(report.problems[1].reason, /Coll0\/700: invalid write time/);
    assert.equal(report.collections.Coll0.written + report.collections.Coll1.written, 6);
    assert.match(run.stdout, /2 record\(s\) not imported/);
    await assertImported('imported/bad', 'tagged');
  });
});

describe('an interrupted import', () => {
  test('killed halfway, run again: every document once, the second run writing only what the first did not', async () => {
    const docs = Array.from({ length: 3000 }, (_, i) => ({ coll: 'Many', id: String(10_000 + i), ts: '2025-01-09T19:07:20.000001Z', fields: [['n', { int: i }]] as [string, never][] }));
    const written = writeSnapshot(path.join(dir, 'interrupted'), { encoding: 'tagged', layout: 'jsonl', gzip: true, collections: ['Many'], records: docs.map((doc) => ({ doc })) });
    const args = [written.exportDir, '--url', srv.url, '--secret', srv.secret, '--database', 'imported/interrupted', '--batch', '100', '--in-flight', '1'];
    const proc = spawn(process.execPath, [FLORA_BIN, 'import', ...args], { cwd: ROOT, env: { ...process.env, FLORA_SECRET: '', FLORA_URL: '' }, stdio: 'ignore' });
    const client = new QueryClient(srv.url, srv.secret).scoped('imported/interrupted');
    const count = async () => {
      try {
        return Number((await client.query('{"count":{"documents":{"collection":"Many"}}}')).resource);
      } catch {
        return 0; // the database or collection is not there yet
      }
    };
    while ((await count()) < 500) await new Promise((r) => setTimeout(r, 20));
    proc.kill('SIGKILL');
    await new Promise((r) => proc.once('exit', r));
    // A transaction sent before the kill may still commit: what the first run wrote is what the
    // second finds there.
    const reportFile = path.join(dir, 'interrupted.json');
    const again = await flora([...args, '--report', reportFile]);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as { collections: Record<string, { written: number; existing: number }> };
    const { written: second, existing: first } = report.collections.Many;
    assert.ok(first >= 500 && first < 3000, `${first} written before the kill`);
    assert.equal(first % 100, 0, 'whole transactions only');
    assert.equal(first + second, 3000);
    assert.equal(await count(), 3000);
  });
});

describe('driver dumps', () => {
  test('one NDJSON file per collection, credentials with their hash', async () => {
    const dumps = path.join(dir, 'dumps');
    await mkdir(dumps, { recursive: true });
    for (const coll of ['Coll0', 'Coll1']) writeDump(dumps, `${coll}.ndjson`, DOCS.filter((d) => d.coll === coll).map(dumpRecord));
    writeDump(dumps, 'credentials.ndjson', [dumpCredential(CREDENTIAL, true)]);
    const run = await flora([dumps, '--url', srv.url, '--secret', srv.secret, '--database', 'imported/dumps', '--quiet']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.equal(run.stderr, '', '--quiet: no progress');
    await assertImported('imported/dumps', 'dump');
  });
});

describe('schema as code', () => {
  test("fauna-schema-migrate's resources first, in dependency order: the index serves the imported documents, the function gets its role", async () => {
    const resources = path.join(dir, 'fauna', 'resources');
    await mkdir(path.join(resources, 'functions'), { recursive: true });
    await writeFile(path.join(resources, 'a-role.fql'), `CreateRole({ name: "reader", privileges: [{ resource: Collection("Coll0"), actions: { read: true } }, { resource: Function("describe"), actions: { call: true } }] })`);
    await writeFile(path.join(resources, 'functions', 'describe.js'), `import { query as q } from 'faunadb'\nexport default q.CreateFunction({ name: "describe", body: q.Query(q.Lambda(["ref"], q.Select(["data", "desc"], q.Get(q.Var("ref"))))), role: q.Role("reader") })`);
    await writeFile(path.join(resources, 'index.fql'), `CreateIndex({ name: "coll0_by_desc", source: Collection("Coll0"), terms: [{ field: ["data", "desc"] }] })`);
    await writeFile(path.join(resources, 'coll0.fql'), `CreateCollection({ name: "Coll0", history_days: 7 })`);
    const written = writeSnapshot(path.join(dir, 'schema'), { encoding: 'tagged', layout: 'jsonl', gzip: true, collections: COLLECTIONS, records: RECORDS });
    const run = await flora([written.exportDir, '--schema', path.join(dir, 'fauna'), '--url', srv.url, '--secret', srv.secret, '--database', 'imported/schema']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /schema: 6 created/); // database imported/schema (the parent exists), 4 resources, Coll1
    const client = new Client({ secret: `${srv.secret}:imported/schema:admin`, domain: '127.0.0.1', port: srv.port, scheme: 'http' });
    assert.deepEqual(await client.query(q.Select('data', q.Map(q.Paginate(q.Match(q.Index('coll0_by_desc'), 'one')), q.Lambda('r', q.Select('id', q.Var('r')))))), ['412']);
    assert.deepEqual(await client.query(q.Select('history_days', q.Get(q.Collection('Coll0')))), 7);
    assert.equal(await client.query(q.Equals(q.Select('role', q.Get(q.Function('describe'))), q.Role('reader'))), true);
    assert.equal(await client.query(q.Call(q.Function('describe'), q.Ref(q.Collection('Coll0'), '411'))), 'zero');
    const again = await flora(['--schema', path.join(dir, 'fauna'), '--url', srv.url, '--secret', srv.secret, '--database', 'imported/schema']);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stdout, /^schema: 0 created, 6 already there\n$/); // the two databases and the four resources
  });

  test('a resource file that is not a Create call, or not FQL, is reported by file and line; the others are created', async () => {
    const resources = path.join(dir, 'bad-resources');
    await mkdir(resources, { recursive: true });
    await writeFile(path.join(resources, 'ok.fql'), `CreateCollection({ name: "fine" })`);
    await writeFile(path.join(resources, 'get.fql'), `Get(Collection("fine"))`);
    await writeFile(path.join(resources, 'broken.fql'), `CreateCollection({ name: "x" `);
    const run = await flora(['--schema', resources, '--url', srv.url, '--secret', srv.secret, '--database', 'imported/badschema']);
    assert.equal(run.code, 1, run.stderr + run.stdout);
    assert.match(run.stdout, /broken\.fql:1: /);
    assert.match(run.stdout, /get\.fql:1: get is not a resource this import creates/);
    assert.match(run.stdout, /schema: 2 created/);
  });
});

describe('bad usage and failures', () => {
  test('each gets a clear message and its exit code', async () => {
    const noSecret = await flora([dir, '--url', srv.url]);
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.stderr, /a secret is required/);
    const nothing = await flora(['--url', srv.url, '--secret', srv.secret]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /a source, --schema, or both/);
    const badBatch = await flora([dir, '--secret', srv.secret, '--batch', '0']);
    assert.equal(badBatch.code, 2);
    assert.match(badBatch.stderr, /--batch must be a positive integer/);
    const unknown = await flora([dir, '--secret', srv.secret, '--frobnicate']);
    assert.equal(unknown.code, 2);
    const empty = await mkdtemp(path.join(dir, 'empty-'));
    const noExport = await flora([empty, '--url', srv.url, '--secret', srv.secret]);
    assert.equal(noExport.code, 1);
    assert.match(noExport.stderr, /flora import: /);
    const written = writeSnapshot(path.join(dir, 'unauth'), { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: COLLECTIONS, records: RECORDS });
    const wrongSecret = await flora([written.exportDir, '--url', srv.url, '--secret', 'nope']);
    assert.equal(wrongSecret.code, 1);
    assert.match(wrongSecret.stderr, /flora import: query refused: HTTP 401 unauthorized/);
    const down = await flora([written.exportDir, '--url', 'http://127.0.0.1:1', '--secret', srv.secret]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /flora import: cannot reach http:\/\/127\.0\.0\.1:1/);
  });
});
