import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import { tempDir, withStore } from '../helpers/store';
import type { DocKey, Store, Txn, Version } from '../../src/storage/types';
import { ProtocolError } from '../../src/values/errors';
import { TxnTime, obj, type Obj, type Value } from '../../src/values/types';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const doc = (id: bigint, coll = 1024): DocKey => ({ db: 1n, coll, id });
const data = (fields: [string, Value][]): Obj => obj([['data', obj(fields)]]);
const field = (v: Version | null, name: string) => ((v?.data?.get('data') as Obj | undefined)?.get(name) ?? undefined);

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function put(store: Store, key: DocKey, action: 'create' | 'update' | 'delete', fields: [string, Value][] = []) {
  return (await store.run(async (txn) => txn.putVersion(key, action, action === 'delete' ? null : data(fields)))).ts;
}

test('snapshot isolation: a txn does not see commits after its snapshot', async () => {
  await withStore(async (store) => {
    const x = doc(1n);
    const t0 = await put(store, x, 'create', [['v', 1n]]);
    const readOnce = deferred();
    const written = deferred();
    const reader = store.run(async (txn) => {
      const before = await txn.getVersion(x);
      readOnce.resolve();
      await written.promise;
      const after = await txn.getVersion(x);
      const scanned = await collect(txn.scan(1n, 1024));
      return { before: field(before, 'v'), after: field(after, 'v'), scanned: scanned.map((d) => field(d.version, 'v')), snap: txn.snapshotTs };
    });
    await readOnce.promise;
    const t1 = await put(store, x, 'update', [['v', 2n]]);
    written.resolve();
    const r = await reader;
    assert.equal(r.result.before, 1n);
    assert.equal(r.result.after, 1n);
    assert.deepEqual(r.result.scanned, [1n]);
    assert.ok(r.result.snap >= t0 && r.result.snap < t1);
    assert.equal(r.ts, r.result.snap); // read-only: commits trivially at its snapshot
    // A new txn sees the update, and reading at t0 still sees the old version.
    const now = await store.run(async (txn) => [field(await txn.getVersion(x), 'v'), field(await txn.getVersion(x, t0), 'v')]);
    assert.deepEqual(now.result, [2n, 1n]);
  });
});

test('read-your-own-writes, visible only at the snapshot', async () => {
  await withStore(async (store) => {
    const x = doc(7n);
    const t0 = await put(store, x, 'create', [['v', 1n]]);
    const r = await store.run(async (txn) => {
      txn.putVersion(x, 'update', data([['v', 2n], ['ts', TxnTime.instance]]));
      const own = await txn.getVersion(x);
      const past = await txn.getVersion(x, t0);
      const missing = await txn.getVersion(doc(8n));
      return { own, past, missing, hasWrites: txn.hasWrites };
    });
    assert.equal(r.result.own!.ts, TxnTime.instance);
    assert.equal(r.result.own!.action, 'update');
    assert.equal(field(r.result.own, 'v'), 2n);
    assert.equal(field(r.result.past, 'v'), 1n);
    assert.equal(r.result.past!.ts, t0);
    assert.equal(r.result.missing, null);
    assert.ok(r.result.hasWrites);
    // The stored ts placeholder became the commit ts.
    const stored = await store.run(async (txn) => txn.getVersion(x));
    assert.equal(stored.result!.ts, r.ts);
    assert.equal(field(stored.result, 'ts'), r.ts);
    assert.ok(r.metrics.writes === 1 && r.metrics.bytesWritten > 0);
    assert.ok(stored.metrics.reads >= 1 && stored.metrics.bytesRead > 0);
  });
});

test('several writes to one doc in a txn collapse; create then update stays a create', async () => {
  await withStore(async (store) => {
    const x = doc(3n);
    await store.run(async (txn) => {
      txn.putVersion(x, 'create', data([['v', 1n]]));
      txn.putVersion(x, 'update', data([['v', 2n]]));
    });
    const h = await store.run(async (txn) => collect(txn.history(x)));
    assert.equal(h.result.length, 1);
    assert.equal(h.result[0].action, 'create');
    assert.equal(field(h.result[0], 'v'), 2n);
  });
});

