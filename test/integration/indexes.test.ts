// Indexes through the official driver: creation, entries, builds, Match and Paginate.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import faunadb, { query as q } from 'faunadb';
import { startFlora, clients, httpRequest, type FloraProcess, type DriverClients } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let c: DriverClients;

before(async () => {
  srv = await startFlora();
  c = clients(srv.url, srv.secret);
});
after(async () => {
  await c.close();
  await srv.stop();
});


type Page = { data: unknown[]; after?: unknown[]; before?: unknown[] };

/** Waits for a background index build, failing (not hanging) if it does not finish. */
async function untilActive(client: faunadb.Client, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (((await client.query(q.Get(q.Index(name)))) as { active: boolean }).active) return;
    assert.ok(Date.now() < deadline, `index ${name} did not become active in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20)); // polling a background job: a condition, not luck
  }
}
const page = async (expr: unknown) => (await c.h2.query(expr as faunadb.ExprArg)) as Page;
const ids = (p: Page) => p.data.map((r) => (r as { id: string }).id);

describe('CreateIndex', () => {
  before(async () => {
    await c.h2.query(q.CreateCollection({ name: 'people' }));
    const rows: [string, string, string | null, string[]][] = [
      ['1030', 'ann', 'red', ['a', 'b']],
      ['1025', 'bob', 'blue', ['b']],
      ['1041', 'cat', 'red', []],
      ['1026', 'dan', null, ['c', 'a']],
    ];
    for (const [id, name, color, tags] of rows) {
      await c.h2.query(q.Create(q.Ref(q.Collection('people'), id), { data: { name, color, tags } }));
    }
  });

  test('result fields; partitions 8 without terms, 1 with; a small source is built at once', async () => {
    const withTerms = (await c.h2.query(q.CreateIndex({ name: 'people_by_color', source: q.Collection('people'), terms: [{ field: ['data', 'color'] }] }))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(withTerms), ['ref', 'ts', 'active', 'serialized', 'name', 'source', 'terms', 'partitions']);
    assert.equal(withTerms.active, true);
    assert.equal(withTerms.partitions, 1);
    const all = (await c.h1.query(q.CreateIndex({ name: 'all_people', source: q.Collection('people'), permissions: { read: 'public' }, data: { note: 'x' } }))) as Record<string, unknown>;
    assert.equal(all.partitions, 8);
    assert.deepEqual(all.permissions, { read: 'public' });
    const got = (await c.h2.query(q.Get(q.Index('all_people')))) as Record<string, unknown>;
    assert.deepEqual(got.data, { note: 'x' });
    const listed = (await page(q.Paginate(q.Indexes()))).data.map((r) => (r as { id: string }).id);
    assert.ok(listed.includes('people_by_color') && listed.includes('all_people'));
  });

  test('bad definitions get validation failures', async () => {
    const dup = await failure(c.h2, q.CreateIndex({ name: 'people_by_color', source: q.Collection('people') }));
    assert.deepEqual([dup.code, dup.description], ['instance already exists', 'Index already exists.']);
    const noSource = await failure(c.h2, q.CreateIndex({ name: 'x1' }));
    assert.deepEqual([noSource.code, noSource.failures?.[0].code], ['validation failed', 'value required']);
    const missing = await failure(c.h2, q.CreateIndex({ name: 'x2', source: q.Collection('nope') }));
    assert.equal(missing.failures?.[0].code, 'invalid reference');
    const partitions = await failure(c.h2, q.CreateIndex({ name: 'x3', source: q.Collection('people'), partitions: 9 }));
    assert.equal(partitions.failures?.[0].code, 'bounds error');
    const badTerm = await failure(c.h2, q.CreateIndex({ name: 'x4', source: q.Collection('people'), terms: [{ nope: 1 }] }));
    assert.equal(badTerm.failures?.[0].code, 'value required');
    const unused = await failure(c.h2, q.CreateIndex({ name: 'x5', source: { collection: q.Collection('people'), fields: { b: q.Query(q.Lambda('d', 1)) } } }));
    assert.equal(unused.failures?.[0].code, 'unused binding');
    const reads = await failure(
      c.h2,
      q.CreateIndex({ name: 'x6', source: { collection: q.Collection('people'), fields: { b: q.Query(q.Lambda('d', q.Get(q.Select('ref', q.Var('d'))))) } }, terms: [{ binding: 'b' }] }),
    );
    assert.deepEqual([reads.code, reads.failures?.[0].code], ['validation failed', 'invalid binding']);
  });

  test('terms and values cannot change; rename keeps the data; delete makes it inaccessible', async () => {
    const f = await failure(c.h2, q.Update(q.Index('people_by_color'), { terms: [{ field: ['data', 'name'] }] }));
    // fauna-gql-upload looks for this exact sentence to delete and recreate the index.
    assert.deepEqual(
      [f.code, f.failures?.[0].code, f.failures?.[0].description],
      ['validation failed', 'invalid index', 'Index sources, terms, values, and partition count may not be updated.'],
    );
    const partitions = await failure(c.h2, q.Update(q.Index('people_by_color'), { partitions: 2 }));
    assert.equal(partitions.failures?.[0].description, 'Index sources, terms, values, and partition count may not be updated.');
    await c.h2.query(q.Update(q.Index('people_by_color'), { name: 'people_by_colour', data: { renamed: true } }));
    assert.deepEqual(ids(await page(q.Paginate(q.Match(q.Index('people_by_colour'), 'red')))), ['1030', '1041']);
    await c.h2.query(q.Update(q.Index('people_by_colour'), { name: 'people_by_color' }));
    await c.h2.query(q.CreateIndex({ name: 'doomed', source: q.Collection('people') }));
    await c.h2.query(q.Delete(q.Index('doomed')));
    const gone = await failure(c.h2, q.Paginate(q.Match(q.Index('doomed'))));
    assert.deepEqual([gone.code, gone.description], ['invalid ref', "Ref refers to undefined index 'doomed'"]);
  });

  test('one transaction may create a collection, its indexes and a function and role using them (DECISIONS 13)', async () => {
    const made = (await c.h2.query(
      q.Do(
        q.CreateCollection({ name: 'fresh' }),
        q.Create(q.Ref(q.Collection('fresh'), '1'), { data: { tag: 'early' } }),
        q.CreateIndex({ name: 'fresh_by_tag', source: q.Collection('fresh'), terms: [{ field: ['data', 'tag'] }] }),
        q.Create(q.Ref(q.Collection('fresh'), '2'), { data: { tag: 'late' } }),
        q.CreateFunction({ name: 'fresh_tagged', body: q.Query(q.Lambda('t', q.Paginate(q.Match(q.Index('fresh_by_tag'), q.Var('t'))))) }),
        q.CreateRole({ name: 'fresh_reader', privileges: [{ resource: q.Collection('fresh'), actions: { read: true } }, { resource: q.Index('fresh_by_tag'), actions: { read: true } }] }),
        q.Get(q.Index('fresh_by_tag')),
      ),
    )) as { active: boolean };
    // Built at once (the collection is new, so small): documents written before and after it are in.
    assert.equal(made.active, true);
    for (const [tag, id] of [['early', '1'], ['late', '2']]) {
      const page = (await c.h2.query(q.Call(q.Function('fresh_tagged'), tag))) as { data: { id: string }[] };
      assert.deepEqual(page.data.map((r) => r.id), [id]);
    }
  });

  test('an index cannot be created and read in one transaction', async () => {
    const andRead = await failure(c.h2, q.Do(q.CreateIndex({ name: 'read_now', source: q.Collection('people') }), q.Paginate(q.Match(q.Index('read_now')))));
    assert.equal(andRead.code, 'invalid argument');
    assert.equal(await c.h2.query(q.Exists(q.Index('read_now'))), false, 'the failed transaction created nothing');
  });
});

describe('entries and Match', () => {
  before(async () => {
    await c.h2.query(q.CreateCollection({ name: 'things' }));
    await c.h2.query(q.CreateIndex({ name: 'things_by_tag', source: q.Collection('things'), terms: [{ field: ['data', 'tags'] }], values: [{ field: ['data', 'n'] }] }));
    await c.h2.query(q.CreateIndex({ name: 'things_by_kind_n', source: q.Collection('things'), terms: [{ field: ['data', 'kind'] }, { field: ['data', 'n'] }] }));
    await c.h2.query(q.CreateIndex({ name: 'things_values', source: q.Collection('things'), values: [{ field: ['data', 'v'] }] }));
    await c.h2.query(q.CreateIndex({ name: 'things_desc', source: q.Collection('things'), values: [{ field: ['data', 'n'], reverse: true }, { field: ['ref'] }] }));
    const docs = [
      { n: 1, tags: ['a', 'b'], kind: 'x', v: 'b' },
      { n: 2, tags: ['b'], kind: 'x', v: 'a' },
      { n: 3, tags: [['a', 'c']], kind: 'y', v: 'B' },
      { n: 4, kind: 'y', v: 3.5 },
      { n: 5, tags: 'a', v: true },
      { n: 6, v: null },
    ];
    for (const [i, data] of docs.entries()) await c.h2.query(q.Create(q.Ref(q.Collection('things'), String(100 + i)), { data }));
  });

  test('arrays expand; nested arrays flatten; a missing term is not indexed', async () => {
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_tag'), 'a')))).data, [1, 3, 5]);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_tag'), ['b'])))).data, [1, 2], 'a one-element array is the scalar');
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_tag'), 'c')))).data, [3]);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_tag'), null as unknown as string)))).data, []);
  });

  test('compound terms; wrong arity matches nothing; unknown index is invalid ref', async () => {
    assert.deepEqual(ids(await page(q.Paginate(q.Match(q.Index('things_by_kind_n'), ['y', 4])))), ['103']);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_kind_n'), 'y')))).data, []);
    const f = await failure(c.h1, q.Paginate(q.Match(q.Index('no_such_index'), 1)));
    assert.deepEqual([f.status, f.code, f.description], [400, 'invalid ref', "Ref refers to undefined index 'no_such_index'"]);
  });

  test('values sort across types; all-null values are not indexed', async () => {
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_values'))))).data, [3.5, 'a', 'b', 'B', true]);
  });

  test('reverse values; updates and deletes move entries', async () => {
    const desc = await page(q.Paginate(q.Match(q.Index('things_desc')), { size: 3 }));
    assert.deepEqual(desc.data.map((e) => (e as [number])[0]), [6, 5, 4]);
    assert.deepEqual((desc.after as [number])[0], 3);
    await c.h2.query(q.Update(q.Ref(q.Collection('things'), '105'), { data: { n: 0 } }));
    await c.h2.query(q.Delete(q.Ref(q.Collection('things'), '104')));
    const again = await page(q.Paginate(q.Match(q.Index('things_desc'))));
    assert.deepEqual(again.data.map((e) => (e as [number])[0]), [4, 3, 2, 1, 0]);
    const last = await page(q.Paginate(q.Match(q.Index('things_desc')), { before: [-9007199254740991], size: 2 }));
    assert.deepEqual(last.data.map((e) => (e as [number])[0]), [1, 0], 'a minimal integer is the synthetic end of a reversed index');
  });

  test('terms up to 32 KiB are indexed and matched; one over 32 KiB fails the write', async () => {
    // Far beyond the storage engine's key size: such keys are cut and confirmed from the payload.
    const long = 'x'.repeat(20_000);
    await c.h2.query(q.Create(q.Collection('things'), { data: { tags: [long], n: 7 } }));
    await c.h2.query(q.Create(q.Collection('things'), { data: { tags: [long + 'y'], n: 8 } }));
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_tag'), long)))).data, [7]);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('things_by_tag'), long + 'y')))).data, [8]);
    const f = await failure(c.h2, q.Create(q.Collection('things'), { data: { tags: ['x'.repeat(40_000)], n: 9 } }));
    assert.equal(f.code, 'invalid argument');
    assert.match(f.description, /exceeds the limit/);
  });
});

describe('unique', () => {
  test('exactly one of two racing creates of one unique value succeeds', async () => {
    await c.h2.query(q.CreateCollection({ name: 'accounts' }));
    await c.h2.query(q.CreateIndex({ name: 'accounts_by_email', source: q.Collection('accounts'), terms: [{ field: ['data', 'email'] }], unique: true }));
    for (let round = 0; round < 5; round++) {
      const email = `user${round}@example.com`;
      const results = await Promise.allSettled([
        c.h2.query(q.Create(q.Collection('accounts'), { data: { email } })),
        c.h1.query(q.Create(q.Collection('accounts'), { data: { email } })),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}`);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal(rejected.reason.message, 'instance not unique');
      assert.equal(rejected.reason.description, 'document is not unique.');
    }
    // Two documents without the field do not collide (DECISIONS #11).
    await c.h2.query(q.Create(q.Collection('accounts'), { data: {} }));
    await c.h2.query(q.Create(q.Collection('accounts'), { data: {} }));
  });
});

