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
      // Only documents live at the snapshot contribute (see src/fql/events.ts).
      assert.deepEqual(strip(page.data), [{ action: 'add', id: '2' }]);
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
