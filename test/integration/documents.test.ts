// Collections and documents through the official driver, over HTTP/2 and HTTP/1.1.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFlora, clients, httpRequest, type FloraProcess } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let h2: faunadb.Client;
let h1: faunadb.Client;

before(async () => {
  srv = await startFlora();
  ({ h2, h1 } = clients(srv.url, srv.secret));
  await h2.query(q.CreateCollection({ name: 'widgets' }));
});
after(async () => {
  await Promise.all([h2.close({ force: true }), h1.close({ force: true })]);
  await srv.stop();
});


async function raw(body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return httpRequest(srv.url, {
    method: 'POST',
    path: '/',
    headers: { authorization: `Bearer ${srv.secret}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('collections', () => {
  test('CreateCollection returns ref, ts, history_days 30 and name', async () => {
    const c = (await h2.query(q.CreateCollection({ name: 'gadgets' }))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(c), ['ref', 'ts', 'history_days', 'name']);
    assert.equal(c.history_days, 30);
    assert.equal(c.name, 'gadgets');
    assert.equal((c.ref as { id: string }).id, 'gadgets');
    assert.equal(typeof c.ts, 'number');
  });

  test('an explicit history_days and null are honoured', async () => {
    const c = (await h1.query(q.CreateCollection({ name: 'h7', history_days: 7, ttl_days: 1 }))) as Record<string, unknown>;
    assert.equal(c.history_days, 7);
    assert.equal(c.ttl_days, 1);
  });

  test('a duplicate name is instance already exists', async () => {
    const f = await failure(h2, q.CreateCollection({ name: 'widgets' }));
    assert.deepEqual([f.status, f.code, f.description], [400, 'instance already exists', 'Collection already exists.']);
  });

  test('invalid names and fields fail validation with failures', async () => {
    const res = await raw({ create_collection: { object: { name: 'bad name!', history_days: -1 } } });
    assert.equal(res.status, 400);
    const err = JSON.parse(res.body).errors[0];
    assert.equal(err.code, 'validation failed');
    assert.equal(err.description, 'document data is not valid.');
    assert.deepEqual(
      err.failures.map((f: { field: string[]; code: string }) => [f.field, f.code]),
      [
        [['name'], 'invalid characters'],
        [['history_days'], 'non-negative value required'],
      ],
    );
    const missing = await failure(h2, q.CreateCollection({}));
    assert.equal(missing.code, 'validation failed');
    const wrongType = await failure(h2, q.CreateCollection('widgets'));
    assert.deepEqual([wrongType.code, wrongType.description], ['invalid argument', 'Object expected, String provided.']);
  });

  test('null for a required field is a validation failure, never a nameless document', async () => {
    await h2.query(q.CreateCollection({ name: 'named' }));
    await h2.query(q.CreateDatabase({ name: 'named_db' }));
    const key = (await h2.query(q.CreateKey({ role: 'server' }))) as { ref: faunadb.values.Ref };
    for (const [expr, field] of [
      [q.Update(q.Collection('named'), { name: null }), 'name'],
      [q.Update(q.Database('named_db'), { name: null }), 'name'],
      [q.Update(key.ref, { role: null }), 'role'],
    ] as const) {
      const res = await raw(expr);
      assert.equal(res.status, 400);
      const err = JSON.parse(res.body).errors[0];
      assert.equal(err.code, 'validation failed');
      assert.deepEqual(err.failures, [{ field: [field], code: 'value required', description: 'Required value not found.' }]);
    }
    assert.equal(((await h2.query(q.Get(q.Collection('named')))) as { name: string }).name, 'named');
  });

  test('Collection(), Collections(), rename and delete', async () => {
    await h2.query(q.CreateCollection({ name: 'old_name' }));
    const page = (await h2.query(q.Paginate(q.Collections()))) as { data: { id: string }[] };
    assert.ok(page.data.some((r) => r.id === 'old_name'));
    const doc = (await h2.query(q.Create(q.Collection('old_name'), { data: { a: 1 } }))) as { ref: { id: string } };
    const renamed = (await h2.query(q.Update(q.Collection('old_name'), { name: 'new_name' }))) as { name: string };
    assert.equal(renamed.name, 'new_name');
    const got = (await h2.query(q.Get(q.Ref(q.Collection('new_name'), doc.ref.id)))) as { data: unknown };
    assert.deepEqual(got.data, { a: 1 });
    assert.equal(await h2.query(q.Exists(q.Collection('old_name'))), false);
    await h2.query(q.Delete(q.Collection('new_name')));
    const gone = await failure(h2, q.Get(q.Ref(q.Collection('new_name'), doc.ref.id)));
    assert.deepEqual([gone.status, gone.code, gone.description], [400, 'invalid ref', "Ref refers to undefined collection 'new_name'"]);
  });
});

describe('documents', () => {
  test('Create gives an 18-digit id, ts equal to x-txn-time, status 201', async () => {
    const res = await raw({ create: { collection: 'widgets' }, params: { object: { data: { object: { n: 1 } } } } });
    assert.equal(res.status, 201);
    const body = JSON.parse(res.body).resource;
    assert.match(body.ref['@ref'].id, /^\d{18}$/);
    assert.equal(String(body.ts), res.headers['x-txn-time']);
    assert.deepEqual(body.data, { n: 1 });
    // A read is 200, and Create nested in another value is not "fresh" at the top.
    const get = await raw({ get: body.ref });
    assert.equal(get.status, 200);
    const nested = await raw([{ create: { collection: 'widgets' } }]);
    assert.equal(nested.status, 200);
  });

  for (const [name, client] of [
    ['http2', () => h2],
    ['http1', () => h1],
  ] as const) {
    test(`CRUD round trip over ${name}`, async () => {
      const c = client();
      const created = (await c.query(q.Create(q.Collection('widgets'), { data: { name: 'a', tags: ['x', null, 'y'], nested: { keep: 1, drop: null } } }))) as {
        ref: faunadb.values.Ref;
        ts: number;
        data: unknown;
      };
      assert.deepEqual(created.data, { name: 'a', tags: ['x', 'y'], nested: { keep: 1 } });
      const got = (await c.query(q.Get(created.ref))) as { ts: number; data: unknown };
      assert.equal(got.ts, created.ts);
      assert.deepEqual(got.data, created.data);
      assert.equal(await c.query(q.Exists(created.ref)), true);

      const updated = (await c.query(q.Update(created.ref, { data: { name: null, nested: { more: 2 }, n: 5 } }))) as { ts: number; data: unknown };
      assert.deepEqual(updated.data, { tags: ['x', 'y'], nested: { keep: 1, more: 2 }, n: 5 });
      assert.ok(updated.ts > created.ts);

      const replaced = (await c.query(q.Replace(created.ref, { data: { only: true } }))) as { data: unknown };
      assert.deepEqual(replaced.data, { only: true });

      const deleted = (await c.query(q.Delete(created.ref))) as { data: unknown };
      assert.deepEqual(deleted.data, { only: true });
      assert.equal(await c.query(q.Exists(created.ref)), false);
      const f = await failure(c, q.Get(created.ref));
      assert.deepEqual([f.status, f.code, f.description], [404, 'instance not found', 'Document not found.']);
    });
  }

  test('Create with a chosen id; a duplicate id is instance already exists', async () => {
    const ref = q.Ref(q.Collection('widgets'), '1234');
    const doc = (await h2.query(q.Create(ref, { data: { a: 1 } }))) as { ref: { id: string } };
    assert.equal(doc.ref.id, '1234');
    const numeric = (await h2.query(q.Get(q.Ref(q.Collection('widgets'), 1234)))) as { data: unknown };
    assert.deepEqual(numeric.data, { a: 1 });
    const legacy = (await h2.query(q.Get(q.Ref('collections/widgets/1234')))) as { data: unknown };
    assert.deepEqual(legacy.data, { a: 1 });
    const f = await failure(h2, q.Create(ref, { data: {} }));
    assert.deepEqual([f.status, f.code, f.description], [400, 'instance already exists', 'Document already exists.']);
  });

  test('bad inputs get clear errors', async () => {
    const notNumeric = await failure(h2, q.Get(q.Ref(q.Collection('widgets'), 'abc')));
    assert.deepEqual([notNumeric.code, notNumeric.description], ['invalid argument', "Number or numeric String expected, non-numeric 'abc' provided."]);
    const tooLarge = await failure(h2, q.Get(q.Ref(q.Collection('widgets'), '99999999999999999999')));
    assert.equal(tooLarge.description, "The id provided is too large: '99999999999999999999'");
    const unknownColl = await failure(h2, q.Create(q.Collection('nope'), {}));
    assert.deepEqual([unknownColl.code, unknownColl.description], ['invalid ref', "Ref refers to undefined collection 'nope'"]);
    const badData = await failure(h2, q.Create(q.Collection('widgets'), { data: 'str' }));
    assert.equal(badData.code, 'validation failed');
    const res = await raw({ create: { collection: 'widgets' }, params: { object: { data: 'str' } } });
    assert.deepEqual(JSON.parse(res.body).errors[0].failures, [
      { field: ['data'], code: 'invalid type', description: 'Invalid type String, expected type Map.' },
    ]);
    const getString = await failure(h2, q.Get('widgets'));
    assert.deepEqual([getString.code, getString.description, getString.position], ['invalid argument', 'Ref expected, String provided.', ['get']]);
    const updateMissing = await failure(h2, q.Update(q.Ref(q.Collection('widgets'), '1'), { data: {} }));
    assert.deepEqual([updateMissing.status, updateMissing.code, updateMissing.position], [404, 'instance not found', ['update']]);
    const params = await failure(h2, q.Update(q.Ref(q.Collection('widgets'), '1'), 5));
    assert.deepEqual([params.description, params.position], ['Object expected, Integer provided.', ['params']]);
  });

  test('longs beyond 2^53 and doubles round-trip exactly', async () => {
    // Written as text: a JS number cannot hold these longs.
    const res = await raw(
      '{"create":{"collection":"widgets"},"params":{"object":{"data":{"object":{"big":9223372036854775807,"small":-9223372036854775808,"d":1.0,"e":2.5}}}}}',
    );
    assert.equal(res.status, 201);
    assert.match(res.body, /"big":9223372036854775807,"small":-9223372036854775808,"d":1\.0,"e":2\.5/);
    const id = /"id":"(\d+)"/.exec(res.body)![1];
    const again = await raw({ get: { ref: { collection: 'widgets' }, id } });
    assert.match(again.body, /"big":9223372036854775807,"small":-9223372036854775808,"d":1\.0,"e":2\.5/);
  });

  test('NewId and NextId return fresh 18-digit strings', async () => {
    const [a, b] = (await h2.query([q.NewId(), q.NextId()])) as string[];
    assert.match(a, /^\d{18}$/);
    assert.match(b, /^\d{18}$/);
    assert.notEqual(a, b);
  });

  test('Do sees earlier writes; an error discards every write of the transaction', async () => {
    const ref = q.Ref(q.Collection('widgets'), '555');
    const seen = await h2.query(q.Do(q.Create(ref, { data: { v: 1 } }), q.Select(['data', 'v'], q.Get(ref))));
    assert.equal(seen, 1);
    const f = await failure(h2, q.Do(q.Update(ref, { data: { v: 2 } }), q.Abort('stop')));
    assert.deepEqual([f.code, f.description], ['transaction aborted', 'stop']);
    assert.equal(await h2.query(q.Select(['data', 'v'], q.Get(ref))), 1);
  });

  test('At reads the past and refuses writes', async () => {
    const doc = (await h2.query(q.Create(q.Collection('widgets'), { data: { v: 1 } }))) as { ref: faunadb.values.Ref; ts: number };
    await h2.query(q.Update(doc.ref, { data: { v: 2 } }));
    assert.equal(await h2.query(q.At(doc.ts, q.Select(['data', 'v'], q.Get(doc.ref)))), 1);
    assert.equal(await h2.query(q.Select(['data', 'v'], q.Get(doc.ref, doc.ts))), 1);
    assert.equal(await h2.query(q.Exists(doc.ref, doc.ts - 1)), false);
    const f = await failure(h2, q.At(doc.ts, q.Update(doc.ref, { data: { v: 3 } })));
    assert.deepEqual([f.code, f.description], ['invalid write time', 'Cannot write outside of snapshot time.']);
  });
});

describe('Documents and Paginate', () => {
  test('pages with size, after and before cursors', async () => {
    await h2.query(q.CreateCollection({ name: 'paged' }));
    const ids = Array.from({ length: 10 }, (_, i) => String(1000 + i));
    await h2.query(q.Do(...ids.map((id) => q.Create(q.Ref(q.Collection('paged'), id), { data: {} }))));
    const all = (await h2.query(q.Paginate(q.Documents(q.Collection('paged'))))) as { data: { id: string }[]; after?: unknown; before?: unknown };
    assert.deepEqual(all.data.map((r) => r.id), ids);
    assert.equal(all.after, undefined);
    assert.equal(all.before, undefined);

    const first = (await h2.query(q.Paginate(q.Documents(q.Collection('paged')), { size: 3 }))) as { data: { id: string }[]; after: { id: string }[] };
    assert.deepEqual(first.data.map((r) => r.id), ids.slice(0, 3));
    assert.equal(first.after[0].id, ids[3]);
    const second = (await h2.query(q.Paginate(q.Documents(q.Collection('paged')), { size: 3, after: first.after }))) as {
      data: { id: string }[];
      before: { id: string }[];
      after: { id: string }[];
    };
    assert.deepEqual(second.data.map((r) => r.id), ids.slice(3, 6));
    assert.equal(second.before[0].id, ids[3]);
    const back = (await h2.query(q.Paginate(q.Documents(q.Collection('paged')), { size: 2, before: second.before }))) as {
      data: { id: string }[];
      before: { id: string }[];
      after: { id: string }[];
    };
    assert.deepEqual(back.data.map((r) => r.id), ids.slice(1, 3));
    assert.equal(back.before[0].id, ids[1]);
    assert.equal(back.after[0].id, ids[3]);
    const last = (await h2.query(q.Paginate(q.Documents(q.Collection('paged')), { size: 4, before: null }))) as { data: { id: string }[] };
    assert.deepEqual(last.data.map((r) => r.id), ids.slice(6));
    const mapped = await h2.query(q.Map(q.Paginate(q.Documents(q.Collection('paged')), { size: 2 }), q.Lambda('r', q.Select('id', q.Var('r')))));
    assert.deepEqual((mapped as { data: string[] }).data, ids.slice(0, 2));
  });

  test('a document whose ttl has passed is gone from Get, Exists and Documents', async () => {
    await h2.query(q.CreateCollection({ name: 'ttl_docs' }));
    const kept = (await h2.query(q.Create(q.Collection('ttl_docs'), { data: { v: 1 }, ttl: q.Time('2999-01-01T00:00:00Z') }))) as { ref: faunadb.values.Ref; ttl: unknown };
    assert.ok(kept.ttl, 'ttl is shown');
    const gone = (await h2.query(q.Create(q.Collection('ttl_docs'), { data: { v: 2 }, ttl: q.Time('2000-01-01T00:00:00Z') }))) as { ref: faunadb.values.Ref };
    assert.equal(await h2.query(q.Exists(gone.ref)), false);
    assert.equal((await failure(h2, q.Get(gone.ref))).status, 404);
    const page = (await h2.query(q.Paginate(q.Documents(q.Collection('ttl_docs'))))) as { data: faunadb.values.Ref[] };
    assert.deepEqual(page.data.map((r) => r.id), [kept.ref.id]);
  });

  test('page size bounds are enforced', async () => {
    for (const size of [0, 100001]) {
      const f = await failure(h2, q.Paginate(q.Documents(q.Collection('widgets')), { size }));
      assert.deepEqual([f.status, f.code, f.position], [400, 'invalid argument', ['size']]);
    }
    const f = await failure(h2, q.Paginate(q.Documents(q.Collection('nope'))));
    assert.equal(f.code, 'invalid ref');
  });

  test('the default page size is 64', async () => {
    await h2.query(q.CreateCollection({ name: 'many' }));
    await h2.query(q.Foreach(Array.from({ length: 70 }, (_, i) => i), q.Lambda('i', q.Create(q.Collection('many'), { data: { i: q.Var('i') } }))));
    const page = (await h2.query(q.Paginate(q.Documents(q.Collection('many'))))) as { data: unknown[]; after: unknown };
    assert.equal(page.data.length, 64);
    assert.ok(page.after);
  });
});

describe('transactions', () => {
  test('N concurrent read-modify-write increments give exactly N', async () => {
    const ref = q.Ref(q.Collection('widgets'), '777');
    await h2.query(q.Create(ref, { data: { n: 0 } }));
    const N = 40;
    const inc = q.Update(ref, { data: { n: q.Add(q.Select(['data', 'n'], q.Get(ref)), 1) } });
    await Promise.all(Array.from({ length: N }, (_, i) => (i % 2 ? h1 : h2).query(inc)));
    assert.equal(await h2.query(q.Select(['data', 'n'], q.Get(ref))), N);
  });

  test('data survives a restart', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'flora.restart-')) // a dot in the folder name must not matter;
    try {
      let first = await startFlora({ dataDir });
      let c = clients(first.url, first.secret);
      await c.h2.query(q.CreateCollection({ name: 'kept' }));
      const doc = (await c.h2.query(q.Create(q.Collection('kept'), { data: { durable: true } }))) as { ref: faunadb.values.Ref; ts: number };
      const stored = await c.h2.query(q.Get(doc.ref));
      await c.close();
      assert.equal(await first.stop(), 0);
      first = await startFlora({ dataDir });
      c = clients(first.url, first.secret);
      assert.deepEqual(await c.h1.query(q.Get(doc.ref)), stored);
      const next = (await c.h2.query(q.Create(q.Collection('kept'), {}))) as { ts: number };
      assert.ok(next.ts > doc.ts, 'timestamps keep increasing after a restart');
      await c.close();
      assert.equal(await first.stop(), 0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
