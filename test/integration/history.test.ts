// Insert and Remove (history writes) and history retention (MVT) through the official driver
// (fql-v4.md §3.5, §4.4, §7).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, clients, type FloraProcess } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let h2: faunadb.Client;
let h1: faunadb.Client;

before(async () => {
  srv = await startFlora();
  ({ h2, h1 } = clients(srv.url, srv.secret));
  await h2.query(q.CreateCollection({ name: 'hist' }));
  await h2.query(q.CreateIndex({ name: 'hist_by_v', source: q.Collection('hist'), terms: [{ field: ['data', 'v'] }] }));
});
after(async () => {
  await Promise.all([h2.close({ force: true }), h1.close({ force: true })]);
  await srv.stop();
});

interface Doc {
  ref: faunadb.values.Ref;
  ts: number;
  data: Record<string, unknown>;
}

const ref = (id: string) => q.Ref(q.Collection('hist'), id);

async function create(id: string, data: object): Promise<Doc> {
  return (await h2.query(q.Create(ref(id), { data }))) as Doc;
}

describe('Insert', () => {
  test('a version before the first one is readable at its time and the present is unchanged', async () => {
    const doc = await create('1', { v: 'now' });
    const past = doc.ts - 1000;
    const ev = (await h1.query(q.Insert(ref('1'), past, 'create', { data: { v: 'old' } }))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(ev), ['ts', 'action', 'document', 'data']);
    assert.equal(ev.ts, past);
    assert.equal(ev.action, 'create');
    assert.equal((ev.document as faunadb.values.Ref).id, doc.ref.id);
    assert.deepEqual(ev.data, { v: 'old' });
    const then = (await h2.query(q.Get(ref('1'), past + 500))) as Doc;
    assert.equal(then.ts, past);
    assert.deepEqual(then.data, { v: 'old' });
    const before = await failure(h2, q.Get(ref('1'), past - 1));
    assert.equal(before.code, 'instance not found');
    const nowDoc = (await h2.query(q.Get(ref('1')))) as Doc;
    assert.equal(nowDoc.ts, doc.ts);
    assert.deepEqual(nowDoc.data, { v: 'now' });
    const atThen = (await h2.query(q.At(past, q.Select(['data', 'v'], q.Get(ref('1')))))) as string;
    assert.equal(atThen, 'old');
  });

  test('an inserted update is stored as a full create version', async () => {
    const doc = await create('2', { a: 1, b: 2 });
    const ev = (await h2.query(q.Insert(ref('2'), doc.ts - 10, 'update', { data: { a: 0 } }))) as Record<string, unknown>;
    assert.equal(ev.action, 'create');
    const then = (await h2.query(q.Get(ref('2'), doc.ts - 5))) as Doc;
    assert.deepEqual(then.data, { a: 0 });
  });

  test('inserting at an existing ts replaces that version (and keeps indexes current)', async () => {
    const doc = await create('3', { v: 'orig' });
    await h2.query(q.Insert(ref('3'), doc.ts, 'create', { data: { v: 'replaced' } }));
    const now = (await h2.query(q.Get(ref('3')))) as Doc;
    assert.equal(now.ts, doc.ts);
    assert.deepEqual(now.data, { v: 'replaced' });
    const orig = (await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), 'orig')))) as { data: unknown[] };
    assert.equal(orig.data.length, 0);
    const repl = (await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), 'replaced')))) as { data: unknown[] };
    assert.equal(repl.data.length, 1);
  });

  test('a delete tombstone in the past hides the document at that time only', async () => {
    const doc = await create('4', { v: 1 });
    const upd = (await h2.query(q.Update(ref('4'), { data: { v: 2 } }))) as Doc;
    const mid = doc.ts + Math.floor((upd.ts - doc.ts) / 2);
    const ev = (await h2.query(q.Insert(ref('4'), mid, 'delete', {}))) as Record<string, unknown>;
    assert.deepEqual(ev.data, null);
    assert.equal(ev.action, 'delete');
    assert.equal(await h2.query(q.Exists(ref('4'), mid)), false);
    assert.equal(await h2.query(q.Exists(ref('4'), mid - 1)), true);
    assert.equal(await h2.query(q.Exists(ref('4'))), true);
  });

  test('a delete at the newest time removes the document (and its index entries)', async () => {
    await create('5', { v: 'five' });
    await h2.query(q.Insert(ref('5'), q.Now(), 'delete', {}));
    assert.equal(await h2.query(q.Exists(ref('5'))), false);
    const page = (await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), 'five')))) as { data: unknown[] };
    assert.equal(page.data.length, 0);
  });

  test('inserting into a document that never existed creates its history', async () => {
    const ts = (await h2.query(q.ToMicros(q.Now()))) as number;
    await h2.query(q.Insert(ref('6'), ts - 100, 'create', { data: { v: 'six' } }));
    const d = (await h2.query(q.Get(ref('6')))) as Doc;
    assert.equal(d.ts, ts - 100);
    assert.deepEqual(d.data, { v: 'six' });
  });

  test('several inserts in one transaction see each other', async () => {
    const doc = await create('7', { v: 0 });
    const r = (await h2.query(
      q.Do(
        q.Insert(ref('7'), doc.ts - 20, 'create', { data: { v: -2 } }),
        q.Insert(ref('7'), doc.ts - 10, 'create', { data: { v: -1 } }),
        q.Remove(ref('7'), doc.ts - 20, 'create'),
        [q.Exists(ref('7'), doc.ts - 15), q.Select(['data', 'v'], q.Get(ref('7'), doc.ts - 5))],
      ),
    )) as unknown[];
    assert.deepEqual(r, [false, -1]);
    assert.equal(await h2.query(q.Exists(ref('7'), doc.ts - 15)), false);
  });

  test('errors: future ts, bad action, unknown collection, non-document ref', async () => {
    await create('8', { v: 8 });
    const future = await failure(h2, q.Insert(ref('8'), q.TimeAdd(q.Now(), 1, 'hour'), 'create', {}));
    assert.equal(future.status, 400);
    assert.equal(future.code, 'invalid write time');
    assert.equal(future.description, 'Cannot write outside of snapshot time.');
    const bad = await failure(h2, q.Insert(ref('8'), 1, 5, {}));
    assert.equal(bad.code, 'invalid argument');
    assert.equal(bad.description, "String 'create', 'update', or 'delete' expected, Integer provided.");
    assert.deepEqual(bad.position, ['action']);
    const unknown = await failure(h2, q.Insert(q.Ref(q.Collection('nope'), '1'), 1, 'create', {}));
    assert.equal(unknown.code, 'invalid ref');
    const coll = await failure(h2, q.Insert(q.Collection('hist'), 1, 'create', {}));
    assert.equal(coll.code, 'invalid argument');
    assert.equal(coll.description, 'Cannot insert event for specified ref.');
    const rm = await failure(h2, q.Remove(q.Collection('hist'), 1, 'create'));
    assert.equal(rm.description, 'Cannot remove event for specified ref.');
  });
});

