// The store's commit feed (Store.onCommit), which streams are built on, and the stream `fields`
// parameter.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withStore } from '../helpers/store';
import type { CommitEvent, DocKey } from '../../src/storage/types';
import { ProtocolError } from '../../src/values/errors';
import { obj, type Obj, type Value } from '../../src/values/types';
import { docJson, parseFields } from '../../src/streams/events';
import { render } from '../../src/model/documents';
import { encodeRef, encodeValue } from '../../src/wire/encode';
import { Ref, Time, TxnTime } from '../../src/values/types';
import type { Target } from '../../src/model/resolve';

const doc = (id: bigint, coll = 1024): DocKey => ({ db: 1n, coll, id });
const data = (fields: [string, Value][]): Obj => obj([['data', obj(fields)]]);
const bytes = (s: string) => new Uint8Array(Buffer.from(s));

test('commits are reported once durable, in ts order, with what they wrote', async () => {
  await withStore(async (store) => {
    const before = await store.run(async (txn) => txn.putVersion(doc(1n), 'create', data([['v', 1n]])));
    const seen: CommitEvent[] = [];
    const stop = store.onCommit((c) => seen.push(c));
    const r = await store.run(async (txn) => {
      txn.putVersion(doc(1n), 'update', data([['v', 2n]]));
      txn.putVersion(doc(2n), 'create', data([['w', 1n]]));
      txn.putIndexEntry(1n, 40000, { key: bytes('k1'), action: 'add', payload: bytes('p1') });
    });
    // Reported before the writer hears back (run resolves after the feed ran).
    assert.equal(seen.length, 1);
    const [c] = seen;
    assert.equal(c.ts, r.ts);
    assert.ok(c.ts > before.ts);
    assert.deepEqual(
      c.versions.map((v) => [v.key.id, v.ts, v.action, v.rewrite]),
      [
        [1n, r.ts, 'update', false],
        [2n, r.ts, 'create', false],
      ],
    );
    assert.equal(((c.versions[0].data!.get('data') as Obj).get('v')), 2n);
    assert.deepEqual(
      c.indexes.map((e) => [e.db, e.index, Buffer.from(e.key).toString(), e.action, Buffer.from(e.payload).toString()]),
      [[1n, 40000, 'k1', 'add', 'p1']],
    );
    // Read-only transactions commit nothing.
    await store.run(async (txn) => txn.getVersion(doc(1n)));
    assert.equal(seen.length, 1);
    stop();
    await store.run(async (txn) => txn.putVersion(doc(3n), 'create', data([])));
    assert.equal(seen.length, 1);
  });
});

test('concurrent commits (one group write) each arrive once, in ts order', async () => {
  await withStore(async (store) => {
    const seen: bigint[] = [];
    store.onCommit((c) => seen.push(c.ts));
    const runs = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.run(async (txn) => txn.putVersion(doc(BigInt(i + 1)), 'create', data([])))),
    );
    const stamps = runs.map((r) => r.ts).sort((a, b) => (a < b ? -1 : 1));
    assert.deepEqual(seen, stamps);
  });
});

test('Insert/Remove of past versions are history rewrites; history collection is not reported', async () => {
  await withStore(async (store) => {
    const t1 = (await store.run(async (txn) => txn.putVersion(doc(1n), 'create', data([['v', 1n]])))).ts;
    const t2 = (await store.run(async (txn) => txn.putVersion(doc(1n), 'update', data([['v', 2n]])))).ts;
    const seen: CommitEvent[] = [];
    store.onCommit((c) => seen.push(c));
    const ins = await store.run(async (txn) => txn.putVersionAt(doc(1n), t1 - 5n, 'create', data([['v', 0n]])));
    await store.run(async (txn) => txn.removeVersionAt(doc(1n), t1 - 5n));
    assert.equal(seen.length, 2);
    assert.equal(seen[0].ts, ins.ts);
    assert.deepEqual(
      seen.map((c) => c.versions.map((v) => [v.ts, v.action, v.rewrite])),
      [[[t1 - 5n, 'create', true]], [[t1 - 5n, null, true]]],
    );
    const removed = await store.collectHistory(1n, 1024, t2 + 1n);
    assert.equal(removed, 1);
    assert.equal(seen.length, 2);
  });
});

