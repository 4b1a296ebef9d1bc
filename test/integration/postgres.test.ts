// The PostgreSQL store: the engine keeps LMDB's contract (bytewise key order, ranges both ways,
// atomic ordered writes, the head read and the critical section), and Flora processes on it serve the
// driver, share one database, survive a restart and an outage, and refuse to start without
// PostgreSQL, with a wrong password, without the database or the right to create tables there (exit
// 2, one line saying which).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, query as q } from 'faunadb';
import { Client as PgClient } from 'pg';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { FLORA_BIN, sawTxn, startFlora } from '../helpers/server';
import { freePort } from '../helpers/graphql';
import { failure } from '../helpers/faunaErrors';
import { openPgEngine } from '../../src/storage/pgEngine';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import type { Engine, KV } from '../../src/storage/engine';

let pg: Postgres;
before(async () => {
  pg = await startPostgres();
});
after(async () => {
  await pg?.stop();
});

const b = (...bytes: number[]) => Uint8Array.from(bytes);
const hex = (kv: KV) => Buffer.from(kv.key).toString('hex');

async function all(it: AsyncIterable<KV>): Promise<string[]> {
  const out: string[] = [];
  for await (const kv of it) out.push(hex(kv));
  return out;
}

/** The Engine contract, run against each engine. */
async function conformance(engine: Engine): Promise<void> {
  // Bytewise order: 0x00 and 0xff inside keys, prefixes before their extensions.
  const keys = [b(1), b(1, 0), b(1, 0, 0), b(1, 0xff), b(2), b(0xfe, 0xff)];
  await engine.write(keys.map((key, i) => ({ key, value: b(i) })));
  const want = keys.map((k) => Buffer.from(k).toString('hex'));
  assert.deepEqual(await all(engine.range({ start: b(0), end: b(0xff) })), want);
  assert.deepEqual(await all(engine.range({ start: b(0), end: b(0xff), reverse: true })), [...want].reverse());
  assert.deepEqual(await all(engine.range({ start: b(1, 0), end: b(2), limit: 2 })), want.slice(1, 3));
  assert.deepEqual(await all(engine.range({ start: b(1, 0), end: b(2), reverse: true, limit: 2 })), [want[3], want[2]]);
  assert.deepEqual(await all(engine.range({ start: b(2), end: b(1) })), []);
  assert.deepEqual(Buffer.from((await engine.get(b(1, 0xff)))!), Buffer.from(b(3)));
  assert.equal(await engine.get(b(9)), undefined);
  // One write is atomic and the last op of a key wins; a delete removes.
  await engine.write([{ key: b(7), value: b(1) }, { key: b(7), value: null }, { key: b(8), value: b(1) }, { key: b(8), value: b(2) }, { key: b(2), value: null }]);
  assert.equal(await engine.get(b(7)), undefined);
  assert.deepEqual(Buffer.from((await engine.get(b(8)))!), Buffer.from(b(2)));
  assert.equal(await engine.get(b(2)), undefined);
  // Writes issued one after another land in that order.
  await Promise.all([engine.write([{ key: b(5), value: b(1) }]), engine.write([{ key: b(5), value: b(2) }]), engine.write([{ key: b(5), value: b(3) }])]);
  assert.deepEqual(Buffer.from((await engine.get(b(5)))!), Buffer.from(b(3)));
  // Ranges longer than one page (the PostgreSQL engine fetches 256 rows at a time), both ways.
  const many = Array.from({ length: 600 }, (_, i) => ({ key: b(0x40, i >> 8, i & 0xff), value: b(i & 0xff) }));
  await engine.write(many);
  const manyHex = many.map((m) => Buffer.from(m.key).toString('hex'));
  assert.deepEqual(await all(engine.range({ start: b(0x40), end: b(0x41) })), manyHex);
  assert.deepEqual(await all(engine.range({ start: b(0x40), end: b(0x41), reverse: true })), [...manyHex].reverse());
  assert.deepEqual(await all(engine.range({ start: b(0x40), end: b(0x41), limit: 300 })), manyHex.slice(0, 300));
  // Keys past the engine's limit are refused up front.
  await assert.rejects(engine.write([{ key: new Uint8Array(engine.maxKeySize + 1), value: b(1) }]));

  // The head: keys and ranges from one state.
  const head = await engine.readHead({ keys: [b(8), b(7)], ranges: [{ start: b(0x40), end: b(0x41), reverse: true, limit: 2 }] });
  assert.deepEqual(head.values.map((v) => (v ? Buffer.from(v).toString('hex') : undefined)), ['02', undefined]);
  assert.deepEqual(head.ranges[0].map(hex), [manyHex[599], manyHex[598]]);
  // The critical section reads what it is given, writes what build returns, atomically.
  await engine.exclusive({ keys: [b(8)], ranges: [{ start: b(5), end: b(6) }] }, (h) => {
    assert.deepEqual(Buffer.from(h.values[0]!), Buffer.from(b(2)));
    assert.deepEqual(h.ranges[0].map(hex), ['05']);
    return [{ key: b(8), value: b(9) }, { key: b(5), value: null }];
  });
  assert.deepEqual(Buffer.from((await engine.get(b(8)))!), Buffer.from(b(9)));
  assert.equal(await engine.get(b(5)), undefined);
  // A build that throws writes nothing, and the section rejects with its error.
  await assert.rejects(
    engine.exclusive({ keys: [], ranges: [] }, () => {
      throw new Error('refused');
    }),
    /refused/,
  );
  await assert.rejects(engine.exclusive({ keys: [], ranges: [] }, () => [{ key: new Uint8Array(engine.maxKeySize + 1), value: b(1) }]));
  assert.deepEqual(Buffer.from((await engine.get(b(8)))!), Buffer.from(b(9)));
}

