// What every user of PostgreSQL in Flora does alike (the store's engine, the query log): a pool that
// survives broken connections, DDL that tolerates processes starting together, and which errors
// mean "run it again".

import { Pool } from 'pg';

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