test('scan merges buffered writes in id order, both directions, with bounds and past reads', async () => {
  await withStore(async (store) => {
    const tBefore = await store.run(async (txn) => {
      for (const id of [1n, 3n, 5n, 9n]) txn.putVersion(doc(id), 'create', data([['v', id]]));
      txn.putVersion(doc(4n, 1025), 'create', data([['other', true]])); // another collection
    });
    await put(store, doc(9n), 'delete');
    const r = await store.run(async (txn) => {
      txn.putVersion(doc(2n), 'create', data([['v', 20n]]));
      txn.putVersion(doc(3n), 'delete', null);
      txn.putVersion(doc(5n), 'update', data([['v', 50n]]));
      txn.putVersion(doc(7n), 'create', data([['v', 70n]]));
      const ids = async (opts?: Parameters<Txn['scan']>[2]) =>
        (await collect(txn.scan(1n, 1024, opts))).map((d) => [d.id, field(d.version, 'v')]);
      return {
        fwd: await ids(),
        rev: await ids({ reverse: true }),
        bounded: await ids({ fromId: 2n, toId: 7n }),
        boundedRev: await ids({ fromId: 2n, toId: 7n, reverse: true }),
        past: await ids({ at: tBefore.ts }),
        pastRev: await ids({ at: tBefore.ts, reverse: true }),
      };
    });
    assert.deepEqual(r.result.fwd, [[1n, 1n], [2n, 20n], [5n, 50n], [7n, 70n]]);
    assert.deepEqual(r.result.rev, [[7n, 70n], [5n, 50n], [2n, 20n], [1n, 1n]]);
    assert.deepEqual(r.result.bounded, [[2n, 20n], [5n, 50n]]);
    assert.deepEqual(r.result.boundedRev, [[5n, 50n], [2n, 20n]]);
    assert.deepEqual(r.result.past, [[1n, 1n], [3n, 3n], [5n, 5n], [9n, 9n]]);
    assert.deepEqual(r.result.pastRev, [[9n, 9n], [5n, 5n], [3n, 3n], [1n, 1n]]);
    // After commit the stored state matches what the txn saw.
    const after = await store.run(async (txn) => (await collect(txn.scan(1n, 1024))).map((d) => d.id));
    assert.deepEqual(after.result, [1n, 2n, 5n, 7n]);
  });
});

test('history lists versions in ts order within bounds', async () => {
  await withStore(async (store) => {
    const x = doc(11n);
    const t1 = await put(store, x, 'create', [['v', 1n]]);
    const t2 = await put(store, x, 'update', [['v', 2n]]);
    const t3 = await put(store, x, 'delete');
    const t4 = await put(store, x, 'create', [['v', 4n]]);
    assert.ok(t1 < t2 && t2 < t3 && t3 < t4);
    const r = await store.run(async (txn) => {
      txn.putVersion(x, 'update', data([['v', 5n]]));
      const ts = async (opts?: Parameters<Txn['history']>[1]) => (await collect(txn.history(x, opts))).map((v) => v.ts);
      return {
        all: await ts(),
        rev: await ts({ reverse: true }),
        window: await ts({ fromTs: t2, toTs: t3 }),
        windowRev: await ts({ fromTs: t2, toTs: t3, reverse: true }),
        from: await ts({ fromTs: t3 + 1n }),
        actions: (await collect(txn.history(x, { toTs: t4 }))).map((v) => v.action),
      };
    });
    assert.deepEqual(r.result.all, [t1, t2, t3, t4, TxnTime.instance]);
    assert.deepEqual(r.result.rev, [TxnTime.instance, t4, t3, t2, t1]);
    assert.deepEqual(r.result.window, [t2, t3]);
    assert.deepEqual(r.result.windowRev, [t3, t2]);
    assert.deepEqual(r.result.from, [t4, TxnTime.instance]);
    assert.deepEqual(r.result.actions, ['create', 'update', 'delete', 'create']);
  });
});

test('50 concurrent read-modify-write increments give exactly 50, with retries', async () => {
  await withStore(async (store) => {
    const counter = doc(1n, 2000);
    await put(store, counter, 'create', [['n', 0n]]);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        store.run(async (txn) => {
          const cur = field(await txn.getVersion(counter), 'n') as bigint;
          txn.putVersion(counter, 'update', data([['n', cur + 1n]]));
          return cur + 1n;
        }),
      ),
    );
    const final = await store.run(async (txn) => field(await txn.getVersion(counter), 'n'));
    assert.equal(final.result, 50n);
    assert.ok(results.reduce((n, r) => n + r.retries, 0) > 0, 'some runs retried');
    // Every increment saw a distinct value, and commit ts follow the values.
    const byValue = [...results].sort((a, b) => Number(a.result - b.result));
    assert.deepEqual(byValue.map((r) => r.result), Array.from({ length: 50 }, (_, i) => BigInt(i + 1)));
    for (let i = 1; i < byValue.length; i++) assert.ok(byValue[i].ts > byValue[i - 1].ts);
  });
});

