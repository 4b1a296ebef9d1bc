// Deleted documents leave the latest-version records for deletion records (format 4): a scan of
// the present walks only live documents, and every read of the past still sees what was there.
// Each test runs on both read paths: LMDB's synchronous reads, and the engine-agnostic async reads
// (what PostgreSQL takes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import type { DocKey, Store } from '../../src/storage/types';
import { NATIVE_IDS, obj, type Obj, type Value } from '../../src/values/types';
import { tempDir, withStore } from '../helpers/store';

const doc = (id: bigint, coll = 1024): DocKey => ({ db: 1n, coll, id });
const data = (v: bigint): Obj => obj([['data', obj([['v', v]])]]);
const field = (d: { data: Obj | null } | null) => ((d?.data?.get('data') as Obj | undefined)?.get('v') as Value | undefined) ?? null;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function withSyncStore(fn: (store: Store) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const store = await openStore(await openLmdbEngine(dir));
  try {
    await fn(store);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const paths: [string, (fn: (store: Store) => Promise<void>) => Promise<void>][] = [
  ['sync reads', withSyncStore],
  ['async reads', (fn) => withStore((store) => fn(store))],
];

for (const [name, withAny] of paths) {
  test(`${name}: a scan of the present reads the live documents only; scans of the past see the deleted ones`, async () => {
    await withAny(async (store) => {
      const created = await store.run(async (txn) => {
        for (let id = 1n; id <= 105n; id++) txn.putVersion(doc(id), 'create', data(id));
      });
      const deletedAt = await store.run(async (txn) => {
        for (let id = 1n; id <= 105n; id++) if (id % 21n !== 0n) txn.putVersion(doc(id), 'delete', null);
      });
      const now = await store.run(async (txn) => (await collect(txn.scan(1n, 1024))).map((d) => d.id));
      assert.deepEqual(now.result, [21n, 42n, 63n, 84n, 105n]);
      assert.equal(now.metrics.reads, 5, 'one record per live document');
      const past = await store.run(async (txn) => ({
        fwd: (await collect(txn.scan(1n, 1024, { at: created.ts }))).map((d) => field(d.version)),
        rev: (await collect(txn.scan(1n, 1024, { at: created.ts, reverse: true, fromId: 10n, toId: 15n }))).map((d) => d.id),
      }));
      assert.equal(past.result.fwd.length, 105);
      assert.deepEqual(past.result.fwd.slice(0, 3), [1n, 2n, 3n]);
      assert.deepEqual(past.result.rev, [14n, 13n, 12n, 11n, 10n]);
      const withDeleted = await store.run(async (txn) => collect(txn.scan(1n, 1024, { withDeleted: true })));
      assert.equal(withDeleted.result.length, 105);
      assert.equal(withDeleted.result.filter((d) => d.version.action === 'delete' && d.version.ts === deletedAt.ts).length, 100);
      const withDeletedRev = await store.run(async (txn) => (await collect(txn.scan(1n, 1024, { withDeleted: true, reverse: true, at: created.ts }))).map((d) => d.version.action));
      assert.deepEqual(new Set(withDeletedRev.result), new Set(['create']));
      assert.equal(withDeletedRev.result.length, 105);
      const gets = await store.run(async (txn) => ({ now: await txn.getVersion(doc(1n)), then: field(await txn.getVersion(doc(1n), created.ts)), never: await txn.getVersion(doc(999n)) }));
      assert.equal(gets.result.now?.action, 'delete');
      assert.equal(gets.result.then, 1n);
      assert.equal(gets.result.never, null);
    });
  });

  test(`${name}: a document deleted after a reader's snapshot is still the reader's, by Get and by scan`, async () => {
    await withAny(async (store) => {
      await store.run(async (txn) => {
        for (const id of [1n, 2n, 3n]) txn.putVersion(doc(id), 'create', data(id));
      });
      const readOnce = deferred();
      const deleted = deferred();
      const reader = store.run(async (txn) => {
        await txn.getVersion(doc(9n)); // a first read: the snapshot is taken
        readOnce.resolve();
        await deleted.promise;
        return {
          get: field(await txn.getVersion(doc(2n))),
          scan: (await collect(txn.scan(1n, 1024))).map((d) => d.id),
          rev: (await collect(txn.scan(1n, 1024, { reverse: true }))).map((d) => d.id),
        };
      });
      await readOnce.promise;
      await store.run(async (txn) => txn.putVersion(doc(2n), 'delete', null));
      deleted.resolve();
      const r = await reader;
      assert.deepEqual(r.result, { get: 2n, scan: [1n, 2n, 3n], rev: [3n, 2n, 1n] });
    });
  });

  test(`${name}: a document created again after its deletion is one document, live, in every scan`, async () => {
    await withAny(async (store) => {
      const first = await store.run(async (txn) => txn.putVersion(doc(5n), 'create', data(1n)));
      const gone = await store.run(async (txn) => txn.putVersion(doc(5n), 'delete', null));
      const again = await store.run(async (txn) => txn.putVersion(doc(5n), 'create', data(2n)));
      const r = await store.run(async (txn) => ({
        now: (await collect(txn.scan(1n, 1024))).map((d) => field(d.version)),
        atFirst: (await collect(txn.scan(1n, 1024, { at: first.ts }))).map((d) => field(d.version)),
        atGone: (await collect(txn.scan(1n, 1024, { at: gone.ts }))).map((d) => field(d.version)),
        atAgain: (await collect(txn.scan(1n, 1024, { at: again.ts }))).map((d) => field(d.version)),
      }));
      assert.deepEqual(r.result, { now: [2n], atFirst: [1n], atGone: [], atAgain: [2n] });
    });
  });

  test(`${name}: a write's own check of a document's absence is final, and a deletion it missed fails its commit`, async () => {
    await withAny(async (store) => {
      await store.run(async (txn) => txn.putVersion(doc(7n), 'create', data(1n)));
      const checked = deferred();
      const deleted = deferred();
      let attempts = 0;
      const writer = store.run(async (txn) => {
        attempts++;
        const seen = await txn.getVersion(doc(7n), undefined, { forWrite: true });
        if (attempts === 1) {
          checked.resolve();
          await deleted.promise;
          // Deleted after the snapshot: a plain read still sees the document, the write's check not.
          assert.equal(field(await txn.getVersion(doc(7n))), 1n);
          assert.equal((await txn.getVersion(doc(8n), undefined, { forWrite: true })), null);
        }
        txn.putVersion(doc(7n), seen && seen.action !== 'delete' ? 'update' : 'create', data(BigInt(attempts)));
        return seen?.action ?? null;
      });
      await checked.promise;
      await store.run(async (txn) => txn.putVersion(doc(7n), 'delete', null));
      deleted.resolve();
      const r = await writer;
      assert.equal(attempts, 2, 'the deletion fails the first attempt');
      assert.equal(r.result, null, 'the second finds it absent');
    });
  });

  test(`${name}: the schema collections keep their deleted documents in the latest-version records`, async () => {
    await withAny(async (store) => {
      const key = doc(1025n, NATIVE_IDS.collections);
      await store.run(async (txn) => txn.putVersion(key, 'create', obj([['name', 'c']])));
      const gone = await store.run(async (txn) => txn.putVersion(key, 'delete', null));
      const r = await store.run(async (txn) => collect(txn.scan(1n, NATIVE_IDS.collections, { withDeleted: true })));
      assert.deepEqual(r.result.map((d) => [d.id, d.version.action, d.version.ts]), [[1025n, 'delete', gone.ts]]);
      assert.equal(r.metrics.reads, 1, 'read from its latest-version record');
    });
  });
}
