// `flora export` against a real server populated through the faunadb driver: every value type,
// schema (indexes with terms, values, bindings and unique; functions; roles with predicates),
// credentials, keys, tokens, history and databases two levels deep, read back by the flora reader
// exactly as the server holds them at the snapshot time; writes committed while the export runs
// left out; the manifest's counts and checksums; a changed file reported; Fauna's snapshot layout
// read back by openSource; and the command's usage and failures.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { query as q, type Client } from 'faunadb';
import { runExport, type ExportOptions } from '../../src/transfer/export';
import { httpClient } from '../../src/transfer/export/client';
import { at, documents, getVar, mapPage, paginate } from '../../src/transfer/export/fql';
import { openSource, SourceError, type SourceItem } from '../../src/transfer/sources';
import { decodeLiteral } from '../../src/wire/decode';
import { parseJson } from '../../src/wire/json';
import { Bytes, DateV, Ref, Time, type Obj, type Value } from '../../src/values/types';
import { parseDate, parseIsoTime } from '../../src/wire/time';
import { ClientPool, FLORA_BIN, ROOT, startFlora, type FloraProcess } from '../helpers/server';
import { canon, collect } from '../helpers/sourceItems';

let srv: FloraProcess;
let pool: ClientPool;
let root: Client;
let work: string;

const LONG = '9007199254740993'; // beyond 2^53
const EVERY_TYPE_ID = '101';

/** The every-type document's data as Flora values: what the reader must give back. */
function everyTypeData(): Obj {
  return new Map<string, Value>([
    ['long', BigInt(LONG)],
    ['negLong', -9223372036854775808n],
    ['double', 2.5],
    ['wholeDouble', 3],
    ['text', 'héllo wörld ✓ 🎉 "quoted" \\ back'],
    ['yes', true],
    ['at', new Time(parseIsoTime('2024-02-29T12:34:56.123456Z')!)],
    ['day', new DateV(parseDate('2024-02-29')!)],
    ['blob', new Bytes(Buffer.from('AAEC/w==', 'base64'))],
    ['friend', Ref.doc('things', '201')],
    ['nested', new Map<string, Value>([['list', [1n, 'two', [3.5], new Map([['deep', true]])]], ['empty', new Map()], ['none', []]])],
    ['escaped', new Map<string, Value>([['@weird', 1n], ['plain', 'x']])],
    ['lookalike', new Map<string, Value>([['id', '5'], ['coll', 'things']])],
  ]);
}

