// Format 3: a removed index entry leaves the present entries (I) for a removal record (X) ordered
// by time (keys.ts), so that a page walks only what is present. Format 2 kept removed entries in I
// for good; this moves them, a batch at a time (moveRecords.ts: resumable).

import type { Engine } from './engine';
import { decodeU64Value, indexKeyEntry, indexRemovalKey, keyColl, keyDb, KeyTag } from './keys';
import { moveRecords } from './moveRecords';

/** The action byte of a removed entry's I record in format 2. */
const REMOVED = 1;

export async function moveRemovedEntries(engine: Engine, log: (line: string) => void): Promise<void> {
  const moved = await moveRecords(engine, KeyTag.IndexEntry, 3, (kv) => {
    if (kv.value[8] !== REMOVED) return undefined;
    const removal = indexRemovalKey(keyDb(kv.key), keyColl(kv.key), decodeU64Value(kv.value), indexKeyEntry(kv.key));
    return [
      { key: new Uint8Array(kv.key), value: null },
      { key: removal, value: new Uint8Array(0) },
    ];
  });
  if (moved > 0) log(`flora: storage format 3: ${moved} removed index entries moved apart from the present ones`);
}
