// Format 3: a removed index entry leaves the present entries (I) for a removal record (X) ordered
// by time (keys.ts), so that a page walks only what is present. Format 2 kept removed entries in I
// for good; this moves them, a batch at a time. A crash between batches leaves the rest for the
// next start: the format record is written last, and a moved entry is not in I any more.

import type { Engine, WriteOp } from './engine';
import { formatRecord } from './format';
import { decodeU64Value, indexKeyEntry, indexRemovalKey, keyColl, keyDb, KeyTag } from './keys';
import { keySuccessor } from './tuple';

const BATCH = 1000;
/** The action byte of a removed entry's I record in format 2. */
const REMOVED = 1;

export async function moveRemovedEntries(engine: Engine, log: (line: string) => void): Promise<void> {
  let start: Uint8Array = Uint8Array.of(KeyTag.IndexEntry);
  const end = Uint8Array.of(KeyTag.IndexEntry + 1);
  let moved = 0;
  for (;;) {
    const ops: WriteOp[] = [];
    let last: Uint8Array | undefined;
    for await (const kv of engine.range({ start, end, limit: BATCH })) {
      last = kv.key;
      if (kv.value[8] !== REMOVED) continue;
      const removal = indexRemovalKey(keyDb(kv.key), keyColl(kv.key), decodeU64Value(kv.value), indexKeyEntry(kv.key));
      ops.push({ key: new Uint8Array(kv.key), value: null }, { key: removal, value: new Uint8Array(0) });
      moved++;
    }
    if (ops.length > 0) await engine.write(ops);
    if (last === undefined) break;
    start = keySuccessor(last);
  }
  await engine.write([formatRecord(3)]);
  if (moved > 0) log(`flora: storage format 3: ${moved} removed index entries moved apart from the present ones`);
}
