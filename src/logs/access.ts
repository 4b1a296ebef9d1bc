// Who may export which logs (DECISIONS #7): the bearer is the root secret or an admin key, and sees
// the logs of its database and of the databases below it. Databases are identified by scope id, so
// that a renamed or moved database keeps its logs, and a new database that reuses a deleted one's
// name does not see them.

import type { EvalContext } from '../fql/context';
import type { QueryService } from '../fql/api';
import { QueryTimeout } from '../model/budget';
import { StorageUnavailable } from '../storage/engine';
import { ProtocolError } from '../values/errors';

/** An error of the log-export API: `{"message": …}` with this status. */
export class LogApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export interface Requester {
  /** Scope id of the bearer's database (0 = the top database). */
  db: bigint;
  /** Its names from the top. */
  path: readonly string[];
  /** Authenticated with the root secret (perhaps scoped to a database below the top). */
  root: boolean;
}

/** The 401 of this API: no bearer at all, or one that does not authenticate. */
export function unauthorizedBearer(missing: boolean): LogApiError {
  const text = missing ? 'Unauthorized: an Authorization: Bearer <secret> header is required.' : 'Unauthorized: the secret is invalid.';
  return new LogApiError(401, text, { 'www-authenticate': 'Bearer realm="Unauthorized"' });
}

/** The 503 of this API: the store (or the log in PostgreSQL) cannot be reached right now. */
export function storeUnavailable(): LogApiError {
  return new LogApiError(503, 'The log store is unavailable right now; try again shortly.', { 'retry-after': '1' });
}

/**
 * Authenticates `authorization` and runs `fn` for an admin bearer in one read-only transaction, whose
 * snapshot includes every commit of every process of the tier that completed before the call (so a
 * request made through one process is seen when polled through another).
 * Missing or invalid credentials → 401; anything but the root secret or an admin key → 403.
 */
export async function asAdmin<T>(
  service: QueryService,
  authorization: string | undefined,
  fn: (ctx: EvalContext, requester: Requester) => Promise<T>,
  /** The 403's message (another admin API words it its own way). */
  denied = 'Permission denied: exporting logs needs the root secret or an admin key.',
): Promise<{ result: T; requester: Requester }> {
  if (authorization === undefined || authorization.trim() === '') throw unauthorizedBearer(true);
  let requester: Requester | undefined;
  try {
    const run = await service.transact(
      authorization,
      async (ctx) => {
        const s = ctx.scope;
        if (s.role !== 'admin' || s.roles || s.token || s.jwt) {
          throw new LogApiError(403, denied);
        }
        requester = { db: s.db, path: [...s.path], root: s.root };
        return fn(ctx, requester);
      },
      { readOnly: true, timeoutMs: 30_000, ...(service.tier?.store.shared ? { lastSeenTxn: service.now() } : {}) },
    );
    return { result: run.result, requester: requester! };
  } catch (err) {
    if (err instanceof LogApiError) throw err;
    if (err instanceof ProtocolError && err.status === 401) throw unauthorizedBearer(false);
    if (err instanceof QueryTimeout) throw new LogApiError(503, 'Timed out.');
    if (err instanceof StorageUnavailable) throw storeUnavailable();
    throw err;
  }
}

/**
 * Scope ids of the databases named by `names` from the top (the first is the top database, 0), or
 * undefined when one does not exist.
 */
export async function resolvePath(ctx: EvalContext, names: readonly string[]): Promise<bigint[] | undefined> {
  const chain = [0n];
  let db = 0n;
  for (const name of names) {
    const entry = (await ctx.catalog.schema(ctx.txn, db, false)).get('databases', name);
    if (!entry) return undefined;
    db = entry.id;
    chain.push(db);
  }
  return chain;
}

/** Scope ids of `db` and every database below it. */
export async function subtreeOf(ctx: EvalContext, db: bigint): Promise<Set<bigint>> {
  const out = new Set<bigint>([db]);
  const todo = [db];
  while (todo.length) {
    const current = todo.pop()!;
    for (const child of (await ctx.catalog.schema(ctx.txn, current, false)).all('databases')) {
      if (!out.has(child.id)) {
        out.add(child.id);
        todo.push(child.id);
      }
    }
  }
  return out;
}
