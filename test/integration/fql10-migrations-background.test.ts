// Schema migrations of collections past the in-update limit (issue 33), against a real server with
// the `fauna` driver: the push commits at once and the documents are rewritten in the background,
// as the core's MigrationTask does. Meanwhile reads see every document migrated, writes apply to
// the migrated shape, an index over a migrated field is not queryable (one over other fields is),
// and a kill -9 half-way (one server, or the workers of a tier) resumes and finishes the work.
// The limit and the batches are made small for the tests (FLORA_TEST_MIGRATE_*).

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fql, type Client } from 'fauna';
import { query as q } from 'faunadb';
import { clients, killWorkers, startFlora, waitFor, workerPids, type FloraProcess } from '../helpers/server';
import { schemaCall, serviceFailure, V10Clients } from '../helpers/v10';

const ENV = {
  FLORA_TEST_MIGRATE_SYNC_VERSIONS: '20',
  FLORA_TEST_MIGRATE_BATCH: '10',
  FLORA_TEST_MIGRATE_DELAY_MS: '150',
  FLORA_TEST_LEASE_MS: '1500',
};
const DOCS = 100;

const opened: V10Clients[] = [];
after(() => opened.forEach((c) => c.closeAll()));

/** A driver client of `flora`'s root (one connection: every call, a new one). */
function client(flora: FloraProcess): Client {
  const c = new V10Clients(() => flora.url);
  opened.push(c);
  return c.client(flora.secret);
}

const V1 = 'collection Item {\n  n: Int\n  color: String\n\n  index byN {\n    terms [.n]\n  }\n}\n';
const V2 =
  'collection Item {\n  n: Int\n  colour: String\n  size: Int\n\n  index byN {\n    terms [.n]\n  }\n\n  index byColour {\n    terms [.colour]\n  }\n\n' +
  '  migrations {\n    move .color -> .colour\n    add .size\n    backfill .size = 1\n  }\n}\n';

async function push(flora: FloraProcess, fsl: string): Promise<void> {
  const a = await schemaCall(flora.url, flora.secret, 'POST', '/schema/1/update?force=true', { 'main.fsl': fsl });
  assert.equal(a.status, 200, JSON.stringify(a.json));
}

/** V1 with DOCS items (even n red, odd blue), then the push of V2; the ts of item 0 before it. */
async function migrating(flora: FloraProcess, v10: Client): Promise<unknown> {
  await push(flora, V1);
  await v10.query(fql`Set.sequence(0, ${DOCS}).forEach(i => Item.create({ n: i, color: if (i % 2 == 0) "red" else "blue" }))`);
  const ts = (await v10.query(fql`Item.byN(0).first()!.ts`)).data;
  await push(flora, V2);
  return ts;
}

/** Every item as reads see it: [n, colour, size, color], by n. */
async function items(v10: Client): Promise<unknown[]> {
  return byN((await v10.query(fql`Item.all().map(i => [i.n, i.colour, i.size, i.color]).toArray()`, SLOW)).data);
}

/** A read of every document: seconds on PostgreSQL on a busy machine (the driver's default is 5 s). */
const SLOW = { query_timeout_ms: 60_000 };

const byN = (rows: unknown): unknown[][] => (rows as [number, ...unknown[]][]).sort((a, b) => a[0] - b[0]);

const migrated = (n: number, colour = n % 2 === 0 ? 'red' : 'blue') => [n, colour, 1, null];
const allMigrated = (overrides: Record<number, string> = {}) => Array.from({ length: DOCS }, (_, n) => migrated(n, overrides[n]));

async function queryable(v10: Client): Promise<boolean> {
  try {
    await v10.query(fql`Item.byColour("red").count()`);
    return true;
  } catch {
    return false;
  }
}

async function colourCounts(v10: Client): Promise<unknown> {
  return (await v10.query(fql`["red", "blue", "green"].map(c => Item.byColour(c).count())`)).data;
}

