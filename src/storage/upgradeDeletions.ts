// Format 4: a deleted document leaves the latest-version records (L) for a deletion record (D)
// ordered by time (keys.ts), so that a scan of a collection walks only live documents. Format 3
// kept deleted documents in L for good; this moves them, a batch at a time (moveRecords.ts:
// resumable).

import type { Engine } from './engine';
import { keepsDeleted } from './deletions';
import { decodeU64Value, deletionKey, keyColl, keyDb, KeyTag, versionKeyId } from './keys';
import { moveRecords } from './moveRecords';
import { isDeletion } from './txn';

export async function moveDeletedDocuments(engine: Engine, log: (line: string) => void): Promise<void> {
  const moved = await moveRecords(engine, KeyTag.Latest, 4, (kv) => {
    // An L value is the version's ts, then the version record.
    const coll = keyColl(kv.key);
    if (!isDeletion(kv.value.subarray(8)) || keepsDeleted(coll)) return undefined;
    return [
      { key: new Uint8Array(kv.key), value: null },
      { key: deletionKey(keyDb(kv.key), coll, decodeU64Value(kv.value), versionKeyId(kv.key)), value: new Uint8Array(0) },
    ];
  });
  if (moved > 0) log(`flora: storage format 4: ${moved} deleted documents moved apart from the live ones`);
}