describe('pagination', () => {
  test('a few thousand entries, forward and backward, every entry exactly once each way', async () => {
    await c.h2.query(q.CreateCollection({ name: 'many_items' }));
    await c.h2.query(q.CreateIndex({ name: 'many_by_n', source: q.Collection('many_items'), values: [{ field: ['data', 'n'] }, { field: ['ref'] }] }));
    const N = 3000;
    for (let start = 0; start < N; start += 500) {
      await c.h2.query(q.Foreach(Array.from({ length: 500 }, (_, i) => (start + i) % 1000), q.Lambda('n', q.Create(q.Collection('many_items'), { data: { n: q.Var('n') } }))));
    }
    const seen: string[] = [];
    let cursor: unknown[] | undefined;
    for (;;) {
      const p = await page(q.Paginate(q.Match(q.Index('many_by_n')), cursor ? { size: 128, after: cursor } : { size: 128 }));
      seen.push(...p.data.map((e) => (e as [number, { id: string }])[1].id));
      if (!p.after) break;
      cursor = p.after;
    }
    assert.equal(seen.length, N);
    assert.equal(new Set(seen).size, N);
    const back: string[] = [];
    let before: unknown = null;
    for (;;) {
      const p = await page(q.Paginate(q.Match(q.Index('many_by_n')), { size: 128, before }));
      back.unshift(...p.data.map((e) => (e as [number, { id: string }])[1].id));
      if (!p.before) break;
      before = p.before;
    }
    assert.deepEqual(back, seen);
    const viaCursor = await page(q.Paginate(q.Match(q.Index('many_by_n')), { size: 2, cursor: { after: [999] } }));
    assert.deepEqual(viaCursor.data.map((e) => (e as [number])[0]), [999, 999], 'a prefix cursor');
  });

  test('cursors of the wrong shape and bad sizes are clear errors', async () => {
    const cursor = await failure(c.h2, q.Paginate(q.Match(q.Index('many_by_n')), { cursor: { sideways: 1 } }));
    assert.equal(cursor.code, 'invalid argument');
    for (const size of [0, 100001]) assert.equal((await failure(c.h2, q.Paginate(q.Match(q.Index('many_by_n')), { size }))).code, 'invalid argument');
  });
});

