// POST /stream (fql-v4.md §1.12, wire.md §6) through the official driver (HTTP/2 and its fetch
// adapter over HTTP/1.1) and raw HTTP/1.1 chunked and HTTP/2 requests.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import { Client, query as q, values, type Expr } from 'faunadb';
import { ClientPool, httpRequest, startFlora, type FloraProcess } from '../helpers/server';

type Json = Record<string, unknown>;
interface Received {
  type: string;
  data: unknown;
  txn?: number;
}

/** Everything a subscription reports, with a way to wait for a condition on it. */
class Log {
  readonly items: Received[] = [];
  private waiters: (() => void)[] = [];

  add(item: Received): void {
    this.items.push(item);
    for (const w of this.waiters.splice(0)) w();
  }

  of(type: string): Received[] {
    return this.items.filter((i) => i.type === type);
  }

  get start(): number | undefined {
    return this.of('start')[0]?.data as number | undefined;
  }

  /** Resolves once `pred` holds; fails with what was received after `ms`. */
  async until(pred: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred()) {
      const left = deadline - Date.now();
      if (left <= 0) assert.fail(`timed out waiting for ${what}; received ${JSON.stringify(this.items).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

const TYPES = ['start', 'version', 'set', 'history_rewrite', 'error'] as const;

// The driver's typings differ for stream() and stream.document(); this is what both have.
interface AnySubscription {
  start(): unknown;
  close(): void;
}

/** The wire form of an expression, as the driver sends it. */
const wire = (e: unknown): string => JSON.stringify((q as unknown as { wrap(e: unknown): unknown }).wrap(e));

function watch(sub: AnySubscription, extra: string[] = []): { sub: AnySubscription; log: Log } {
  const log = new Log();
  const on = (sub as unknown as { on(t: string, cb: (data: unknown, event: { txn?: number }) => void): void }).on.bind(sub);
  for (const type of [...TYPES, ...extra]) on(type, (data, event) => log.add({ type, data, txn: event?.txn }));
  sub.start();
  return { sub, log };
}

async function started(log: Log): Promise<number> {
  await log.until(() => log.start !== undefined || log.of('error').length > 0, 10_000, 'start');
  assert.equal(log.of('error').length, 0, `stream failed: ${JSON.stringify(log.of('error'))}`);
  return log.start!;
}

let srv: FloraProcess;
let pool: ClientPool;
let root: Client;
let rootH1: Client;

const Doc = (coll: string, id: string) => q.Ref(q.Collection(coll), id);

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret, 'h2');
  rootH1 = pool.client(srv.secret, 'h1');
  for (const name of ['docs', 'sets', 'hist', 'conc', 'big', 'perm', 'pub', 'idle', 'gone', 'bad'])
    await root.query(q.CreateCollection({ name }));
  await root.query(
    q.CreateIndex({ name: 'sets_by_k', source: q.Collection('sets'), terms: [{ field: ['data', 'k'] }], values: [{ field: ['data', 'n'] }] }),
  );
});
after(async () => {
  await pool.close();
  await srv.stop();
});

/** Opens a probe stream and reads the server's count of open streams (itself included). */
async function openStreams(): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(srv.url);
    session.on('error', reject);
    const req = session.request({
      ':method': 'POST',
      ':path': '/stream',
      authorization: `Bearer ${srv.secret}`,
    });
    req.on('response', (headers) => {
      resolve(Number(headers['x-flora-open-streams']));
      session.destroy();
    });
    req.on('error', reject);
    req.end(wire(Doc('gone', '1')));
  });
}

async function openStreamsBackTo(n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = -1;
  while (Date.now() < deadline) {
    last = await openStreams();
    if (last === n + 1) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`open streams did not go back to ${n} (last probe saw ${last - 1} besides itself)`);
}

describe('document streams', () => {
  for (const proto of ['h2', 'h1'] as const) {
    test(`create, update, delete with every field (${proto})`, async () => {
      const cl = proto === 'h2' ? root : rootH1;
      const ref = Doc('docs', proto === 'h2' ? '1' : '2');
      const { sub, log } = watch(cl.stream(ref, { fields: ['action', 'document', 'diff', 'prev'] }));
      const start = await started(log);
      assert.equal(typeof start, 'number');
      const start0 = log.items[0];
      assert.equal(start0.type, 'start');
      assert.equal(start0.txn, start);

      const created = await root.query<{ ts: number }>(q.Create(ref, { data: { a: 1, nested: { x: 1, y: 2 } } }));
      const updated = await root.query<{ ts: number }>(q.Update(ref, { data: { b: 2, nested: { y: 3 } } }));
      const deleted = await root.query<{ ts: number }>(q.Delete(ref));
      await log.until(() => log.of('version').length >= 3);
      sub.close();
      const [c, u, d] = log.of('version');
      type Version = { action: string; document: Json & { ts: number; ref: values.Ref }; diff: Json; prev: Json | null };
      const cv = c.data as Version;
      const uv = u.data as Version;
      const dv = d.data as Version;
      assert.deepEqual(Object.keys(cv), ['action', 'document', 'diff', 'prev']);
      assert.equal(cv.action, 'create');
      assert.equal(cv.document.ref.id, (proto === 'h2' ? '1' : '2'));
      assert.equal(cv.document.ref.collection!.id, 'docs');
      assert.deepEqual(cv.document.data, { a: 1, nested: { x: 1, y: 2 } });
      assert.equal(cv.document.ts, created.ts);
      assert.equal(c.txn, created.ts);
      assert.deepEqual((cv.diff as Json).data, { a: 1, nested: { x: 1, y: 2 } });
      assert.equal(cv.prev, null);

      assert.equal(uv.action, 'update');
      assert.equal(u.txn, updated.ts);
      assert.deepEqual(uv.document.data, { a: 1, b: 2, nested: { x: 1, y: 3 } });
      assert.deepEqual((uv.diff as Json).data, { b: 2, nested: { y: 3 } });
      assert.equal((uv.diff as Json).ts, updated.ts);
      assert.deepEqual((uv.prev as Json).data, { a: 1, nested: { x: 1, y: 2 } });
      assert.equal((uv.prev as Json).ts, created.ts);

      assert.equal(dv.action, 'delete');
      // The document as it was, at the delete's time (which Delete itself does not return).
      assert.deepEqual(dv.document.data, { a: 1, b: 2, nested: { x: 1, y: 3 } });
      assert.ok(d.txn! > deleted.ts);
      assert.equal(dv.document.ts, d.txn);
      assert.equal((dv.diff as Json).data, null);
      assert.deepEqual((dv.prev as Json).data, { a: 1, b: 2, nested: { x: 1, y: 3 } });
    });
  }

  test('default fields are action and document; fields selects exactly the keys asked for', async () => {
    const ref = Doc('docs', '10');
    const all = watch(root.stream(ref));
    const some = watch(root.stream(ref, { fields: ['diff', 'prev'] }));
    const reordered = watch(root.stream(ref, { fields: ['prev', 'action'] }));
    await Promise.all([started(all.log), started(some.log), started(reordered.log)]);
    await root.query(q.Create(ref, { data: { v: 1 } }));
    await root.query(q.Update(ref, { data: { v: 2 } }));
    for (const w of [all, some, reordered]) await w.log.until(() => w.log.of('version').length === 2);
    for (const w of [all, some, reordered]) w.sub.close();
    const keys = (w: typeof all) => w.log.of('version').map((v) => Object.keys(v.data as Json));
    assert.deepEqual(keys(all), [['action', 'document'], ['action', 'document']]);
    assert.deepEqual(keys(some), [['diff', 'prev'], ['diff', 'prev']]);
    assert.deepEqual(keys(reordered), [['action', 'prev'], ['action', 'prev']]);
    const second = all.log.of('version')[1].data as { action: string; document: { ts: number; data: Json } };
    assert.equal(second.action, 'update');
    assert.deepEqual(second.document.data, { v: 2 });
  });

  test('a create over an existing document (Delete and Create in one query) is an update', async () => {
    const ref = Doc('docs', '40');
    const created = await root.query<{ ts: number }>(q.Create(ref, { data: { a: 1 } }));
    const { sub, log } = watch(root.stream(ref, { fields: ['action', 'document', 'diff', 'prev'] }));
    await started(log);
    let txnTime: string | undefined;
    await root.query(q.Do(q.Delete(ref), q.Create(ref, { data: { b: 2 } })), {
      observer: (res: { responseHeaders: Record<string, string> }) => (txnTime = res.responseHeaders['x-txn-time']),
    } as object);
    // A fresh create after a delete is a create again.
    await root.query(q.Delete(ref));
    const fresh = await root.query<{ ts: number }>(q.Create(ref, { data: { c: 3 } }));
    await log.until(() => log.of('version').length === 3);
    sub.close();
    const [over, , again] = log.of('version');
    const e = over.data as { action: string; document: Json; diff: Json; prev: Json | null };
    assert.equal(over.txn, Number(txnTime));
    assert.equal(e.action, 'update');
    assert.deepEqual(e.document.data, { b: 2 });
    assert.deepEqual(e.diff.data, { b: 2, a: null });
    assert.deepEqual(e.prev?.data, { a: 1 });
    assert.equal(e.prev?.ts, created.ts);
    const a = again.data as { action: string; prev: Json | null };
    assert.equal(again.txn, fresh.ts);
    assert.equal(a.action, 'create');
    assert.equal(a.prev, null);
  });

  test('a document version (Get) can be streamed, and stream.document sends a snapshot first', async () => {
    const ref = Doc('docs', '20');
    const created = await root.query<{ ts: number }>(q.Create(ref, { data: { n: 0 } }));
    const byVersion = watch(root.stream(q.Get(ref)));
    const { sub, log } = watch(root.stream.document(ref), ['snapshot']);
    await Promise.all([started(byVersion.log), started(log)]);
    await log.until(() => log.of('snapshot').length === 1, 10_000, 'snapshot');
    const snapshot = log.of('snapshot')[0].data as { ts: number; data: Json };
    assert.deepEqual(snapshot.data, { n: 0 });
    assert.equal(snapshot.ts, created.ts);
    const updated = await root.query<{ ts: number }>(q.Update(ref, { data: { n: 1 } }));
    await log.until(() => log.of('version').length === 1);
    await byVersion.log.until(() => byVersion.log.of('version').length === 1);
    sub.close();
    byVersion.sub.close();
    const v = log.of('version')[0];
    assert.ok(v.txn! >= snapshot.ts);
    assert.equal(v.txn, updated.ts);
    assert.equal(log.items.map((i) => i.type).join(','), 'start,snapshot,version');
    assert.equal(byVersion.log.of('version')[0].txn, updated.ts);
  });

  test('stream.document of a missing document reports NotFound', async () => {
    const { sub, log } = watch(root.stream.document(Doc('docs', '404')), ['snapshot']);
    await log.until(() => log.of('error').length > 0);
    sub.close();
    assert.equal((log.of('error')[0].data as Error).name, 'NotFound');
  });

  test('Insert and Remove of history are history_rewrite events', async () => {
    const ref = Doc('hist', '1');
    const created = await root.query<{ ts: number }>(q.Create(ref, { data: { v: 'now' } }));
    const { sub, log } = watch(root.stream(ref));
    await started(log);
    const inserted = await root.query<{ ts: number }>(q.Insert(ref, created.ts - 1000, 'create', { data: { v: 'before' } }));
    await root.query(q.Remove(ref, created.ts - 1000, 'create'));
    await log.until(() => log.of('history_rewrite').length === 2);
    sub.close();
    const [ins, rem] = log.of('history_rewrite');
    const insEvent = ins.data as { action: string; document: { ts: number; data: Json } };
    assert.equal(insEvent.action, 'history_rewrite');
    assert.equal(insEvent.document.ts, created.ts - 1000);
    assert.deepEqual(insEvent.document.data, { v: 'before' });
    assert.ok(ins.txn! > inserted.ts - 1000 && ins.txn! > created.ts);
    assert.equal((rem.data as { document: { ts: number } }).document.ts, created.ts - 1000);
    assert.equal(log.of('version').length, 0);
  });

  test('a 4096-element document arrives whole in one event', async () => {
    const ref = Doc('big', '1');
    const big = Array.from({ length: 4096 }, (_, i) => `value-${String(i).padStart(20, '0')}`);
    for (const cl of [root, rootH1]) {
      const { sub, log } = watch(cl.stream(ref));
      await started(log);
      await root.query(q.If(q.Exists(ref), q.Replace(ref, { data: { values: big, round: cl === root ? 1 : 2 } }), q.Create(ref, { data: { values: big, round: 1 } })));
      await log.until(() => log.of('version').length === 1);
      sub.close();
      const doc = (log.of('version')[0].data as { document: { data: { values: string[] } } }).document;
      assert.deepEqual(doc.data.values, big);
    }
  });
});

describe('set streams', () => {
  test('Documents(collection): add on create, remove on delete, nothing on update', async () => {
    const { sub, log } = watch(root.stream(q.Documents(q.Collection('sets')), { fields: ['action', 'document', 'index'] }));
    await started(log);
    const a = await root.query<{ ref: values.Ref; ts: number }>(q.Create(q.Collection('sets'), { data: { k: 'x', n: 1 } }));
    await root.query(q.Update(a.ref, { data: { n: 2 } }));
    const deleted = await root.query<{ ts: number }>(q.Delete(a.ref));
    await log.until(() => log.of('set').length === 2);
    const [add, remove] = log.of('set') as { data: { action: string; document: { ref: values.Ref; ts: number }; index: Json }; txn?: number }[];
    assert.equal(add.data.action, 'add');
    assert.equal(add.data.document.ref.id, a.ref.id);
    assert.equal(add.data.document.ts, a.ts);
    assert.equal(add.txn, a.ts);
    assert.deepEqual(Object.keys(add.data.document), ['ref', 'ts']);
    assert.deepEqual(Object.keys(add.data.index), ['ref', 'terms', 'values']);
    assert.equal(remove.data.action, 'remove');
    assert.equal(remove.data.document.ref.id, a.ref.id);
    assert.ok(remove.txn! > deleted.ts);
    // The update produced no event: nothing more arrives after one more create.
    await root.query(q.Create(q.Collection('sets'), { data: { k: 'z', n: 9 } }));
    await log.until(() => log.of('set').length === 3);
    sub.close();
    assert.deepEqual(log.of('set').map((s) => (s.data as { action: string }).action), ['add', 'remove', 'add']);
  });

  test('Documents(collection) reports membership changes only: not a create over a live document, not a delete of one never seen', async () => {
    const coll = q.Collection('sets');
    const live = await root.query<{ ref: values.Ref }>(q.Create(coll, { data: { k: 'live' } }));
    const set = watch(root.stream(q.Documents(coll)));
    const gone = Doc('sets', '900');
    const doc = watch(root.stream(gone, { fields: ['action', 'document'] }));
    await Promise.all([started(set.log), started(doc.log)]);
    await root.query(q.Do(q.Delete(live.ref), q.Create(live.ref, { data: { k: 'again' } })));
    await root.query(q.Do(q.Create(gone, { data: {} }), q.Delete(gone)));
    // A marker after both: once it arrives, everything before it has been delivered.
    const marker = await root.query<{ ref: values.Ref; ts: number }>(q.Create(coll, {}));
    await root.query(q.Create(gone, { data: { real: true } }));
    await set.log.until(() => set.log.of('set').length >= 2);
    await doc.log.until(() => doc.log.of('version').length >= 1);
    set.sub.close();
    doc.sub.close();
    const seen = set.log.of('set').map((s) => [(s.data as { action: string }).action, (s.data as { document: { ref: values.Ref } }).document.ref.id, s.txn]);
    assert.deepEqual(seen.slice(0, 2), [
      ['add', marker.ref.id, marker.ts],
      ['add', '900', seen[1][2]],
    ]);
    assert.deepEqual(doc.log.of('version').map((v) => (v.data as { action: string }).action), ['create']);
  });

  test('Match(index, term): add and remove as entries with the term come and go', async () => {
    const { sub, log } = watch(rootH1.stream(q.Match(q.Index('sets_by_k'), 'm'), { fields: ['action', 'document', 'index'] }));
    await started(log);
    const a = await root.query<{ ref: values.Ref; ts: number }>(q.Create(q.Collection('sets'), { data: { k: 'm', n: 1 } }));
    await root.query(q.Create(q.Collection('sets'), { data: { k: 'other', n: 1 } })); // another term: no event
    const moved = await root.query<{ ts: number }>(q.Update(a.ref, { data: { n: 2 } })); // value changes: remove + add
    const away = await root.query<{ ts: number }>(q.Update(a.ref, { data: { k: 'n' } })); // term changes: remove
    await log.until(() => log.of('set').length === 4);
    sub.close();
    const events = log.of('set').map((s) => {
      const e = s.data as { action: string; document: { ref: values.Ref; ts: number }; index: { ref: values.Ref; terms: unknown[]; values: unknown[] } };
      assert.equal(e.document.ref.id, a.ref.id);
      assert.equal(e.index.ref.id, 'sets_by_k');
      assert.equal(e.document.ts, s.txn);
      return [e.action, e.index.terms, e.index.values, s.txn];
    });
    assert.deepEqual(events, [
      ['add', ['m'], [1], a.ts],
      ['add', ['m'], [2], moved.ts],
      ['remove', ['m'], [1], moved.ts],
      ['remove', ['m'], [2], away.ts],
    ]);
  });
});

describe('delivery', () => {
  test('50 concurrent streams each get exactly the writes made after their start', async () => {
    const writes: { ts: number; id: string }[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        let header: string | undefined;
        const doc = await root.query<{ ref: values.Ref; ts: number }>(q.Create(q.Collection('conc'), { data: {} }), {
          observer: (res: { responseHeaders: Record<string, string> }) => (header = res.responseHeaders['x-txn-time']),
        } as object);
        assert.equal(String(doc.ts), header); // txn of the event = the write's x-txn-time
        writes.push({ ts: doc.ts, id: doc.ref.id });
      }
    };
    const writers = [writer(), writer()];
    const streams: Log[] = [];
    const subs: AnySubscription[] = [];
    for (let i = 0; i < 50; i++) {
      // Started while the writers run: the boundary at each start is exercised.
      const cl = i % 5 === 4 ? rootH1 : root;
      const w = watch(cl.stream(q.Documents(q.Collection('conc'))));
      streams.push(w.log);
      subs.push(w.sub);
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(streams.map(started));
    const before = writes.length;
    while (writes.length < before + 20) await new Promise((r) => setTimeout(r, 10));
    writing = false;
    await Promise.all(writers);
    const expected = (log: Log) => writes.filter((w) => w.ts > log.start!);
    // A marker written after everything else: once a stream has it, it has had every earlier event.
    const marker = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('conc'), { data: {} }));
    const idOf = (s: { data: unknown }) => (s.data as { document: { ref: values.Ref } }).document.ref.id;
    for (const log of streams) await log.until(() => log.of('set').some((s) => idOf(s) === marker.ref.id), 15_000, 'the marker');
    for (const sub of subs) sub.close();
    let boundary = 0;
    for (const log of streams) {
      const got = log.of('set').map((s) => ({ ts: s.txn, id: idOf(s) }));
      assert.deepEqual(got.pop()?.id, marker.ref.id); // the marker came last
      assert.deepEqual(got, expected(log));
      if (expected(log).length < writes.length) boundary++;
    }
    assert.ok(boundary > 0, 'some streams started after writes had begun');
  });

  test('a client that disconnects mid-stream: the server cleans up and stays healthy', async () => {
    await openStreamsBackTo(0);
    // Driver streams (HTTP/2 reset on close), a destroyed HTTP/2 session, and a dropped HTTP/1.1 socket.
    const clients = [pool.client(srv.secret, 'h2'), pool.client(srv.secret, 'h1')];
    const subs = clients.map((cl) => watch(cl.stream(q.Documents(q.Collection('gone')))));
    await Promise.all(subs.map((s) => started(s.log)));

    const session = http2.connect(srv.url);
    const h2req = session.request({ ':method': 'POST', ':path': '/stream', authorization: `Bearer ${srv.secret}` });
    h2req.end(wire(q.Documents(q.Collection('gone'))));
    const h2first = new Promise((resolve) => h2req.once('data', resolve));

    const h1req = http.request(new URL('/stream', srv.url), { method: 'POST', agent: false, headers: { authorization: `Bearer ${srv.secret}` } });
    h1req.end(wire(q.Documents(q.Collection('gone'))));
    const h1res = await new Promise<http.IncomingMessage>((resolve) => h1req.once('response', resolve));
    await new Promise((resolve) => h1res.once('data', resolve));
    await h2first;
    await openStreamsBackTo(4); // all four are open (an earlier probe may still be closing)

    // Traffic while they go away.
    const traffic = (async () => {
      for (let i = 0; i < 30; i++) await root.query(q.Create(q.Collection('gone'), { data: { i } }));
    })();
    await subs[0].log.until(() => subs[0].log.of('set').length > 0);
    for (const s of subs) s.sub.close();
    session.destroy();
    h1req.destroy();
    await traffic;
    await openStreamsBackTo(0);
    assert.equal(await root.query(q.Add(1, 1)), 2);
    assert.ok((await httpRequest(srv.url, { path: '/ping' })).status === 200);
  });

  test('a stream with no traffic stays open (longer than the HTTP/1.1 client socket timeout)', async () => {
    const ref = Doc('idle', '1');
    const h2 = watch(root.stream(ref));
    const h1 = watch(rootH1.stream(ref));
    await Promise.all([started(h2.log), started(h1.log)]);
    // No server timer applies to an open stream; node-fetch's agent uses a 3 s socket timeout.
    await new Promise((r) => setTimeout(r, 3500));
    const created = await root.query<{ ts: number }>(q.Create(ref, { data: { late: true } }));
    await h2.log.until(() => h2.log.of('version').length === 1);
    await h1.log.until(() => h1.log.of('version').length === 1);
    h2.sub.close();
    h1.sub.close();
    assert.equal(h2.log.of('version')[0].txn, created.ts);
    assert.equal(h1.log.of('version')[0].txn, created.ts);
    assert.equal(h2.log.of('error').length + h1.log.of('error').length, 0);
  });
});

describe('raw HTTP', () => {
  test('HTTP/1.1: chunked NDJSON with the stream headers, one event per line', async () => {
    const body = wire(Doc('docs', '30'));
    const req = http.request(new URL('/stream?fields=action%2Cdocument%2Cdiff', srv.url), {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${srv.secret}`, 'content-type': 'application/json' },
    });
    req.end(body);
    const res = await new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['transfer-encoding'], 'chunked');
    assert.equal(res.headers['content-length'], undefined);
    assert.match(res.headers['content-type']!, /^application\/json/);
    assert.match(String(res.headers['x-fauna-stream-id']), /^[0-9a-f]{16}$/);
    assert.equal(res.headers['x-query-bytes-in'], String(Buffer.byteLength(body)));
    const txnTime = Number(res.headers['x-txn-time']);
    let text = '';
    const log = new Log();
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      log.add({ type: 'chunk', data: chunk });
    });
    await log.until(() => text.includes('\n'));
    assert.deepEqual(JSON.parse(text.slice(0, text.indexOf('\n'))), { type: 'start', txn: txnTime, event: txnTime });
    const created = await root.query<{ ts: number }>(q.Create(Doc('docs', '30'), { data: { x: 1 } }));
    await log.until(() => text.split('\n').length >= 3);
    req.destroy();
    const lines = text.split('\n');
    assert.ok(lines[0].endsWith('\r') && lines[1].endsWith('\r'), 'lines end in CRLF');
    const event = JSON.parse(lines[1]) as { type: string; txn: number; event: Json };
    assert.equal(event.type, 'version');
    assert.equal(event.txn, created.ts);
    assert.deepEqual(Object.keys(event.event), ['action', 'document', 'diff']);
    assert.deepEqual(event.event.document, {
      ref: { '@ref': { id: '30', collection: { '@ref': { id: 'docs', collection: { '@ref': { id: 'collections' } } } } } },
      ts: created.ts,
      data: { x: 1 },
    });
  });

  test('bad requests are answered before the stream starts', async () => {
    const post = (body: Expr | string, opts: { path?: string; auth?: string | null; http2?: boolean; raw?: boolean } = {}) =>
      httpRequest(srv.url, {
        method: 'POST',
        path: opts.path ?? '/stream',
        http2: opts.http2,
        headers: opts.auth === null ? {} : { authorization: `Bearer ${opts.auth ?? srv.secret}` },
        body: opts.raw ? (body as string) : wire(body as Expr),
      });
    const errorOf = (body: string) => (JSON.parse(body) as { errors: Json[] }).errors[0];

    for (const http2 of [false, true]) {
      const str = await post('a string' as unknown as Expr, { http2 });
      assert.equal(str.status, 400);
      assert.deepEqual(errorOf(str.body), {
        position: [],
        code: 'invalid argument',
        description: 'Expected a Document Ref or Version, or a Set Ref, got String.',
      });
      const num = await post(q.Add(1, 2), { http2 });
      assert.equal(errorOf(num.body).description, 'Expected a Document Ref or Version, or a Set Ref, got Integer.');
      // Everything but a user document ref or version, Documents(coll) and Match(index, terms).
      const notStreamable: [Expr, string][] = [
        [[1, 2] as unknown as Expr, 'Array'],
        [{ a: 1 } as unknown as Expr, 'Object'],
        [q.Collection('docs'), 'Collection Ref'],
        [q.Index('sets_by_k'), 'Index Ref'],
        [q.Keys(), 'Ref'],
        [q.Get(q.Collection('docs')), 'Object'], // a version, but of a schema document
        [q.Union(q.Documents(q.Collection('docs')), q.Documents(q.Collection('sets'))), 'Set'],
        [q.Singleton(Doc('docs', '1')), 'Set'],
        [q.Documents(q.Keys()), 'Set'],
        [q.Paginate(q.Documents(q.Collection('docs'))), 'Page'],
      ];
      for (const [expr, type] of notStreamable) {
        const res = await post(expr, { http2 });
        assert.equal(res.status, 400, type);
        assert.deepEqual(errorOf(res.body), { position: [], code: 'invalid argument', description: `Expected a Document Ref or Version, or a Set Ref, got ${type}.` });
      }
      const lastSeen = await httpRequest(srv.url, {
        method: 'POST',
        path: '/stream',
        http2,
        headers: { authorization: `Bearer ${srv.secret}`, 'x-last-seen-txn': 'soon' },
        body: wire(Doc('bad', '1')),
      });
      assert.equal(lastSeen.status, 400);
      assert.deepEqual(errorOf(lastSeen.body), { code: 'bad request', description: "Invalid header 'x-last-seen-txn': Invalid timestamp 'soon'." });

      const write = await post(q.Do(q.Create(q.Collection('bad'), {}), Doc('bad', '1')), { http2 });
      assert.equal(write.status, 400);
      assert.equal(errorOf(write.body).code, 'invalid expression');
      assert.equal(errorOf(write.body).description, 'Call performs a write, which is not allowed in stream requests.');
      assert.equal(await root.query(q.Count(q.Documents(q.Collection('bad')))), 0);

      for (const path of ['/stream?fields=action%2Cbogus', '/stream?fields=']) {
        const fields = await post(Doc('bad', '1'), { http2, path });
        assert.equal(fields.status, 400);
        assert.equal(errorOf(fields.body).code, 'invalid url parameter');
        assert.match(errorOf(fields.body).description as string, /^Invalid url parameter fields\. .*\.$/);
      }

      const noAuth = await post(Doc('bad', '1'), { http2, auth: null });
      assert.equal(noAuth.status, 401);
      assert.equal(errorOf(noAuth.body).code, 'unauthorized');
      const badAuth = await post(Doc('bad', '1'), { http2, auth: 'nope' });
      assert.equal(badAuth.status, 401);
      // 401 comes before the fields parameter is judged.
      assert.equal((await post(Doc('bad', '1'), { http2, auth: 'nope', path: '/stream?fields=bogus' })).status, 401);

      const missing = await post(Doc('no_such_collection', '1'), { http2 });
      assert.equal(missing.status, 400);
      assert.equal(errorOf(missing.body).code, 'invalid ref');

      // A body that outlives X-Query-Timeout: the stream opens with a request timeout error event.
      const arr = Array.from({ length: 5000 }, (_, i) => i);
      const slow = q.Do(q.Count(q.Map(arr, q.Lambda('x', q.Map(arr, q.Lambda('y', q.Add(q.Var('x'), q.Var('y'))))))), Doc('bad', '1'));
      const timedOut = await httpRequest(srv.url, {
        method: 'POST',
        path: '/stream',
        http2,
        headers: { authorization: `Bearer ${srv.secret}`, 'x-query-timeout': '50' },
        body: wire(slow),
      });
      assert.equal(timedOut.status, 200);
      const timeoutEvent = JSON.parse(timedOut.body) as { type: string; txn: number; event: Json };
      assert.equal(timeoutEvent.type, 'error');
      assert.equal(timeoutEvent.txn, Number(timedOut.headers['x-txn-time']));
      assert.deepEqual(timeoutEvent.event, { code: 'request timeout', description: 'Request timed out while opening stream.' });

      const parse = await post('{"nope": 1', { http2, raw: true });
      assert.equal(parse.status, 400);

      const get = await httpRequest(srv.url, { method: 'GET', path: '/stream', http2, headers: { authorization: `Bearer ${srv.secret}` } });
      assert.equal(get.status, 405);
      assert.equal(get.headers.allow, 'POST');
      assert.equal(errorOf(get.body).code, 'method not allowed');
    }

    // Through the driver: an error event carrying the usual error class, and no start.
    const { sub, log } = watch(root.stream('a string' as unknown as Expr));
    await log.until(() => log.of('error').length > 0);
    sub.close();
    const err = log.of('error')[0].data as Error & { description: string };
    assert.equal(err.name, 'BadRequest');
    assert.equal(err.description, 'Expected a Document Ref or Version, or a Set Ref, got String.');
    assert.equal(log.start, undefined);
  });
});

