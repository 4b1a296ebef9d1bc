// `Credential` / `Credentials` (stdlib/Credential.scala): an identity document's password, kept
// by model/ as a BCrypt hash (v4's `credentials` on a document writes the same). `login` checks
// the password (one BCrypt run, through the same failed-login throttle as v4's Login) and makes
// a token; `verify` only checks it.

import { credentialsOf, identityKeyIn, checkPassword } from '../../model/credentialsType';
import { NATIVE_IDS, Ref } from '../../values/types';
import { QueryRuntimeFailure, Failures } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { p, tt, typeName } from '../runtime/types';
import type { RtValue, Time } from '../runtime/values';
import { DocV } from './docs';
import { txnOf } from './hooks';
import { checkNativeRead, modelParams, nativeCompanion, nativeDocTable, NativeDocV, shownFields, type NativeSpec } from './natives';
import { createToken } from './tokens';
import { toRuntime } from './convert';

export const CREDENTIAL_SPEC: NativeSpec = {
  native: 'credentials',
  module: 'Credential',
  docType: 'Credential',
  label: 'Credential',
  toModel: (_ctx, fields) => modelParams(fields, ['document', 'password'], { document: 'instance' }),
  display: (fields) => shownFields(fields, ['instance']).map(([, v]) => ['document', v]),
};

export const CredentialModule = nativeCompanion(CREDENTIAL_SPEC);

/** `Credential.byDocument(doc)`: its credential, or a reference to none (the core's id -1). */
CredentialModule.table.method('byDocument', [p('document')], async (ctx, _s, [d]: RtValue[]) => {
  const tx = txnOf(ctx);
  const db = tx.scope.db;
  if (d instanceof DocV) {
    const key = await identityKeyIn(tx, db, d.storedRef());
    const cred = key && (await credentialsOf(tx, key));
    if (cred) return new NativeDocV(CREDENTIAL_SPEC, db, cred.id);
    return new NativeDocV(CREDENTIAL_SPEC, db, -1n);
  }
  throw Failures.invalidArgumentType('document', 'Document', typeName(d), ctx.trace);
});

/** The identity of a credential, and whether `password` is its own (throttled as v4's Login). */
async function check(ctx: CallCtx, self: NativeDocV, password: string): Promise<{ ok: boolean; document: DocV }> {
  await checkNativeRead(ctx, self);
  const tx = txnOf(ctx);
  const v = await tx.txn.getVersion({ db: self.db, coll: NATIVE_IDS.credentials, id: self.key as bigint });
  const instance = v && v.action !== 'delete' ? v.data?.get('instance') : undefined;
  const document = instance instanceof Ref ? toRuntime(instance) : undefined;
  if (!(document instanceof DocV)) throw self.notFound(ctx.trace);
  const key = await identityKeyIn(tx, self.db, document.storedRef());
  const attempt = tx.loginThrottle?.attempt(key && `${key.db}/${key.coll}/${key.id}`, tx.clientAddressKey);
  const ok = key !== undefined && (await checkPassword(tx, key, password));
  if (ok) attempt?.succeeded();
  return { ok, document };
}

async function login(ctx: CallCtx, self: NativeDocV, password: string, ttl?: Time): Promise<RtValue> {
  const { ok, document } = await check(ctx, self, password);
  if (!ok) throw new QueryRuntimeFailure('invalid_secret', 'Provided secret did not match.', ctx.trace);
  return createToken(ctx, document, ttl);
}

const table = nativeDocTable(CREDENTIAL_SPEC);
table.method('verify', [p('secret', tt.Str)], async (ctx, self: NativeDocV, [s]: string[]) => (await check(ctx, self, s)).ok);
table.method('login', [p('secret', tt.Str)], (ctx, self: NativeDocV, [s]: string[]) => login(ctx, self, s));
table.method('login', [p('secret', tt.Str), p('ttl', tt.Time)], (ctx, self: NativeDocV, [s, ttl]: [string, Time]) => login(ctx, self, s, ttl));
