// Hour files that an earlier version wrote on this machine while its store was already PostgreSQL
// (the query log then stayed in the log directory): copied into `flora_query_log` in the background
// after start, so that exports from any process cover them too, then removed. Each file goes in one
// transaction that also records it in `flora_query_log_imports`, so a copy interrupted (a stop, a
// crash, PostgreSQL going away) leaves nothing and is done again at the next start, and a copy that
// committed is never done twice, even if the file outlived it.

import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { Pool } from 'pg';
import { filesInRange } from './files';
import { IMPORTS_TABLE } from './pgPool';
import { insertRows, logRows } from './pgQueryLog';

const BATCH_LINES = 2000;

/** Copies every hour file of `queryDir`; stops between batches once `signal` aborts. Returns the files copied. */
export async function importLegacyLog(pool: Pool, queryDir: string, signal: AbortSignal): Promise<number> {
  let copied = 0;
  for (const file of await filesInRange(queryDir, 0, Number.MAX_SAFE_INTEGER)) {
    if (signal.aborted) break;
    // The same directory path on another machine is another file.
    const source = `${hostname()}:${path.resolve(file.path)}`;
    if (await copyFile(pool, file.path, source, signal)) copied++;
    await unlink(file.path).catch(() => undefined);
  }
  return copied;
}

/** True when this call copied the file; false when it had been copied before. Throws when interrupted. */
async function copyFile(pool: Pool, file: string, source: string, signal: AbortSignal): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Claims the file first: a concurrent copy of it waits here, then finds it taken.
    const claimed = await client.query({
      text: `INSERT INTO ${IMPORTS_TABLE} (source, records) VALUES ($1, 0) ON CONFLICT (source) DO NOTHING`,
      values: [source],
    });
    if (claimed.rowCount === 0) {
      await client.query('ROLLBACK');
      return false;
    }
    let records = 0;
    let batch: string[] = [];
    const flush = async () => {
      if (signal.aborted) throw new Error('stopping');
      const rows = logRows(batch);
      batch = [];
      records += rows.lines.length;
      await insertRows(client, rows);
    };
    const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      batch.push(line);
      if (batch.length >= BATCH_LINES) await flush();
    }
    await flush();
    await client.query({ text: `UPDATE ${IMPORTS_TABLE} SET records = $2 WHERE source = $1`, values: [source, records] });
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