describe('permissions', () => {
  test('a deleted key ends its stream with a permission denied error event', async () => {
    const key = await root.query<{ ref: values.Ref; secret: string }>(q.CreateKey({ role: 'server' }));
    const kc = pool.client(key.secret, 'h2');
    const { sub, log } = watch(kc.stream(q.Documents(q.Collection('perm'))));
    await started(log);
    await root.query(q.Create(q.Collection('perm'), {}));
    await log.until(() => log.of('set').length === 1);
    await root.query(q.Delete(key.ref));
    await log.until(() => log.of('error').length >= 2, 10_000, 'the error event and the end');
    sub.close();
    const [lost, end] = log.of('error');
    assert.deepEqual(lost.data, { code: 'permission denied', description: 'Authorization lost during stream evaluation.' });
    assert.equal((end.data as Error).message, 'network error'); // the server ended the response
    assert.equal(log.of('set').length, 1);
  });

  test('a token that logs out ends its stream the same way', async () => {
    await root.query(q.CreateCollection({ name: 'stream_users' }));
    await root.query(
      q.CreateRole({
        name: 'stream_users_read',
        membership: [{ resource: q.Collection('stream_users') }],
        privileges: [{ resource: q.Collection('perm'), actions: { read: true } }],
      }),
    );
    const user = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('stream_users'), { credentials: { password: 'pw' }, data: {} }));
    const login = await root.query<{ secret: string }>(q.Login(user.ref, { password: 'pw' }));
    const tc = pool.client(login.secret, 'h1');
    const { sub, log } = watch(tc.stream(q.Documents(q.Collection('perm'))));
    await started(log);
    await root.query(q.Create(q.Collection('perm'), {}));
    await log.until(() => log.of('set').length === 1);
    assert.equal(await pool.client(login.secret, 'h2').query(q.Logout(true)), true);
    await log.until(() => log.of('error').length >= 1, 10_000, 'the error event');
    sub.close();
    assert.deepEqual(log.of('error')[0].data, { code: 'permission denied', description: 'Authorization lost during stream evaluation.' });
  });

  test('an expired key or token cannot open a stream (401)', async () => {
    const past = q.TimeSubtract(q.Now(), 1, 'seconds');
    const key = await root.query<{ secret: string }>(q.CreateKey({ role: 'server', ttl: past }));
    await root.query(q.CreateCollection({ name: 'stream_expiring' }));
    const user = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('stream_expiring'), { credentials: { password: 'pw' } }));
    const token = await root.query<{ secret: string }>(q.Login(user.ref, { password: 'pw', ttl: past }));
    for (const secret of [key.secret, token.secret]) {
      for (const http2 of [false, true]) {
        const res = await httpRequest(srv.url, { method: 'POST', path: '/stream', http2, headers: { authorization: `Bearer ${secret}` }, body: wire(Doc('perm', '1')) });
        assert.equal(res.status, 401);
        assert.deepEqual((JSON.parse(res.body) as { errors: Json[] }).errors, [{ code: 'unauthorized', description: 'Unauthorized' }]);
      }
    }
  });

  test('events for documents the caller cannot read are filtered out; a document stream that loses its document ends', async () => {
    await root.query(
      q.CreateRole({
        name: 'public_only',
        privileges: [
          {
            resource: q.Collection('pub'),
            actions: { read: q.Query(q.Lambda('r', q.Equals(true, q.Select(['data', 'public'], q.Get(q.Var('r')), false)))) },
          },
        ],
      }),
    );
    const key = await root.query<{ secret: string }>(q.CreateKey({ role: q.Role('public_only') }));
    const kc = pool.client(key.secret, 'h1');
    // Both documents exist before either stream starts (a stream started first would report them).
    const open = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('pub'), { data: { public: true } }));
    const hidden = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('pub'), { data: { public: false } }));
    const set = watch(kc.stream(q.Documents(q.Collection('pub'))));
    const doc = watch(kc.stream(open.ref));
    await Promise.all([started(set.log), started(doc.log)]);
    const a = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('pub'), { data: { public: true } }));
    await root.query(q.Create(q.Collection('pub'), { data: { public: false } }));
    await root.query(q.Update(hidden.ref, { data: { n: 1 } }));
    await root.query(q.Update(open.ref, { data: { n: 1 } }));
    await root.query(q.Delete(a.ref));
    await root.query(q.Update(open.ref, { data: { public: false } })); // no longer readable
    const last = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('pub'), { data: { public: true } }));
    await set.log.until(() => set.log.of('set').length === 3);
    // The document stream ends with permission denied once its document is no longer readable.
    await doc.log.until(() => doc.log.of('error').length >= 1); // then the driver's own 'network error' as the server ends it
    assert.deepEqual(doc.log.of('error')[0].data, { code: 'permission denied', description: 'Authorization lost during stream evaluation.' });
    // A marker after everything else: the set stream saw nothing more in between.
    const marker = await root.query<{ ref: values.Ref }>(q.Create(q.Collection('pub'), { data: { public: true } }));
    await set.log.until(() => set.log.of('set').length === 4);
    set.sub.close();
    doc.sub.close();
    const seen = set.log.of('set').map((s) => {
      const e = s.data as { action: string; document: { ref: values.Ref } };
      return [e.action, e.document.ref.id];
    });
    assert.deepEqual(seen, [
      ['add', a.ref.id],
      ['remove', a.ref.id],
      ['add', last.ref.id],
      ['add', marker.ref.id],
    ]);
    assert.equal(doc.log.of('version').length, 1);
    assert.deepEqual((doc.log.of('version')[0].data as { document: { data: Json } }).document.data, { public: true, n: 1 });
  });

  test('a key that may not read the document cannot stream it', async () => {
    const key = await root.query<{ secret: string }>(q.CreateKey({ role: 'client' }));
    const res = await httpRequest(srv.url, {
      method: 'POST',
      path: '/stream',
      http2: true,
      headers: { authorization: `Bearer ${key.secret}` },
      body: wire(Doc('perm', '1')),
    });
    assert.equal(res.status, 403);
    assert.equal((JSON.parse(res.body) as { errors: Json[] }).errors[0].code, 'permission denied');
  });
});

