// The record of a background migration's progress (model/schema10/migrationState.ts) on a real
// store: a version per batch while the rewrite runs, none left once it ends; and the versions a
// v4 Insert into the past wrote in the current shape keep their level.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withStore } from '../helpers/store';
import {
  addMigration,
  endMigration,
  levelOf,
  noteWrittenCurrent,
  readMigration,
  readProgress,
  writeProgress,
} from '../../src/model/schema10/migrationState';
import type { DocKey } from '../../src/storage/types';

const DB = 3n;
const COLL = 1100;
/** The progress record's key (migrationState.ts: its internal collection, the collection's id). */
const PROGRESS: DocKey = { db: DB, coll: 0xffff_fff0, id: BigInt(COLL) };

test('every version of the progress record goes when the migration ends', async () => {
  await withStore(async (store) => {
    await store.run((txn) => addMigration(txn, DB, COLL, [{ kind: 'drop', path: ['x'] }]));
    for (const upTo of [10n, 20n, 30n])
      await store.run(async (txn) => {
        const p = await readProgress(txn, DB, COLL);
        p.floors[p.floors.length - 1].upTo = upTo;
        p.done = Number(upTo);
        writeProgress(txn, DB, COLL, p);
      });
    const versions = async () => (await store.run(async (txn) => {
      let n = 0;
      for await (const _ of txn.history(PROGRESS)) n++;
      return n;
    })).result;
    assert.equal(await versions(), 4);
    await store.run((txn) => endMigration(txn, DB, COLL));
    assert.equal(await versions(), 0);
    const after = (await store.run(async (txn) => ({ state: await readMigration(txn, DB, COLL), progress: await readProgress(txn, DB, COLL) }))).result;
    assert.equal(after.state, undefined);
    assert.deepEqual(after.progress, { floors: [], done: 0, current: [] });
  });
});

test('a migration started and ended in one transaction leaves no progress record', async () => {
  await withStore(async (store) => {
    await store.run(async (txn) => {
      await addMigration(txn, DB, COLL, [{ kind: 'drop', path: ['x'] }]);
      await endMigration(txn, DB, COLL);
    });
    const live = (await store.run((txn) => txn.getVersion(PROGRESS))).result;
    assert.equal(live?.data ?? null, null);
  });
});

test('a version noted as written in the current shape has the level of the pushes so far, whatever its time', async () => {
  await withStore(async (store) => {
    await store.run((txn) => addMigration(txn, DB, COLL, [{ kind: 'drop', path: ['x'] }]));
    await store.run((txn) => addMigration(txn, DB, COLL, [{ kind: 'drop', path: ['y'] }]));
    // Not migrating: nothing noted.
    assert.equal((await store.run((txn) => noteWrittenCurrent(txn, DB, COLL + 1, 5n, 100n))).result, false);
    assert.equal((await store.run((txn) => noteWrittenCurrent(txn, DB, COLL, 5n, 100n))).result, true);
    const progress = (await store.run((txn) => readProgress(txn, DB, COLL))).result;
    const commits = [1_000n, 2_000n];
    assert.equal(levelOf(progress, commits, 5n, 100n), 2);
    // Another version of the same document, or the same time of another, is placed by its time.
    assert.equal(levelOf(progress, commits, 5n, 101n), 0);
    assert.equal(levelOf(progress, commits, 6n, 100n), 0);
    assert.equal(levelOf(progress, commits, 6n, 1_500n), 1);
  });
});
