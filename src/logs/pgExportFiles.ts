// Export files in PostgreSQL (`flora_log_export_chunks`): a download may reach any machine of the
// tier, so the gzip output of an export is kept in the database, in pieces of CHUNK_BYTES keyed by
// request, attempt and sequence, and streamed out of it a piece at a time. Only the pieces of the
// attempt that completed a request (its `attempts` then) are ever read; those of an attempt that
// died are removed by the next attempt, or with the request.

import { Readable, Writable } from 'node:stream';
import type { Pool } from 'pg';
import type { ExportFile, ExportFiles, ExportUpload } from './backend';
import { CHUNKS_TABLE, retrying } from './pgPool';

const CHUNK_BYTES = 1024 * 1024;

export class PgExportFiles implements ExportFiles {
  constructor(private readonly pool: Pool) {}

  async create(id: string, attempt: number): Promise<ExportUpload> {
    await retrying(() => this.pool.query({ text: `DELETE FROM ${CHUNKS_TABLE} WHERE request_id = $1`, values: [id] }));
    const pool = this.pool;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let seq = 0;
    let size = 0;
    const put = async () => {
      if (pendingBytes === 0) return;
      const data = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      const n = seq++;
      await retrying(() =>
        pool.query({ text: `INSERT INTO ${CHUNKS_TABLE} (request_id, attempt, seq, data) VALUES ($1, $2, $3, $4)`, values: [id, attempt, n, data] }),
      );
      size += data.length;
    };
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes < CHUNK_BYTES) return callback();
        put().then(() => callback(), callback);
      },
      final(callback) {
        put().then(() => callback(), callback);
      },
    });
    return {
      stream,
      commit: async () => size,
      discard: async () => {
        stream.destroy();
        await this.pool.query({ text: `DELETE FROM ${CHUNKS_TABLE} WHERE request_id = $1 AND attempt = $2`, values: [id, attempt] }).catch(() => undefined);
      },
    };
  }

  async open(id: string, attempt: number): Promise<ExportFile | undefined> {
    const res = await retrying(
      () =>
        this.pool.query<{ pieces: number; size: string }>({
          text:
            'SELECT count(*)::int AS pieces, coalesce(sum(octet_length(data)), 0)::bigint AS size ' +
            `FROM ${CHUNKS_TABLE} WHERE request_id = $1 AND attempt = $2`,
          values: [id, attempt],
        }),
      2000,
    );
    const { pieces, size } = res.rows[0];
    if (pieces === 0) return undefined;
    const pool = this.pool;
    let seq = 0;
    const body = new Readable({
      read() {
        const n = seq++;
        if (n >= pieces) {
          this.push(null);
          return;
        }
        retrying(() =>
          pool.query<{ data: Buffer }>({
            text: `SELECT data FROM ${CHUNKS_TABLE} WHERE request_id = $1 AND attempt = $2 AND seq = $3`,
            values: [id, attempt, n],
          }),
        ).then(
          (r) => (r.rows.length ? this.push(r.rows[0].data) : this.destroy(new Error(`piece ${n} of export ${id} is missing`))),
          (err: Error) => this.destroy(err),
        );
      },
    });
    return { size: Number(size), body };
  }

  async exists(id: string, attempt: number): Promise<boolean> {
    const res = await retrying(() =>
      this.pool.query({ text: `SELECT 1 FROM ${CHUNKS_TABLE} WHERE request_id = $1 AND attempt = $2 LIMIT 1`, values: [id, attempt] }),
    );
    return res.rows.length > 0;
  }

  async remove(id: string): Promise<void> {
    await retrying(() => this.pool.query({ text: `DELETE FROM ${CHUNKS_TABLE} WHERE request_id = $1`, values: [id] }));
  }

  async discardPartials(): Promise<void> {
    // Never called: PostgreSQL is always shared, and other processes may be writing theirs.
  }
}
