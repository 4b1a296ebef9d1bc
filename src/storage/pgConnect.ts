// What every user of PostgreSQL in Flora does alike (the store's engine, the query log): a pool that
// survives broken connections, DDL that tolerates processes starting together, and which errors
// mean "run it again".

import { Pool } from 'pg';
import { StorageUnavailable } from './engine';

/** A serialization failure or deadlock: the transaction did nothing and may simply run again. */
export function retryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * A pool on `url`. A connection that breaks (PostgreSQL restarts, the network drops) must not crash
 * the process: the statement on it fails, and the pool connects anew for the next one. Idle
 * connections report through the pool, checked-out ones through themselves.
 */
export function openPool(url: string, max: number, idleTimeoutMillis?: number): Pool {
  const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000, ...(idleTimeoutMillis ? { idleTimeoutMillis } : {}) });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Runs `ddl` (CREATE … IF NOT EXISTS statements). Processes starting together on an empty database
 * may race, and there is no advisory lock to take turns with (the PostgreSQL-protocol databases
 * without one must work too): the loser of a concurrent CREATE gets a duplicate-object or
 * serialization error, and looks again.
 */
export async function createSchema(pool: Pool, ddl: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query(ddl);
      return;
    } catch (err) {
      // 23505 unique_violation (a catalog row), 42P07 duplicate_table, 42710 duplicate_object (the
      // table's row type): what a concurrent CREATE … IF NOT EXISTS can still fail with.
      const code = (err as { code?: unknown }).code;
      if (attempt >= 5 || (code !== '23505' && code !== '42P07' && code !== '42710' && !retryable(err))) throw err;
    }
  }
}

/** Where a postgres:// URL points (pg's defaults where it names nothing), for messages: never its password. */
function target(url: string): { at: string; user: string; database: string } {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    // pg reads more than WHATWG URLs; the message then names no place
  }
  const user = decodeURIComponent(u?.username ?? '') || process.env.PGUSER || (process.env.USER ?? 'postgres');
  const host = u?.searchParams.get('host') || u?.hostname || 'localhost';
  return { at: `${host}:${u?.port || '5432'}`, user, database: decodeURIComponent(u?.pathname.slice(1) ?? '') || user };
}

/**
 * Why PostgreSQL at `url` refused or could not be reached, said so that the fix is plain: not
 * reachable, not authenticated, no such database, not allowed to create the tables. Other failures
 * keep pg's message.
 */
export function pgUnavailable(err: unknown, url: string): StorageUnavailable {
  if (err instanceof StorageUnavailable) return err;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const said = typeof e?.message === 'string' ? e.message : String(err);
  const { at, user, database } = target(url);
  const why = (() => {
    switch (code) {
      case 'ECONNREFUSED':
      case 'ECONNRESET':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
      case 'ETIMEDOUT':
        return `PostgreSQL at ${at} cannot be reached (${code}): is the server running, and listening there?`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `PostgreSQL at ${at} cannot be reached: the host name is not known (${code})`;
      case '28P01':
        return `PostgreSQL at ${at} refused the password of user "${user}" (28P01): check the user and password in the storage URL`;
      case '28000':
        return `PostgreSQL at ${at} does not let user "${user}" in: ${said} (28000): check the user in the storage URL, and the server's pg_hba.conf`;
      case '3D000':
        return `PostgreSQL at ${at} has no database "${database}" (3D000): create it, e.g. as the postgres user: createdb -O ${user} ${database}`;
      case '42501':
        return (
          `PostgreSQL at ${at} does not let user "${user}" create Flora's tables in database "${database}": ${said} (42501): ` +
          `make the user the database's owner, e.g. as the postgres user: psql -c 'ALTER DATABASE "${database}" OWNER TO "${user}"'`
        );
      case '53300':
        return `PostgreSQL at ${at} has no connection left: ${said} (53300): raise its max_connections, or run fewer Flora processes`;
      case '57P03':
        return `PostgreSQL at ${at} does not take connections now: ${said} (57P03)`;
    }
    // pg's own, no code: "timeout exceeded when trying to connect", "Connection terminated due to connection timeout"
    if (/timeout/i.test(said) && /connect/i.test(said)) return `PostgreSQL at ${at} cannot be reached: it did not answer in time (${said})`;
    return `PostgreSQL is unavailable: ${said}`;
  })();
  return new StorageUnavailable(why);
}