describe('engines', () => {
  test('PostgreSQL keeps the Engine contract', async () => {
    const engine = await openPgEngine(await pg.newDatabase('contract'));
    try {
      await conformance(engine);
    } finally {
      await engine.close();
    }
  });

  test('LMDB keeps the same contract', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flora-lmdb-'));
    const engine = await openLmdbEngine(dir);
    try {
      await conformance(engine);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a Flora process on PostgreSQL', () => {
  test('serves the driver over both protocols and keeps its data across a restart', async () => {
    const url = await pg.newDatabase('served');
    let flora = await startFlora({ args: ['--storage', url] });
    try {
      for (const http1 of [false, true]) {
        const c = new Client({ secret: flora.secret, endpoint: flora.url, ...(http1 ? { fetch: globalThis.fetch } : {}) });
        try {
          const coll = http1 ? 'h1' : 'h2';
          await c.query(q.CreateCollection({ name: coll, history_days: 1 }));
          await c.query(q.CreateIndex({ name: `${coll}_by_tag`, source: q.Collection(coll), terms: [{ field: ['data', 'tag'] }], values: [{ field: ['data', 'n'] }] }));
          for (let n = 0; n < 5; n++) await c.query(q.Create(q.Ref(q.Collection(coll), String(n + 1)), { data: { tag: n % 2 ? 'odd' : 'even', n } }));
          await c.query(q.Update(q.Ref(q.Collection(coll), '1'), { data: { tag: 'odd' } }));
          assert.deepEqual(((await c.query(q.Paginate(q.Match(q.Index(`${coll}_by_tag`), 'odd')))) as { data: number[] }).data, [0, 1, 3]);
          assert.equal(((await c.query(q.Paginate(q.Events(q.Ref(q.Collection(coll), '1'))))) as { data: unknown[] }).data.length, 2);
        } finally {
          await c.close();
        }
      }
      flora = await flora.restart();
      const c = new Client({ secret: flora.secret, endpoint: flora.url });
      try {
        assert.deepEqual(((await c.query(q.Paginate(q.Match(q.Index('h2_by_tag'), 'odd')))) as { data: number[] }).data, [0, 1, 3]);
        assert.equal(await c.query(q.Count(q.Documents(q.Collection('h1')))), 5);
      } finally {
        await c.close();
      }
    } finally {
      await flora.stop();
    }
  });

  test('two processes on one database serve the same data: a write through one is read through the other', async () => {
    const url = await pg.newDatabase('shared');
    const [one, two] = await Promise.all([startFlora({ args: ['--storage', url] }), startFlora({ args: ['--storage', url] })]);
    const a = new Client({ secret: one.secret, endpoint: one.url });
    const b = new Client({ secret: two.secret, endpoint: two.url, fetch: globalThis.fetch });
    try {
      await a.query(q.CreateCollection({ name: 'notes' }));
      // The driver sends the last transaction time it saw (X-Last-Seen-Txn): a client given the
      // other's reads that write at once, whichever process serves it.
      const created = (await a.query(q.Create(q.Ref(q.Collection('notes'), '1'), { data: { text: 'from one' } }))) as { ts: number };
      sawTxn(b, created.ts);
      assert.equal(((await b.query(q.Get(q.Ref(q.Collection('notes'), '1')))) as { data: { text: string } }).data.text, 'from one');
      const updated = (await b.query(q.Update(q.Ref(q.Collection('notes'), '1'), { data: { text: 'from two' } }))) as { ts: number };
      assert.ok(updated.ts > created.ts, 'transaction times increase across processes');
      sawTxn(a, updated.ts);
      assert.equal(((await a.query(q.Get(q.Ref(q.Collection('notes'), '1')))) as { data: { text: string } }).data.text, 'from two');
    } finally {
      await a.close();
      await b.close();
      await Promise.all([one.stop(), two.stop()]);
    }
  });

  test('an outage while serving: 503 in Fauna\'s shape, no acknowledged write lost, service again once it is back', async () => {
    const url = await pg.newDatabase('outage');
    const flora = await startFlora({ args: ['--storage', url] });
    const c = new Client({ secret: flora.secret, endpoint: flora.url });
    try {
      await c.query(q.CreateCollection({ name: 'kept' }));
      await c.query(q.Create(q.Ref(q.Collection('kept'), '1'), { data: { n: 1 } }));
      await pg.pause();
      try {
        for (const expr of [q.Get(q.Ref(q.Collection('kept'), '1')), q.Create(q.Ref(q.Collection('kept'), '2'), { data: { n: 2 } })]) {
          const f = await failure(c, expr);
          assert.deepEqual([f.status, f.code, f.description], [503, 'unavailable', 'The storage is unavailable.']);
        }
      } finally {
        await pg.resume();
      }
      assert.equal(((await c.query(q.Get(q.Ref(q.Collection('kept'), '1')))) as { data: { n: number } }).data.n, 1);
      assert.equal(await c.query(q.Exists(q.Ref(q.Collection('kept'), '2'))), false, 'the refused write is not there');
      await c.query(q.Create(q.Ref(q.Collection('kept'), '2'), { data: { n: 2 } }));
      assert.equal(await c.query(q.Count(q.Documents(q.Collection('kept')))), 2);
      // Statements on a connection the shutdown ended, then new connections refused.
      assert.match(flora.stderr(), /flora: PostgreSQL (is unavailable: terminating connection|at 127\.0\.0\.1:\d+ cannot be reached \(ECONNREFUSED\))/);
    } finally {
      await c.close();
      await flora.stop();
    }
  });

  /** `flora start` on `storage`: its exit code and what it printed. */
  const startOn = (storage: string) =>
    spawnSync(process.execPath, [FLORA_BIN, 'start', '--port', '0', '--workers', '1', '--storage', storage], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' },
    });

  test('without PostgreSQL it does not start: exit 2, one line saying where it looked', async () => {
    const port = await freePort(); // nothing listens there
    const run = startOn(`postgres://postgres:password@127.0.0.1:${port}/none`);
    assert.equal(run.status, 2, run.stderr);
    assert.equal(
      run.stderr,
      `flora: cannot open the store: PostgreSQL at 127.0.0.1:${port} cannot be reached (ECONNREFUSED): is the server running, and listening there?\n`,
    );
  });

  test('a wrong password, a missing database, a user without the right to create tables: each said so, in one line', async () => {
    const at = new URL(pg.url);
    const url = (user: string, password: string, database: string) => `postgres://${user}:${password}@${at.host}/${database}`;
    const wrong = startOn(url('postgres', 'wrong', 'flora'));
    assert.equal(wrong.status, 2, wrong.stderr);
    assert.equal(
      wrong.stderr,
      `flora: cannot open the store: PostgreSQL at ${at.host} refused the password of user "postgres" (28P01): check the user and password in the storage URL\n`,
    );

    const missing = startOn(url('postgres', 'password', 'flora2'));
    assert.equal(missing.status, 2, missing.stderr);
    assert.equal(
      missing.stderr,
      `flora: cannot open the store: PostgreSQL at ${at.host} has no database "flora2" (3D000): create it, e.g. as the postgres user: createdb -O postgres flora2\n`,
    );

    // Since PostgreSQL 15 only the database's owner may create tables in its schema public.
    const admin = new PgClient({ connectionString: pg.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE visitor LOGIN PASSWORD 'visit'`);
    } finally {
      await admin.end();
    }
    const refused = startOn(url('visitor', 'visit', 'flora'));
    assert.equal(refused.status, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      `flora: cannot open the store: PostgreSQL at ${at.host} does not let user "visitor" create Flora's tables in database "flora": ` +
        `permission denied for schema public (42501): make the user the database's owner, e.g. as the postgres user: psql -c 'ALTER DATABASE "flora" OWNER TO "visitor"'\n`,
    );
  });

  test('a bad --storage value is a configuration error', () => {
    const run = spawnSync(process.execPath, [FLORA_BIN, 'start', '--storage', 'mysql://x'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' } });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /Invalid storage 'mysql:\/\/x' \(from --storage\): expected lmdb, a postgres:\/\/ URL, or embedded-postgres\[:port\]\./);
  });
});
