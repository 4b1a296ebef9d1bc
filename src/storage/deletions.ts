// Deletion records (D, format 4; keys.ts): which collections leave them, and the ids a scan at an
// older time must look up again because they were deleted after it.

import type { KV, RangeOptions } from './engine';
import { collectionPrefix, deletionKey, deletionKeyId, inKeyspace, KeyTag } from './keys';
import { prefixEnd } from './tuple';
import { SCHEMA_NATIVES, nativeById } from '../values/types';

const U64_LIMIT = 1n << 64n;

/** Schema collections keep a deleted document's L record (the catalog reads their deletions). */
export function keepsDeleted(coll: number): boolean {
  const native = nativeById(coll);
  return native !== undefined && SCHEMA_NATIVES.has(native);
}

/** The D records of `coll` after `at`; undefined when none can be (nothing is after the last time). */
export function deletionsAfter(db: bigint, coll: number, at: bigint): RangeOptions | undefined {
  if (at + 1n >= U64_LIMIT) return undefined;
  return { start: deletionKey(db, coll, at + 1n), end: prefixEnd(deletionsOf(db, coll)) };
}

/** The prefix of every D record of `coll`. */
function deletionsOf(db: bigint, coll: number): Uint8Array {
  return inKeyspace(KeyTag.Deletion, collectionPrefix(db, coll));
}

/** The end of the D records of `coll` at or before `ts`. */
export function deletionsThrough(db: bigint, coll: number, ts: bigint): RangeOptions {
  return { start: deletionsOf(db, coll), end: deletionKey(db, coll, ts + 1n) };
}

/** The ids in [from, to) of D records, once each, in a scan's order. */
export class DeletedIds {
  private readonly ids = new Set<bigint>();
  constructor(
    private readonly from: bigint,
    private readonly to: bigint,
    private readonly reverse: boolean,
  ) {}

  add(kv: KV): void {
    const id = deletionKeyId(kv.key);
    if (id >= this.from && id < this.to) this.ids.add(id);
  }

  sorted(): bigint[] {
    const out = [...this.ids];
    return out.sort(this.reverse ? (a, b) => (a > b ? -1 : a < b ? 1 : 0) : (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