describe('Insert into keys', () => {
  test('a past key version keeps the secret; a delete inserted as the newest version revokes the key', async () => {
    const key = (await h2.query(q.CreateKey({ role: 'server', data: { v: 'now' } }))) as { ref: faunadb.values.Ref; ts: number; secret: string };
    const past = key.ts - 1000;
    const ev = (await h2.query(q.Insert(key.ref, past, 'create', { role: 'server-readonly', data: { v: 'old' } }))) as Record<string, unknown>;
    assert.deepEqual([ev.ts, ev.action, ev.data], [past, 'create', { v: 'old' }]);
    const then = (await h2.query(q.Get(key.ref, past))) as { role: string; data: unknown; hashed_secret?: string };
    assert.deepEqual([then.role, then.data], ['server-readonly', { v: 'old' }]);
    const now = (await h2.query(q.Get(key.ref))) as { role: string; data: unknown; hashed_secret: string };
    assert.deepEqual([now.role, now.data], ['server', { v: 'now' }]);
    assert.equal(then.hashed_secret, now.hashed_secret);
    const events = (await h2.query(q.Paginate(q.Events(key.ref)))) as { data: { action: string; ts: number }[] };
    assert.deepEqual(events.data.map((e) => [e.action, e.ts]), [['create', past], ['create', key.ts]]);
    // The key works until a delete becomes its newest version.
    const client = new faunadb.Client({ secret: key.secret, domain: new URL(srv.url).hostname, port: Number(new URL(srv.url).port), scheme: 'http' });
    try {
      assert.equal(await client.query(q.Add(1, 1)), 2);
      const later = (await h2.query(q.Select('ts', q.Create(q.Collection('hist'), { data: {} })))) as number;
      await h2.query(q.Insert(key.ref, later - 1, 'delete', {}));
      const f = await failure(client, q.Add(1, 1));
      assert.equal(f.status, 401);
    } finally {
      await client.close({ force: true });
    }
  });

  test('bad key versions are validation failures; a key that never existed cannot get a history', async () => {
    const key = (await h2.query(q.CreateKey({ role: 'server' }))) as { ref: faunadb.values.Ref; ts: number };
    const bad = await failure(h2, q.Insert(key.ref, key.ts - 1, 'create', { role: 'nope' }));
    assert.equal(bad.code, 'validation failed');
    const missing = await failure(h2, q.Insert(q.Ref(q.Keys(), '12345'), 1, 'create', { role: 'server' }));
    assert.deepEqual([missing.code, missing.description], ['invalid argument', 'Cannot insert event for specified ref.']);
  });
});

