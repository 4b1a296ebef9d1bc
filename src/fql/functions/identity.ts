// Auth functions (fql-v4.md §3.7): Login, Logout, Identify, CurrentIdentity, HasCurrentIdentity,
// CurrentToken, HasCurrentToken. Tokens and credentials live in the identity's database.

import { define } from '../registry';
import { argPos, asBoolean, asObj, asString, evalArg, mismatch } from '../args';
import { firstOfSet } from '../sets';
import type { CallExpr } from '../../wire/expr';
import type { Env } from '../env';
import type { EvalContext } from '../context';
import type { DocKey, Version } from '../../storage/types';
import { QueryError, type Position } from '../../values/errors';
import { Ref, SetV, Time, TxnTime, type Obj, type Value } from '../../values/types';
import { NATIVE_IDS } from '../../model/catalog';
import { checkPassword } from '../../model/credentialsType';
import { Failures } from '../../model/data';
import { dbRefOf, readLive, refOf, render, stateOf } from '../../model/documents';
import { maintainNativeIndexes } from '../../model/indexMaintenance';
import { addressed } from '../../model/addresses';
import { resolveRef, type Target } from '../../model/resolve';
import { newToken, tokenType } from '../../model/tokenType';

interface Identity {
  key: DocKey;
  /** The identity's ref relative to its own database (what a token stores as `instance`). */
  ref: Ref;
  dbRef: Ref | undefined;
}

/** The identity a Login/Identify names: a document ref, or the first element of a set. */
async function identityOf(ctx: EvalContext, call: CallExpr, key: string, env: Env): Promise<Identity | undefined> {
  const pos = argPos(call, key);
  let v: Value | undefined = await evalArg(call, key, env, ctx);
  if (v instanceof SetV) v = await firstOfSet(ctx, v, pos);
  else if (!(v instanceof Ref)) mismatch('Ref or Set', v, pos);
  if (!(v instanceof Ref)) return undefined;
  const t = await resolveRef(ctx, v, pos);
  if (t.kind !== 'doc') return undefined;
  const doc = await readLive(ctx, t);
  if (!doc) return undefined;
  return { key: doc.key, ref: refOf(t, undefined), dbRef: dbRefOf(v) };
}

/**
 * Whether `password` is the identity's: a guess, taken from the identity's and the client's
 * allowance of failed logins first (429 when either has none left, before any BCrypt runs).
 */
async function passwordMatches(ctx: EvalContext, identity: Identity | undefined, password: string): Promise<boolean> {
  const { key } = identity ?? {};
  const attempt = ctx.loginThrottle?.attempt(key && `${key.db}/${key.coll}/${key.id}`, ctx.clientAddressKey);
  const ok = identity !== undefined && (await checkPassword(ctx, identity.key, password));
  if (ok) attempt?.succeeded();
  return ok;
}

function authenticationFailed(pos: Position): QueryError {
  return new QueryError('authentication failed', 'The document was not found or provided password was incorrect.', pos, 400);
}

define('login', async (call, env, ctx) => {
  ctx.assertWritable(call.pos);
  const identity = await identityOf(ctx, call, 'login', env);
  const params = asObj(await evalArg(call, 'params', env, ctx), argPos(call, 'params'));
  const f = new Failures();
  const data = params.get('data');
  if (data !== undefined && data !== null && !(data instanceof Map)) f.invalidType(['data'], data, 'Map');
  const ttl = params.get('ttl');
  if (ttl !== undefined && ttl !== null && !(ttl instanceof Time)) f.invalidType(['ttl'], ttl, 'Time');
  f.throwIfAny(argPos(call, 'params'));
  const password = params.get('password');
  if (typeof password !== 'string' || !(await passwordMatches(ctx, identity, password)) || !identity)
    throw authenticationFailed(call.pos);
  // Created with server privileges: the caller needs no write permission on tokens.
  const db = identity.key.db;
  const created = await newToken(ctx, db, identity.ref, params);
  created.fields = await addressed(ctx, created.fields, call.pos); // `data` may hold refs
  const key: DocKey = { db, coll: NATIVE_IDS.tokens, id: created.id };
  ctx.txn.putVersion(key, 'create', created.fields);
  await maintainNativeIndexes(ctx, db, 'tokens', created.id, null, { ts: ctx.snapshotTs, fields: created.fields }, call.pos);
  const t: Target = { kind: 'secretDoc', db, native: 'tokens', id: created.id, self: false, scoped: !!identity.dbRef };
  return render(t, identity.dbRef, { key, version: { ts: TxnTime.instance, action: 'create', data: created.fields } }, created.once);
});

define('logout', async (call, env, ctx) => {
  const all = asBoolean(await evalArg(call, 'logout', env, ctx), argPos(call, 'logout'));
  const token = ctx.scope.token;
  const identity = ctx.scope.identity;
  if (!token || !identity) return false;
  ctx.assertWritable(call.pos);
  const coll = NATIVE_IDS.tokens;
  if (!all) {
    const v = await ctx.txn.getVersion({ db: token.db, coll, id: token.id });
    if (v && v.action !== 'delete') await deleteToken(ctx, token.db, token.id, v, call.pos);
  } else {
    const mine: { id: bigint; version: Version }[] = [];
    for await (const doc of ctx.txn.scan(token.db, coll)) {
      const instance = doc.version.data?.get('instance');
      if (instance instanceof Ref && instance.equals(identity)) mine.push({ id: doc.id, version: doc.version });
    }
    for (const { id, version } of mine) await deleteToken(ctx, token.db, id, version, call.pos);
  }
  ctx.secretsChanged = true;
  return true;
});

async function deleteToken(ctx: EvalContext, db: bigint, id: bigint, old: Version, pos: Position): Promise<void> {
  ctx.txn.putVersion({ db, coll: NATIVE_IDS.tokens, id }, 'delete', null);
  await maintainNativeIndexes(ctx, db, 'tokens', id, stateOf(ctx, { version: old }), null, pos);
  tokenType.onDelete!(ctx, db, id);
}

define('identify', async (call, env, ctx) => {
  const identity = await identityOf(ctx, call, 'identify', env);
  const password = asString(await evalArg(call, 'password', env, ctx), argPos(call, 'password'));
  return passwordMatches(ctx, identity, password);
});

define('current_identity', async (call, _env, ctx) => {
  const identity = ctx.scope.identity ?? ctx.scope.jwt?.sub; // a JWT's identity is its subject
  if (identity === undefined) throw new QueryError('missing identity', 'Authentication does not contain an identity', call.pos);
  return identity;
});

define('has_current_identity', async (_call, _env, ctx) => (ctx.scope.identity ?? ctx.scope.jwt?.sub) !== undefined);

/** The token (or key in the query's own database) the request authenticated with. */
function currentToken(ctx: EvalContext): Ref | Obj | undefined {
  const { token, key, db, jwt } = ctx.scope;
  if (jwt) return jwt.payload; // a JWT's token is its payload
  if (token) return new Ref(String(token.id), Ref.native('tokens'));
  if (key && key.db === db) return new Ref(String(key.id), Ref.native('keys'));
  return undefined;
}

define('current_token', async (call, _env, ctx) => {
  const ref = currentToken(ctx);
  if (!ref) throw new QueryError('invalid token', 'Token metadata is not accessible.', call.pos);
  return ref;
});

define('has_current_token', async (_call, _env, ctx) => currentToken(ctx) !== undefined);