test('a listener that throws breaks neither the commit nor the other listeners', async () => {
  await withStore(async (store) => {
    const seen: bigint[] = [];
    const errors: string[] = [];
    // The failure is said through the server log (src/diag/log.ts), which writes to stderr.
    const original = process.stderr.write;
    process.stderr.write = ((line: string | Uint8Array) => errors.push(String(line)) > 0) as typeof process.stderr.write;
    try {
      store.onCommit(() => {
        throw new Error('boom');
      });
      store.onCommit((c) => seen.push(c.ts));
      const r = await store.run(async (txn) => txn.putVersion(doc(1n), 'create', data([])));
      assert.deepEqual(seen, [r.ts]);
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /^flora: commit listener failed: Error: boom/);
      const read = await store.run(async (txn) => txn.getVersion(doc(1n)));
      assert.equal(read.result?.action, 'create');
    } finally {
      process.stderr.write = original;
    }
  });
});

test('the same function subscribed twice is called twice, and each unsubscribe removes one', async () => {
  await withStore(async (store) => {
    let calls = 0;
    const fn = () => calls++;
    const a = store.onCommit(fn);
    const b = store.onCommit(fn);
    await store.run(async (txn) => txn.putVersion(doc(1n), 'create', data([])));
    assert.equal(calls, 2);
    a();
    a();
    await store.run(async (txn) => txn.putVersion(doc(2n), 'create', data([])));
    assert.equal(calls, 3);
    b();
    await store.run(async (txn) => txn.putVersion(doc(3n), 'create', data([])));
    assert.equal(calls, 3);
  });
});

test('stream fields: default, canonical order, unknown names', () => {
  assert.deepEqual(parseFields(new URLSearchParams('')), ['action', 'document']);
  assert.deepEqual(parseFields(new URLSearchParams('fields=prev,diff')), ['diff', 'prev']);
  assert.deepEqual(parseFields(new URLSearchParams('fields=index%2Caction%2Cdocument%2Cdiff%2Cprev')), [
    'action',
    'document',
    'diff',
    'prev',
    'index',
  ]);
  assert.deepEqual(parseFields(new URLSearchParams('fields=action&fields=prev')), ['action', 'prev']);
  for (const bad of ['fields=actions', 'fields=', 'fields=action,,prev']) {
    const e = parseFields(new URLSearchParams(bad));
    assert.ok(e instanceof ProtocolError, bad);
    assert.equal(e.status, 400);
    assert.equal(e.code, 'invalid url parameter');
    assert.match(e.description, /^Invalid url parameter fields\. .*\.$/);
  }
});

test('event documents are written as the same JSON text as Get renders them', () => {
  const coll = { native: 'collections' as const, id: 1024n, name: 'c', fields: new Map(), ts: 1n };
  const t: Target = { kind: 'doc', db: 0n, coll, id: 7n, scoped: false };
  const ref = Ref.doc('c', '7');
  const key = { db: 0n, coll: 1024, id: 7n };
  const cases: (Obj | null)[] = [
    null,
    new Map(),
    obj([['data', obj([['a', 1n], ['nested', obj([['@weird', 'x']])], ['when', TxnTime.instance]])]]),
    obj([['data', obj([['n', 1.5]])], ['ttl', new Time(1_700_000_000_000_000n)]]),
    obj([['@odd', 1n]]), // a stored field that needs the @obj escape
    obj([['ts', 5n], ['data', obj([])]]), // a field shadowing ts
  ];
  for (const fields of cases) {
    const expected = encodeValue(render(t, undefined, { key, version: { ts: 42n, action: 'update', data: fields ?? new Map() } }), { txnTs: 99n });
    assert.equal(docJson({ ref, json: encodeRef(ref) }, 42n, fields, 99n), expected);
  }
});
