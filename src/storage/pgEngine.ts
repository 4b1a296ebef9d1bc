// The PostgreSQL engine: the same ordered byte-key/byte-value map as LMDB, in one table whose
// `bytea` primary key compares bytewise (memcmp order), so everything above the Engine interface
// (MVCC, versions, index entries, the format record) is shared unchanged.
//
// Any number of Flora processes may share one store: commits are sequenced by `exclusive`, a
// transaction that first updates the one row of `flora_commit_lock` (store.ts, shared mode). A row
// lock rather than an advisory lock, so the protocol holds on the PostgreSQL-protocol databases
// that have no advisory locks (CockroachDB, YugabyteDB) and under any isolation level: at READ
// COMMITTED (PostgreSQL's default) the statements after the update see every commit made before
// it was granted; at snapshot or serializable isolation, an update of a row a later-committed
// section updated fails with a serialization error (40001) instead, and the section is retried.
// Its statements go as simple-protocol text with keys and values as hex literals, so a commit costs
// two round trips: lock and read, then write and commit.

import type { Pool, PoolClient } from 'pg';
import { createSchema, openPool, pgUnavailable, retryable } from './pgConnect';
import { EngineConflict, StorageUnavailable, type Engine, type EngineSnapshot, type Head, type HeadQuery, type KV, type RangeOptions, type WriteOp } from './engine';
import { MAX_KEY_SIZE } from './lmdbEngine';
/** Rows fetched per round trip of a range scan. */
const PAGE = 256;
/** Rows a snapshot scan fetches per round trip. */
const SNAPSHOT_PAGE = 1024;
const TABLE = 'flora_kv';
const LOCKS = 'flora_commit_lock';
/** The row every commit of the tier updates first. */
const COMMIT_LOCK = 1;
/** The row a process's opening work (the format upgrade) holds: one process at a time. */
const STARTUP_LOCK = 2;
const lockSql = (row: number) => `UPDATE ${LOCKS} SET n = n + 1 WHERE id = ${row}`;

const hex = (b: Uint8Array) => `decode('${asBuffer(b).toString('hex')}','hex')`;

