// Events(ref | set) and Paginate(…, {events: true}) through the official driver (fql-v4.md §5.5).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type faunadb from 'faunadb';
import { query as q, values } from 'faunadb';
import { startFlora, clients, type FloraProcess, type DriverClients } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let c: DriverClients;

type Ev = { ts: number; action: string; document: values.Ref; data?: unknown };
type EvPage = { data: Ev[]; before?: Ev; after?: Ev };

const E = (id: string) => q.Ref(q.Collection('ev'), id);
const strip = (evs: Ev[]) => evs.map((e) => ({ action: e.action, id: e.document.id, ...(e.data !== undefined ? { data: e.data } : {}) }));

const stamps: number[] = [];

before(async () => {
  srv = await startFlora();
  c = clients(srv.url, srv.secret);
  await c.h2.query(q.CreateCollection({ name: 'ev' }));
  await c.h2.query(q.CreateIndex({ name: 'ev_by_k', source: q.Collection('ev'), terms: [{ field: ['data', 'k'] }], values: [{ field: ['data', 'n'] }] }));
  const steps = [
    q.Create(E('1'), { data: { k: 'a', n: 1, nested: { x: 1, y: 2 } } }),
    q.Update(E('1'), { data: { n: 2, nested: { y: 3 } } }),
    q.Update(E('1'), { data: { k: 'b', nested: null } }),
    q.Delete(E('1')),
  ];
  for (const s of steps) stamps.push((await c.h2.query<{ ts: number }>(q.Let({ r: s }, { ts: q.Select(['ts'], q.Var('r')) }))).ts);
  await c.h2.query(q.Create(E('2'), { data: { k: 'a', n: 5 } }));
});
after(async () => {
  await c.close();
  await srv.stop();
});

