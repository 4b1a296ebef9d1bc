import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { KeyTag } from '../../src/storage/keys';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import { tempDir, withStore } from '../helpers/store';
import { keySuccessor, prefixEnd } from '../../src/storage/tuple';
import type { IndexAction, IndexEntry, IndexEvent, IndexScanOptions, Store, Txn } from '../../src/storage/types';
import { TxnTime } from '../../src/values/types';


function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function collect<T>(it: Iterable<T> | AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const DB = 1n;
const IX = 7;
/** Fixed-length (so prefix-free) entry keys: term byte, ref byte. */
const k = (n: number, term = 0x10) => Uint8Array.of(term, n);
const text = (b: Uint8Array) => Buffer.from(b).toString();
const payload = (s: string) => new Uint8Array(Buffer.from(s));
const entry = (key: Uint8Array, action: IndexAction, p = '') => ({ key, action, payload: payload(p) });

/** [ref byte, payload, ts] of scanned entries. */
const show = (es: IndexEntry[]) => es.map((e) => [e.key[e.key.length - 1], text(e.payload), e.ts]);
const showEvents = (es: IndexEvent[]) => es.map((e) => [e.key[e.key.length - 1], e.action, e.ts]);

async function scan(store: Store, opts?: IndexScanOptions, db = DB, ix = IX) {
  return (await store.run(async (txn) => show(await collect(txn.scanIndex(db, ix, opts))))).result;
}

async function putEntries(store: Store, ...writes: [Uint8Array, IndexAction, string?][]): Promise<bigint> {
  const r = await store.run(async (txn) => {
    for (const [key, action, p] of writes) txn.putIndexEntry(DB, IX, entry(key, action, p));
  });
  return r.ts;
}

test('add, remove, re-add: reads at the snapshot and at past times', async () => {
  await withStore(async (store) => {
    const a = k(1);
    const b = k(2);
    const t1 = await putEntries(store, [a, 'add', 'a1'], [b, 'add', 'b1']);
    const t2 = await putEntries(store, [a, 'remove', 'a1']);
    const t3 = await putEntries(store, [a, 'add', 'a3']);
    assert.ok(t1 < t2 && t2 < t3);

    assert.deepEqual(await scan(store), [[1, 'a3', t3], [2, 'b1', t1]]);
    assert.deepEqual(await scan(store, { reverse: true }), [[2, 'b1', t1], [1, 'a3', t3]]);
    assert.deepEqual(await scan(store, { at: t1 - 1n }), []);
    assert.deepEqual(await scan(store, { at: t1 }), [[1, 'a1', t1], [2, 'b1', t1]]);
    assert.deepEqual(await scan(store, { at: t2 }), [[2, 'b1', t1]]);
    assert.deepEqual(await scan(store, { at: t3 - 1n, reverse: true }), [[2, 'b1', t1]]);
    assert.deepEqual(await scan(store, { at: t3 }), [[1, 'a3', t3], [2, 'b1', t1]]);
    assert.deepEqual(await scan(store, { at: 0n }), []);
    // Another index and another database see nothing.
    assert.deepEqual(await scan(store, {}, DB, IX + 1), []);
    assert.deepEqual(await scan(store, {}, DB + 1n, IX), []);

    const events = async (opts?: IndexScanOptions & { fromTs?: bigint }) =>
      (await store.run(async (txn) => showEvents(await collect(txn.indexHistory(DB, IX, opts))))).result;
    assert.deepEqual(await events(), [[1, 'add', t1], [1, 'remove', t2], [1, 'add', t3], [2, 'add', t1]]);
    assert.deepEqual(await events({ reverse: true }), [[2, 'add', t1], [1, 'add', t3], [1, 'remove', t2], [1, 'add', t1]]);
    assert.deepEqual(await events({ fromTs: t2, at: t2 }), [[1, 'remove', t2]]);
    assert.deepEqual(await events({ fromTs: t2 }), [[1, 'remove', t2], [1, 'add', t3]]);
    assert.deepEqual(await events({ from: b }), [[2, 'add', t1]]);
    assert.deepEqual(await events({ to: b, at: t2 }), [[1, 'add', t1], [1, 'remove', t2]]);
    assert.deepEqual(await events({ at: t1 - 1n }), []);
  });
});

test('a read of the present walks only present entries: removed ones cost it nothing, a past read still sees them', async () => {
  await withStore(async (store) => {
    const keys = Array.from({ length: 100 }, (_, i) => k(i));
    const t1 = await putEntries(store, ...keys.map((key): [Uint8Array, IndexAction, string] => [key, 'add', 'x']));
    await putEntries(store, ...keys.slice(5).map((key): [Uint8Array, IndexAction, string] => [key, 'remove', 'x']));
    const reads = async (opts?: IndexScanOptions) =>
      (
        await store.run(async (txn) => {
          const n = (await collect(txn.scanIndex(DB, IX, opts))).length;
          return { n, reads: txn.metrics.reads };
        })
      ).result;
    assert.deepEqual(await reads(), { n: 5, reads: 5 });
    // At t1 the 95 removed since are read back from their removal records and history.
    assert.equal((await reads({ at: t1 })).n, 100);
    // Re-added: present again, once.
    const t3 = await putEntries(store, [k(7), 'add', 'again']);
    assert.deepEqual(await scan(store, { to: k(8) }), [[0, 'x', t1], [1, 'x', t1], [2, 'x', t1], [3, 'x', t1], [4, 'x', t1], [7, 'again', t3]]);
    assert.equal((await reads({ at: t1 })).n, 100);
  });
});

test('snapshot isolation: a scan does not see index commits after its snapshot', async () => {
  await withStore(async (store) => {
    const t1 = await putEntries(store, [k(1), 'add', 'one'], [k(2), 'add', 'two']);
    const readOnce = deferred();
    const written = deferred();
    const reader = store.run(async (txn) => {
      const before = show(await collect(txn.scanIndex(DB, IX)));
      readOnce.resolve();
      await written.promise;
      const after = show(await collect(txn.scanIndex(DB, IX)));
      const events = showEvents(await collect(txn.indexHistory(DB, IX)));
      return { before, after, events };
    });
    await readOnce.promise;
    const t2 = await putEntries(store, [k(1), 'remove', 'one'], [k(2), 'add', 'two again'], [k(3), 'add', 'three']);
    written.resolve();
    const r = await reader;
    assert.deepEqual(r.result.before, [[1, 'one', t1], [2, 'two', t1]]);
    assert.deepEqual(r.result.after, r.result.before);
    assert.deepEqual(r.result.events, [[1, 'add', t1], [2, 'add', t1]]);
    assert.deepEqual(await scan(store), [[2, 'two again', t2], [3, 'three', t2]]);
  });
});

test('history bounds around one entry: to = keySuccessor(key) includes it, from = keySuccessor(key) excludes it', async () => {
  await withStore(async (store) => {
    // Variable-length, prefix-free keys (0x00-terminated strings).
    const key = (s: string) => new Uint8Array([...Buffer.from(s), 0]);
    const t1 = await store.run(async (txn) => {
      for (const s of ['a', 'ab', 'b']) txn.putIndexEntry(DB, IX, entry(key(s), 'add', s));
    });
    const t2 = await store.run(async (txn) => txn.putIndexEntry(DB, IX, entry(key('ab'), 'remove', 'ab')));
    const r = await store.run(async (txn) => {
      const ev = async (opts: IndexScanOptions) =>
        (await collect(txn.indexHistory(DB, IX, opts))).map((e) => [text(e.payload), e.action, e.ts]);
      return {
        upTo: await ev({ to: keySuccessor(key('ab')) }),
        upToRev: await ev({ to: keySuccessor(key('ab')), reverse: true }),
        after: await ev({ from: keySuccessor(key('a')) }),
        only: await ev({ from: key('ab'), to: keySuccessor(key('ab')) }),
        prefix: await ev({ from: Buffer.from('a'), to: Buffer.from('b') }),
        scan: (await collect(txn.scanIndex(DB, IX, { from: Buffer.from('a'), to: prefixEnd(Buffer.from('a')) }))).map((e) =>
          text(e.payload),
        ),
      };
    });
    const [t1s, t2s] = [t1.ts, t2.ts];
    assert.deepEqual(r.result.upTo, [['a', 'add', t1s], ['ab', 'add', t1s], ['ab', 'remove', t2s]]);
    assert.deepEqual(r.result.upToRev, [['ab', 'remove', t2s], ['ab', 'add', t1s], ['a', 'add', t1s]]);
    assert.deepEqual(r.result.after, [['ab', 'add', t1s], ['ab', 'remove', t2s], ['b', 'add', t1s]]);
    assert.deepEqual(r.result.only, [['ab', 'add', t1s], ['ab', 'remove', t2s]]);
    assert.deepEqual(r.result.prefix, [['a', 'add', t1s], ['ab', 'add', t1s], ['ab', 'remove', t2s]]);
    assert.deepEqual(r.result.scan, ['a']);
  });
});

test('own writes merge into scans and history in key order, both directions, with bounds', async () => {
  await withStore(async (store) => {
    const t0 = await putEntries(store, [k(1), 'add', 's1'], [k(3), 'add', 's3'], [k(5), 'add', 's5'], [k(9), 'add', 's9']);
    await store.run(async (txn) => txn.putIndexEntry(DB, IX + 1, entry(k(4), 'add', 'other index')));
    const r = await store.run(async (txn) => {
      txn.putIndexEntry(DB, IX, entry(k(2), 'add', 'o2'));
      txn.putIndexEntry(DB, IX, entry(k(3), 'remove', 's3'));
      txn.putIndexEntry(DB, IX, entry(k(5), 'add', 'o5'));
      txn.putIndexEntry(DB, IX, entry(k(7), 'add', 'x'));
      txn.putIndexEntry(DB, IX, entry(k(7), 'add', 'o7')); // collapses to the last
      txn.putIndexEntry(DB, IX, entry(k(8), 'remove', 'never there'));
      const s = async (opts?: IndexScanOptions) => show(await collect(txn.scanIndex(DB, IX, opts)));
      return {
        fwd: await s(),
        rev: await s({ reverse: true }),
        bounded: await s({ from: k(2), to: k(7) }),
        boundedRev: await s({ from: k(2), to: k(7), reverse: true }),
        empty: await s({ from: k(5), to: k(5) }),
        past: await s({ at: t0 }),
        history: showEvents(await collect(txn.indexHistory(DB, IX, { from: k(3), to: k(8) }))),
        historyRev: showEvents(await collect(txn.indexHistory(DB, IX, { from: k(3), to: k(8), reverse: true }))),
        pastHistory: showEvents(await collect(txn.indexHistory(DB, IX, { at: t0, from: k(3), to: k(8) }))),
      };
    });
    const T = TxnTime.instance;
    assert.deepEqual(r.result.fwd, [[1, 's1', t0], [2, 'o2', T], [5, 'o5', T], [7, 'o7', T], [9, 's9', t0]]);
    assert.deepEqual(r.result.rev, [[9, 's9', t0], [7, 'o7', T], [5, 'o5', T], [2, 'o2', T], [1, 's1', t0]]);
    assert.deepEqual(r.result.bounded, [[2, 'o2', T], [5, 'o5', T]]);
    assert.deepEqual(r.result.boundedRev, [[5, 'o5', T], [2, 'o2', T]]);
    assert.deepEqual(r.result.empty, []);
    assert.deepEqual(r.result.past, [[1, 's1', t0], [3, 's3', t0], [5, 's5', t0], [9, 's9', t0]]);
    assert.deepEqual(r.result.history, [[3, 'add', t0], [3, 'remove', T], [5, 'add', t0], [5, 'add', T], [7, 'add', T]]);
    assert.deepEqual(r.result.historyRev, [[7, 'add', T], [5, 'add', T], [5, 'add', t0], [3, 'remove', T], [3, 'add', t0]]);
    assert.deepEqual(r.result.pastHistory, [[3, 'add', t0], [5, 'add', t0]]);
    assert.equal(r.metrics.writes, 5); // one per entry changed (k7 collapsed)
    assert.ok(r.metrics.reads > 0 && r.metrics.bytesRead > 0 && r.metrics.bytesWritten > 0);

    // After commit the stored state matches what the txn saw.
    assert.deepEqual(await scan(store), [[1, 's1', t0], [2, 'o2', r.ts], [5, 'o5', r.ts], [7, 'o7', r.ts], [9, 's9', t0]]);
    assert.deepEqual(await scan(store, { at: t0 }), r.result.past);
  });
});

test('index scans conflict with commits into the part of the range handed out', async () => {
  await withStore(async (store) => {
    await putEntries(store, [k(10), 'add'], [k(20), 'add'], [k(30), 'add']);
    const run = async (write: [number, IndexAction], opts: IndexScanOptions & { limit?: number }) => {
      let attempts = 0;
      const scanned = deferred();
      const inserted = deferred();
      const p = store.run(async (txn) => {
        attempts++;
        let n = 0;
        for await (const _ of txn.scanIndex(DB, IX, opts)) if (++n === opts.limit) break;
        if (attempts === 1) {
          scanned.resolve();
          await inserted.promise;
        }
        txn.putIndexEntry(DB, IX + 1, entry(k(1), 'add'));
      });
      await scanned.promise;
      await putEntries(store, [k(write[0]), write[1]]);
      inserted.resolve();
      return (await p).retries;
    };
    assert.equal(await run([15, 'add'], {}), 1); // inside the full scan
    assert.equal(await run([25, 'add'], { to: k(21) }), 0); // outside the bounds
    assert.equal(await run([26, 'add'], { from: k(21), to: k(30) }), 1);
    assert.equal(await run([35, 'add'], { limit: 1 }), 0); // beyond what a stopped scan handed out
    assert.equal(await run([5, 'add'], { limit: 1 }), 1); // before the first entry handed out
    assert.equal(await run([5, 'remove'], { limit: 1 }), 1); // the entry handed out
    assert.equal(await run([4, 'add'], { limit: 1, reverse: true }), 0); // below a stopped reverse scan
    assert.equal(await run([36, 'add'], { limit: 1, reverse: true }), 1);
    assert.equal(await run([37, 'add'], { at: 0n }), 0); // past reads record nothing
    assert.equal(await run([38, 'add'], { limit: 0 }), 1); // limit 0 never breaks: a full scan
  });
});

test('concurrent unique checks on an empty range: exactly one add commits', async () => {
  await withStore(async (store) => {
    const term = Uint8Array.of(0x20); // entry key = term | ref, unique on the term
    const attempts = [0, 0];
    let arrived = 0;
    const bothScanned = deferred();
    const uniqueAdd = (i: number) =>
      store.run(async (txn: Txn) => {
        attempts[i]++;
        const existing = await collect(txn.scanIndex(DB, IX, { from: term, to: prefixEnd(term) }));
        if (attempts[i] === 1 && ++arrived === 2) bothScanned.resolve();
        if (attempts[i] === 1) await bothScanned.promise;
        if (existing.length > 0) throw new Error('not unique');
        txn.putIndexEntry(DB, IX, entry(Uint8Array.of(0x20, i), 'add', `ref ${i}`));
        return i;
      });
    const results = await Promise.allSettled([uniqueAdd(0), uniqueAdd(1)]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(ok.length, 1);
    assert.equal(failed.length, 1);
    assert.match(String(failed[0].reason), /not unique/);
    assert.deepEqual(attempts.sort(), [1, 2]); // the loser was re-run and saw the winner's entry
    const entries = await scan(store, { from: term, to: prefixEnd(term) });
    assert.equal(entries.length, 1);
    assert.equal(entries[0][1], `ref ${(ok[0] as PromiseFulfilledResult<{ result: number }>).value.result}`);
  });
});

test('putIndexHistory: past events visible to past scans and history, no conflicts', async () => {
  await withStore(async (store) => {
    const tick = async () => (await store.run(async (txn) => txn.putMeta(Uint8Array.of(1), Uint8Array.of(1)))).ts;
    const ta = await tick();
    const tb = await tick();
    const x = k(1);
    const y = k(2);
    // A build replays the documents' history, then writes the current state.
    const built = await store.run(async (txn) => {
      assert.throws(() => txn.putIndexHistory(DB, IX, entry(x, 'add'), txn.snapshotTs + 1n), RangeError);
      txn.putIndexHistory(DB, IX, entry(x, 'add', 'x'), ta);
      txn.putIndexHistory(DB, IX, entry(y, 'add', 'y'), ta);
      txn.putIndexHistory(DB, IX, entry(y, 'remove', 'y'), tb);
      txn.putIndexEntry(DB, IX, entry(x, 'add', 'x'));
      txn.putIndexEntry(DB, IX, entry(y, 'remove', 'y'));
      // Own history events are not visible before commit; own entry changes are.
      return { past: show(await collect(txn.scanIndex(DB, IX, { at: ta }))), now: show(await collect(txn.scanIndex(DB, IX))) };
    });
    const tc = built.ts;
    assert.deepEqual(built.result.past, []);
    assert.deepEqual(built.result.now, [[1, 'x', TxnTime.instance]]);
    assert.equal(built.metrics.writes, 5);

    assert.deepEqual(await scan(store, { at: ta - 1n }), []);
    assert.deepEqual(await scan(store, { at: ta }), [[1, 'x', ta], [2, 'y', ta]]);
    assert.deepEqual(await scan(store, { at: tb }), [[1, 'x', ta]]);
    assert.deepEqual(await scan(store, { at: tc - 1n, reverse: true }), [[1, 'x', ta]]);
    assert.deepEqual(await scan(store), [[1, 'x', tc]]);
    const h = await store.run(async (txn) => showEvents(await collect(txn.indexHistory(DB, IX))));
    assert.deepEqual(h.result, [[1, 'add', ta], [1, 'add', tc], [2, 'add', ta], [2, 'remove', tb], [2, 'remove', tc]]);

    // A history-only commit does not conflict with a scan of its entries.
    const scanned = deferred();
    const written = deferred();
    let attempts = 0;
    const p = store.run(async (txn) => {
      attempts++;
      await collect(txn.scanIndex(DB, IX));
      if (attempts === 1) {
        scanned.resolve();
        await written.promise;
      }
      txn.putIndexEntry(DB, IX + 1, entry(k(1), 'add'));
    });
    await scanned.promise;
    await store.run(async (txn) => txn.putIndexHistory(DB, IX, entry(k(3), 'add'), ta));
    written.resolve();
    assert.equal((await p).retries, 0);
  });
});

test('purgeIndex removes every key of that index only; purgeDatabase covers indexes', async () => {
  await withStore(async (store, engine) => {
    await store.run(async (txn) => {
      for (let i = 0; i < 1200; i++) {
        const key = Uint8Array.of(0x30, i >> 8, i & 0xff);
        txn.putIndexEntry(DB, IX, entry(key, 'add'));
        txn.putIndexHistory(DB, IX, entry(key, 'add'), txn.snapshotTs - 1n);
      }
      txn.putIndexEntry(DB, IX + 1, entry(k(1), 'add'));
      txn.putIndexEntry(DB + 1n, IX, entry(k(1), 'add'));
    });
    const count = async (tag: number, db: bigint, index?: number) => {
      const start = Buffer.alloc(index === undefined ? 9 : 13);
      start[0] = tag;
      start.writeBigUInt64BE(db, 1);
      if (index !== undefined) start.writeUInt32BE(index, 9);
      let n = 0;
      for await (const _ of engine.inner.range({ start, end: prefixEnd(Buffer.from(start)) })) n++;
      return n;
    };
    assert.equal(await count(KeyTag.IndexEntry, DB, IX), 1200);
    assert.equal(await count(KeyTag.IndexHistory, DB, IX), 2400);

    // A transaction that started before the delete holds the purge back until it finishes.
    const hold = deferred();
    const reader = store.run(async (txn) => {
      await hold.promise;
      return (await collect(txn.scanIndex(DB, IX))).length;
    });
    await new Promise((r) => setImmediate(r));
    const purged = store.purgeIndex(DB, IX, store.now() + 1n);
    await new Promise((r) => setImmediate(r));
    assert.equal(await count(KeyTag.IndexEntry, DB, IX), 1200, 'nothing removed while an older snapshot runs');
    hold.resolve();
    assert.equal((await reader).result, 1200);
    await purged;
    assert.equal(await count(KeyTag.IndexEntry, DB, IX), 0);
    assert.equal(await count(KeyTag.IndexHistory, DB, IX), 0);
    assert.equal(await count(KeyTag.IndexEntry, DB, IX + 1), 1, 'other indexes are untouched');
    assert.equal(await count(KeyTag.IndexHistory, DB, IX + 1), 1);
    assert.equal(await count(KeyTag.IndexEntry, DB + 1n, IX), 1, 'other databases are untouched');

    await store.purgeDatabase(DB, store.now());
    assert.equal(await count(KeyTag.IndexEntry, DB), 0);
    assert.equal(await count(KeyTag.IndexHistory, DB), 0);
    assert.equal(await count(KeyTag.IndexEntry, DB + 1n), 1);
    assert.equal(await count(KeyTag.IndexHistory, DB + 1n), 1);
  });
});

test('index data survives close and reopen', async () => {
  const dir = tempDir();
  try {
    const s1 = await openStore(await openLmdbEngine(dir));
    const t1 = await putEntries(s1, [k(1), 'add', 'one'], [k(2), 'add', 'two']);
    const t2 = await putEntries(s1, [k(1), 'remove', 'one']);
    await s1.close();

    const s2 = await openStore(await openLmdbEngine(dir));
    try {
      assert.deepEqual(await scan(s2), [[2, 'two', t1]]);
      assert.deepEqual(await scan(s2, { at: t1 }), [[1, 'one', t1], [2, 'two', t1]]);
      const h = await s2.run(async (txn) => showEvents(await collect(txn.indexHistory(DB, IX))));
      assert.deepEqual(h.result, [[1, 'add', t1], [1, 'remove', t2], [2, 'add', t1]]);
    } finally {
      await s2.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('invalid index writes are refused when buffered', async () => {
  await withStore(async (store) => {
    await store.run(async (txn) => {
      assert.throws(() => txn.putIndexEntry(DB, IX, entry(new Uint8Array(0), 'add')), RangeError);
      assert.throws(() => txn.putIndexEntry(DB, -1, entry(k(1), 'add')), RangeError);
      assert.throws(() => txn.putIndexEntry(DB, IX, entry(new Uint8Array(5000), 'add')), /exceeds the engine's maximum/);
      assert.equal(txn.hasWrites, false);
    });
  });
});

test('collectIndexHistory keeps what reads at or after the MVT need, in any batch size', async () => {
  for (const batch of [1, 2, 1000]) {
    await withStore(async (store) => {
      const a = k(1);
      const b = k(2);
      const c = k(3);
      await putEntries(store, [a, 'add', 'a1'], [b, 'add', 'b1'], [c, 'add', 'c1']);
      await putEntries(store, [a, 'remove', 'a1'], [b, 'remove', 'b1']);
      const t3 = await putEntries(store, [a, 'add', 'a3'], [c, 'remove', 'c1']);
      const mvt = t3;
      const t4 = await putEntries(store, [b, 'add', 'b4']);
      const atMvt = await scan(store, { at: mvt });
      const atT4 = await scan(store, { at: t4 });
      // a: add t1 and remove t2 superseded by add t3 (kept). b: add t1 superseded, remove t2 dropped,
      // add t4 after the MVT kept. c: add t1 superseded, remove t3 dropped. Six events, and the three
      // removal records (a and b at t2, c at t3), all at or below the MVT.
      assert.equal(await store.collectIndexHistory(DB, IX, mvt, batch), 9, `batch ${batch}`);
      const events = (await store.run(async (txn) => showEvents(await collect(txn.indexHistory(DB, IX))))).result;
      assert.deepEqual(events, [[1, 'add', t3], [2, 'add', t4]], `batch ${batch}`);
      assert.deepEqual(await scan(store, { at: mvt }), atMvt);
      assert.deepEqual(await scan(store, { at: t4 }), atT4);
      assert.deepEqual(await scan(store), [[1, 'a3', t3], [2, 'b4', t4]]);
      assert.equal(await store.collectIndexHistory(DB, IX, mvt, batch), 0);
    });
  }
});