describe('background builds', () => {
  test('a large source builds in the background, readable meanwhile, and resumes after a restart', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'flora-build-'));
    try {
      let s = await startFlora({ dataDir });
      let d = clients(s.url, s.secret);
      await d.h2.query(q.CreateCollection({ name: 'big' }));
      for (let start = 0; start < 2000; start += 500)
        await d.h2.query(q.Foreach(Array.from({ length: 500 }, (_, i) => start + i), q.Lambda('i', q.Create(q.Collection('big'), { data: { k: q.Modulo(q.Var('i'), 10) } }))));
      const created = (await d.h2.query(q.CreateIndex({ name: 'big_by_k', source: q.Collection('big'), terms: [{ field: ['data', 'k'] }] }))) as { active: boolean };
      assert.equal(created.active, false, 'more than 128 events: built in the background');
      // Restart at once: the build must resume where it was.
      await d.close();
      assert.equal(await s.stop(), 0);
      s = await startFlora({ dataDir });
      d = clients(s.url, s.secret);
      // A write during the build is not missed.
      await d.h2.query(q.Create(q.Collection('big'), { data: { k: 3 } }));
      await untilActive(d.h2, 'big_by_k');
      const threes = (await d.h2.query(q.Paginate(q.Match(q.Index('big_by_k'), 3), { size: 1000 }))) as Page;
      assert.equal(threes.data.length, 201);
      await d.close();
      assert.equal(await s.stop(), 0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('paginate ts', () => {
  test('reads an index as of a past time', async () => {
    await c.h2.query(q.CreateCollection({ name: 'timed' }));
    await c.h2.query(q.CreateIndex({ name: 'timed_all', source: q.Collection('timed'), values: [{ field: ['data', 'v'] }] }));
    const first = (await c.h2.query(q.Create(q.Collection('timed'), { data: { v: 1 } }))) as { ref: faunadb.values.Ref; ts: number };
    await c.h2.query(q.Update(first.ref, { data: { v: 2 } }));
    await c.h2.query(q.Create(q.Collection('timed'), { data: { v: 3 } }));
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('timed_all')), { ts: first.ts }))).data, [1]);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('timed_all'))))).data, [2, 3]);
    const raw = await httpRequest(srv.url, {
      method: 'POST',
      path: '/',
      headers: { authorization: `Bearer ${srv.secret}` },
      body: JSON.stringify({ paginate: { match: { index: 'timed_all' } }, ts: { '@ts': new Date(first.ts / 1000 - 1).toISOString() } }),
    });
    assert.equal(raw.body, '{"resource":{"data":[]}}');
  });
});

