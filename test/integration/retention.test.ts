// The background collector (fql-v4.md §4.4, §4.2) against a server whose grace is 0 and whose
// collector runs every 50 ms: history below the MVT disappears (document versions and index
// events), history kept forever stays, and documents whose ttl passed are deleted with their
// index entries. Each check awaits the collector's effect rather than sleeping a fixed time.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type faunadb from 'faunadb';
import { query as q } from 'faunadb';
import { startFlora, clients, type FloraProcess, type DriverClients } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let c: DriverClients;

before(async () => {
  srv = await startFlora({ env: { FLORA_HISTORY_GRACE_SECONDS: '0', FLORA_COLLECT_INTERVAL_MS: '50' } });
  c = clients(srv.url, srv.secret);
});
after(async () => {
  await c.close();
  await srv.stop();
});

type Event = { action: string; ts: number; data: unknown };

/** Polls `probe` until it returns a value `done` accepts (the collector runs every 50 ms). */
async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const events = async (expr: faunadb.ExprArg): Promise<Event[]> => ((await c.h2.query(q.Paginate(q.Events(expr)))) as { data: Event[] }).data;

describe('history collection', () => {
  test('history_days 0: old versions and index events go, the present stays readable', async () => {
    await c.h2.query(q.CreateCollection({ name: 'brief', history_days: 0 }));
    await c.h2.query(q.CreateIndex({ name: 'brief_by_k', source: q.Collection('brief'), terms: [{ field: ['data', 'k'] }] }));
    const ref = q.Ref(q.Collection('brief'), '1');
    await c.h2.query(q.Create(ref, { data: { k: 'a', n: 1 } }));
    await c.h2.query(q.Update(ref, { data: { k: 'b', n: 2 } }));
    await c.h2.query(q.Update(ref, { data: { k: 'a', n: 3 } }));
    const kept = await eventually(() => events(ref), (e) => e.length === 1, 'document versions');
    assert.equal(kept[0].ts, ((await c.h2.query(q.Get(ref))) as { ts: number }).ts);
    assert.deepEqual(((await c.h2.query(q.Get(ref))) as { data: unknown }).data, { k: 'a', n: 3 });
    // Index history: the add/remove pairs of the earlier values go; the live entry stays.
    await eventually(() => events(q.Match(q.Index('brief_by_k'), 'b')), (e) => e.length === 0, 'index events of b');
    const a = await eventually(() => events(q.Match(q.Index('brief_by_k'), 'a')), (e) => e.length === 1, 'index events of a');
    assert.equal(a[0].action, 'add');
    assert.equal(((await c.h1.query(q.Paginate(q.Match(q.Index('brief_by_k'), 'a')))) as { data: unknown[] }).data.length, 1);
    // Reads in the past are refused: the MVT is now.
    const f = await failure(c.h1, q.Get(ref, q.TimeSubtract(q.Now(), 1, 'second')));
    assert.equal(f.code, 'bad request');
  });

  test('history_days null and the default keep every version', async () => {
    await c.h2.query(q.CreateCollection({ name: 'kept_default' }));
    await c.h2.query(q.CreateCollection({ name: 'kept_forever', history_days: null }));
    await c.h2.query(q.CreateCollection({ name: 'marker', history_days: 0 }));
    for (const coll of ['kept_default', 'kept_forever']) {
      const ref = q.Ref(q.Collection(coll), '1');
      await c.h2.query(q.Create(ref, { data: { n: 1 } }));
      await c.h2.query(q.Update(ref, { data: { n: 2 } }));
    }
    // A later collected write shows that passes have run since.
    const marker = q.Ref(q.Collection('marker'), '1');
    await c.h2.query(q.Create(marker, { data: { n: 1 } }));
    await c.h2.query(q.Update(marker, { data: { n: 2 } }));
    await eventually(() => events(marker), (e) => e.length === 1, 'marker versions');
    for (const coll of ['kept_default', 'kept_forever']) {
      assert.deepEqual((await events(q.Ref(q.Collection(coll), '1'))).map((e) => e.action), ['create', 'update'], coll);
    }
  });
});

describe('ttl expiry', () => {
  test('a document whose ttl passes is deleted, with its index entries', async () => {
    await c.h2.query(q.CreateCollection({ name: 'ephemeral' }));
    await c.h2.query(q.CreateIndex({ name: 'ephemeral_by_k', source: q.Collection('ephemeral'), terms: [{ field: ['data', 'k'] }] }));
    const doomed = q.Ref(q.Collection('ephemeral'), '1');
    const stays = q.Ref(q.Collection('ephemeral'), '2');
    await c.h2.query(q.Create(doomed, { data: { k: 'x' }, ttl: q.TimeAdd(q.Now(), 200, 'milliseconds') }));
    await c.h2.query(q.Create(stays, { data: { k: 'x' }, ttl: q.TimeAdd(q.Now(), 1, 'day') }));
    const match = q.Paginate(q.Match(q.Index('ephemeral_by_k'), 'x'));
    assert.equal(((await c.h2.query(match)) as { data: unknown[] }).data.length, 2);
    await eventually(async () => ((await c.h2.query(match)) as { data: unknown[] }).data.length, (n) => n === 1, 'index entries');
    assert.equal(await c.h2.query(q.Exists(doomed)), false);
    assert.equal(await c.h2.query(q.Exists(stays)), true);
    assert.deepEqual((await events(doomed)).map((e) => e.action), ['create', 'delete']);
  });

  test('ttl_days expires documents the same way; a ttl moved into the future keeps one', async () => {
    await c.h2.query(q.CreateCollection({ name: 'daily', ttl_days: 0 }));
    await c.h2.query(q.CreateIndex({ name: 'daily_all', source: q.Collection('daily') }));
    const created = (await c.h2.query(q.Create(q.Collection('daily'), { data: {} }))) as { ttl: unknown };
    assert.ok(created.ttl, 'ttl_days sets a ttl');
    await eventually(async () => ((await c.h2.query(q.Paginate(q.Match(q.Index('daily_all'))))) as { data: unknown[] }).data.length, (n) => n === 0, 'ttl_days');
    const saved = (await c.h2.query(q.Create(q.Collection('daily'), { data: {}, ttl: q.TimeAdd(q.Now(), 1, 'day') }))) as { ref: faunadb.values.Ref };
    await c.h2.query(q.Create(q.Collection('daily'), { data: {} }));
    await eventually(async () => ((await c.h2.query(q.Paginate(q.Match(q.Index('daily_all'))))) as { data: faunadb.values.Ref[] }).data, (d) => d.length === 1, 'second ttl_days');
    assert.equal(await c.h2.query(q.Exists(saved.ref)), true);
  });
});