test('commit ts are strictly increasing and unique', async () => {
  let fixed = 1_000_000n;
  await withStore(
    async (store) => {
      const seq: bigint[] = [];
      for (let i = 0n; i < 5n; i++) seq.push(await put(store, doc(i), 'create'));
      for (let i = 1; i < seq.length; i++) assert.ok(seq[i] > seq[i - 1]);
      const conc = await Promise.all(Array.from({ length: 30 }, (_, i) => put(store, doc(100n + BigInt(i)), 'create')));
      assert.equal(new Set(conc).size, 30);
      assert.ok(conc.every((t) => t > seq[seq.length - 1]));
      assert.ok(store.now() >= conc.reduce((a, b) => (a > b ? a : b)));
      fixed = 0n; // the clock jumps backwards: ts still increase
      const later = await put(store, doc(500n), 'create');
      assert.ok(conc.every((t) => later > t));
    },
    () => fixed,
  );
});

test('data survives close and reopen; issuedTs never goes backwards', async () => {
  const dir = tempDir();
  try {
    let clock = 5_000_000_000n;
    const x = doc(42n);
    const s1 = await openStore(await openLmdbEngine(dir), { clock: () => clock });
    const t1 = await put(s1, x, 'create', [['v', 'persisted']]);
    const ro = await s1.run(async () => 'read only'); // a snapshot handed out, no commit after it
    await s1.close();

    clock = 1_000n; // the wall clock went backwards across the restart
    const s2 = await openStore(await openLmdbEngine(dir), { clock: () => clock });
    assert.ok(s2.now() >= t1 && s2.now() >= ro.ts);
    const r = await s2.run(async (txn) => field(await txn.getVersion(x), 'v'));
    assert.equal(r.result, 'persisted');
    assert.ok(r.ts >= ro.ts);
    const t2 = await put(s2, x, 'update', [['v', 'again']]);
    assert.ok(t2 > t1 && t2 > ro.ts);
    await s2.close();

    const s3 = await openStore(await openLmdbEngine(dir), { clock: () => clock });
    const h = await s3.run(async (txn) => (await collect(txn.history(x))).map((v) => [v.ts, field(v, 'v')]));
    assert.deepEqual(h.result, [[t1, 'persisted'], [t2, 'again']]);
    assert.ok(s3.now() >= t2);
    await s3.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('group commit: 200 concurrent writes share few engine writes; each resolves only when durable', async () => {
  await withStore(async (store, engine) => {
    const before = engine.writes;
    const { versionKey } = await import('../../src/storage/keys');
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const key = doc(BigInt(i + 1), 3000);
        const r = await store.run(async (txn) => txn.putVersion(key, 'create', data([['i', BigInt(i)]])));
        assert.ok(engine.durable.has(Buffer.from(versionKey(key, r.ts)).toString('hex')), 'resolved before durable');
      }),
    );
    const used = engine.writes - before;
    assert.ok(used < 20, `expected batching, got ${used} engine writes for 200 commits`);
    const n = await store.run(async (txn) => (await collect(txn.scan(1n, 3000))).length);
    assert.equal(n.result, 200);
  });
});

test('a fn that throws writes nothing and its error propagates', async () => {
  await withStore(async (store, engine) => {
    const before = engine.writes;
    const boom = new Error('boom');
    await assert.rejects(
      store.run(async (txn) => {
        txn.putVersion(doc(1n), 'create', data([['v', 1n]]));
        txn.putMeta(Uint8Array.of(1), Uint8Array.of(2));
        throw boom;
      }),
      (e) => e === boom,
    );
    assert.equal(engine.writes, before);
    const r = await store.run(async (txn) => [await txn.getVersion(doc(1n)), await txn.getMeta(Uint8Array.of(1))]);
    assert.deepEqual(r.result, [null, undefined]);
  });
});

