// The shape of a format upgrade that moves records of one keyspace elsewhere: walk the keyspace a
// batch at a time, write each batch's moves in one write, stamp the new format last. A crash
// between batches leaves the rest for the next start (a moved record is not where it was).

import type { Engine, KV, WriteOp } from './engine';
import { formatRecord } from './format';
import { keySuccessor } from './tuple';

const BATCH = 1000;

/** Moves what `move` returns ops for (undefined: the record stays) in keyspace `tag`; the count moved. */
export async function moveRecords(engine: Engine, tag: number, format: number, move: (kv: KV) => WriteOp[] | undefined): Promise<number> {
  let start: Uint8Array = Uint8Array.of(tag);
  const end = Uint8Array.of(tag + 1);
  let moved = 0;
  for (;;) {
    const ops: WriteOp[] = [];
    let last: Uint8Array | undefined;
    for await (const kv of engine.range({ start, end, limit: BATCH })) {
      last = kv.key;
      const these = move(kv);
      if (!these) continue;
      ops.push(...these);
      moved++;
    }
    if (ops.length > 0) await engine.write(ops);
    if (last === undefined) break;
    start = keySuccessor(last);
  }
  await engine.write([formatRecord(format)]);
  return moved;
}