describe('Remove', () => {
  test('removes the version at ts; update is matched as create', async () => {
    const doc = await create('101', { v: 1 });
    const upd = (await h2.query(q.Update(ref('101'), { data: { v: 2 } }))) as Doc;
    assert.equal(await h2.query(q.Remove(ref('101'), upd.ts, 'update')), null);
    const now = (await h2.query(q.Get(ref('101')))) as Doc;
    assert.equal(now.ts, doc.ts);
    assert.deepEqual(now.data, { v: 1 });
    const page = (await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), 1)))) as { data: unknown[] };
    assert.equal(page.data.length, 1);
  });

  test('an action that does not match, or no version at ts, changes nothing', async () => {
    const doc = await create('102', { v: 1 });
    assert.equal(await h2.query(q.Remove(ref('102'), doc.ts, 'delete')), null);
    assert.equal(await h2.query(q.Remove(ref('102'), doc.ts - 1, 'create')), null);
    assert.equal(await h2.query(q.Remove(ref('199'), doc.ts, 'create')), null);
    assert.equal(await h2.query(q.Exists(ref('102'))), true);
  });

  test('removing the only version removes the document', async () => {
    const doc = await create('103', { v: '103' });
    await h2.query(q.Remove(ref('103'), doc.ts, 'create'));
    assert.equal(await h2.query(q.Exists(ref('103'))), false);
    const page = (await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), '103')))) as { data: unknown[] };
    assert.equal(page.data.length, 0);
  });
});