for (const name of ['h2', 'h1'] as const) {
  describe(`events (${name})`, () => {
    const cl = (): faunadb.Client => c[name];

    test('document events carry create data, update diffs and a null delete', async () => {
      const page = await cl().query<EvPage>(q.Paginate(E('1'), { events: true }));
      assert.deepEqual(strip(page.data), [
        { action: 'create', id: '1', data: { k: 'a', n: 1, nested: { x: 1, y: 2 } } },
        { action: 'update', id: '1', data: { n: 2, nested: { y: 3 } } },
        { action: 'update', id: '1', data: { k: 'b', nested: null } },
        { action: 'delete', id: '1', data: null },
      ]);
      // Delete returns the document as it was, so only the first three commit times are known.
      assert.deepEqual(page.data.slice(0, 3).map((e) => e.ts), stamps.slice(0, 3));
      assert.ok(page.data[3].ts > stamps[2]);
      const viaEvents = await cl().query<EvPage>(q.Paginate(q.Events(E('1'))));
      assert.deepEqual(viaEvents.data, page.data);
    });

    test('a read at a valid time sees the events up to it only: inside At, and with Paginate ts', async () => {
      // stamps[1] is the first update: the create and that update had happened.
      const atUpdate = await cl().query<EvPage>(q.At(stamps[1], q.Paginate(q.Events(E('1')))));
      assert.deepEqual(atUpdate.data.map((e) => e.action), ['create', 'update']);
      assert.deepEqual(atUpdate.data.map((e) => e.ts), stamps.slice(0, 2));
      const viaTs = await cl().query<EvPage>(q.Paginate(E('1'), { events: true, ts: stamps[1] }));
      assert.deepEqual(viaTs.data, atUpdate.data);
      // Backwards from the end of that history, and a set's events (index entries) too.
      const back = await cl().query<EvPage>(q.At(stamps[1], q.Paginate(q.Events(E('1')), { before: null, size: 1 })));
      assert.deepEqual(back.data.map((e) => e.action), ['update']);
      const before = await cl().query<EvPage>(q.At(stamps[0] - 1, q.Paginate(q.Events(E('1')))));
      assert.deepEqual(before.data, [], 'before the create: no event');
      const matched = await cl().query<EvPage>(q.At(stamps[1], q.Paginate(q.Events(q.Match(q.Index('ev_by_k'), 'a')))));
      assert.ok(matched.data.every((e) => e.ts <= stamps[1]), JSON.stringify(matched.data));
      assert.ok(matched.data.length >= 1);
    });

    test('paging through document events with size 1, both ways', async () => {
      const all = (await cl().query<EvPage>(q.Paginate(E('1'), { events: true }))).data;
      const forward: Ev[] = [];
      let p = await cl().query<EvPage>(q.Paginate(q.Events(E('1')), { size: 1 }));
      for (;;) {
        forward.push(...p.data);
        if (!p.after) break;
        assert.deepEqual(Object.keys(p.after).sort(), ['action', 'document', 'ts']);
        p = await cl().query<EvPage>(q.Paginate(q.Events(E('1')), { size: 1, after: p.after }));
      }
      assert.deepEqual(forward, all);
      const backward: Ev[] = [];
      p = await cl().query<EvPage>(q.Paginate(q.Events(E('1')), { size: 1, before: null }));
      for (;;) {
        backward.unshift(...p.data);
        if (!p.before) break;
        p = await cl().query<EvPage>(q.Paginate(q.Events(E('1')), { size: 1, before: p.before }));
      }
      assert.deepEqual(backward, all);
      // Integer µs and Time cursors: after is inclusive, before exclusive.
      const afterTs = await cl().query<EvPage>(q.Paginate(q.Events(E('1')), { after: stamps[1] }));
      assert.deepEqual(afterTs.data, all.slice(1));
      const beforeTime = await cl().query<EvPage>(q.Paginate(q.Events(E('1')), { before: q.Epoch(stamps[2], 'microseconds') }));
      assert.deepEqual(beforeTime.data, all.slice(0, 2));
    });

    test('Singleton events: add on create, remove on delete', async () => {
      const page = await cl().query<EvPage>(q.Paginate(q.Events(q.Singleton(E('1')))));
      assert.deepEqual(strip(page.data), [{ action: 'add', id: '1' }, { action: 'remove', id: '1' }]);
      const docs = (await cl().query<EvPage>(q.Paginate(E('1'), { events: true }))).data;
      assert.deepEqual([page.data[0].ts, page.data[1].ts], [docs[0].ts, docs[3].ts]);
    });

    test('Documents events: add on create, remove on delete', async () => {
      const page = await cl().query<EvPage>(q.Paginate(q.Documents(q.Collection('ev')), { events: true }));
      // Deleted documents keep their history: 1 was created and deleted before 2 was created.
      assert.deepEqual(strip(page.data), [{ action: 'add', id: '1' }, { action: 'remove', id: '1' }, { action: 'add', id: '2' }]);
    });

    test('Match events: an update of the indexed value is a remove and an add at the same ts', async () => {
      const page = await cl().query<EvPage>(q.Paginate(q.Match(q.Index('ev_by_k'), 'a'), { events: true }));
      assert.deepEqual(strip(page.data), [
        { action: 'add', id: '1', data: [1] },
        { action: 'add', id: '1', data: [2] },
        { action: 'remove', id: '1', data: [1] },
        { action: 'remove', id: '1', data: [2] },
        { action: 'add', id: '2', data: [5] },
      ]);
      assert.deepEqual(page.data.map((e) => e.ts), [stamps[0], stamps[1], stamps[1], stamps[2], page.data[4].ts]);
      const b = await cl().query<EvPage>(q.Paginate(q.Events(q.Match(q.Index('ev_by_k'), 'b'))));
      assert.deepEqual(strip(b.data), [{ action: 'add', id: '1', data: [2] }, { action: 'remove', id: '1', data: [2] }]);
      // size 1 forward paging visits the same events.
      const seen: Ev[] = [];
      let p = await cl().query<EvPage>(q.Paginate(q.Events(q.Match(q.Index('ev_by_k'), 'a')), { size: 1 }));
      for (;;) {
        seen.push(...p.data);
        if (!p.after) break;
        p = await cl().query<EvPage>(q.Paginate(q.Events(q.Match(q.Index('ev_by_k'), 'a')), { size: 1, after: p.after }));
      }
      assert.deepEqual(seen, page.data);
    });

    test('Range, Reverse and nested Events do not support events history', async () => {
      for (const s of [
        q.Range(q.Match(q.Index('ev_by_k'), 'a'), 1, 3),
        q.Reverse(q.Documents(q.Collection('ev'))),
        q.Events(E('1')),
      ]) {
        const f = await failure(cl(), q.Paginate(q.Events(s)));
        assert.equal(f.code, 'invalid argument');
        assert.equal(f.description, 'Set does not support events history.');
      }
    });
  });
}