/** One statement reading `query`: keys tagged -1, the rows of range i tagged i. */
function headSql(query: HeadQuery): string {
  const parts: string[] = [];
  if (query.keys.length > 0) parts.push(`SELECT -1 AS q, k, v FROM ${TABLE} WHERE k IN (${query.keys.map(hex).join(',')})`);
  query.ranges.forEach((r, i) => {
    const order = r.reverse ? 'DESC' : 'ASC';
    const limit = r.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(r.limit))}` : '';
    parts.push(`(SELECT ${i} AS q, k, v FROM ${TABLE} WHERE k >= ${hex(r.start)} AND k < ${hex(r.end)} ORDER BY k ${order}${limit})`);
  });
  return parts.join(' UNION ALL ');
}

function headOf(query: HeadQuery, rows: { q: number; k: Buffer; v: Buffer }[]): Head {
  const byKey = new Map<string, Buffer>();
  const ranges: KV[][] = query.ranges.map(() => []);
  for (const row of rows) {
    if (row.q < 0) byKey.set(row.k.toString('hex'), row.v);
    else ranges[row.q].push({ key: row.k, value: row.v });
  }
  query.ranges.forEach((r, i) => ranges[i].sort((a, b) => (r.reverse ? -1 : 1) * Buffer.compare(asBuffer(a.key), asBuffer(b.key))));
  return { values: query.keys.map((k) => byKey.get(asBuffer(k).toString('hex'))), ranges };
}

/** Statements applying `ops` (the last op of each key wins). */
function writeSql(ops: WriteOp[]): string[] {
  const last = new Map<string, WriteOp>();
  for (const op of ops) last.set(asBuffer(op.key).toString('hex'), op);
  const puts: string[] = [];
  const deletes: string[] = [];
  for (const op of last.values()) {
    if (op.value === null) deletes.push(hex(op.key));
    else puts.push(`(${hex(op.key)},${hex(op.value)})`);
  }
  const out: string[] = [];
  if (deletes.length > 0) out.push(`DELETE FROM ${TABLE} WHERE k IN (${deletes.join(',')})`);
  if (puts.length > 0) out.push(`INSERT INTO ${TABLE} (k, v) VALUES ${puts.join(',')} ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`);
  return out;
}


function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}


class PgEngine implements Engine {
  readonly maxKeySize = MAX_KEY_SIZE;
  /** Writes go one after another, so that two issued in order commit in that order. */
  private writes: Promise<void> = Promise.resolve();
  private closed = false;

  readonly shared = true;

  constructor(
    private readonly pool: Pool,
    /** Its URL, for what a failure says (pgUnavailable). */
    private readonly url: string,
  ) {}

  private unavailable(err: unknown): StorageUnavailable {
    return pgUnavailable(err, this.url);
  }

  /** What a failed statement of the critical section means: run it again, or the store is unavailable. */
  private sectionFailure(err: unknown): EngineConflict | StorageUnavailable {
    return retryable(err) ? new EngineConflict() : this.unavailable(err);
  }

  /** A connection of its own (a transaction spanning statements), or StorageUnavailable. */
  private async connect(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  async readHead(query: HeadQuery): Promise<Head> {
    try {
      // One statement: one snapshot, taken when it starts (after every commit that completed).
      const read = headSql(query);
      return headOf(query, read ? (await this.pool.query<{ q: number; k: Buffer; v: Buffer }>(read)).rows : []);
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  async exclusive(query: HeadQuery, build: (head: Head) => WriteOp[]): Promise<void> {
    if (this.closed) throw new Error('engine is closed');
    const client = await this.connect();
    try {
      let rows: { q: number; k: Buffer; v: Buffer }[];
      try {
        // The read statement's snapshot is taken once the lock is held, so it sees every commit of
        // every process before this one.
        const read = headSql(query);
        const results = (await client.query(`BEGIN; ${lockSql(COMMIT_LOCK)}${read ? `; ${read}` : ''}`)) as unknown as {
          rows: { q: number; k: Buffer; v: Buffer }[];
        }[];
        rows = read ? results[2].rows : [];
      } catch (e) {
        throw this.sectionFailure(e);
      }
      const ops = build(headOf(query, rows));
      for (const op of ops) {
        if (op.key.length > this.maxKeySize) throw new Error(`storage key of ${op.key.length} bytes exceeds the maximum of ${this.maxKeySize} bytes`);
        if (op.key.length === 0) throw new Error('empty storage key');
      }
      try {
        await client.query([...writeSql(ops), 'COMMIT'].join('; '));
      } catch (e) {
        throw this.sectionFailure(e);
      }
    } catch (e) {
      // Nothing of this transaction stays (a failed COMMIT rolls back by itself; the lock goes with it).
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async startup<T>(fn: () => Promise<T>): Promise<T> {
    const client = await this.connect();
    // Held (an open transaction on this connection) while `fn` works through the pool. Under
    // snapshot or serializable isolation, taking it just after another process let it go fails
    // (40001): take it again.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`BEGIN; ${lockSql(STARTUP_LOCK)}`);
        break;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (retryable(e) && attempt < 20) continue;
        client.release(true);
        throw this.unavailable(e);
      }
    }
    try {
      return await fn();
    } finally {
      // Ending the session frees the lock even if the commit cannot be sent.
      await client.query('COMMIT').then(
        () => client.release(),
        () => client.release(true),
      );
    }
  }

  checkReaders(): void {}

  async sizeBytes(): Promise<number> {
    try {
      const r = await this.pool.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
      return Number(r.rows[0].n);
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  async snapshot(): Promise<EngineSnapshot> {
    if (this.closed) throw new Error('engine is closed');
    const client = await this.connect();
    // Its own connection: one REPEATABLE READ transaction sees one state for as long as it lasts,
    // and a cursor hands the rows over in key order a page at a time. Read only, it takes no lock
    // a commit waits for.
    try {
      await client.query(
        `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; DECLARE flora_snapshot NO SCROLL CURSOR FOR SELECT k, v FROM ${TABLE} ORDER BY k`,
      );
    } catch (e) {
      client.release(true);
      throw this.unavailable(e);
    }
    let open = true;
    const query = async <R extends object>(text: string, values?: unknown[]): Promise<R[]> => {
      if (!open) throw new Error('snapshot is closed');
      try {
        return (await client.query<R>({ text, values })).rows;
      } catch (e) {
        throw this.unavailable(e);
      }
    };
    return {
      get: async (key) => (await query<{ v: Buffer }>(`SELECT v FROM ${TABLE} WHERE k = $1`, [asBuffer(key)]))[0]?.v,
      scan: async function* () {
        for (;;) {
          const rows = await query<{ k: Buffer; v: Buffer }>(`FETCH ${SNAPSHOT_PAGE} FROM flora_snapshot`);
          if (rows.length === 0) return;
          yield rows.map((r) => ({ key: r.k, value: r.v }));
          if (rows.length < SNAPSHOT_PAGE) return;
        }
      },
      close: async () => {
        if (!open) return;
        open = false;
        await client.query('COMMIT').then(
          () => client.release(),
          () => client.release(true),
        );
      },
    };
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      const r = await this.pool.query<{ v: Buffer }>({ text: `SELECT v FROM ${TABLE} WHERE k = $1`, values: [asBuffer(key)] });
      return r.rows[0]?.v;
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  range(opts: RangeOptions): AsyncIterable<KV> {
    const pool = this.pool;
    const unavailable = (e: unknown) => this.unavailable(e);
    return {
      async *[Symbol.asyncIterator]() {
        if (Buffer.compare(asBuffer(opts.start), asBuffer(opts.end)) >= 0) return;
        let left = opts.limit ?? Infinity;
        const order = opts.reverse ? 'DESC' : 'ASC';
        // Pages continue past the last key seen: exclusive in the scan's direction.
        let low: { key: Buffer; op: '>=' | '>' } = { key: asBuffer(opts.start), op: '>=' };
        let high: { key: Buffer; op: '<' } = { key: asBuffer(opts.end), op: '<' };
        while (left > 0) {
          const n = Math.min(PAGE, left);
          let rows: { k: Buffer; v: Buffer }[];
          try {
            const r = await pool.query<{ k: Buffer; v: Buffer }>({
              text: `SELECT k, v FROM ${TABLE} WHERE k ${low.op} $1 AND k ${high.op} $2 ORDER BY k ${order} LIMIT ${n}`,
              values: [low.key, high.key],
            });
            rows = r.rows;
          } catch (e) {
            throw unavailable(e);
          }
          for (const row of rows) yield { key: row.k, value: row.v };
          if (rows.length < n) return;
          left -= rows.length;
          const last = rows[rows.length - 1].k;
          if (opts.reverse) high = { key: last, op: '<' };
          else low = { key: last, op: '>' };
        }
      },
    };
  }

  write(ops: WriteOp[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('engine is closed'));
    for (const op of ops) {
      if (op.key.length > this.maxKeySize)
        return Promise.reject(new Error(`storage key of ${op.key.length} bytes exceeds the maximum of ${this.maxKeySize} bytes`));
      if (op.key.length === 0) return Promise.reject(new Error('empty storage key'));
    }
    const run = this.writes.then(() => this.apply(ops));
    this.writes = run.catch(() => undefined);
    return run;
  }

  /**
   * One statement, so one round trip and atomic by itself: the last op of each key wins, deletes and
   * puts (an upsert) never touch the same key. Durable when it returns (synchronous_commit, the
   * default).
   */
  private async apply(ops: WriteOp[]): Promise<void> {
    if (ops.length === 0) return;
    const last = new Map<string, WriteOp>();
    for (const op of ops) last.set(asBuffer(op.key).toString('latin1'), op);
    const putKeys: Buffer[] = [];
    const putValues: Buffer[] = [];
    const deletes: Buffer[] = [];
    for (const op of last.values()) {
      if (op.value === null) deletes.push(asBuffer(op.key));
      else {
        putKeys.push(asBuffer(op.key));
        putValues.push(asBuffer(op.value));
      }
    }
    // The statement sets values, so running it again after a serialization failure (snapshot or
    // serializable isolation, a concurrent write of the same key) is the same as running it once.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.pool.query({
          text:
            `WITH gone AS (DELETE FROM ${TABLE} WHERE k = ANY($1::bytea[])) ` +
            `INSERT INTO ${TABLE} (k, v) SELECT * FROM unnest($2::bytea[], $3::bytea[]) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`,
          values: [deletes, putKeys, putValues],
        });
        return;
      } catch (e) {
        if (!retryable(e) || attempt >= 10) throw this.unavailable(e);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes;
    await this.pool.end();
  }
}

/**
 * Opens the store in the database (and schema: `?options=-c search_path=…`) a `postgres://` URL
 * names, creating its table on first start. Refuses with StorageUnavailable when it cannot connect.
 */
export async function openPgEngine(url: string): Promise<Engine> {
  const pool = openPool(url, 16);
  try {
    await createSchema(
      pool,
      `CREATE TABLE IF NOT EXISTS ${TABLE} (k bytea PRIMARY KEY, v bytea NOT NULL); ` +
        `CREATE TABLE IF NOT EXISTS ${LOCKS} (id int PRIMARY KEY, n bigint NOT NULL); ` +
        // Only rows not there yet: at snapshot or serializable isolation, even ON CONFLICT DO NOTHING
        // on a row that running processes' sections keep updating fails (40001) again and again.
        `INSERT INTO ${LOCKS} (id, n) SELECT id, 0 FROM (VALUES (${COMMIT_LOCK}), (${STARTUP_LOCK})) AS wanted (id) ` +
        `WHERE NOT EXISTS (SELECT 1 FROM ${LOCKS} l WHERE l.id = wanted.id) ON CONFLICT (id) DO NOTHING`,
    );
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw pgUnavailable(e, url);
  }
  return new PgEngine(pool, url);
}
