// The permission matrix (fql-v4.md §6.3–§6.5, DECISIONS #2): each built-in role, a key with a user
// role and a logged-in token without roles, against each kind of action on documents, indexes,
// functions, collections, databases and keys. Every cell is either 'ok' or the exact failure status.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, clients, type FloraProcess, type DriverClients } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

type Doc = Record<string, unknown> & { ref: faunadb.values.Ref; ts: number };

const SUBJECTS = ['admin', 'server', 'server-readonly', 'client', 'user role', 'token'] as const;
type Subject = (typeof SUBJECTS)[number];

/** 'ok', or the HTTP status of a `permission denied` failure. */
type Cell = 'ok' | 403;

let srv: FloraProcess;
let root: faunadb.Client;
const subjects = new Map<Subject, DriverClients>();
/** A document per subject for the Delete cell. */
const doomed = new Map<Subject, faunadb.values.Ref>();
let doc: Doc;
let keyRef: faunadb.values.Ref;
let seq = 0;
const fresh = (prefix: string) => `${prefix}_${++seq}`;

interface Action {
  name: string;
  expr: (s: Subject) => faunadb.ExprArg;
  /** admin, server, server-readonly, client, user role, token */
  expect: [Cell, Cell, Cell, Cell, Cell, Cell];
}

// The user role grants read+write on `things`, read on `things_all` and call on `echo`, nothing else.
// Get(ref, ts) is a snapshot read (§7: At semantics), governed by `read`, not `history_read`.
const ACTIONS: Action[] = [
  { name: 'Get a document', expr: () => q.Get(doc.ref), expect: ['ok', 'ok', 'ok', 403, 'ok', 403] },
  { name: 'Create a document', expr: () => q.Create(q.Collection('things'), { data: { n: 1 } }), expect: ['ok', 'ok', 403, 403, 403, 403] },
  { name: 'Update a document', expr: (s) => q.Update(doc.ref, { data: { by: s } }), expect: ['ok', 'ok', 403, 403, 'ok', 403] },
  { name: 'Delete a document', expr: (s) => q.Delete(doomed.get(s)!), expect: ['ok', 'ok', 403, 403, 403, 403] },
  { name: 'Get(ref, ts)', expr: () => q.Get(doc.ref, doc.ts), expect: ['ok', 'ok', 'ok', 403, 'ok', 403] },
  { name: 'Paginate(Match(index))', expr: () => q.Paginate(q.Match(q.Index('things_all'))), expect: ['ok', 'ok', 'ok', 403, 'ok', 403] },
  { name: 'Paginate(Documents(coll))', expr: () => q.Paginate(q.Documents(q.Collection('things'))), expect: ['ok', 'ok', 'ok', 403, 'ok', 403] },
  { name: 'Call a function', expr: () => q.Call(q.Function('echo'), 7), expect: ['ok', 'ok', 403, 403, 'ok', 403] },
  { name: 'CreateCollection', expr: () => q.CreateCollection({ name: fresh('coll') }), expect: ['ok', 'ok', 403, 403, 403, 403] },
  {
    name: 'CreateIndex',
    expr: () => q.CreateIndex({ name: fresh('idx'), source: q.Collection('things') }),
    expect: ['ok', 'ok', 403, 403, 403, 403],
  },
  {
    name: 'CreateFunction',
    expr: () => q.CreateFunction({ name: fresh('fn'), body: q.Query(q.Lambda('x', q.Var('x'))) }),
    expect: ['ok', 'ok', 403, 403, 403, 403],
  },
  { name: 'Update a collection', expr: (s) => q.Update(q.Collection('things'), { data: { by: s } }), expect: ['ok', 'ok', 403, 403, 403, 403] },
  { name: 'Paginate(Collections())', expr: () => q.Paginate(q.Collections()), expect: ['ok', 'ok', 'ok', 403, 403, 403] },
  { name: 'Get a database', expr: () => q.Get(q.Database('child')), expect: ['ok', 403, 403, 403, 403, 403] },
  { name: 'CreateDatabase', expr: () => q.CreateDatabase({ name: fresh('db') }), expect: ['ok', 403, 403, 403, 403, 403] },
  { name: 'CreateKey', expr: () => q.CreateKey({ role: 'server' }), expect: ['ok', 403, 403, 403, 403, 403] },
  { name: 'Paginate(Keys())', expr: () => q.Paginate(q.Keys()), expect: ['ok', 403, 403, 403, 403, 403] },
  { name: 'Get a key', expr: () => q.Get(keyRef), expect: ['ok', 403, 403, 403, 403, 403] },
];

