// A database's staged schema (the core's SchemaStatus with a pinned active version): the FSL files
// of a staged push, and the indexes built for it in the background while the active schema keeps
// serving. Kept as the database's unversioned metadata, in the store, so that every process of a
// tier sees it and a restart keeps it. Nothing here changes what queries see: the staged files
// are applied, in one transaction, only when committed.

import type { TxnContext } from './context';
import type { SourceText } from './schemaSources';

/** An index the staged schema adds to a collection the active schema has, built ahead of commit. */
export interface StagedIndex {
  /** The collection (as the active schema names it). */
  readonly collection: string;
  /** The index as the staged files name it (`index byName` in the pending summary). */
  readonly name: string;
  /** The backing index's identity (backing.ts backingKey): the one commit adopts. */
  readonly key: string;
  /** Name of the hidden index document being built. */
  readonly index: string;
}

export interface StagedSchema {
  readonly files: SourceText[];
  readonly indexes: StagedIndex[];
  /** Items the staged files rename (the schema API's per-item routes): `kind:newName` → the active name. */
  readonly renames?: [string, string][];
}

function stagedKey(db: bigint): Uint8Array {
  const b = Buffer.alloc(8 + 8);
  b.write('fslstag:', 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, db), 8);
  return b;
}

/** The staged schema of database `db`; undefined when nothing is staged. */
export async function readStagedSchema(ctx: TxnContext, db: bigint): Promise<StagedSchema | undefined> {
  const raw = await ctx.txn.getMeta(stagedKey(db));
  if (raw === undefined) return undefined;
  return JSON.parse(Buffer.from(raw).toString('utf8')) as StagedSchema;
}

/** Stages `staged` for database `db`, or (null) leaves nothing staged. */
export function writeStagedSchema(ctx: TxnContext, db: bigint, staged: StagedSchema | null): void {
  ctx.txn.putMeta(stagedKey(db), staged === null ? null : Buffer.from(JSON.stringify(staged), 'utf8'));
}