test('a migration past the limit commits at once; reads and writes see documents migrated while the background work runs; the index over the moved field is queryable once it is done', async () => {
  const flora = await startFlora({ env: ENV });
  try {
    const v10 = client(flora);
    const ts = await migrating(flora, v10);
    // Still running: the new index over a migrated field is not queryable yet, one over `n` is.
    const refused = await serviceFailure(v10.query(fql`Item.byColour("red").count()`));
    assert.equal(refused.message, 'The index `Item.byColour` is not queryable.');
    // …and the definition says so: that index is building, the other complete.
    const states = (await v10.query(fql`Item.definition.indexes { byColour { status, queryable }, byN { status, queryable } }`)).data;
    assert.deepEqual(states, { byColour: { status: 'building', queryable: false }, byN: { status: 'complete', queryable: true } });
    assert.deepEqual(await items(v10), allMigrated());
    assert.deepEqual((await v10.query(fql`Item.byN(${DOCS - 1}).map(i => [i.colour, i.size]).toArray()`)).data, [['blue', 1]]);
    // A write to a document the work has not reached yet starts from its migrated shape.
    assert.deepEqual((await v10.query(fql`Item.byN(${DOCS - 3}).first()!.update({ colour: "green" }) { colour, size }`)).data, { colour: 'green', size: 1 });
    await waitFor('the migration', () => queryable(v10));
    assert.deepEqual(await items(v10), allMigrated({ [DOCS - 3]: 'green' }));
    assert.deepEqual(await colourCounts(v10), [DOCS / 2, DOCS / 2 - 1, 1]);
    // Versions keep their times.
    assert.deepEqual((await v10.query(fql`Item.byN(0).first()!.ts`)).data, ts);
    // Documents written afterwards obey the new schema.
    const refusedWrite = await serviceFailure(v10.query(fql`Item.create({ n: 1000, color: "red" })`));
    assert.equal(refusedWrite.code, 'constraint_failure');
  } finally {
    await flora.stop();
  }
});

