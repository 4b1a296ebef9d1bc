// A query may write a collection's definition or its documents, not both (WriteBroker
// .checkCollectionDocWrite): the first write to a collection decides which kind it may have.

import type { TxnContext } from '../../model/context';
import { schemaOf } from '../../model/resolve';
import { QueryRuntimeFailure } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { txnOf } from './hooks';

type Kind = 'collection' | 'document';

/** Per transaction: `${db}:${collection id}` → the kind of write it had. */
const written = new WeakMap<TxnContext, Map<string, Kind>>();

/** Records a write of `kind` to collection `coll` of `db`; refuses the other kind after one. */
export function noteCollectionWrite(ctx: CallCtx, db: bigint, coll: bigint, kind: Kind): void {
  const tx = txnOf(ctx);
  let seen = written.get(tx);
  if (seen === undefined) written.set(tx, (seen = new Map()));
  const key = `${db}:${coll}`;
  const had = seen.get(key);
  if (had === undefined) seen.set(key, kind);
  else if (had !== kind) throw new QueryRuntimeFailure('invalid_write', 'Cannot modify a document and its collection in the same query.', ctx.trace);
}

/** The id of collection `name` of `db` in this transaction's schema, if there is one. */
export async function collectionIdOf(ctx: CallCtx, db: bigint, name: string): Promise<bigint | undefined> {
  return (await schemaOf(txnOf(ctx), db)).get('collections', name)?.id;
}
