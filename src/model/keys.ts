// KeyFromSecret: the key document a secret belongs to, if the caller may see it.

import { looksLikeJwt } from './jwt';
import type { TxnContext } from './context';
import { QueryError, type Position } from '../values/errors';
import type { Obj } from '../values/types';
import { NATIVE_IDS } from './catalog';
import { dbRefFromCaller } from './databases';
import { render } from './documents';
import { allowed } from './permissions';
import { decodeSecret, verifySecret } from './secrets';
import { decodeSecretLocation, secretLocationKey, secretMatches } from './secretLocation';
import type { Target } from './resolve';

export async function keyFromSecret(ctx: TxnContext, secret: string, pos: Position): Promise<Obj> {
  const notFound = () => new QueryError('instance not found', `No key found for secret ${secret}.`, pos, 400);
  if (looksLikeJwt(secret)) return jwtDatabase(ctx, secret, notFound);
  const head = secret.split(':')[0];
  const decoded = decodeSecret(head);
  if (!decoded || decoded.kind !== 'key') throw notFound();
  const raw = await ctx.txn.getMeta(secretLocationKey('key', decoded.id));
  if (!raw) throw notFound();
  const loc = decodeSecretLocation(raw);
  const db = loc.db;
  const key = { db, coll: NATIVE_IDS.keys, id: decoded.id };
  const version = await ctx.txn.getVersion(key);
  const hash = version?.data?.get('hashed_secret');
  if (!version || version.action === 'delete' || typeof hash !== 'string') throw notFound();
  const dbRef = await dbRefFromCaller(ctx, db);
  if (dbRef === null) throw notFound();
  const t: Target = { kind: 'secretDoc', db, native: 'keys', id: decoded.id, self: false, scoped: dbRef !== undefined };
  if (!(await allowed(ctx, 'read', t))) throw notFound();
  // BCrypt (a key written before checks) is charged to the query; its success stores the check.
  const bcrypt = (h: string) => verifySecret(decoded, head, h, ctx.budget);
  if (!(await secretMatches(loc, decoded, () => Promise.resolve(hash), bcrypt, ctx.learnCheck))) throw notFound();
  return render(t, dbRef, { key, version });
}

/**
 * A JWT names no key document: KeyFromSecret answers with the database it authenticates into,
 * `{database: ref}` relative to the caller (no `database` field for the caller's own database, as
 * for a key document).
 */
async function jwtDatabase(ctx: TxnContext, jwt: string, notFound: () => QueryError): Promise<Obj> {
  const scope = await ctx.authenticate(jwt);
  if (!scope) throw notFound();
  const dbRef = await dbRefFromCaller(ctx, scope.db);
  if (dbRef === null) throw notFound();
  return new Map(dbRef ? [['database', dbRef]] : []);
}