describe('index history from a build', () => {
  test('an index built over existing documents answers reads at past times', async () => {
    await c.h2.query(q.CreateCollection({ name: 'prebuilt' }));
    const doc = (await c.h2.query(q.Create(q.Collection('prebuilt'), { data: { v: 'old' } }))) as { ref: faunadb.values.Ref; ts: number };
    await c.h2.query(q.Update(doc.ref, { data: { v: 'new' } }));
    await c.h2.query(q.CreateIndex({ name: 'prebuilt_v', source: q.Collection('prebuilt'), values: [{ field: ['data', 'v'] }] }));
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('prebuilt_v'))))).data, ['new']);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('prebuilt_v')), { ts: doc.ts }))).data, ['old']);
  });
});

describe('paginate sources', () => {
  test('sources: true names the sets that produced each element', async () => {
    await c.h2.query(q.CreateCollection({ name: 'srcs' }));
    await c.h2.query(q.CreateIndex({ name: 'srcs_by_t', source: q.Collection('srcs'), terms: [{ field: ['data', 't'] }] }));
    const a = (await c.h2.query(q.Create(q.Collection('srcs'), { data: { t: ['x', 'y'] } }))) as { ref: faunadb.values.Ref };
    const b = (await c.h2.query(q.Create(q.Collection('srcs'), { data: { t: 'y' } }))) as { ref: faunadb.values.Ref };
    const res = await httpRequest(srv.url, {
      method: 'POST',
      path: '/',
      headers: { authorization: `Bearer ${srv.secret}` },
      body: JSON.stringify({ paginate: { union: [{ match: { index: 'srcs_by_t' }, terms: 'x' }, { match: { index: 'srcs_by_t' }, terms: 'y' }] }, sources: true }),
    });
    const data = JSON.parse(res.body).resource.data as { value: { '@ref': { id: string } }; sources: { '@set': { terms: string } }[] }[];
    const byId = new Map(data.map((e) => [e.value['@ref'].id, e.sources.map((s) => s['@set'].terms)]));
    assert.deepEqual(byId.get(a.ref.id), ['x', 'y']);
    assert.deepEqual(byId.get(b.ref.id), ['y']);
    const single = (await c.h2.query(q.Paginate(q.Match(q.Index('srcs_by_t'), 'x'), { sources: true }))) as { data: { value: unknown; sources: unknown[] }[] };
    assert.equal(single.data.length, 1);
    assert.equal(single.data[0].sources.length, 1);
  });
});

