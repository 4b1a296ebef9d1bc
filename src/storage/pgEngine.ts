// The PostgreSQL engine: the same ordered byte-key/byte-value map as LMDB, in one table whose
// `bytea` primary key compares bytewise (memcmp order), so everything above the Engine interface
// (MVCC, versions, index entries, the format record) is shared unchanged.
//
// One process per store for now: the commit protocol (store.ts) validates in memory, so several
// processes over one PostgreSQL are not yet correct (issue 15); a session lock keeps a second out.

import { Pool, type PoolClient } from 'pg';
import { StorageUnavailable, StoreInUse, type Engine, type KV, type RangeOptions, type WriteOp } from './engine';
import { MAX_KEY_SIZE } from './lmdbEngine';
/** Rows fetched per round trip of a range scan. */
const PAGE = 256;
const TABLE = 'flora_kv';

function unavailable(err: unknown): StorageUnavailable {
  return err instanceof StorageUnavailable ? err : new StorageUnavailable(`PostgreSQL is unavailable: ${err instanceof Error ? err.message : String(err)}`);
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

class PgEngine implements Engine {
  readonly maxKeySize = MAX_KEY_SIZE;
  /** Writes go one after another, so that two issued in order commit in that order. */
  private writes: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: Pool,
    /** The session holding the store's lock, for as long as the engine is open. */
    private readonly owner: PoolClient,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      const r = await this.pool.query<{ v: Buffer }>({ text: `SELECT v FROM ${TABLE} WHERE k = $1`, values: [asBuffer(key)] });
      return r.rows[0]?.v;
    } catch (e) {
      throw unavailable(e);
    }
  }

  range(opts: RangeOptions): AsyncIterable<KV> {
    const pool = this.pool;
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
    try {
      await this.pool.query({
        text:
          `WITH gone AS (DELETE FROM ${TABLE} WHERE k = ANY($1::bytea[])) ` +
          `INSERT INTO ${TABLE} (k, v) SELECT * FROM unnest($2::bytea[], $3::bytea[]) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`,
        values: [deletes, putKeys, putValues],
      });
    } catch (e) {
      throw unavailable(e);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes;
    this.owner.release();
    await this.pool.end();
  }
}

/**
 * Opens the store in the database (and schema: `?options=-c search_path=…`) a `postgres://` URL
 * names, creating its table on first start. Refuses with StorageUnavailable when it cannot connect.
 */
export async function openPgEngine(url: string): Promise<Engine> {
  const pool = new Pool({ connectionString: url, max: 16, connectionTimeoutMillis: 10_000 });
  // A connection that breaks (PostgreSQL restarts, the network drops) must not crash the process:
  // the statement on it fails (503), and the pool connects anew for the next one. Idle connections
  // report through the pool, checked-out ones (the lock's owner, a write) through themselves.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  let owner: PoolClient | undefined;
  try {
    owner = await pool.connect();
    // The commit protocol validates in this process's memory, so a second process on the same
    // store would break serializability: the first one holds a session lock, the second is refused.
    const lock = await owner.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext('${TABLE}')) AS ok`);
    if (!lock.rows[0].ok) throw new StoreInUse('another Flora process already serves this PostgreSQL database (one process per store for now)');
    await owner.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (k bytea PRIMARY KEY, v bytea NOT NULL)`);
  } catch (e) {
    owner?.release();
    await pool.end().catch(() => undefined);
    throw e instanceof StoreInUse ? e : unavailable(e);
  }
  return new PgEngine(pool, owner);
}
