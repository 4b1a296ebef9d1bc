// A process opening the store on a PostgreSQL database at serializable isolation while the tier's
// other processes commit (each commit updates the commit-lock row): opening must not fail with a
// serialization error. Found by the torture suite's isolation part: a process killed and replaced
// under load could not start again ("cannot open the store: … could not serialize access due to
// concurrent update"), as the opening re-inserted the lock rows the running sections were updating.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as PgClient } from 'pg';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { openPgEngine } from '../../src/storage/pgEngine';

let pg: Postgres | undefined;
after(async () => {
  await pg?.stop();
});

test('opening the store beside running sections, at serializable isolation', async () => {
  pg = await startPostgres();
  const url = await pg.newDatabase('opening');
  const admin = new PgClient({ connectionString: url });
  await admin.connect();
  await admin.query(`ALTER DATABASE opening SET default_transaction_isolation = 'serializable'`);
  await admin.end();

  const running = await openPgEngine(url);
  let stop = false;
  let sections = 0;
  // Sections one after another, as a busy process commits (a failed one is simply run again).
  const busy = (async () => {
    while (!stop) {
      await running.exclusive({ keys: [], ranges: [] }, () => []).catch(() => undefined);
      sections++;
    }
  })();
  try {
    for (let i = 0; i < 30; i++) {
      const opened = await openPgEngine(url);
      await opened.close();
    }
  } finally {
    stop = true;
    await busy;
    await running.close();
  }
  assert.ok(sections > 30, `the sections ran meanwhile (${sections})`);
});