describe('bindings and wildcard sources', () => {
  test('a binding computes a term; the wildcard binding applies only to collections no source names', async () => {
    await c.h2.query(q.CreateCollection({ name: 'cats' }));
    await c.h2.query(q.CreateCollection({ name: 'dogs' }));
    await c.h2.query(q.Create(q.Ref(q.Collection('cats'), '1'), { data: { name: 'Tom' } }));
    await c.h2.query(q.Create(q.Ref(q.Collection('dogs'), '2'), { data: { name: 'Rex' } }));
    const index = (await c.h2.query(
      q.CreateIndex({
        name: 'by_label',
        source: [
          { collection: q.Collection('cats'), fields: { label: q.Query(q.Lambda('d', q.Concat(['cat', q.Select(['data', 'name'], q.Var('d'))], ':'))) } },
          { collection: '_', fields: { label: q.Query(q.Lambda('d', q.Concat(['other', q.Select(['data', 'name'], q.Var('d'))], ':'))) } },
        ],
        terms: [{ binding: 'label' }],
      }),
    )) as { active: boolean };
    assert.equal(index.active, false, 'a wildcard source is always built in the background');
    await untilActive(c.h2, 'by_label');
    assert.deepEqual(ids(await page(q.Paginate(q.Match(q.Index('by_label'), 'cat:Tom')))), ['1']);
    assert.deepEqual(ids(await page(q.Paginate(q.Match(q.Index('by_label'), 'other:Rex')))), ['2']);
    assert.deepEqual((await page(q.Paginate(q.Match(q.Index('by_label'), 'other:Tom')))).data, []);
    // Maintained on later writes too.
    await c.h2.query(q.Create(q.Ref(q.Collection('dogs'), '3'), { data: { name: 'Max' } }));
    assert.deepEqual(ids(await page(q.Paginate(q.Match(q.Index('by_label'), 'other:Max')))), ['3']);
    assert.equal(await c.h2.query(q.ContainsValue(q.Ref(q.Collection('dogs'), '3'), q.Match(q.Index('by_label'), 'other:Max'))), true);
  });
});