test('a kill -9 half-way through a migration: the restarted server reads documents migrated and finishes the work', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-migrate-'));
  try {
    const first = await startFlora({ dataDir: dir, env: ENV });
    await migrating(first, client(first));
    await first.stop('SIGKILL');
    const next = await startFlora({ dataDir: dir, env: ENV });
    try {
      const v10 = client(next);
      assert.deepEqual(await items(v10), allMigrated());
      await waitFor('the migration', () => queryable(v10));
      assert.deepEqual(await items(v10), allMigrated());
      assert.deepEqual(await colourCounts(v10), [DOCS / 2, DOCS / 2, 0]);
    } finally {
      await next.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a tier of two workers: reads through either see documents migrated; kill -9 of both workers half-way, and the replacements finish', async () => {
  const flora = await startFlora({ args: ['--workers', '2'], env: ENV });
  try {
    assert.equal(workerPids(flora).length, 2, flora.stderr());
    const v10 = client(flora);
    await migrating(flora, v10);
    for (let i = 0; i < 2; i++) assert.deepEqual(await items(client(flora)), allMigrated());
    await killWorkers(flora, workerPids(flora));
    const after = client(flora);
    assert.deepEqual(await items(after), allMigrated());
    await waitFor('the migration', () => queryable(after));
    assert.deepEqual(await colourCounts(after), [DOCS / 2, DOCS / 2, 0]);
  } finally {
    assert.equal(await flora.stop(), 0, flora.stderr());
  }
});

test('a second migration pushed while the first still runs: documents at either stage, and one written between the pushes, read and end in the last shape', async () => {
  const flora = await startFlora({ env: ENV });
  try {
    const v10 = client(flora);
    await migrating(flora, v10);
    // Written in the first push's shape, before the second.
    await v10.query(fql`Item.byN(${DOCS - 1}).first()!.update({ colour: "green" })`);
    await push(flora, V2.replace('colour: String', 'hue: String').replace('index byColour {\n    terms [.colour]', 'index byHue {\n    terms [.hue]').replace('backfill .size = 1\n', 'backfill .size = 1\n    move .colour -> .hue\n'));
    const hues = async () => byN((await v10.query(fql`Item.all().map(i => [i.n, i.hue, i.size, i.colour]).toArray()`, SLOW)).data);
    const expected = Array.from({ length: DOCS }, (_, n) => [n, n === DOCS - 1 ? 'green' : n % 2 === 0 ? 'red' : 'blue', 1, null]);
    assert.deepEqual(await hues(), expected);
    await waitFor('the migrations', async () => {
      try {
        await v10.query(fql`Item.byHue("red").count()`);
        return true;
      } catch {
        return false;
      }
    });
    assert.deepEqual(await hues(), expected);
    assert.deepEqual((await v10.query(fql`["red", "blue", "green"].map(c => Item.byHue(c).count())`)).data, [DOCS / 2, DOCS / 2 - 1, 1]);
  } finally {
    await flora.stop();
  }
});

/** Whether `query` (an index read) runs: false while the index is not queryable. */
async function runs(v10: Client, query: ReturnType<typeof fql>): Promise<boolean> {
  try {
    await v10.query(query);
    return true;
  } catch {
    return false;
  }
}

test('a migration that gives documents the value of another under a unique constraint: the constraint is pending meanwhile, then failed, the migration ends, the log says which, and writes are still checked', async () => {
  const flora = await startFlora({ env: ENV });
  try {
    const v10 = client(flora);
    const schema = (code: string, migrations = '') =>
      `collection Badge {\n  n: Int\n  ${code}\n\n  unique [.code]\n\n  index byCode {\n    terms [.code]\n  }\n${migrations}}\n`;
    await push(flora, schema('code: String?'));
    // Even documents have a code of their own, odd ones none.
    await v10.query(fql`Set.sequence(0, ${DOCS}).forEach(i => Badge.create({ n: i, code: if (i % 2 == 0) "c" + i.toString() else null }))`);
    const status = async () => (await v10.query(fql`Badge.definition.constraints.map(c => c.status)`)).data;
    assert.deepEqual(await status(), ['active']);
    // Every document gets the same code: dropped, added again, backfilled.
    await push(flora, schema('code: String', '\n  migrations {\n    drop .code\n    add .code\n    backfill .code = "none"\n  }\n'));
    assert.deepEqual(await status(), ['pending']);
    assert.equal((await v10.query(fql`Badge.all().where(.code == "none").count()`, SLOW)).data, DOCS);
    await waitFor('the migration', () => runs(v10, fql`Badge.byCode("none").count()`));
    assert.deepEqual(await status(), ['failed']);
    assert.equal((await v10.query(fql`Badge.byCode("none").count()`)).data, DOCS);
    assert.match(flora.stderr(), /collection Badge: unique constraint \[\.code\] failed: the migration gave documents? \d+/);
    // The constraint still refuses a new duplicate, and takes a new code.
    const refused = await serviceFailure(v10.query(fql`Badge.create({ n: 1000, code: "none" })`));
    assert.equal(refused.code, 'constraint_failure');
    assert.equal((await v10.query(fql`Badge.create({ n: 1001, code: "fresh" }).code`)).data, 'fresh');
  } finally {
    await flora.stop();
  }
});

test("a v4 Insert into the past of a document the migration has not reached is in the collection's current shape: neither reads nor the rewrite migrate it again", async () => {
  const flora = await startFlora({ env: ENV });
  const v4 = clients(flora.url, flora.secret);
  try {
    const v10 = client(flora);
    const schema = (migrations = '') => `collection Tally {\n  n: Int\n  score: Int\n\n  index byScore {\n    terms [.score]\n  }\n${migrations}}\n`;
    await push(flora, schema());
    await v10.query(fql`Set.sequence(0, ${DOCS}).forEach(i => Tally.create({ n: i, score: i }))`);
    const last = (await v10.query<{ id: string; ts: number }>(fql`Tally.all().where(.n == ${DOCS - 1}).first()! { id, ts: .ts.toMicros() }`, SLOW)).data;
    // Every score back to 0: dropped and added again with a backfill.
    await push(flora, schema('\n  migrations {\n    drop .score\n    add .score\n    backfill .score = 0\n  }\n'));
    // Written after the push, at the time of the document's creation, in the shape of now.
    await v4.h1.query(q.Insert(q.Ref(q.Collection('Tally'), last.id), last.ts, 'update', { data: { n: DOCS - 1, score: 42 } }));
    const scoreOfLast = async () => (await v10.query(fql`Tally.byId(${last.id})!.score`)).data;
    assert.equal(await scoreOfLast(), 42);
    await waitFor('the migration', () => runs(v10, fql`Tally.byScore(0).count()`));
    assert.equal(await scoreOfLast(), 42);
    assert.deepEqual((await v10.query(fql`[Tally.byScore(0).count(), Tally.byScore(42).count()]`)).data, [DOCS - 1, 1]);
  } finally {
    await v4.close();
    await flora.stop();
  }
});
