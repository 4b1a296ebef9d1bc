// Watermarks (backend.ts) of processes on any machines sharing PostgreSQL: one row per process in
// `flora_query_log_writers`, stamped with the database's clock, so that "not heard from for
// WRITER_STALE_MS" means the same on every machine. A dead process's row is not waited for, and
// housekeeping removes it once it is a day old.

import type { Pool } from 'pg';
import { WRITER_STALE_MS, type Watermarks } from './backend';
import { unavailable, WRITERS_TABLE } from './pgPool';

export class PgWatermarks implements Watermarks {
  private closed = false;

  constructor(
    private readonly pool: Pool,
    /** This process, as its row names it. */
    private readonly writer: string,
  ) {}

  async publish(throughMs: number): Promise<void> {
    if (this.closed) return;
    await this.query(
      `INSERT INTO ${WRITERS_TABLE} (writer, through_ms, seen) VALUES ($1, $2, now()) ` +
        'ON CONFLICT (writer) DO UPDATE SET through_ms = EXCLUDED.through_ms, seen = now()',
      [this.writer, Math.floor(throughMs)],
    );
  }

  async caughtUp(endMs: number): Promise<boolean> {
    const res = await this.query<{ behind: number }>(
      `SELECT count(*)::int AS behind FROM ${WRITERS_TABLE} ` +
        `WHERE writer <> $1 AND seen > now() - make_interval(secs => $2) AND through_ms < $3`,
      [this.writer, WRITER_STALE_MS / 1000, endMs],
    );
    return res.rows[0].behind === 0;
  }

  async prune(): Promise<void> {
    await this.query(`DELETE FROM ${WRITERS_TABLE} WHERE seen < now() - interval '1 day'`, []);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.query(`DELETE FROM ${WRITERS_TABLE} WHERE writer = $1`, [this.writer]).catch(() => undefined);
  }

  private async query<R extends object = object>(text: string, values: unknown[]) {
    try {
      return await this.pool.query<R & Record<string, unknown>>({ text, values });
    } catch (err) {
      throw unavailable(err);
    }
  }
}