describe('events of Union, Intersection, Difference and Distinct', () => {
  const A = (id: string) => q.Ref(q.Collection('alg'), id);
  const X = () => q.Match(q.Index('alg_by_tag'), 'x');
  const Y = () => q.Match(q.Index('alg_by_tag'), 'y');
  const ts: number[] = [];
  const at = async (expr: faunadb.ExprArg) => ts.push((await c.h2.query<{ ts: number }>(q.Let({ r: expr }, { ts: q.Select(['ts'], q.Var('r')) }))).ts);
  const events = async (set: faunadb.ExprArg) =>
    (await c.h2.query<EvPage>(q.Paginate(q.Events(set)))).data.map((e) => [e.action, e.document.id, ts.indexOf(e.ts) + 1, ...(e.data ? [e.data] : [])]);

  before(async () => {
    await c.h2.query(q.CreateCollection({ name: 'alg' }));
    await c.h2.query(q.CreateIndex({ name: 'alg_by_tag', source: q.Collection('alg'), terms: [{ field: ['data', 'tag'] }] }));
    await c.h2.query(q.CreateIndex({ name: 'alg_tags', source: q.Collection('alg'), values: [{ field: ['data', 'tag'] }] }));
    await at(q.Create(A('1'), { data: { tag: 'x' } })); // t1
    await at(q.Create(A('2'), { data: { tag: 'y' } })); // t2
    await at(q.Update(A('1'), { data: { tag: 'y' } })); // t3: 1 leaves x, joins y
    await c.h2.query(q.Delete(A('2'))); // t4: Delete returns the old version, so read its ts back
    ts.push((await c.h2.query<EvPage>(q.Paginate(q.Events(A('2'))))).data[1].ts);
  });

  test('Union: membership changes only (1 moving from x to y stays in the union)', async () => {
    assert.deepEqual(await events(q.Union(X(), Y())), [['add', '1', 1], ['add', '2', 2], ['remove', '2', 4]]);
  });

  test('Intersection: never in both', async () => {
    assert.deepEqual(await events(q.Intersection(X(), Y())), []);
    assert.deepEqual(await events(q.Intersection(Y(), q.Documents(q.Collection('alg')))), [['add', '2', 2], ['add', '1', 3], ['remove', '2', 4]]);
  });

  test('Difference: y minus x', async () => {
    assert.deepEqual(await events(q.Difference(Y(), X())), [['add', '2', 2], ['add', '1', 3], ['remove', '2', 4]]);
    // 2 joins both sets at t2, so it never enters the difference.
    assert.deepEqual(await events(q.Difference(q.Documents(q.Collection('alg')), Y())), [['add', '1', 1], ['remove', '1', 3]]);
  });

  test('Distinct: a value is added when it first appears and removed when its last element leaves', async () => {
    assert.deepEqual(await events(q.Distinct(q.Match(q.Index('alg_tags')))), [['add', '1', 1, ['x']], ['add', '2', 2, ['y']], ['remove', '1', 3, ['x']]]);
  });

  test('paging one event at a time, both ways, visits the same events', async () => {
    const set = q.Union(X(), Y());
    const all = (await c.h1.query<EvPage>(q.Paginate(q.Events(set)))).data;
    const forward: Ev[] = [];
    let p = await c.h1.query<EvPage>(q.Paginate(q.Events(set), { size: 1 }));
    for (;;) {
      forward.push(...p.data);
      if (!p.after) break;
      p = await c.h1.query<EvPage>(q.Paginate(q.Events(set), { size: 1, after: p.after }));
    }
    assert.deepEqual(forward, all);
    const backward: Ev[] = [];
    p = await c.h1.query<EvPage>(q.Paginate(q.Events(set), { size: 1, before: null }));
    for (;;) {
      backward.unshift(...p.data);
      if (!p.before) break;
      p = await c.h1.query<EvPage>(q.Paginate(q.Events(set), { size: 1, before: p.before }));
    }
    assert.deepEqual(backward, all);
  });

  test('mixing a historical set into a set operation is "Sets are not compatible."', async () => {
    const f = await failure(c.h2, q.Paginate(q.Events(q.Union(q.Events(A('1')), X()))));
    assert.deepEqual([f.code, f.description], ['invalid argument', 'Sets are not compatible.']);
  });
});

