// Drivers 2.x (issue 14, DECISIONS 3): faunadb 2.5.2 sends X-FaunaDB-API-Version 2.1 and reads refs
// by their `class`; API versions before 2.7 render refs with `class` (`classes` for the native
// collection) and events with `instance`, and 2.0 renders refs as strings, so old drivers round-trip
// refs and cursors. 2.7 up render as 4.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q4 } from 'faunadb';
import { httpRequest, serverForFile } from '../helpers/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const faunadb2 = require('faunadb-2') as any;
const q = faunadb2.query;

const server = serverForFile();

function oldClient(): any {
  const url = new URL(server.flora.url);
  return new faunadb2.Client({ secret: server.flora.secret, domain: url.hostname, port: Number(url.port), scheme: 'http' });
}

/** Raw response text of a query sent with an API version header. */
async function raw(version: string, body: unknown): Promise<any> {
  const res = await httpRequest(server.flora.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.flora.secret}`, 'x-faunadb-api-version': version },
    body: JSON.stringify(body),
  });
  assert.ok(res.status === 200 || res.status === 201, res.body);
  return JSON.parse(res.body).resource;
}

describe('faunadb 2.5.2', () => {
  test('refs come back with their class, and go back as they came', async () => {
    const c = oldClient();
    await c.query(q.CreateClass({ name: 'pets' }));
    await c.query(q.CreateIndex({ name: 'pets_by_kind', source: q.Class('pets'), terms: [{ field: ['data', 'kind'] }] }));
    const rex = await c.query(q.Create(q.Class('pets'), { data: { name: 'rex', kind: 'dog' } }));
    await c.query(q.Create(q.Class('pets'), { data: { name: 'fido', kind: 'dog' } }));
    assert.ok(rex.ref instanceof faunadb2.values.Ref);
    assert.equal(rex.ref.class.id, 'pets');
    assert.equal(rex.ref.class.class.id, 'classes');
    assert.equal((await c.query(q.Get(rex.ref))).data.name, 'rex');
    // A cursor (refs inside) goes back and pages on.
    const first = await c.query(q.Paginate(q.Match(q.Index('pets_by_kind'), 'dog'), { size: 1 }));
    assert.equal(first.data.length, 1);
    assert.ok(first.after);
    const second = await c.query(q.Paginate(q.Match(q.Index('pets_by_kind'), 'dog'), { size: 1, after: first.after }));
    assert.equal(second.data.length, 1);
    assert.notEqual(second.data[0].id, first.data[0].id);
    const back = await c.query(q.Paginate(q.Match(q.Index('pets_by_kind'), 'dog'), { size: 1, before: second.before }));
    assert.equal(back.data[0].id, first.data[0].id);
    // Schema refs: the class itself and the index.
    const cls = await c.query(q.Get(q.Class('pets')));
    assert.equal(cls.ref.class.id, 'classes');
    const idx = await c.query(q.Get(q.Index('pets_by_kind')));
    assert.equal(idx.source.id, 'pets');
    // Events name their document `instance`, and the cursor (an event) goes back too.
    await c.query(q.Update(rex.ref, { data: { age: 3 } }));
    const events = await c.query(q.Paginate(q.Events(rex.ref), { size: 1 }));
    assert.equal(events.data[0].instance.id, rex.ref.id);
    assert.equal(events.data[0].document, undefined);
    assert.equal(events.after.instance.id, rex.ref.id);
    const more = await c.query(q.Paginate(q.Events(rex.ref), { size: 1, after: events.after }));
    assert.deepEqual([more.data[0].action, more.data[0].data], ['update', { age: 3 }]);
  });
});

describe('API versions', () => {
  test('2.1 renders class/classes and instance; 2.7 and 4 render collection/collections and document', async () => {
    await raw('4', { create_collection: { object: { name: 'birds' } } });
    const doc = await raw('4', { create: { collection: 'birds' }, params: { object: { data: { object: { n: 1 } } } } });
    const id = doc.ref['@ref'].id;
    const ref = { '@ref': { id, collection: { '@ref': { id: 'birds', collection: { '@ref': { id: 'collections' } } } } } };
    const get = { get: ref };
    assert.deepEqual((await raw('2.1', get)).ref, { '@ref': { id, class: { '@ref': { id: 'birds', class: { '@ref': { id: 'classes' } } } } } });
    for (const v of ['2.7', '2.12', '3', '4']) assert.deepEqual((await raw(v, get)).ref, ref, v);
    const events = { paginate: { events: ref } };
    assert.deepEqual(Object.keys((await raw('2.1', events)).data[0]), ['ts', 'action', 'instance', 'data']);
    assert.deepEqual(Object.keys((await raw('4', events)).data[0]), ['ts', 'action', 'document', 'data']);
    // 2.0: refs are strings, as the driver's legacy form (no database part).
    assert.deepEqual((await raw('2.0', get)).ref, { '@ref': `classes/birds/${id}` });
    assert.deepEqual(await raw('2.0', { collection: 'birds' }), { '@ref': 'classes/birds' });
    assert.deepEqual(await raw('2.0', { index: 'nope' }), { '@ref': 'indexes/nope' });
    // A user object with a `document` key is not an event: it keeps its key.
    assert.deepEqual(await raw('2.1', { object: { document: 1 } }), { document: 1 });
  });

  test('the current driver is unaffected', async () => {
    const c = server.drivers.h2;
    const r = (await c.query(q4.Collection('birds'))) as { collection?: { id: string } };
    assert.equal(r.collection?.id, 'collections');
  });
});
