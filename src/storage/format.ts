// The storage format version, kept in the store itself (S|format), so a data directory written by
// another release is migrated or refused, never read wrongly.
//
//   1  refs stored by name (releases before references by identity; no version record)
//   2  refs stored by address: database scope, collection id, document id (model/refNames.ts)
//   3  removed index entries kept apart from the present ones (X records, storage/keys.ts)
//   4  deleted documents kept apart from the live ones (D records, storage/keys.ts)

import type { Engine, WriteOp } from './engine';
import { decodeU64Value, encodeU64Value, systemKey } from './keys';

export const FORMAT_VERSION = 4;
export const FORMAT_KEY = systemKey('format');

export class FormatError extends Error {}

/**
 * Present while `flora restore` fills a store (written first, removed last): a store that has it
 * holds part of a backup, and is never served.
 */
export const RESTORE_MARKER = systemKey('restoring');

/** Refuses a store whose restore did not finish. */
export async function checkRestored(engine: Engine): Promise<void> {
  if (await engine.get(RESTORE_MARKER))
    throw new FormatError(
      'this store holds an unfinished restore (flora restore was interrupted): it is not served. ' +
        'Run flora restore into it again with --force, or restore into a new data directory',
    );
}

/** The format of the store's data: undefined for an empty store (nothing written yet). */
export async function storedFormat(engine: Engine): Promise<number | undefined> {
  const raw = await engine.get(FORMAT_KEY);
  if (raw) return Number(decodeU64Value(raw));
  for await (const _ of engine.range({ start: Uint8Array.of(0), end: Uint8Array.of(0xff), limit: 1 })) return 1;
  return undefined;
}

export function formatRecord(version = FORMAT_VERSION): WriteOp {
  return { key: FORMAT_KEY, value: encodeU64Value(BigInt(version)) };
}

/** Refuses a format this release does not know (written by a newer one). */
export function checkKnown(version: number): void {
  if (version > FORMAT_VERSION)
    throw new FormatError(
      `the data directory uses storage format ${version}, newer than this release knows (${FORMAT_VERSION}): ` +
        'run the Flora release that wrote it, or a newer one; nothing was changed',
    );
}