async function asAdmin(dbPath: string): Promise<Client> {
  return pool.client(`${srv.secret}:${dbPath}:admin`);
}

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  work = mkdtempSync(path.join(tmpdir(), 'flora-export-'));

  await root.query(q.Do(q.CreateCollection({ name: 'people', history_days: null }), q.CreateCollection({ name: 'things' })));
  await root.query(q.Create(q.Ref(q.Collection('things'), '201'), { data: { name: 'thing' } }));
  await root.query(
    q.Create(q.Ref(q.Collection('things'), EVERY_TYPE_ID), {
      data: {
        long: q.ToInteger(LONG),
        negLong: q.ToInteger('-9223372036854775808'),
        double: 2.5,
        wholeDouble: q.ToDouble(3),
        text: 'héllo wörld ✓ 🎉 "quoted" \\ back',
        yes: true,
        at: q.Time('2024-02-29T12:34:56.123456Z'),
        day: q.Date('2024-02-29'),
        blob: q.Bytes('AAEC/w=='),
        friend: q.Ref(q.Collection('things'), '201'),
        nested: { list: [1, 'two', [3.5], { deep: true }], empty: {}, none: [] },
        escaped: { '@weird': 1, plain: 'x' },
        lookalike: { id: '5', coll: 'things' },
      },
    }),
  );
  await root.query(q.Create(q.Ref(q.Collection('things'), '102'), { data: { name: 'expiring' }, ttl: q.TimeAdd(q.Now(), 30, 'days') }));
  await root.query(q.Create(q.Ref(q.Collection('people'), '1'), { data: { name: 'alice', age: 30 }, credentials: { password: 'secret-pw' } }));
  await root.query(q.Create(q.Ref(q.Collection('people'), '2'), { data: { name: 'bob', age: 40, tags: ['a'] } }));
  await root.query(q.Update(q.Ref(q.Collection('people'), '2'), { data: { age: 41, tags: null } }));
  await root.query(q.Create(q.Ref(q.Collection('people'), '3'), { data: { name: 'carol' } }));
  await root.query(q.Delete(q.Ref(q.Collection('people'), '3')));
  await root.query(
    q.CreateIndex({
      name: 'people_by_upper_name',
      source: { collection: q.Collection('people'), fields: { upper: q.Query(q.Lambda('d', q.UpperCase(q.Select(['data', 'name'], q.Var('d'))))) } },
      terms: [{ binding: 'upper' }],
      values: [{ field: ['data', 'age'], reverse: true }, { field: ['ref'] }],
      unique: true,
    }),
  );
  await root.query(q.CreateFunction({ name: 'double', body: q.Query(q.Lambda('x', q.Multiply(q.Var('x'), 2))), role: 'server' }));
  await root.query(
    q.CreateRole({
      name: 'member',
      membership: [{ resource: q.Collection('people'), predicate: q.Query(q.Lambda('r', q.GTE(q.Select(['data', 'age'], q.Get(q.Var('r'))), 18))) }],
      privileges: [
        { resource: q.Collection('people'), actions: { read: q.Query(q.Lambda('r', q.Equals(q.Var('r'), q.CurrentIdentity()))) } },
        { resource: q.Function('double'), actions: { call: true } },
      ],
    }),
  );
  // More than a page of documents, and a document with more versions than a page of its events.
  await root.query(q.CreateCollection({ name: 'bulk' }));
  await root.query(q.Foreach(Array.from({ length: 1050 }, (_, i) => String(i + 1)), q.Lambda('id', q.Create(q.Ref(q.Collection('bulk'), q.Var('id')), { data: { n: q.ToInteger(q.Var('id')) } }))));
  const now = BigInt(await root.query(q.ToMicros(q.Now())) as number);
  await root.query(
    q.Do(Array.from({ length: 150 }, (_, i) => q.Insert(q.Ref(q.Collection('people'), '50'), Number(now - 1_000_000n + BigInt(i) * 1000n), 'create', { data: { v: i } }))),
  );
  await root.query(q.CreateKey({ role: 'server', data: { purpose: 'app' } }));
  await root.query(q.Login(q.Ref(q.Collection('people'), '1'), { password: 'secret-pw' }));

  await root.query(q.CreateDatabase({ name: 'app', data: { tier: 'gold' } }));
  const app = await asAdmin('app');
  await app.query(q.CreateCollection({ name: 'orders' }));
  await app.query(q.Create(q.Ref(q.Collection('orders'), '7'), { data: { total: 12.5, at: q.Date('2025-01-02') } }));
  await app.query(q.CreateDatabase({ name: 'tenant' }));
  const tenant = await asAdmin('app/tenant');
  await tenant.query(q.CreateCollection({ name: 'deep' }));
  await tenant.query(q.Create(q.Ref(q.Collection('deep'), '9'), { data: { level: 2, big: q.ToInteger(LONG) } }));
});

after(async () => {
  await pool.close();
  await srv.stop();
  rmSync(work, { recursive: true, force: true });
});

const base = (out: string, extra: Partial<ExportOptions> = {}): ExportOptions => ({
  url: srv.url,
  secret: srv.secret,
  database: [],
  out,
  format: 'flora',
  history: true,
  keys: true,
  gzip: true,
  ...extra,
});

/** Every document of every collection of database `dbPath` at `ts`, as the server gives them, by collection/id. */
async function serverDocs(dbPath: string[], collections: string[], ts: bigint): Promise<Map<string, Obj>> {
  const client = httpClient(srv.url, srv.secret, dbPath);
  const out = new Map<string, Obj>();
  for (const c of collections) {
    const page = decodeLiteral(await client.query(at(ts, mapPage(paginate(documents(c), 100_000), 'r', getVar('r'))))) as Obj;
    for (const doc of page.get('data') as Obj[]) {
      const ref = doc.get('ref') as Ref;
      out.set(`${c}/${ref.id}`, doc);
    }
  }
  return out;
}

const of = <K extends SourceItem['kind']>(items: SourceItem[], kind: K) => items.filter((i): i is SourceItem & { kind: K } => i.kind === kind);

