// The FSL files last pushed to a database (the core's SchemaSource documents), kept as its
// unversioned metadata: the names and texts `fauna schema push` sent, so that `pull` answers them
// as they were written. What the files mean lives in the schema documents themselves; these are
// only their source text.

import type { TxnContext } from './context';

export interface SourceText {
  readonly name: string;
  readonly text: string;
}

function sourcesKey(db: bigint): Uint8Array {
  const b = Buffer.alloc(8 + 8);
  b.write('fslsrcs:', 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, db), 8);
  return b;
}

/** The files last pushed to database `db`; none when nothing was pushed. */
export async function readSchemaSources(ctx: TxnContext, db: bigint): Promise<SourceText[]> {
  const raw = await ctx.txn.getMeta(sourcesKey(db));
  if (raw === undefined) return [];
  const parsed = JSON.parse(Buffer.from(raw).toString('utf8')) as [string, string][];
  return parsed.map(([name, text]) => ({ name, text }));
}

/** Replaces the files of database `db` (in the transaction that applies them). */
export function writeSchemaSources(ctx: TxnContext, db: bigint, files: ReadonlyArray<SourceText>): void {
  const value = files.length === 0 ? null : Buffer.from(JSON.stringify(files.map((f) => [f.name, f.text])), 'utf8');
  ctx.txn.putMeta(sourcesKey(db), value);
}