describe('index history follows Insert and Remove', () => {
  type Ev = { ts: number; action: string; document: faunadb.values.Ref };
  const matchAt = async (v: string, ts: number) =>
    ((await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), v), { ts }))) as { data: faunadb.values.Ref[] }).data.map((r) => r.id);
  const matchNow = async (v: string) => ((await h2.query(q.Paginate(q.Match(q.Index('hist_by_v'), v)))) as { data: faunadb.values.Ref[] }).data.map((r) => r.id);
  const events = async (v: string, id: string) =>
    ((await h2.query(q.Paginate(q.Events(q.Match(q.Index('hist_by_v'), v))))) as { data: Ev[] }).data
      .filter((e) => e.document.id === id)
      .map((e) => [e.action, e.ts]);

  test('an inserted past version is in the index at its time, and leaves it at the next version', async () => {
    const doc = await create('50', { v: 'ix-now' });
    const past = doc.ts - 1000;
    await h2.query(q.Insert(ref('50'), past, 'create', { data: { v: 'ix-old' } }));
    assert.deepEqual(await matchAt('ix-old', past), ['50']);
    assert.deepEqual(await matchAt('ix-old', past + 999), ['50']);
    assert.deepEqual(await matchAt('ix-old', doc.ts), []);
    assert.deepEqual(await matchAt('ix-now', past), []);
    assert.deepEqual(await matchNow('ix-old'), []);
    assert.deepEqual(await matchNow('ix-now'), ['50']);
    assert.deepEqual(await events('ix-old', '50'), [['add', past], ['remove', doc.ts]]);
    assert.deepEqual(await events('ix-now', '50'), [['add', doc.ts]]);
  });

  test('removing a version removes the index events it produced', async () => {
    const doc = await create('51', { v: 'r-a' });
    const updated = (await h2.query(q.Update(ref('51'), { data: { v: 'r-b' } }))) as Doc;
    assert.deepEqual(await events('r-a', '51'), [['add', doc.ts], ['remove', updated.ts]]);
    // Without the update the document keeps its first value, now and at the update's time.
    await h2.query(q.Remove(ref('51'), updated.ts, 'update'));
    assert.deepEqual(await events('r-a', '51'), [['add', doc.ts]]);
    assert.deepEqual(await events('r-b', '51'), []);
    assert.deepEqual(await matchNow('r-a'), ['51']);
    assert.deepEqual(await matchNow('r-b'), []);
    assert.deepEqual(await matchAt('r-a', updated.ts), ['51']);
  });

  test('an insert between the newest version and now becomes the current entry at its own time', async () => {
    const doc = await create('52', { v: 'n-a' });
    const later = (await h2.query(q.Select('ts', q.Create(ref('53'), { data: {} })))) as number; // moves time on
    const t = later - 1;
    await h2.query(q.Insert(ref('52'), t, 'update', { data: { v: 'n-b' } }));
    assert.deepEqual(await matchNow('n-b'), ['52']);
    assert.deepEqual(await matchNow('n-a'), []);
    assert.deepEqual(await matchAt('n-b', t), ['52']);
    assert.deepEqual(await matchAt('n-a', t - 1), ['52']);
    assert.deepEqual(await events('n-b', '52'), [['add', t]]);
    assert.deepEqual(await events('n-a', '52'), [['add', doc.ts], ['remove', t]]);
    // Removing it again restores the first value as current.
    await h2.query(q.Remove(ref('52'), t, 'create'));
    assert.deepEqual(await matchNow('n-a'), ['52']);
    assert.deepEqual(await matchNow('n-b'), []);
    assert.deepEqual(await events('n-b', '52'), []);
  });

  test('a unique index refuses an insert that would make the current version a duplicate', async () => {
    await h2.query(q.CreateCollection({ name: 'uniq_hist' }));
    await h2.query(q.CreateIndex({ name: 'uniq_hist_v', source: q.Collection('uniq_hist'), terms: [{ field: ['data', 'v'] }], unique: true }));
    await h2.query(q.Create(q.Ref(q.Collection('uniq_hist'), '1'), { data: { v: 'taken' } }));
    const mine = (await h2.query(q.Create(q.Ref(q.Collection('uniq_hist'), '2'), { data: { v: 'free' } }))) as Doc;
    const f = await failure(h2, q.Insert(q.Ref(q.Collection('uniq_hist'), '2'), mine.ts, 'create', { data: { v: 'taken' } }));
    assert.equal(f.code, 'instance not unique');
    // A duplicate only in the past does not matter to a unique index (it checks the present).
    await h2.query(q.Insert(q.Ref(q.Collection('uniq_hist'), '2'), mine.ts - 10, 'create', { data: { v: 'taken' } }));
  });
});