describe('flora format', () => {
  let out: string;
  let snapshot: bigint;
  let items: SourceItem[];

  before(async () => {
    out = path.join(work, 'flora');
    const result = await runExport({
      ...base(out),
      // Committed after T: none of it may be in the export.
      onSnapshot: async () => {
        await root.query(q.Create(q.Ref(q.Collection('things'), '999'), { data: { late: true } }));
        await root.query(q.Update(q.Ref(q.Collection('people'), '1'), { data: { name: 'changed' } }));
        await root.query(q.CreateCollection({ name: 'late_collection' }));
        await (await asAdmin('app')).query(q.Create(q.Ref(q.Collection('orders'), '8'), { data: { late: true } }));
      },
    });
    snapshot = result.snapshotTs;
    items = await collect(out);
  });

  test('the reader gives every document exactly as the server holds it at T, and nothing written after', async () => {
    assert.deepEqual(of(items, 'problem'), []);
    const docs = of(items, 'document').map((i) => i.doc);
    const expected = new Map<string, Obj>([
      ...[...(await serverDocs([], ['people', 'things', 'bulk'], snapshot))].map(([k, v]) => [`/${k}`, v] as const),
      ...[...(await serverDocs(['app'], ['orders'], snapshot))].map(([k, v]) => [`app/${k}`, v] as const),
      ...[...(await serverDocs(['app', 'tenant'], ['deep'], snapshot))].map(([k, v]) => [`app/tenant/${k}`, v] as const),
    ]);
    assert.deepEqual(docs.map((d) => `${(d.database ?? []).join('/')}/${d.collection}/${d.id}`).sort(), [...expected.keys()].sort());
    for (const d of docs) {
      const want = expected.get(`${(d.database ?? []).join('/')}/${d.collection}/${d.id}`)!;
      assert.equal(canon(d.data), canon(want.get('data') ?? new Map()), `${d.collection}/${d.id} data`);
      assert.equal(canon(d.ts), canon(Time.fromMicros(want.get('ts') as bigint)));
      assert.equal(canon(d.ttl), canon(want.get('ttl')));
    }
    const every = docs.find((d) => d.collection === 'things' && d.id === EVERY_TYPE_ID)!;
    assert.equal(canon(every.data), canon(everyTypeData()));
    assert.equal(docs.find((d) => d.collection === 'people' && d.id === '1')!.data.get('name'), 'alice', 'the update after T is not in the export');
    assert.ok(!docs.some((d) => `${d.collection}/${d.id}` === 'things/999' || `${d.collection}/${d.id}` === 'orders/8'), 'documents created after T are not in it');
    assert.ok(docs.find((d) => d.collection === 'things' && d.id === '102')!.ttl instanceof Time);
    const deep = docs.find((d) => d.collection === 'deep')!;
    assert.deepEqual(deep.database, ['app', 'tenant']);
    assert.equal(deep.data.get('big'), BigInt(LONG));
  });

  test('schema, databases, credentials, keys and tokens come as their items, in an order that can be created', () => {
    const schema = of(items, 'schema');
    const names = (native: string, db: string[] = []) =>
      schema.filter((s) => s.native === native && s.database.join('/') === db.join('/')).map((s) => (s.document as Map<string, unknown>).get('name'));
    assert.deepEqual(names('collections').sort(), ['bulk', 'people', 'things'], 'late_collection was created after T');
    assert.deepEqual(names('collections', ['app']), ['orders']);
    assert.deepEqual(names('collections', ['app', 'tenant']), ['deep']);
    assert.deepEqual(names('indexes'), ['people_by_upper_name']);
    assert.deepEqual(names('functions'), ['double']);
    assert.deepEqual(names('roles'), ['member']);

    const index = decodeLiteral(schema.find((s) => s.native === 'indexes')!.document) as Obj;
    assert.equal(index.get('unique'), true);
    assert.equal(canon(index.get('terms')), canon([new Map([['binding', 'upper']])]));
    assert.equal(canon((index.get('values') as Obj[])[0]), canon(new Map<string, Value>([['field', ['data', 'age']], ['reverse', true]])));
    const binding = ((index.get('source') as Obj).get('fields') as Obj).get('upper');
    assert.ok(binding && (binding as object).constructor.name === 'Lambda', 'the binding is a lambda');
    const role = decodeLiteral(schema.find((s) => s.native === 'roles')!.document) as Obj;
    const membership = (role.get('membership') as Obj[])[0];
    assert.equal((membership.get('predicate') as object).constructor.name, 'Lambda');
    assert.equal((role.get('privileges') as Obj[]).length, 2);
    const fn = decodeLiteral(schema.find((s) => s.native === 'functions')!.document) as Obj;
    assert.equal(fn.get('role'), 'server');

    const databases = of(items, 'database').map((d) => d.path.join('/'));
    assert.deepEqual(databases, ['app', 'app/tenant']);
    assert.equal((decodeLiteral(of(items, 'database')[0].document) as Obj).get('data') instanceof Map, true);

    const creds = of(items, 'credential').map((c) => c.cred);
    assert.equal(creds.length, 1);
    assert.deepEqual(creds[0].instance, { collection: 'people', id: '1' });
    assert.match(creds[0].hashedPassword, /^\$2[aby]\$/);
    const keys = of(items, 'key');
    assert.equal(keys.length, 1);
    assert.match(String((keys[0].document as Map<string, unknown>).get('hashed_secret')), /^\$2[aby]\$/);
    assert.equal(of(items, 'token').length, 1);

    // Order: a database's schema and child databases before its documents, documents before
    // credentials, history after documents; a child database's items after the item creating it.
    const at = (pred: (i: SourceItem) => boolean) => items.findIndex(pred);
    const lastAt = (pred: (i: SourceItem) => boolean) => items.length - 1 - [...items].reverse().findIndex(pred);
    const topDoc = (i: SourceItem) => i.kind === 'document' && (i.doc.database ?? []).length === 0;
    assert.ok(lastAt((i) => i.kind === 'schema' && i.database.length === 0) < at(topDoc));
    assert.ok(lastAt(topDoc) < at((i) => i.kind === 'credential'));
    assert.ok(lastAt(topDoc) < at((i) => i.kind === 'version'));
    assert.ok(at((i) => i.kind === 'database' && i.path.join('/') === 'app') < at((i) => i.kind === 'schema' && i.database.join('/') === 'app'));
    assert.ok(at((i) => i.kind === 'database' && i.path.join('/') === 'app/tenant') < at((i) => i.kind === 'document' && i.doc.collection === 'deep'));
  });

  test('history: every version within retention with its whole data, deleted documents included', () => {
    const versions = of(items, 'version').filter((v) => v.collection === 'people');
    const bob = versions.filter((v) => v.id === '2');
    assert.deepEqual(
      bob.map((v) => v.action),
      ['create', 'update'],
    );
    assert.equal(canon(bob[1].data), canon(new Map<string, Value>([['name', 'bob'], ['age', 41n]])), 'an update carries the whole version, not the diff');
    assert.deepEqual(
      versions.filter((v) => v.id === '3').map((v) => [v.action, v.data === null]),
      [
        ['create', false],
        ['delete', true],
      ],
    );
    assert.ok(versions.every((v) => v.ts.micros <= snapshot));
    const many = versions.filter((v) => v.id === '50');
    assert.equal(many.length, 150, 'versions past the first page of events');
    assert.deepEqual(many.map((v) => (v.data as Obj).get('v')), Array.from({ length: 150 }, (_, i) => BigInt(i)));
    assert.ok(!versions.some((v) => v.id === '1' && v.action === 'update'), 'the update after T is not in the history');
  });

  test('the manifest lists every file with its records, bytes and SHA-256, and each database with its counts', () => {
    const manifest = parseJson(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Map<string, any>;
    assert.equal(manifest.get('format'), 'flora-export');
    assert.equal(manifest.get('version'), 1n);
    assert.equal(manifest.get('snapshot_ts'), snapshot);
    assert.equal(parseIsoTime(manifest.get('snapshot_time')), snapshot * 1000n);
    const files = manifest.get('files') as Map<string, any>[];
    for (const f of files) {
      const bytes = readFileSync(path.join(out, f.get('path')));
      assert.equal(f.get('sha256'), createHash('sha256').update(bytes).digest('hex'), f.get('path'));
      assert.equal(f.get('bytes'), BigInt(bytes.length));
      const lines = gunzipSync(bytes).toString('utf8').split('\n').filter((l) => l !== '');
      assert.equal(f.get('records'), BigInt(lines.length), f.get('path'));
    }
    assert.ok(files.some((f) => f.get('path') === 'db/databases/app/databases/tenant/collections/deep.ndjson.gz'));
    const dbs = manifest.get('databases') as Map<string, any>[];
    const top = dbs.find((d) => d.get('path') === '')!;
    assert.equal(top.get('collections').get('people'), 3n);
    assert.equal(top.get('collections').get('bulk'), 1050n);
    assert.equal(top.get('collections').get('things'), 3n);
    assert.equal(top.get('credentials'), 1n);
    assert.equal(top.get('keys'), 1n);
    assert.equal(top.get('tokens'), 1n);
    assert.equal(dbs.find((d) => d.get('path') === 'app/tenant')!.get('collections').get('deep'), 1n);
  });

  test('a changed file is reported by name, a missing manifest is an incomplete export, a re-run replaces the export', async () => {
    const copy = path.join(work, 'tampered');
    cpSync(out, copy, { recursive: true });
    const file = path.join(copy, 'db', 'collections', 'things.ndjson.gz');
    const text = gunzipSync(readFileSync(file)).toString('utf8').replace('"thing"', '"THING"');
    writeFileSync(file, gzipSync(Buffer.from(text)));
    writeFileSync(path.join(copy, 'db', 'stray.ndjson'), '{}\n');
    const problems = of(await collect(copy), 'problem');
    assert.ok(problems.some((p) => p.file === file && /SHA-256|bytes/.test(p.reason)), JSON.stringify(problems));
    assert.ok(problems.some((p) => p.file === path.join(copy, 'db', 'stray.ndjson') && /not listed/.test(p.reason)));
    // A line cut off: the records count differs too.
    const creds = path.join(copy, 'db', 'credentials.ndjson.gz');
    writeFileSync(creds, gzipSync(Buffer.from('')));
    const again = of(await collect(copy), 'problem');
    assert.ok(again.some((p) => p.file === creds && /records/.test(p.reason)), JSON.stringify(again));

    rmSync(path.join(copy, 'manifest.json'));
    await assert.rejects(openSource(copy), (e: Error) => e instanceof SourceError && /without its manifest.json/.test(e.message));
    await runExport(base(copy, { history: false, keys: false, gzip: false }));
    const rerun = await collect(copy);
    assert.deepEqual(of(rerun, 'problem'), [], 'the earlier files are gone');
    assert.equal(of(rerun, 'key').length, 0);
    assert.ok(readdirSync(path.join(copy, 'db', 'collections')).every((n) => n.endsWith('.ndjson')));
  });
});

describe("Fauna's snapshot layout", () => {
  for (const encoding of ['tagged', 'simple'] as const) {
    test(`fauna-${encoding} is read back by openSource as the documents and credentials`, async () => {
      const out = path.join(work, `fauna-${encoding}`);
      const { snapshotTs } = await runExport(base(out, { format: `fauna-${encoding}`, history: false, keys: false, faunaFileBytes: 8000 }));
      const source = await openSource(out);
      assert.equal(source.describe().format, 'fauna-snapshot');
      assert.equal(source.describe().encoding, encoding);
      assert.ok(source.describe().files.length > 2, 'small roll-over size: several files per collection');
      const items = await collect(out);
      assert.deepEqual(of(items, 'problem'), []);
      const docs = of(items, 'document').map((i) => i.doc);
      const server = await serverDocs([], ['people', 'things', 'bulk'], snapshotTs);
      assert.deepEqual(docs.map((d) => `${d.collection}/${d.id}`).sort(), [...server.keys()].sort());
      for (const d of docs) {
        const want = server.get(`${d.collection}/${d.id}`)!;
        assert.equal(canon(d.ts), canon(Time.fromMicros(want.get('ts') as bigint)));
        assert.equal(canon(d.ttl), canon(want.get('ttl')));
        if (encoding === 'tagged') assert.equal(canon(d.data), canon(want.get('data') ?? new Map()), `${d.collection}/${d.id}`);
      }
      const every = docs.find((d) => d.collection === 'things' && d.id === EVERY_TYPE_ID)!;
      if (encoding === 'tagged') assert.equal(canon(every.data), canon(everyTypeData()));
      else {
        // simple: times, dates and bytes are strings; {id, coll} naming an exported collection is a ref.
        assert.equal(every.data.get('at'), '2024-02-29T12:34:56.123456Z');
        assert.equal(every.data.get('long'), BigInt(LONG));
        assert.equal(canon(every.data.get('friend')), canon(Ref.doc('things', '201')));
        assert.equal(canon(every.data.get('lookalike')), canon(Ref.doc('things', '5')), 'the documented ambiguity of simple');
      }
      const creds = of(items, 'credential').map((c) => c.cred);
      assert.deepEqual(creds.map((c) => c.instance), [{ collection: 'people', id: '1' }]);
      // A child database is a tree of its own.
      const app = await collect(path.join(out, 'databases', 'app'));
      assert.deepEqual(of(app, 'document').map((i) => `${i.doc.collection}/${i.doc.id}`).sort(), ['orders/7', 'orders/8']);
      const tenant = await collect(path.join(out, 'databases', 'app', 'databases', 'tenant'));
      assert.equal(of(tenant, 'document')[0].doc.data.get('big'), BigInt(LONG));
    });
  }
});

describe('flora export (the command)', () => {
  function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
    return new Promise((resolve) => {
      const proc = spawn(process.execPath, [FLORA_BIN, 'export', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      proc.on('exit', (code) => resolve({ code: code ?? -1, stderr }));
    });
  }

  test('exports with FLORA_URL and FLORA_SECRET, one progress line per file when not on a terminal', async () => {
    const out = path.join(work, 'cli');
    const r = await run(['--out', out, '--database', 'app', '--no-gzip'], { FLORA_URL: srv.url, FLORA_SECRET: srv.secret });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^collection orders: 2 records/m);
    assert.match(r.stderr, /^tenant: collection deep: 1 records/m);
    assert.match(r.stderr, /export at \d+ complete/);
    const docs = of(await collect(out), 'document').map((i) => i.doc);
    assert.deepEqual(docs.map((d) => `${d.database!.join('/')}:${d.collection}/${d.id}`).sort(), [':orders/7', ':orders/8', 'tenant:deep/9']);
  });

  test('bad flags, a bad secret, an unreachable server, a busy directory: a clear message and the exit code', async () => {
    const usage = [
      [['--out', 'x'], /A secret is required/],
      [['--secret', 's'], /--out <dir> is required/],
      [['--secret', 's', '--out', 'x', '--format', 'csv'], /--format must be one of flora, fauna-simple, fauna-tagged/],
      [['--secret', 's', '--out', 'x', '--format', 'fauna-tagged', '--history'], /--history and --keys are for --format flora/],
      [['--secret', 's', '--out', 'x', '--bogus'], /Unknown option '--bogus'/],
      [['--secret', 's:app:admin', '--database', 'app', '--out', 'x'], /unscoped secret/],
    ] as const;
    for (const [args, message] of usage) {
      const r = await run([...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
    const wrong = await run(['--url', srv.url, '--secret', 'wrong', '--out', path.join(work, 'wrong')]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /query refused: HTTP 401 unauthorized/);
    const nodb = await run(['--url', srv.url, '--secret', srv.secret, '--database', 'nope', '--out', path.join(work, 'nodb')]);
    assert.equal(nodb.code, 1);
    assert.match(nodb.stderr, /query refused \(database nope\): HTTP 401/);
    const down = await run(['--url', 'http://127.0.0.1:1', '--secret', 's', '--out', path.join(work, 'down')]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:1/);
    const busy = path.join(work, 'busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'notes.txt'), 'mine');
    const refused = await run(['--url', srv.url, '--secret', srv.secret, '--out', busy]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not empty and holds no earlier flora export/);
    assert.equal(readFileSync(path.join(busy, 'notes.txt'), 'utf8'), 'mine');
  });

  test("a value Fauna's layout cannot hold names its document; the flora format holds it", async () => {
    await root.query(q.CreateDatabase({ name: 'odd' }));
    const odd = await asAdmin('odd');
    await odd.query(q.CreateCollection({ name: 'fns' }));
    await odd.query(q.Create(q.Ref(q.Collection('fns'), '1'), { data: { f: q.Query(q.Lambda('x', q.Var('x'))) } }));
    const r = await run(['--url', srv.url, '--secret', srv.secret, '--database', 'odd', '--format', 'fauna-tagged', '--out', path.join(work, 'odd')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /document fns\/1: field f: a Lambda value has no form in Fauna's snapshot export \(use --format flora\)/);
    const flora = await run(['--url', srv.url, '--secret', srv.secret, '--database', 'odd', '--out', path.join(work, 'odd-flora')]);
    assert.equal(flora.code, 0, flora.stderr);
    const doc = of(await collect(path.join(work, 'odd-flora')), 'document')[0].doc;
    assert.equal((doc.data.get('f') as object).constructor.name, 'Lambda');
  });
});