describe('limits and shutdown', () => {
  test('past the open-stream limit a stream gets a too many requests error event, once authenticated', async () => {
    const small = await startFlora({ env: { FLORA_STREAM_MAX_OPEN: '2' } });
    const smallPool = new ClientPool(small.url);
    try {
      const admin = smallPool.client(small.secret, 'h2');
      await admin.query(q.CreateCollection({ name: 'lim' }));
      const ref = Doc('lim', '1');
      const open = [watch(admin.stream(ref)), watch(smallPool.client(small.secret, 'h1').stream(ref))];
      await Promise.all(open.map((w) => started(w.log)));
      for (const proto of ['h2', 'h1'] as const) {
        const refused = watch(smallPool.client(small.secret, proto).stream(ref));
        await refused.log.until(() => refused.log.of('error').length >= 2, 10_000, 'the error event and the end');
        refused.sub.close();
        const [tooMany, end] = refused.log.of('error');
        assert.deepEqual(tooMany.data, { code: 'too many requests', description: 'Too many open streams.' });
        assert.equal((end.data as Error).message, 'network error');
        assert.equal(refused.log.start, undefined);
      }
      // Authentication and the body are judged first.
      const badAuth = await httpRequest(small.url, { method: 'POST', path: '/stream', http2: true, headers: { authorization: 'Bearer nope' }, body: wire(ref) });
      assert.equal(badAuth.status, 401);
      const str = await httpRequest(small.url, { method: 'POST', path: '/stream', headers: { authorization: `Bearer ${small.secret}` }, body: '"s"' });
      assert.equal(str.status, 400);
      // A closed stream frees its place.
      open[0].sub.close();
      const deadline = Date.now() + 10_000;
      for (;;) {
        const next = watch(admin.stream(ref));
        await next.log.until(() => next.log.start !== undefined || next.log.of('error').length > 0);
        next.sub.close();
        if (next.log.start !== undefined) break;
        assert.ok(Date.now() < deadline, 'the closed stream did not free its place');
      }
      open[1].sub.close();
    } finally {
      await smallPool.close();
      await small.stop();
    }
  });

  test('a reader that does not keep up is ended with an error; shutdown ends open streams', async () => {
    const small = await startFlora({
      env: { FLORA_STREAM_MAX_QUEUED_EVENTS: '20', FLORA_STREAM_MAX_BUFFERED_BYTES: '262144', FLORA_STREAM_GRACE_MS: '30000' },
    });
    const smallPool = new ClientPool(small.url);
    try {
      const admin = smallPool.client(small.secret, 'h2');
      await admin.query(q.CreateCollection({ name: 'slow' }));
      const ref = Doc('slow', '1');
      await admin.query(q.Create(ref, { data: { n: 0 } }));
      // A raw HTTP/1.1 reader that stops reading after the start event.
      const req = http.request(new URL('/stream', small.url), { method: 'POST', agent: false, headers: { authorization: `Bearer ${small.secret}` } });
      req.end(wire(ref));
      const res = await new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
      let text = '';
      res.setEncoding('utf8');
      await new Promise<void>((resolve) =>
        res.once('data', (chunk: string) => {
          text += chunk;
          resolve();
        }),
      );
      res.pause();
      // A healthy reader on the same document, which must get everything.
      const healthy = watch(admin.stream(ref));
      await started(healthy.log);
      // ~40 MB of events: more than the socket buffers can hold.
      const blob = 'x'.repeat(200_000);
      let updates = 0;
      for (; updates < 200; updates++) await admin.query(q.Update(ref, { data: { n: updates + 1, blob } }));
      await healthy.log.until(() => healthy.log.of('version').length === updates, 60_000, 'all updates on the healthy stream');
      healthy.sub.close();
      // The slow stream is gone from the server's count; once the client reads again, the last
      // line is the error event.
      const count = async () => {
        const r = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
          const s = http2.connect(small.url);
          const rq = s.request({ ':method': 'POST', ':path': '/stream', authorization: `Bearer ${small.secret}` });
          rq.on('response', (h) => {
            s.destroy();
            resolve(h);
          });
          rq.on('error', reject);
          rq.end(wire(ref));
        });
        return Number(r['x-flora-open-streams']);
      };
      const deadline = Date.now() + 10_000;
      let open = 0;
      while ((open = await count()) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(open, 1, 'the slow stream was dropped');
      res.on('data', (chunk: string) => (text += chunk));
      res.resume();
      await new Promise((resolve) => res.once('end', resolve));
      const lines = text.trim().split('\n');
      const lastLine = JSON.parse(lines[lines.length - 1]) as { type: string; event: Json };
      assert.equal(lastLine.type, 'error');
      assert.equal(lastLine.event.code, 'time out');
      assert.ok(lines.length - 2 < updates, 'not every update was buffered for the slow reader');

      // Shutdown with open streams (HTTP/2 and HTTP/1.1) finishes promptly.
      const openH2 = watch(admin.stream(ref));
      const openH1 = watch(smallPool.client(small.secret, 'h1').stream(q.Documents(q.Collection('slow'))));
      // And a raw HTTP/1.1 client that would keep its connection alive.
      const agent = new http.Agent({ keepAlive: true });
      const rawReq = http.request(new URL('/stream', small.url), { method: 'POST', agent, headers: { authorization: `Bearer ${small.secret}` } });
      rawReq.end(wire(ref));
      const rawRes = await new Promise<http.IncomingMessage>((resolve) => rawReq.once('response', resolve));
      assert.equal(rawRes.headers.connection, 'close');
      const rawEnded = new Promise((resolve) => rawRes.once('end', resolve));
      rawRes.resume();
      await Promise.all([started(openH2.log), started(openH1.log)]);
      const t0 = Date.now();
      assert.equal(await small.stop(), 0);
      assert.ok(Date.now() - t0 < 3_000, `shutdown waited ${Date.now() - t0} ms for the streams`);
      await rawEnded;
      agent.destroy();
      await openH2.log.until(() => openH2.log.of('error').length > 0, 5_000, 'end of the HTTP/2 stream');
      await openH1.log.until(() => openH1.log.of('error').length > 0, 5_000, 'end of the HTTP/1.1 stream');
      openH2.sub.close();
      openH1.sub.close();
    } finally {
      await smallPool.close();
      await small.stop();
    }
  });
});