test('meta and abstract conflict keys: conflicting commits retry, exhausted retries give 409', async () => {
  await withStore(async (store) => {
    const mk = Uint8Array.of(9, 9);
    let attempts = 0;
    const readDone = deferred();
    const otherDone = deferred();
    const first = store.run(async (txn) => {
      attempts++;
      const cur = await txn.getMeta(mk);
      txn.readConflictKey('schema:1');
      if (attempts === 1) {
        readDone.resolve();
        await otherDone.promise;
      }
      txn.putMeta(mk, Uint8Array.of((cur?.[0] ?? 0) + 1));
      return cur?.[0] ?? 0;
    });
    await readDone.promise;
    await store.run(async (txn) => txn.putMeta(mk, Uint8Array.of(10)));
    otherDone.resolve();
    const r = await first;
    assert.equal(r.retries, 1);
    assert.equal(r.result, 10); // the retry saw the other commit
    const v = await store.run(async (txn) => txn.getMeta(mk));
    assert.deepEqual([...v.result!], [11]);

    // An abstract key conflict with no retries left.
    const read2 = deferred();
    const other2 = deferred();
    const contended = store.run(
      async (txn) => {
        txn.readConflictKey('schema:1');
        read2.resolve();
        await other2.promise;
        txn.putMeta(Uint8Array.of(1), Uint8Array.of(1));
      },
      { maxRetries: 0 },
    );
    await read2.promise;
    await store.run(async (txn) => txn.writeConflictKey('schema:1'));
    other2.resolve();
    await assert.rejects(contended, (e) => e instanceof ProtocolError && e.status === 409 && e.code === 'contended transaction');
  });
});

test('scans conflict with inserts into the scanned range only', async () => {
  await withStore(async (store) => {
    for (const id of [10n, 20n, 30n]) await put(store, doc(id, 4000), 'create');
    const run = async (insertId: bigint, opts: { fromId?: bigint; toId?: bigint; limit?: number }) => {
      let attempts = 0;
      const scanned = deferred();
      const inserted = deferred();
      const p = store.run(async (txn) => {
        attempts++;
        let n = 0;
        for await (const _ of txn.scan(1n, 4000, opts)) if (++n === opts.limit) break;
        if (attempts === 1) {
          scanned.resolve();
          await inserted.promise;
        }
        txn.putVersion(doc(999n, 4001), 'update', data([]));
      });
      await scanned.promise;
      await put(store, doc(insertId, 4000), 'create');
      inserted.resolve();
      return (await p).retries;
    };
    assert.equal(await run(15n, {}), 1); // inside the full scan
    assert.equal(await run(25n, { fromId: 0n, toId: 21n }), 0); // outside the bounds
    assert.equal(await run(35n, { limit: 1 }), 0); // beyond what a stopped scan handed out
    assert.equal(await run(5n, { limit: 1 }), 1); // before the first doc handed out
  });
});

test('minSnapshotTs: the snapshot is at least the last seen txn time', async () => {
  await withStore(async (store) => {
    const t = await put(store, doc(1n), 'create', [['v', 1n]]);
    const r = await store.run(async (txn) => txn.snapshotTs, { minSnapshotTs: t });
    assert.ok(r.result >= t);
    const future = store.now() + 10_000_000n;
    const f = await store.run(async (txn) => txn.snapshotTs, { minSnapshotTs: future });
    assert.ok(f.result >= future);
    const next = await put(store, doc(2n), 'create');
    assert.ok(next > future);
  });
});

test('purgeCollection and purgeDatabase remove keys physically, after older snapshots finish', async () => {
  await withStore(async (store, engine) => {
    await store.run(async (txn) => {
      for (let i = 1n; i <= 1500n; i++) txn.putVersion(doc(i), 'create', data([['i', i]]));
      txn.putVersion(doc(1n, 1025), 'create', data([]));
      txn.putVersion({ db: 2n, coll: 1024, id: 1n }, 'create', data([]));
    });
    const count = async (db: bigint, coll?: number) => {
      const start = Buffer.from([0x56, ...Buffer.alloc(8), ...(coll === undefined ? [] : Buffer.alloc(4))]);
      start.writeBigUInt64BE(db, 1);
      if (coll !== undefined) start.writeUInt32BE(coll, 9);
      const end = Buffer.from(start);
      end[end.length - 1]++;
      let n = 0;
      for await (const _ of engine.inner.range({ start, end })) n++;
      return n;
    };
    // A transaction that started before the delete holds the purge back until it finishes.
    const hold = deferred();
    const reader = store.run(async (txn) => {
      await hold.promise;
      let n = 0;
      for await (const _ of txn.scan(1n, 1024)) n++;
      return n;
    });
    await new Promise((r) => setImmediate(r));
    // The delete commits after the reader's snapshot was taken.
    const deletedAt = store.now() + 1n;
    const purged = store.purgeCollection(1n, 1024, deletedAt);
    await new Promise((r) => setImmediate(r));
    assert.equal(await count(1n, 1024), 1500, 'nothing removed while an older snapshot runs');
    hold.resolve();
    assert.equal((await reader).result, 1500);
    await purged;
    assert.equal(await count(1n, 1024), 0);
    assert.equal(await count(1n, 1025), 1, 'other collections are untouched');
    await store.purgeDatabase(1n, deletedAt);
    assert.equal(await count(1n), 0);
    assert.equal(await count(2n), 1, 'other databases are untouched');
  });
});

