// Format 4: a deleted document leaves the latest-version records (L) for a deletion record (D)
// ordered by time (keys.ts), so that a scan of a collection walks only live documents. Format 3
// kept deleted documents in L for good; this moves them, a batch at a time. A crash between
// batches leaves the rest for the next start: the format record is written last, and a moved
// document is not in L any more.

import type { Engine, WriteOp } from './engine';
import { keepsDeleted } from './deletions';
import { formatRecord } from './format';
import { decodeU64Value, deletionKey, keyColl, keyDb, KeyTag, versionKeyId } from './keys';
import { keySuccessor } from './tuple';
import { isDeletion } from './txn';

const BATCH = 1000;

export async function moveDeletedDocuments(engine: Engine, log: (line: string) => void): Promise<void> {
  let start: Uint8Array = Uint8Array.of(KeyTag.Latest);
  const end = Uint8Array.of(KeyTag.Latest + 1);
  let moved = 0;
  for (;;) {
    const ops: WriteOp[] = [];
    let last: Uint8Array | undefined;
    for await (const kv of engine.range({ start, end, limit: BATCH })) {
      last = kv.key;
      // An L value is the version's ts, then the version record.
      const coll = keyColl(kv.key);
      if (!isDeletion(kv.value.subarray(8)) || keepsDeleted(coll)) continue;
      const deletion = deletionKey(keyDb(kv.key), coll, decodeU64Value(kv.value), versionKeyId(kv.key));
      ops.push({ key: new Uint8Array(kv.key), value: null }, { key: deletion, value: new Uint8Array(0) });
      moved++;
    }
    if (ops.length > 0) await engine.write(ops);
    if (last === undefined) break;
    start = keySuccessor(last);
  }
  await engine.write([formatRecord(4)]);
  if (moved > 0) log(`flora: storage format 4: ${moved} deleted documents moved apart from the live ones`);
}
