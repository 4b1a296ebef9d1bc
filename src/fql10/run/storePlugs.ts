// The storage-backed standard library plugged into the v10 executor (fql10/store/): collections and
// their documents as globals and as arguments, and cursors any process of a tier can page on (a cursor
// holds how its set was built, not a handle into one process's memory).

import { schemaOf } from '../../model/resolve';
import type { TxnContext } from '../../model/context';
import type { Ref } from '../../values/types';
import type { ArgResolver, ModuleKind } from '../../wire/v10/args';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import { CollectionDefV } from '../store/collectionDocs';
import { storeCursors } from '../store/cursors';
import { DocV } from '../store/docs';
import { txnOf } from '../store/hooks';
import { resolveStoreGlobal } from '../store/resolver';
import type { StoragePlugs } from './executor';
import { STDLIB_ARG_RESOLVER } from './inputs';

export function storeLanguage(): StoragePlugs {
  return { cursors: storeCursors, resolveGlobal: resolveStoreGlobal, resolveDocument, argResolver };
}

/** What argument names mean in the caller's database: the standard library's modules, `Collection`,
 *  and each user collection by name or alias. */
async function argResolver(tx: TxnContext): Promise<ArgResolver> {
  const schema = await schemaOf(tx, tx.scope.db);
  return {
    module(name: string): ModuleKind | undefined {
      if (name === 'Collection') return { kind: 'schema', native: 'collections' };
      const entry = schema.get('collections', name) ?? schema.all('collections').find((e) => e.fields.get('alias') === name);
      return entry !== undefined ? { kind: 'collection', name: entry.name } : STDLIB_ARG_RESOLVER.module(name);
    },
    hasSchemaDoc: (native, name) => schema.get(native, name) !== undefined,
  };
}

/** A decoded `@doc`/`@ref`: a user document (read when used; a missing one is a null document with
 *  its cause) or a collection's definition. The ArgResolver admitted only names that exist. */
async function resolveDocument(ctx: CallCtx, ref: Ref): Promise<RtValue> {
  const tx = txnOf(ctx);
  const db = tx.scope.db;
  if (ref.nativeParent === 'collections') return new CollectionDefV(db, ref.id);
  const coll = ref.collection?.id;
  const entry = coll === undefined ? undefined : (await schemaOf(tx, db)).get('collections', coll);
  if (entry === undefined || !ref.isUserDocument) throw new Error(`the reference argument ${ref.toString()} was admitted but names no user collection`);
  return new DocV(db, entry.id, entry.name, BigInt(ref.id));
}
