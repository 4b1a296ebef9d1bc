// `Token` (stdlib/Tokens.scala): tokens made through model/ (a token made here authenticates v4
// requests and the other way round); the create shows the secret once. v10 calls the identity
// `document` where the model (and v4) call it `instance`.

import { isExpired } from '../../model/documents';
import { allowed } from '../../model/permissions';
import { NATIVE_IDS, Ref } from '../../values/types';
import { ArraySet } from '../runtime/sets';
import type { CallCtx } from '../runtime/table';
import { p } from '../runtime/types';
import type { RtValue, Struct } from '../runtime/values';
import { DocV } from './docs';
import { txnOf } from './hooks';
import { createNative, modelParams, nativeCompanion, NativeDocV, shownFields, type NativeSpec } from './natives';
import { Failures } from '../runtime/failure';
import { typeName } from '../runtime/types';

export const TOKEN_SPEC: NativeSpec = {
  native: 'tokens',
  module: 'Token',
  docType: 'Token',
  label: 'Token',
  toModel: (_ctx, fields) => modelParams(fields, ['document', 'ttl', 'data'], { document: 'instance' }),
  display: (fields) => shownFields(fields, ['instance', 'ttl', 'data']).map(([k, v]) => [k === 'instance' ? 'document' : k, v]),
};

export const TokenModule = nativeCompanion(TOKEN_SPEC);

/** A token for `document` (credential.login): the caller needs create on tokens, as the core. */
export function createToken(ctx: CallCtx, document: DocV, ttl: RtValue | undefined): Promise<NativeDocV> {
  const fields: Struct = new Map<string, RtValue>([['document', document]]);
  if (ttl !== undefined) fields.set('ttl', ttl);
  return createNative(ctx, TOKEN_SPEC, fields);
}

/** The tokens whose identity is `doc`, in id order. */
async function byDocument(ctx: CallCtx, doc: DocV): Promise<ArraySet> {
  const tx = txnOf(ctx);
  const db = tx.scope.db;
  const out: NativeDocV[] = [];
  for await (const d of tx.txn.scan(db, NATIVE_IDS.tokens)) {
    if (isExpired(d.version, tx.snapshotTs)) continue;
    const instance = d.version.data?.get('instance');
    if (!(instance instanceof Ref) || !sameDoc(instance, doc)) continue;
    const token = new NativeDocV(TOKEN_SPEC, db, d.id);
    if (await allowed(tx, 'read', await token.target(ctx))) out.push(token);
  }
  return new ArraySet(out);
}

function sameDoc(r: Ref, doc: DocV): boolean {
  if (r.addr !== undefined) return r.addr.coll === Number(doc.collId) && r.addr.id === doc.id;
  return r.collection?.id === doc.collName && r.id === String(doc.id);
}

TokenModule.table.method('byDocument', [p('document')], (ctx, _s, [d]: RtValue[]) => {
  if (!(d instanceof DocV)) throw Failures.invalidArgumentType('document', 'Document', typeName(d), ctx.trace);
  return byDocument(ctx, d);
});
