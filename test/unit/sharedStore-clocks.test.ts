// Shared mode with clocks that disagree (each process reads the wall clock with its own sub-ms
// digits; hosts drift): a store must never take its snapshots beyond the time the tier has
// published, or another process commits below them and its commits are skipped when validating.
// Found by the torture suite's isolation part (list-append on `--workers 2`: an acknowledged
// append lost, and a transaction ordered before a commit it did not see).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import type { DocKey, Store } from '../../src/storage/types';
import { obj, type Obj } from '../../src/values/types';
import { sharedBy, tempDir } from '../helpers/store';

const doc = (id: bigint): DocKey => ({ db: 1n, coll: 1024, id });
const data = (n: bigint): Obj => obj([['data', obj([['n', n]])]]);
const valueOf = (d: Obj | null | undefined): bigint | undefined => (d?.get('data') as Obj | undefined)?.get('n') as bigint | undefined;

test('a store whose clock runs ahead does not lose an update made through a store whose clock runs behind', async () => {
  const dir = tempDir();
  const engine = sharedBy(await openLmdbEngine(dir, { shared: true }), 2);
  const wall = () => BigInt(Date.now()) * 1000n;
  let aheadUs = 0n;
  const a: Store = await openStore(engine, { clock: () => wall() + aheadUs });
  const b: Store = await openStore(engine, { clock: wall });
  try {
    await a.run(async (txn) => {
      txn.putVersion(doc(1n), 'create', data(0n));
      txn.putVersion(doc(2n), 'create', data(0n));
    });
    // A transaction of a that conflicts with b, committed in a section that commits nothing, just
    // as a's clock has moved 2 s ahead of b's.
    await assert.rejects(
      a.run(
        async (txn) => {
          const n = valueOf((await txn.getVersion(doc(1n)))?.data)!;
          await b.run(async (t) => t.putVersion(doc(1n), 'update', data(10n)));
          aheadUs = 2_000_000n;
          txn.putVersion(doc(1n), 'update', data(n + 1n));
        },
        { maxRetries: 0 },
      ),
      /concurrent modification/,
    );
    // Read-modify-write through a while b writes the same document in between.
    let attempts = 0;
    const done = await a.run(async (txn) => {
      attempts++;
      const n = valueOf((await txn.getVersion(doc(2n)))?.data)!;
      if (attempts === 1) await b.run(async (t) => t.putVersion(doc(2n), 'update', data(5n)));
      txn.putVersion(doc(2n), 'update', data(n + 1n));
    });
    assert.equal(attempts, 2, 'the first attempt conflicted with the write of b it had not seen');
    const final = await b.run(async (txn) => valueOf((await txn.getVersion(doc(2n)))?.data), { minSnapshotTs: done.ts });
    assert.equal(final.result, 6n, 'both updates count');
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
