// The storage-backed standard library plugged into the v10 executor (fql10/store/): collections,
// native collections and user functions as globals, documents as arguments, the caller's identity,
// and cursors any process of a tier can page on (a cursor holds how its set was built, not a handle
// into one process's memory).

import { schemaOf } from '../../model/resolve';
import type { TxnContext } from '../../model/context';
import type { Ref } from '../../values/types';
import type { ArgResolver, ModuleKind } from '../../wire/v10/args';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';
import { CollectionDefV } from '../store/collectionDocs';
import { storeCursors } from '../store/cursors';
import { DocV } from '../store/docs';
import { makeEventSource } from '../store/eventSources';
import { txnOf } from '../store/hooks';
import { nativeSpecOf, NativeDocV } from '../store/natives';
import { isEnvProtected, isEnvTypechecked, scopeIdentity, scopeToken } from '../store/query';
import { resolveStoreGlobal, STORE_GLOBALS } from '../store/resolver';
import type { StoragePlugs } from './executor';
import { STDLIB_ARG_RESOLVER } from './inputs';

export function storeLanguage(): StoragePlugs {
  return { cursors: storeCursors, globals: STORE_GLOBALS, resolveGlobal: resolveStoreGlobal, resolveDocument, argResolver, identity: scopeIdentity, token: scopeToken, isEnvTypechecked, isEnvProtected, eventSource: makeEventSource };
}

/** The native collections' modules, as arguments name them (`{"@mod": "Key"}`) and what they hold. */
const NATIVE_KINDS = new Map<string, ModuleKind>([
  ['Collection', { kind: 'schema', native: 'collections' }],
  ['Function', { kind: 'schema', native: 'functions' }],
  ['Role', { kind: 'schema', native: 'roles' }],
  ['AccessProvider', { kind: 'schema', native: 'access_providers' }],
  ['Database', { kind: 'schema', native: 'databases' }],
  ['Key', { kind: 'keyed', native: 'keys' }],
  ['Token', { kind: 'keyed', native: 'tokens' }],
  ['Credential', { kind: 'keyed', native: 'credentials' }],
  ['Credentials', { kind: 'keyed', native: 'credentials' }],
]);

const MODULE_OF_NATIVE = new Map<string, string>([
  ['functions', 'Function'],
  ['roles', 'Role'],
  ['access_providers', 'AccessProvider'],
  ['databases', 'Database'],
  ['keys', 'Key'],
  ['tokens', 'Token'],
  ['credentials', 'Credential'],
]);

/** What argument names mean in the caller's database: the standard library's modules, `Collection`,
 *  and each user collection by name or alias. */
async function argResolver(tx: TxnContext): Promise<ArgResolver> {
  const schema = await schemaOf(tx, tx.scope.db);
  return {
    module(name: string): ModuleKind | undefined {
      const native = NATIVE_KINDS.get(name);
      if (native !== undefined) return native;
      const entry = schema.get('collections', name) ?? schema.all('collections').find((e) => e.fields.get('alias') === name);
      return entry !== undefined ? { kind: 'collection', name: entry.name } : STDLIB_ARG_RESOLVER.module(name);
    },
    hasSchemaDoc: (native, name) => schema.get(native, name) !== undefined,
  };
}

/** A decoded `@doc`/`@ref`: a user document (read when used; a missing one is a null document with
 *  its cause), a collection's definition, or a native document (a function, role… by name; a key,
 *  token or credential by id). The ArgResolver admitted only names that exist. */
async function resolveDocument(ctx: CallCtx, ref: Ref): Promise<RtValue> {
  const tx = txnOf(ctx);
  const db = tx.scope.db;
  if (ref.nativeParent === 'collections') return new CollectionDefV(db, ref.id);
  const spec = ref.nativeParent === undefined ? undefined : nativeSpecOf(MODULE_OF_NATIVE.get(ref.nativeParent) ?? '');
  if (spec !== undefined) return new NativeDocV(spec, db, spec.native === 'keys' || spec.native === 'tokens' || spec.native === 'credentials' ? BigInt(ref.id) : ref.id);
  const coll = ref.collection?.id;
  const entry = coll === undefined ? undefined : (await schemaOf(tx, db)).get('collections', coll);
  if (entry === undefined || !ref.isUserDocument) throw new Error(`the reference argument ${ref.toString()} was admitted but names no user collection`);
  return new DocV(db, entry.id, entry.name, BigInt(ref.id));
}