test('a commit with an oversized key is refused alone; the commits around it land', async () => {
  await withStore(async (store) => {
    const results = await Promise.allSettled([
      store.run(async (txn) => txn.putVersion(doc(1n), 'create', data([]))),
      store.run(async (txn) => txn.putMeta(new Uint8Array(5000), Uint8Array.of(1))),
      store.run(async (txn) => txn.putVersion(doc(2n), 'create', data([]))),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((results[1] as PromiseRejectedResult).reason), /exceeds the engine's maximum/);
    const { result } = await store.run(async (txn) => [await txn.getVersion(doc(1n)), await txn.getVersion(doc(2n))]);
    assert.ok(result[0] && result[1]);
  });
});

// ---- history writes (Insert / Remove) ------------------------------------------------------

test('putVersionAt / removeVersionAt: own view, history, latest record and scans after commit', async () => {
  await withStore(async (store) => {
    const x = doc(500n);
    const t0 = await put(store, x, 'create', [['v', 1n]]);
    const t1 = await put(store, x, 'update', [['v', 2n]]);
    // Insert before t0, replace t0, remove t1 (the newest): the latest record must follow.
    const r = await store.run(async (txn) => {
      await txn.putVersionAt(x, t0 - 10n, 'create', data([['v', 0n]]));
      await txn.putVersionAt(x, t0, 'create', data([['v', 10n]]));
      await txn.removeVersionAt(x, t1);
      const hist = await collect(txn.history(x));
      const rev = await collect(txn.history(x, { reverse: true }));
      return {
        now: field(await txn.getVersion(x), 'v'),
        before: field(await txn.getVersion(x, t0 - 5n), 'v'),
        hist: hist.map((v) => [v.ts, field(v, 'v')]),
        rev: rev.map((v) => v.ts),
      };
    });
    assert.equal(r.result.now, 10n);
    assert.equal(r.result.before, 0n);
    assert.deepEqual(r.result.hist, [[t0 - 10n, 0n], [t0, 10n]]);
    assert.deepEqual(r.result.rev, [t0, t0 - 10n]);
    const after = await store.run(async (txn) => {
      const v = await txn.getVersion(x);
      const scanned = await collect(txn.scan(1n, 1024, { fromId: 500n, toId: 501n }));
      const hist = await collect(txn.history(x));
      return { ts: v?.ts, v: field(v, 'v'), scanned: scanned.map((d) => field(d.version, 'v')), n: hist.length };
    });
    assert.deepEqual(after.result, { ts: t0, v: 10n, scanned: [10n], n: 2 });
    // Removing every version removes the latest record too.
    await store.run(async (txn) => {
      await txn.removeVersionAt(x, t0 - 10n);
      await txn.removeVersionAt(x, t0);
    });
    const gone = await store.run(async (txn) => [await txn.getVersion(x), (await collect(txn.scan(1n, 1024, { fromId: 500n, toId: 501n }))).length]);
    assert.deepEqual(gone.result, [null, 0]);
  });
});

test('a history edit conflicts with a concurrent write of the same document', async () => {
  await withStore(async (store) => {
    const x = doc(501n);
    const t0 = await put(store, x, 'create', [['v', 1n]]);
    const edited = deferred();
    const written = deferred();
    let attempts = 0;
    const editor = store.run(async (txn) => {
      attempts++;
      await txn.putVersionAt(x, t0 - 1n, 'create', data([['v', 0n]]));
      if (attempts === 1) {
        edited.resolve();
        await written.promise;
      }
    });
    await edited.promise;
    await put(store, x, 'update', [['v', 2n]]);
    written.resolve();
    const res = await editor;
    assert.equal(res.retries, 1);
    const latest = await store.run(async (txn) => field(await txn.getVersion(x), 'v'));
    assert.equal(latest.result, 2n);
  });
});

test('putVersionAt refuses a time after the snapshot', async () => {
  await withStore(async (store) => {
    await assert.rejects(store.run(async (txn) => txn.putVersionAt(doc(502n), txn.snapshotTs + 1n, 'create', data([]))));
  });
});

test('collectHistory keeps, per document, the newest version at or before the MVT and everything after', async () => {
  await withStore(async (store) => {
    const a = doc(600n, 2048);
    const b = doc(601n, 2048);
    const ta: bigint[] = [];
    const tb: bigint[] = [];
    ta.push(await put(store, a, 'create', [['v', 1n]]));
    tb.push(await put(store, b, 'create', [['v', 1n]]));
    ta.push(await put(store, a, 'update', [['v', 2n]]));
    tb.push(await put(store, b, 'delete'));
    const mvt = tb[1];
    ta.push(await put(store, a, 'update', [['v', 3n]]));
    const n = await store.collectHistory(1n, 2048, mvt, 2); // tiny batches cross document boundaries
    // a@ta[0], b@tb[0], and b's deletion at tb[1] ≤ mvt with its D record: b is absent at every
    // time a read may ask about.
    assert.equal(n, 4);
    const r = await store.run(async (txn) => ({
      a: (await collect(txn.history(a))).map((v) => v.ts),
      b: (await collect(txn.history(b))).map((v) => v.ts),
      aNow: field(await txn.getVersion(a), 'v'),
      aAtMvt: field(await txn.getVersion(a, mvt), 'v'),
      bNow: await txn.getVersion(b),
    }));
    assert.deepEqual(r.result.a, [ta[1], ta[2]]);
    assert.deepEqual(r.result.b, []);
    assert.equal(r.result.aNow, 3n);
    assert.equal(r.result.aAtMvt, 2n);
    assert.equal(r.result.bNow, null);
    assert.equal(await store.collectHistory(1n, 2048, mvt), 0);
  });
});

test('a read-only txn that read a meta key a later commit wrote runs again: its answer is one state', async () => {
  // Meta keys have one value, not versions: a reader's snapshot can predate the commit whose meta
  // value it reads. Here the commit empties a "list" and marks a document done together; a reader that
  // saw the list empty must also see the document done.
  await withStore(async (store) => {
    const list = Uint8Array.of(7);
    const x = doc(1n);
    await store.run(async (txn) => {
      txn.putMeta(list, Uint8Array.of(1));
      txn.putVersion(x, 'create', data([['done', false]]));
    });
    const docRead = deferred();
    const committed = deferred();
    let attempts = 0;
    const reader = store.run(async (txn) => {
      attempts++;
      const d = field(await txn.getVersion(x), 'done');
      if (attempts === 1) {
        docRead.resolve();
        await committed.promise;
      }
      return [d, (await txn.getMeta(list))?.[0]];
    });
    await docRead.promise;
    await store.run(async (txn) => {
      txn.putMeta(list, Uint8Array.of(0));
      txn.putVersion(x, 'update', data([['done', true]]));
    });
    committed.resolve();
    const r = await reader;
    assert.deepEqual(r.result, [true, 0], 'the list and the document as one commit left them');
    assert.equal(attempts, 2);
    // A later commit's equivalent write (a cached check added) does not make it run again.
    attempts = 0;
    const read = deferred();
    const rewritten = deferred();
    const once = store.run(async (txn) => {
      attempts++;
      const v = await txn.getMeta(list);
      read.resolve();
      await rewritten.promise;
      return v?.[0];
    });
    await read.promise;
    await store.run(async (txn) => txn.putMeta(list, Uint8Array.of(0, 1), { equivalent: true }));
    rewritten.resolve();
    assert.equal((await once).result, 0);
    assert.equal(attempts, 1);
    // A read-only txn whose meta reads no later commit wrote answers once.
    attempts = 0;
    await store.run(async (txn) => {
      attempts++;
      await txn.getMeta(list);
    });
    assert.equal(attempts, 1);
  });
});
