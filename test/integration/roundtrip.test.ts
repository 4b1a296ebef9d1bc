// export | import: a database tree exported from one server with `flora export --history` and
// imported into a fresh one with `flora import` answers an application's queries as the original
// did — documents with their ts, refs, index pages (terms, values, bindings, unique), history,
// functions with their roles, role predicates, and users logging in with their passwords.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { query as q, type Client, type Expr } from 'faunadb';
import { ClientPool, FLORA_BIN, ROOT, startFlora, type FloraProcess } from '../helpers/server';

let from: FloraProcess;
let into: FloraProcess;
let pools: ClientPool[] = [];
let dir: string;

function flora(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [FLORA_BIN, ...args], { cwd: ROOT, env: { ...process.env, FLORA_SECRET: '', FLORA_URL: '' } });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => resolve({ code: code ?? 1, out }));
  });
}

function admin(srv: FloraProcess, db = ''): Client {
  const pool = new ClientPool(srv.url);
  pools.push(pool);
  return pool.client(db ? `${srv.secret}:${db}:admin` : srv.secret);
}

before(async () => {
  // Both settle before a failure is thrown: one started beside a failed one is stopped by after().
  const [a, b] = await Promise.allSettled([startFlora(), startFlora()]);
  if (a.status === 'fulfilled') from = a.value;
  if (b.status === 'fulfilled') into = b.value;
  for (const r of [a, b]) if (r.status === 'rejected') throw r.reason;
  dir = await mkdtemp(path.join(tmpdir(), 'flora-roundtrip-'));
});
after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all([from?.stop(), into?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** An application's database: schema, documents of every kind of value, history, users. */
async function populate(c: Client): Promise<void> {
  await c.query(q.Do(q.CreateCollection({ name: 'users' }), q.CreateCollection({ name: 'orders', history_days: 7, data: { owner: 'shop team' } })));
  await c.query(
    q.Do(
      q.CreateIndex({ name: 'users_by_email', source: q.Collection('users'), terms: [{ field: ['data', 'email'] }], unique: true }),
      q.CreateIndex({ name: 'orders_by_user', source: q.Collection('orders'), terms: [{ field: ['data', 'user'] }], values: [{ field: ['data', 'total'] }, { field: ['ref'] }] }),
      q.CreateIndex({
        name: 'orders_by_size',
        source: { collection: q.Collection('orders'), fields: { size: q.Query(q.Lambda('o', q.If(q.GT(q.Select(['data', 'total'], q.Var('o')), 100), 'big', 'small'))) } },
        terms: [{ binding: 'size' }],
      }),
      q.CreateRole({ name: 'customer', membership: [{ resource: q.Collection('users') }], privileges: [{ resource: q.Collection('orders'), actions: { read: q.Query(q.Lambda('r', q.Equals(q.Select(['data', 'user'], q.Get(q.Var('r'))), q.CurrentIdentity()))) } }, { resource: q.Index('orders_by_user'), actions: { read: true } }] }),
    ),
  );
  await c.query(q.CreateFunction({ name: 'total_of', body: q.Query(q.Lambda('u', q.Sum(q.Map(q.Select('data', q.Paginate(q.Match(q.Index('orders_by_user'), q.Var('u')))), q.Lambda('e', q.Select(0, q.Var('e'))))))), role: 'server' }));
  await c.query(
    q.Do(
      q.Create(q.Ref(q.Collection('users'), '1'), { data: { email: 'ada@example.com', name: 'Ada', big: q.ToInteger('9007199254740993'), joined: q.Date('2024-02-29'), seen: q.Time('2025-01-09T19:07:25.642703Z'), avatar: q.Bytes('AAEC/w=='), ratio: 1.0, tags: ['a', { deep: [1, 2.5] }] }, credentials: { password: 'ada-secret' } }),
      q.Create(q.Ref(q.Collection('users'), '2'), { data: { email: 'bob@example.com', name: 'Bob' }, credentials: { password: 'bob-secret' } }),
    ),
  );
  for (const [id, user, total] of [['10', '1', 50], ['11', '1', 150], ['12', '2', 70], ['13', '2', 500]] as const)
    await c.query(q.Create(q.Ref(q.Collection('orders'), id), { data: { user: q.Ref(q.Collection('users'), user), total } }));
  await c.query(q.Update(q.Ref(q.Collection('orders'), '10'), { data: { total: 60 } }));
  await c.query(q.Update(q.Ref(q.Collection('orders'), '10'), { data: { note: 'gift' } }));
  await c.query(q.Delete(q.Ref(q.Collection('orders'), '13')));
}

/**
 * A document's history as [ts, data or null] per event. (Not the events themselves: an import writes
 * each past version with Insert, which stores an update as a create with its whole data, so Events
 * of an imported document shows creates where the original showed updates with their changes.)
 */
function versions(ref: Expr): Expr {
  return q.Map(
    q.Select('data', q.Paginate(q.Events(ref))),
    q.Lambda('e', q.Let({ ts: q.Select('ts', q.Var('e')) }, [q.Var('ts'), q.If(q.Exists(ref, q.Var('ts')), q.Select('data', q.Get(ref, q.Var('ts'))), null)])),
  );
}

/** The application's queries, each answering JSON-comparable data. */
const QUERIES: [string, Expr][] = [
  ['every user, with ts', q.Map(q.Paginate(q.Documents(q.Collection('users'))), q.Lambda('r', q.Get(q.Var('r'))))],
  ['every order, with ts', q.Map(q.Paginate(q.Documents(q.Collection('orders'))), q.Lambda('r', q.Get(q.Var('r'))))],
  ['an index with values', q.Paginate(q.Match(q.Index('orders_by_user'), q.Ref(q.Collection('users'), '1')))],
  ['an index with a binding', q.Paginate(q.Match(q.Index('orders_by_size'), 'big'))],
  ['a unique index', q.Paginate(q.Match(q.Index('users_by_email'), 'bob@example.com'))],
  ['a function', q.Call(q.Function('total_of'), q.Ref(q.Collection('users'), '2'))],
  ['versions of an updated document', versions(q.Ref(q.Collection('orders'), '10'))],
  ['versions of a deleted document', versions(q.Ref(q.Collection('orders'), '13'))],
  ['the function role', q.Select('role', q.Get(q.Function('total_of')))],
  ['the collection definitions', q.Map(q.Paginate(q.Collections()), q.Lambda('c', q.Let({ d: q.Get(q.Var('c')) }, [q.Select('name', q.Var('d')), q.Select('history_days', q.Var('d'), null), q.Select('data', q.Var('d'), null)])))],
  ['the index definitions', q.Map(q.Paginate(q.Indexes()), q.Lambda('i', q.Let({ d: q.Get(q.Var('i')) }, q.Select(['terms'], q.Var('d'), null))))],
];

/** Every query answers on the copy (`into`, database `copy`) as on the original (`from`, `original`), in both databases of the tree. */
async function assertSameAnswers(original: string, copy: string): Promise<void> {
  for (const db of ['', '/eu']) {
    const [a, b] = [admin(from, original + db), admin(into, copy + db)];
    for (const [name, expr] of QUERIES) assert.deepEqual(await b.query(expr), await a.query(expr), `${copy + db}: ${name}`);
  }
}

let populated: Promise<void> | undefined;
/** The original: database shop and its child eu, each an application's database. */
function original(): Promise<void> {
  return (populated ??= (async () => {
    await admin(from).query(q.CreateDatabase({ name: 'shop' }));
    await admin(from, 'shop').query(q.CreateDatabase({ name: 'eu' }));
    await populate(admin(from, 'shop'));
    await populate(admin(from, 'shop/eu'));
  })());
}

test('a nested database exported with its history and imported into another server answers the same', async () => {
  await original();

  const out = path.join(dir, 'export');
  const exported = await flora(['export', '--url', from.url, '--secret', from.secret, '--out', out, '--history']);
  assert.equal(exported.code, 0, exported.out);
  const imported = await flora(['import', out, '--url', into.url, '--secret', into.secret, '--quiet']);
  assert.equal(imported.code, 0, imported.out);
  assert.match(imported.out, /history: \d+ versions written/);

  await assertSameAnswers('shop', 'shop');
  for (const db of ['shop', 'shop/eu']) {
    const b = admin(into, db);
    // Users log in with their passwords, and their role's predicate holds on the copy.
    const token = (await b.query(q.Login(q.Ref(q.Collection('users'), '1'), { password: 'ada-secret' }))) as { secret: string };
    const ada = new ClientPool(into.url);
    pools.push(ada);
    const asAda = ada.client(token.secret);
    assert.deepEqual(await asAda.query(q.Select(['data', 'total'], q.Get(q.Ref(q.Collection('orders'), '11')))), 150);
    await assert.rejects(asAda.query(q.Get(q.Ref(q.Collection('orders'), '12'))), /permission denied/i);
    // The unique index still refuses a second user with the same email.
    await assert.rejects(b.query(q.Create(q.Collection('users'), { data: { email: 'ada@example.com' } })), /instance not unique/);
  }

  // Importing again writes no document or credential twice (history versions are written again:
  // Insert at a version's own time replaces it with itself).
  const reportFile = path.join(dir, 'again.json');
  const again = await flora(['import', out, '--url', into.url, '--secret', into.secret, '--quiet', '--report', reportFile]);
  assert.equal(again.code, 0, again.out);
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as { collections: Record<string, { written: number; existing: number }>; credentials: { written: number; existing: number }; schema: { created: string[] } };
  assert.deepEqual(Object.values(report.collections).map((c) => c.written), [0, 0, 0, 0]);
  assert.deepEqual(Object.values(report.collections).map((c) => c.existing).sort(), [2, 2, 3, 3]);
  assert.deepEqual(report.credentials, { written: 0, existing: 4 });
  assert.deepEqual(report.schema.created, []);
  for (const [name, expr] of QUERIES) assert.deepEqual(await admin(into, 'shop').query(expr), await admin(from, 'shop').query(expr), `after the rerun: ${name}`);
});

test('a copy from a live server (--from-url) with its history answers the same', async () => {
  await original();
  const run = await flora(['import', '--from-url', from.url, '--from-secret', from.secret, '--from-database', 'shop', '--history', '--database', 'live', '--url', into.url, '--secret', into.secret]);
  assert.equal(run.code, 0, run.out);
  assert.match(run.out, /history: \d+ versions written/);
  await assertSameAnswers('shop', 'live');
  const token = (await admin(into, 'live').query(q.Login(q.Ref(q.Collection('users'), '2'), { password: 'bob-secret' }))) as { secret: string };
  assert.match(token.secret, /\S/);
  const bad = await flora(['import', '--from-url', from.url, '--url', into.url, '--secret', into.secret]);
  assert.equal(bad.code, 2);
  assert.match(bad.out, /--from-url needs --from-secret/);
  // A source that cannot be read: a clear failure, and its temporary export folder removed.
  const temps = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('flora-import-live-')));
  const tempsBefore = temps();
  const down = await flora(['import', '--from-url', 'http://127.0.0.1:1', '--from-secret', 'x', '--url', into.url, '--secret', into.secret]);
  assert.equal(down.code, 1, down.out);
  assert.match(down.out, /flora import: cannot reach http:\/\/127\.0\.0\.1:1/);
  assert.deepEqual([...temps()].filter((n) => !tempsBefore.has(n)), [], 'no temporary folder left behind');
  const both = await flora(['import', dir, '--from-url', from.url, '--from-secret', 'x', '--url', into.url, '--secret', into.secret]);
  assert.equal(both.code, 2);
  assert.match(both.out, /one source at a time/);
});