describe('events of Join with an index', () => {
  const author = (id: string) => q.Ref(q.Collection('authors'), id);
  const book = (id: string) => q.Ref(q.Collection('books'), id);
  const ts: number[] = [];
  const step = async (expr: faunadb.ExprArg) => ts.push((await c.h2.query<{ ts: number }>(q.Let({ r: expr }, { ts: q.Select(['ts'], q.Var('r')) }))).ts);
  const joined = () => q.Join(q.Match(q.Index('authors_by_country'), 'NL'), q.Index('books_by_author'));

  before(async () => {
    await c.h2.query(q.CreateCollection({ name: 'authors' }));
    await c.h2.query(q.CreateCollection({ name: 'books' }));
    await c.h2.query(q.CreateIndex({ name: 'authors_by_country', source: q.Collection('authors'), terms: [{ field: ['data', 'country'] }] }));
    await c.h2.query(q.CreateIndex({ name: 'books_by_author', source: q.Collection('books'), terms: [{ field: ['data', 'author'] }] }));
    await step(q.Create(author('1'), { data: { country: 'NL' } })); // t1
    await step(q.Create(book('1'), { data: { author: author('1') } })); // t2: book 1 joins through its own entry
    await step(q.Create(author('2'), { data: { country: 'DE' } })); // t3
    await step(q.Create(book('2'), { data: { author: author('2') } })); // t4: not joined (author 2 is not NL)
    await step(q.Update(author('2'), { data: { country: 'NL' } })); // t5: book 2 joins through its author
    await c.h2.query(q.Delete(book('1'))); // t6: book 1 leaves
    ts.push((await c.h2.query<EvPage>(q.Paginate(q.Events(book('1'))))).data[1].ts);
    await step(q.Update(author('1'), { data: { country: 'DE' } })); // t7: nothing left to leave
  });

  test('elements join and leave through the source and through the target index', async () => {
    const page = await c.h1.query<EvPage>(q.Paginate(q.Events(joined())));
    assert.deepEqual(page.data.map((e) => [e.action, e.document.id, ts.indexOf(e.ts) + 1]), [['add', '1', 2], ['add', '2', 5], ['remove', '1', 6]]);
    assert.deepEqual(await c.h2.query(q.Paginate(joined(), { events: true })), page);
  });

  test('a Join with a lambda target has the same events', async () => {
    const viaLambda = q.Join(q.Match(q.Index('authors_by_country'), 'NL'), q.Lambda('a', q.Match(q.Index('books_by_author'), q.Var('a'))));
    const page = await c.h2.query<EvPage>(q.Paginate(q.Events(viaLambda)));
    assert.deepEqual(page.data.map((e) => [e.action, e.document.id, ts.indexOf(e.ts) + 1]), [['add', '1', 2], ['add', '2', 5], ['remove', '1', 6]]);
    // A window that opens after author 1 became NL still sees book 1 leave.
    const late = await c.h2.query<EvPage>(q.Paginate(q.Events(viaLambda), { after: ts[2] }));
    assert.deepEqual(late.data.map((e) => [e.action, e.document.id, ts.indexOf(e.ts) + 1]), [['add', '2', 5], ['remove', '1', 6]]);
  });
});

describe('index events of changes undone in one transaction', () => {
  test('a document deleted and created again with the same indexed value, or created and deleted, leaves no index events', async () => {
    await c.h2.query(q.CreateCollection({ name: 'undo' }));
    await c.h2.query(q.CreateIndex({ name: 'undo_by_k', source: q.Collection('undo'), terms: [{ field: ['data', 'k'] }] }));
    const ref = q.Ref(q.Collection('undo'), '1');
    const created = await c.h2.query<{ ts: number }>(q.Create(ref, { data: { k: 'a' } }));
    await c.h2.query(q.Do(q.Delete(ref), q.Create(ref, { data: { k: 'a' } })));
    await c.h2.query(q.Do(q.Create(q.Ref(q.Collection('undo'), '2'), { data: { k: 'a' } }), q.Delete(q.Ref(q.Collection('undo'), '2'))));
    const events = (await c.h2.query<EvPage>(q.Paginate(q.Events(q.Match(q.Index('undo_by_k'), 'a'))))).data;
    assert.deepEqual(events.map((e) => [e.action, e.document.id, e.ts]), [['add', '1', created.ts]]);
    assert.deepEqual((await c.h2.query<{ data: unknown[] }>(q.Paginate(q.Match(q.Index('undo_by_k'), 'a')))).data.length, 1);
    // A different value in between is a real change: remove a, add b.
    const changed = await c.h2.query<{ ts: number }>(q.Do(q.Delete(ref), q.Create(ref, { data: { k: 'b' } })));
    const after = (await c.h2.query<EvPage>(q.Paginate(q.Events(q.Match(q.Index('undo_by_k'), 'a'))))).data;
    assert.deepEqual(after.map((e) => e.action), ['add', 'remove']);
    assert.equal(after[1].ts, changed.ts);
  });
});