before(async () => {
  srv = await startFlora();
  root = clients(srv.url, srv.secret).h2;
  await root.query(q.Do(q.CreateCollection({ name: 'things' }), q.CreateCollection({ name: 'people' })));
  await root.query(
    q.Do(
      q.CreateIndex({ name: 'things_all', source: q.Collection('things') }),
      q.CreateFunction({ name: 'echo', body: q.Query(q.Lambda('x', q.Var('x'))) }),
      q.CreateDatabase({ name: 'child' }),
    ),
  );
  await root.query(
    q.CreateRole({
      name: 'things_rw',
      privileges: [
        { resource: q.Collection('things'), actions: { read: true, write: true } },
        { resource: q.Index('things_all'), actions: { read: true } },
        { resource: q.Function('echo'), actions: { call: true } },
      ],
    }),
  );
  doc = (await root.query(q.Create(q.Collection('things'), { data: { n: 0 } }))) as Doc;
  for (const s of SUBJECTS) doomed.set(s, ((await root.query(q.Create(q.Collection('things'), { data: { doomed: s } }))) as Doc).ref);
  const keys = (await root.query(
    q.Map(['admin', 'server', 'server-readonly', 'client', 'things_rw'], q.Lambda('role', q.CreateKey({ role: q.Var('role') }))),
  )) as (Doc & { secret: string })[];
  keyRef = keys[1].ref;
  const person = (await root.query(q.Create(q.Collection('people'), { credentials: { password: 'pw' } }))) as Doc;
  const token = (await root.query(q.Login(person.ref, { password: 'pw' }))) as { secret: string };
  const secrets = [...keys.map((k) => k.secret), token.secret];
  SUBJECTS.forEach((s, i) => subjects.set(s, clients(srv.url, secrets[i])));
});

after(async () => {
  for (const c of subjects.values()) await c.close();
  await root.close({ force: true });
  await srv.stop();
});

async function outcome(client: faunadb.Client, expr: faunadb.ExprArg): Promise<Cell | string> {
  try {
    await client.query(expr);
    return 'ok';
  } catch {
    const f = await failure(client, expr);
    return f.status === 403 && f.code === 'permission denied' ? 403 : `${f.status} ${f.code}: ${f.description}`;
  }
}

describe('permission matrix', () => {
  for (const [i, subject] of SUBJECTS.entries()) {
    test(`${subject} (HTTP/2)`, async () => {
      const c = subjects.get(subject)!.h2;
      const got: Record<string, Cell | string> = {};
      const want: Record<string, Cell | string> = {};
      for (const a of ACTIONS) {
        got[a.name] = await outcome(c, a.expr(subject));
        want[a.name] = a.expect[i];
      }
      assert.deepEqual(got, want);
    });
  }

  test('a few cells over HTTP/1.1', async () => {
    const pick = ['Get a document', 'Call a function', 'Get a database'];
    for (const [i, subject] of SUBJECTS.entries()) {
      const c = subjects.get(subject)!.h1;
      for (const a of ACTIONS.filter((x) => pick.includes(x.name)))
        assert.equal(await outcome(c, a.expr(subject)), a.expect[i], `${subject}: ${a.name}`);
    }
  });

  test('a client key gets exactly what `permissions: "public"` grants', async () => {
    await root.query(q.CreateCollection({ name: 'open', permissions: { create: 'public', read: 'public', write: 'public' } }));
    await root.query(
      q.Do(
        q.CreateIndex({ name: 'open_all', source: q.Collection('open'), permissions: { read: 'public' } }),
        q.CreateFunction({ name: 'open_fn', body: q.Query(q.Lambda('x', q.Var('x'))), permissions: { call: 'public' } }),
      ),
    );
    const c = subjects.get('client')!.h2;
    const created = (await c.query(q.Create(q.Collection('open'), { data: { a: 1 } }))) as Doc;
    assert.equal(await outcome(c, q.Get(created.ref)), 'ok');
    assert.equal(await outcome(c, q.Update(created.ref, { data: { a: 2 } })), 'ok');
    assert.equal(await outcome(c, q.Paginate(q.Match(q.Index('open_all')))), 'ok');
    assert.equal(await outcome(c, q.Call(q.Function('open_fn'), 1)), 'ok');
    assert.equal(await outcome(c, q.Paginate(q.Collections())), 403);
    assert.equal(await outcome(c, q.Get(q.Collection('open'))), 403);
  });
});
