// Background removal of what a deleted database or collection held. Runs after the delete is
// durable; a database's descendants are found by walking its (still stored) databases collection.

import type { Store } from '../storage/types';
import { NATIVE_IDS } from './catalog';

export interface Purge {
  db: bigint;
  /** A collection's internal id; absent when the whole database `db` was deleted. */
  coll?: number;
  /** An index's internal id. */
  index?: number;
}

export async function runPurges(store: Store, purges: readonly Purge[], deletedAt: bigint): Promise<void> {
  for (const p of purges) {
    if (p.coll !== undefined) {
      await store.purgeCollection(p.db, p.coll, deletedAt);
      continue;
    }
    if (p.index !== undefined) {
      await store.purgeIndex(p.db, p.index, deletedAt);
      continue;
    }
    for (const db of await descendantsOf(store, p.db)) await store.purgeDatabase(db, deletedAt);
  }
}

/** The database and every database below it, children first. */
async function descendantsOf(store: Store, db: bigint): Promise<bigint[]> {
  const { result: children } = await store.run(async (txn) => {
    const ids: bigint[] = [];
    for await (const doc of txn.scan(db, NATIVE_IDS.databases)) ids.push(doc.id);
    return ids;
  });
  const out: bigint[] = [];
  for (const child of children) out.push(...(await descendantsOf(store, child)));
  out.push(db);
  return out;
}
