// Paginate(set, {events: true, sources: true}) (fql-v4.md §2.5, §5.5): each item is
// {value: <event>, sources: [sets]}, the event being the same {ts, action, document, data} a plain
// events page holds, and cursors stay plain events. As in Fauna (ReadAdaptor.paginate's ElemL;
// set/HistoricalSet.scala), the events of a document or a single set name the events set itself, and
// the events of a union name the operand set each came from.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, values } from 'faunadb';
import { serverForFile } from '../helpers/server';

type Ev = { ts: number; action: string; document: values.Ref; data?: unknown };
type Item = { value: Ev; sources: unknown[] };
type Page<T> = { data: T[]; before?: unknown; after?: unknown };

/** Values the driver decoded (refs, sets) as their wire JSON. */
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

const REF = (id: string) => ({ '@ref': { id, collection: { '@ref': { id: 'paints', collection: { '@ref': { id: 'collections' } } } } } });
const INDEX = { '@ref': { id: 'paints_by_color', collection: { '@ref': { id: 'indexes' } } } };
const MATCH = (color: string) => ({ '@set': { match: INDEX, terms: color } });

describe('events with sources', () => {
  const srv = serverForFile();
  const P = (id: string) => q.Ref(q.Collection('paints'), id);
  const stamps: number[] = [];

  before(async () => {
    const c = srv.drivers.h2;
    await c.query(q.CreateCollection({ name: 'paints' }));
    await c.query(
      q.CreateIndex({ name: 'paints_by_color', source: q.Collection('paints'), terms: [{ field: ['data', 'color'] }], values: [{ field: ['data', 'n'] }] }),
    );
    for (const step of [
      q.Create(P('1'), { data: { color: 'red', n: 1 } }),
      q.Update(P('1'), { data: { n: 2 } }),
      q.Create(P('2'), { data: { color: 'blue', n: 7 } }),
    ])
      stamps.push(((await c.query(step)) as { ts: number }).ts);
  });

  for (const proto of ['h2', 'h1'] as const) {
    test(`a document's events: {value: {ts, action, document, data}, sources: [Events(ref)]} (${proto})`, async () => {
      const c = srv.drivers[proto];
      const page = (await c.query(q.Paginate(P('1'), { events: true, sources: true }))) as Page<Item>;
      assert.deepEqual(
        page.data.map((item) => Object.keys(item)),
        [['value', 'sources'], ['value', 'sources']],
      );
      assert.deepEqual(
        page.data.map((item) => wire(item.value)),
        [
          { ts: stamps[0], action: 'create', document: REF('1'), data: { color: 'red', n: 1 } },
          { ts: stamps[1], action: 'update', document: REF('1'), data: { n: 2 } },
        ],
      );
      for (const item of page.data) assert.deepEqual(wire(item.sources), [{ '@set': { events: REF('1') } }]);
      // Without sources the same events, bare.
      const plain = (await c.query(q.Paginate(P('1'), { events: true }))) as Page<Ev>;
      assert.deepEqual(plain.data.map(wire), page.data.map((item) => wire(item.value)));
    });

    test(`a match's events carry the covered values as data; sources name Events(match) (${proto})`, async () => {
      const c = srv.drivers[proto];
      const page = (await c.query(q.Paginate(q.Match(q.Index('paints_by_color'), 'red'), { events: true, sources: true }))) as Page<Item>;
      assert.deepEqual(
        page.data.map((item) => wire(item.value)),
        [
          { ts: stamps[0], action: 'add', document: REF('1'), data: [1] },
          { ts: stamps[1], action: 'add', document: REF('1'), data: [2] },
          { ts: stamps[1], action: 'remove', document: REF('1'), data: [1] },
        ],
      );
      for (const item of page.data) assert.deepEqual(wire(item.sources), [{ '@set': { events: MATCH('red') } }]);
      // Events(set) with sources: the same page.
      const viaEvents = (await c.query(q.Paginate(q.Events(q.Match(q.Index('paints_by_color'), 'red')), { sources: true }))) as Page<Item>;
      assert.deepEqual(wire(viaEvents.data), wire(page.data));
    });
  }

  test('a union names, for each event, the operand set it came from', async () => {
    const c = srv.drivers.h2;
    const union = q.Union(q.Match(q.Index('paints_by_color'), 'red'), q.Match(q.Index('paints_by_color'), 'blue'));
    const page = (await c.query(q.Paginate(union, { events: true, sources: true }))) as Page<Item>;
    assert.deepEqual(
      page.data.map((item) => [wire(item.value), wire(item.sources)]),
      [
        [{ ts: stamps[0], action: 'add', document: REF('1'), data: [1] }, [MATCH('red')]],
        [{ ts: stamps[1], action: 'add', document: REF('1'), data: [2] }, [MATCH('red')]],
        [{ ts: stamps[1], action: 'remove', document: REF('1'), data: [1] }, [MATCH('red')]],
        [{ ts: stamps[2], action: 'add', document: REF('2'), data: [7] }, [MATCH('blue')]],
      ],
    );
  });

  test('cursors stay plain events: paging with size 1 walks the same items', async () => {
    const c = srv.drivers.h2;
    const all = (await c.query(q.Paginate(P('1'), { events: true, sources: true }))) as Page<Item>;
    const first = (await c.query(q.Paginate(P('1'), { events: true, sources: true, size: 1 }))) as Page<Item>;
    assert.deepEqual(wire(first.data), wire(all.data.slice(0, 1)));
    assert.deepEqual(wire(first.after), { ts: stamps[1], action: 'update', document: REF('1') });
    const second = (await c.query(q.Paginate(P('1'), { events: true, sources: true, size: 1, after: first.after as never }))) as Page<Item>;
    assert.deepEqual(wire(second.data), wire(all.data.slice(1, 2)));
    assert.equal(second.after, undefined);
  });
});