describe('history retention (MVT)', () => {
  const MINUTE = 60_000_000;
  const parse = (s: string) => Date.parse(s);

  test('reading below snapshot − history_days − 15 min is 400 bad request', async () => {
    await h2.query(q.CreateCollection({ name: 'short', history_days: 0 }));
    await h2.query(q.Create(q.Ref(q.Collection('short'), '1'), { data: {} }));
    for (const expr of [
      q.Get(q.Ref(q.Collection('short'), '1'), q.TimeSubtract(q.Now(), 16, 'minutes')),
      q.At(q.TimeSubtract(q.Now(), 16, 'minutes'), q.Get(q.Ref(q.Collection('short'), '1'))),
      q.Exists(q.Ref(q.Collection('short'), '1'), q.TimeSubtract(q.Now(), 16, 'minutes')),
    ]) {
      const f = await failure(h2, expr);
      assert.equal(f.status, 400);
      assert.equal(f.code, 'bad request');
      const m = /^Requested timestamp (\S+) less than minimum allowed timestamp (\S+)\.$/.exec(f.description);
      assert.ok(m, f.description);
      assert.equal(parse(m[2]) - parse(m[1]), 60_000);
    }
    // Within the 15-minute grace: allowed (the document did not exist yet).
    const f = await failure(h2, q.Get(q.Ref(q.Collection('short'), '1'), q.TimeSubtract(q.Now(), 14, 'minutes')));
    assert.equal(f.code, 'instance not found');
    assert.ok(MINUTE > 0);
  });

  test('Paginate(set, {ts}) below the MVT of the set\'s collections is 400 bad request, whatever the set shape', async () => {
    await h2.query(q.CreateIndex({ name: 'short_all', source: q.Collection('short') }));
    await h2.query(q.CreateIndex({ name: 'any_all', source: { collection: '_' } }));
    const past = q.TimeSubtract(q.Now(), 16, 'minutes');
    for (const set of [
      q.Documents(q.Collection('short')),
      q.Match(q.Index('short_all')),
      q.Match(q.Index('any_all')),
      q.Union(q.Match(q.Index('short_all')), q.Documents(q.Collection('hist'))),
      q.Distinct(q.Match(q.Index('short_all'))),
    ]) {
      const f = await failure(h2, q.Paginate(set, { ts: past }));
      assert.deepEqual([f.status, f.code], [400, 'bad request'], JSON.stringify(set));
      assert.match(f.description, /^Requested timestamp \S+ less than minimum allowed timestamp \S+\.$/);
      const inAt = await failure(h2, q.At(past, q.Paginate(set)));
      assert.equal(inAt.code, 'bad request');
    }
    // Within the grace, and for a collection with the default 30 days, the past is readable.
    assert.deepEqual(await h2.query(q.Paginate(q.Match(q.Index('short_all')), { ts: q.TimeSubtract(q.Now(), 14, 'minutes') })), { data: [] });
    assert.ok(await h2.query(q.Paginate(q.Documents(q.Collection('hist')), { ts: q.TimeSubtract(q.Now(), 1, 'days') })));
  });

  test('history_days null keeps history forever', async () => {
    await h2.query(q.CreateCollection({ name: 'forever' }));
    await h2.query(q.Update(q.Collection('forever'), { history_days: null }));
    const c = (await h2.query(q.Get(q.Collection('forever')))) as Record<string, unknown>;
    assert.equal(c.history_days, null);
    await h2.query(q.Create(q.Ref(q.Collection('forever'), '1'), { data: {} }));
    const f = await failure(h2, q.Get(q.Ref(q.Collection('forever'), '1'), 1));
    assert.equal(f.code, 'instance not found');
  });

  test('the default of 30 days refuses a read at the epoch', async () => {
    await h2.query(q.Create(q.Ref(q.Collection('hist'), '201'), { data: {} }));
    const f = await failure(h2, q.Get(q.Ref(q.Collection('hist'), '201'), 1));
    assert.equal(f.code, 'bad request');
    assert.match(f.description, /^Requested timestamp 1970-01-01T00:00:00.000001Z less than minimum allowed timestamp /);
  });
});
