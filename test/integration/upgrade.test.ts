// Storage format upgrade (issue 13): a data directory written by the release before references by
// identity (format 1, refs stored by name; made by test/fixtures/format1/make.js) opens with this
// release, is migrated in place, and answers as that release did. A newer format is refused.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, query as q } from 'faunadb';
import { clients, FLORA_BIN, ROOT, startFlora, type DriverClients, type FloraProcess } from '../helpers/server';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { upgradeStorage } from '../../src/upgrade';
import { FORMAT_VERSION, formatRecord, storedFormat } from '../../src/storage/format';
import type { Engine, KV } from '../../src/storage/engine';
import { ok as gqlOk } from '../helpers/graphql';
import { deletionKey, encodeU64Value, historyKeyEntry, indexHistoryKey, indexKey, indexRemovalKey, KeyTag, latestKey, removalKeyEntry, removalKeyTs } from '../../src/storage/keys';
import { concatBytes } from '../../src/storage/tuple';
import { decodeValue, encodeValue } from '../../src/storage/valueCodec';
import { NATIVE_IDS, Ref, type Value } from '../../src/values/types';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'format1');

/** A fresh copy of the format-1 data directory. */
async function fixtureCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flora-format1-'));
  execFileSync('tar', ['-xzf', path.join(FIXTURE, 'data.tgz'), '-C', dir]);
  return dir;
}

/** What the driver answered, as JSON (refs, times and sets in their wire forms). */
const wire = (v: unknown) => JSON.parse(JSON.stringify(v));

/** The old release rendered a ref into a deleted collection by its name; Fauna (and now Flora) leave it out. */
function withoutGone(v: any): any {
  if (Array.isArray(v)) return v.map(withoutGone);
  if (v && typeof v === 'object') {
    const out: any = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'gone') out[k] = withoutGone(x);
    return out;
  }
  return v;
}

describe('a format-1 data directory', () => {
  let expected: any;
  let dir: string;
  let srv: FloraProcess;
  let root: DriverClients;
  before(async () => {
    expected = JSON.parse(await readFile(path.join(FIXTURE, 'expected.json'), 'utf8'));
    dir = await fixtureCopy();
    srv = await startFlora({ dataDir: dir });
    root = clients(srv.url, srv.secret);
  });
  after(async () => {
    await root.close();
    await srv.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('is upgraded on start, saying so', () => {
    assert.match(srv.stderr(), /storage format 1 → 2 \(references by identity\): upgrading/);
    assert.match(srv.stderr(), /storage upgrade: done, \d+ records converted/);
  });

  test('every document, history version and index entry reads as before', async () => {
    for (const c of [root.h2, root.h1]) {
      const ref = (coll: string, id: string) => q.Ref(q.Collection(coll), id);
      const books = expected.refs.books.map((id: string) => ref('books', id));
      const authors = expected.refs.authors.map((id: string) => ref('authors', id));
      assert.deepEqual(wire(await c.query(q.Map(q.Paginate(q.Documents(q.Collection('books'))), q.Lambda('r', q.Get(q.Var('r')))))), withoutGone(expected.documents));
      assert.deepEqual(wire(await c.query(q.Map(q.Paginate(q.Documents(q.Collection('authors'))), q.Lambda('r', q.Get(q.Var('r')))))), expected.authors);
      assert.deepEqual(wire(await c.query(q.Map(books, (r: any) => q.Paginate(q.Events(r))))), withoutGone(expected.events));
      assert.deepEqual(wire(await c.query(q.Map(authors, (a: any) => q.Paginate(q.Match(q.Index('books_by_author'), a))))), expected.byAuthor);
      assert.deepEqual(wire(await c.query(q.Map(authors, (a: any) => q.Paginate(q.Events(q.Match(q.Index('books_by_author'), a)))))), expected.byAuthorEvents);
      assert.deepEqual(wire(await c.query(q.Paginate(q.Match(q.Index('books_by_year_desc'))))), expected.byYear);
      assert.deepEqual(wire(await c.query(q.Paginate(q.Match(q.Index('all_books'))))), expected.allBooks);
      assert.deepEqual(wire(await c.query(q.Paginate(q.Match(q.Index('author_by_name'), 'Butler')))), expected.authorByName);
      assert.deepEqual(wire(await c.query(q.Get(ref('links', expected.refs.link)))), expected.link);
      assert.deepEqual(wire(await c.query(q.Get(q.Select(['data', 'to'], q.Get(ref('links', expected.refs.link)))))), expected.noteViaLink);
      assert.deepEqual(wire(await c.query(q.Get(q.Index('books_by_author')))), expected.index);
      assert.deepEqual(wire(await c.query(q.Get(q.Role('members')))), expected.role);
      assert.deepEqual(wire(await c.query(q.Get(q.Function('title_of')))), expected.fn);
      assert.deepEqual(wire(await c.query(q.Get(q.Ref(q.Keys(), expected.childKey.ref['@ref'].id)))), expected.childKey);
      // The unique index still holds its entries: a duplicate is refused.
      await assert.rejects(c.query(q.Create(q.Collection('authors'), { data: { name: 'Butler' } })), /instance not unique/);
    }
  });

  test('secrets made by the old release still work, and a rename now keeps references', async () => {
    const child = new Client({ secret: expected.secrets.child, endpoint: srv.url });
    const user = new Client({ secret: expected.secrets.token, endpoint: srv.url });
    const keyed = new Client({ secret: expected.secrets.roleKey, endpoint: srv.url });
    try {
      assert.equal(((await child.query(q.Get(q.Ref(q.Collection('notes'), expected.refs.note)))) as any).data.text, 'inside');
      assert.equal(((await user.query(q.CurrentIdentity())) as any).id, expected.refs.user);
      assert.equal(((await keyed.query(q.Paginate(q.Match(q.Index('books_by_author'), q.Ref(q.Collection('authors'), expected.refs.authors[0]))))) as any).data.length, 2);
      await root.h2.query(q.Update(q.Collection('authors'), { name: 'writers' }));
      const book = (await root.h2.query(q.Get(q.Ref(q.Collection('books'), expected.refs.books[0])))) as any;
      assert.equal(book.data.author.collection.id, 'writers');
      assert.equal(((await keyed.query(q.Paginate(q.Match(q.Index('books_by_author'), q.Ref(q.Collection('writers'), expected.refs.authors[0]))))) as any).data.length, 2);
    } finally {
      await Promise.all([child.close(), user.close(), keyed.close()]);
    }
  });

  test('a GraphQL schema imported by the old release answers as before, and through a rename', async () => {
    assert.deepEqual(await gqlOk(srv.url, srv.secret, '{ allGadgets { data { name } } }'), expected.gadgets.data);
    await root.h2.query(q.Update(q.Collection('Gadget'), { name: 'widgets' }));
    await root.h2.query(q.Update(q.Index('allGadgets'), { name: 'every_widget' }));
    assert.deepEqual(await gqlOk(srv.url, srv.secret, '{ allGadgets { data { name } } }'), expected.gadgets.data);
    await gqlOk(srv.url, srv.secret, 'mutation { createGadget(data: { name: "flange" }) { _id } }');
    assert.equal(await root.h2.query(q.Count(q.Documents(q.Collection('widgets')))), 2);
  });

  test('a second start finds the current format and upgrades nothing', async () => {
    srv = await srv.restart();
    await root.close();
    root = clients(srv.url, srv.secret);
    assert.doesNotMatch(srv.stderr(), /storage upgrade/);
    assert.equal(((await root.h2.query(q.Count(q.Documents(q.Collection('books'))))) as number), 4);
  });
});

/** Every key and value of a store, for comparing two of them. */
async function dump(engine: Engine): Promise<string[]> {
  const out: string[] = [];
  for await (const kv of engine.range({ start: Uint8Array.of(0), end: Uint8Array.of(0xff) }))
    out.push(`${Buffer.from(kv.key).toString('hex')}=${Buffer.from(kv.value).toString('hex')}`);
  return out;
}

/** An engine whose `failAt`-th write fails, as if the process died there. */
function dying(engine: Engine, failAt: number): Engine {
  let writes = 0;
  return {
    maxKeySize: engine.maxKeySize,
    get: (k) => engine.get(k),
    range: (o) => engine.range(o) as AsyncIterable<KV>,
    write: (ops) => (++writes === failAt ? Promise.reject(new Error('killed')) : engine.write(ops)),
    close: () => engine.close(),
    shared: engine.shared,
    readHead: (q) => engine.readHead(q),
    exclusive: (q, build) => engine.exclusive(q, build),
    startup: (fn) => engine.startup(fn),
    checkReaders: () => engine.checkReaders(),
    snapshot: () => engine.snapshot(),
    sizeBytes: () => engine.sizeBytes(),
  };
}

describe('the upgrade itself', () => {
  test('resumes where an interrupted run stopped and ends where an uninterrupted one does', async () => {
    const whole = await fixtureCopy();
    const quiet = () => {};
    const reference = await openLmdbEngine(whole);
    await upgradeStorage(reference, quiet);
    assert.equal(await storedFormat(reference), FORMAT_VERSION);
    const want = await dump(reference);
    await reference.close();
    for (const failAt of [1, 2, 3]) {
      const dir = await fixtureCopy();
      const engine = await openLmdbEngine(dir);
      await assert.rejects(upgradeStorage(dying(engine, failAt), quiet), /killed/);
      assert.equal(await storedFormat(engine), 1, 'an interrupted upgrade is not stamped done');
      const lines: string[] = [];
      await upgradeStorage(engine, (l) => lines.push(l));
      assert.ok(failAt === 1 || lines[0].includes('resuming'), lines.join('\n'));
      assert.deepEqual(await dump(engine), want);
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
    await rm(whole, { recursive: true, force: true });
  });

  test('a format newer than this release is refused with a clear message, untouched', async () => {
    const dir = await fixtureCopy();
    const engine = await openLmdbEngine(dir);
    await engine.write([formatRecord(99)]);
    const before = await dump(engine);
    await engine.close();
    const run = spawnSync(process.execPath, [FLORA_BIN, 'start', '--port', '0', '--data-dir', dir], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      new RegExp(`flora: the data directory uses storage format 99, newer than this release knows \\(${FORMAT_VERSION}\\): run the Flora release that wrote it, or a newer one; nothing was changed`),
    );
    const again = await openLmdbEngine(dir);
    assert.deepEqual(await dump(again), before);
    await again.close();
    await rm(dir, { recursive: true, force: true });
  });
});

describe('the upgrade, on index records the fixture lacks', () => {
  // Format 1's ref bytes: tag 9, id, presence flags (1 = has collection), the collection ref untagged.
  const s = (t: string) => [t.length, ...Buffer.from(t)];
  const legacyDocRef = (coll: string, id: string) => [9, ...s(id), 1, ...s(coll), 1, ...s('collections'), 0];
  const version = (fields: Map<string, Value>) => concatBytes(encodeU64Value(1n), Uint8Array.of(0), encodeValue(fields));

  test('an entry known only by its events is re-keyed with them; a deleted index\'s records go', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flora-format1-index-'));
    const engine = await openLmdbEngine(dir);
    try {
      const oldEntry = Uint8Array.of(0x60, 1, 2, 3); // whatever format 1 wrote: the payload decides
      await engine.write([
        { key: latestKey({ db: 0n, coll: NATIVE_IDS.collections, id: 1024n }), value: version(new Map([['name', 'widgets']])) },
        {
          key: latestKey({ db: 0n, coll: NATIVE_IDS.indexes, id: 32768n }),
          value: version(new Map<string, Value>([['name', 'all_widgets'], ['source', Ref.anonymous({ db: 0n, coll: NATIVE_IDS.collections, id: 1024n })]])),
        },
        // A history rewrite's "never existed" current record (no payload), and its one event.
        { key: indexKey(KeyTag.IndexEntry, 0n, 32768, oldEntry), value: concatBytes(encodeU64Value(0n), Uint8Array.of(1)) },
        { key: indexHistoryKey(0n, 32768, oldEntry, 5n), value: Uint8Array.of(0, 7, 3, 7, 0, 7, 0, ...legacyDocRef('widgets', '5')) },
        // Records of an index deleted before the upgrade (its purge had not run).
        { key: indexKey(KeyTag.IndexEntry, 0n, 32769, oldEntry), value: concatBytes(encodeU64Value(1n), Uint8Array.of(0, 7, 0)) },
      ]);
      await upgradeStorage(engine, () => undefined);
      const records = async (tag: number, index: number) => {
        const out: KV[] = [];
        for await (const kv of engine.range({ start: indexKey(tag, 0n, index), end: indexKey(tag, 0n, index + 1) })) out.push(kv);
        return out;
      };
      const [event] = await records(KeyTag.IndexHistory, 32768);
      // Format 3 keeps a removed entry's record apart from the present ones: a removal at its ts.
      assert.deepEqual(await records(KeyTag.IndexEntry, 32768), []);
      const [removal] = await records(KeyTag.IndexRemoval, 32768);
      assert.deepEqual((decodeValue(event.value, 1) as [Value[], Value[], Ref])[2].addr, { db: 0n, coll: 1024, id: 5n });
      assert.deepEqual(Buffer.from(removalKeyEntry(removal.key)), Buffer.from(historyKeyEntry(event.key)), 'the current record moved with its event');
      assert.notDeepEqual(Buffer.from(removalKeyEntry(removal.key)), Buffer.from(oldEntry));
      assert.equal(removalKeyTs(removal.key), 0n, 'removed at the ts of its record');
      assert.deepEqual(await records(KeyTag.IndexEntry, 32769), []);
      assert.equal(await storedFormat(engine), FORMAT_VERSION);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('format 2 → 3: removed index entries kept apart', () => {
  test('removed entries leave the present ones for removal records at their times; present ones stay; a rerun moves nothing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flora-format2-'));
    const engine = await openLmdbEngine(dir);
    try {
      const entry = (n: number) => Uint8Array.of(0x60, n);
      const record = (ts: bigint, action: number, payload: number[] = []) => concatBytes(encodeU64Value(ts), Uint8Array.of(action, ...payload));
      await engine.write([
        formatRecord(2),
        { key: indexKey(KeyTag.IndexEntry, 0n, 32768, entry(1)), value: record(10n, 0, [7]) }, // present since 10
        { key: indexKey(KeyTag.IndexEntry, 0n, 32768, entry(2)), value: record(20n, 1, [7]) }, // removed at 20
        { key: indexKey(KeyTag.IndexEntry, 1n, 32770, entry(3)), value: record(30n, 1) }, // removed at 30, another database
      ]);
      const keys = async (tag: number) => {
        const out: string[] = [];
        for await (const kv of engine.range({ start: Uint8Array.of(tag), end: Uint8Array.of(tag + 1) })) out.push(Buffer.from(kv.key).toString('hex'));
        return out;
      };
      const lines: string[] = [];
      await upgradeStorage(engine, (l) => lines.push(l));
      assert.equal(await storedFormat(engine), FORMAT_VERSION);
      assert.deepEqual(await keys(KeyTag.IndexEntry), [Buffer.from(indexKey(KeyTag.IndexEntry, 0n, 32768, entry(1))).toString('hex')]);
      assert.deepEqual(await keys(KeyTag.IndexRemoval), [
        Buffer.from(indexRemovalKey(0n, 32768, 20n, entry(2))).toString('hex'),
        Buffer.from(indexRemovalKey(1n, 32770, 30n, entry(3))).toString('hex'),
      ]);
      assert.match(lines.join('\n'), /storage format 3: 2 removed index entries moved apart from the present ones/);
      await upgradeStorage(engine, (l) => lines.push(l));
      assert.equal(lines.length, 1, 'a current store is not upgraded again');
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a move interrupted between batches is finished by the next start, each entry moved once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flora-format2-resume-'));
    const engine = await openLmdbEngine(dir);
    try {
      // 2,500 removed entries: three batches of moves, then the format record.
      const removed = [...Array(2500).keys()].map((i) => ({
        key: indexKey(KeyTag.IndexEntry, 0n, 32768, Uint8Array.of(0x60, i >> 8, i & 0xff)),
        value: concatBytes(encodeU64Value(BigInt(i + 1)), Uint8Array.of(1)),
      }));
      await engine.write([formatRecord(2), ...removed]);
      await assert.rejects(upgradeStorage(dying(engine, 2), () => undefined), /killed/);
      assert.equal(await storedFormat(engine), 2, 'not stamped before every entry is moved');
      await upgradeStorage(engine, () => undefined);
      assert.equal(await storedFormat(engine), FORMAT_VERSION);
      const count = async (tag: number) => {
        let n = 0;
        for await (const _ of engine.range({ start: Uint8Array.of(tag), end: Uint8Array.of(tag + 1) })) n++;
        return n;
      };
      assert.deepEqual([await count(KeyTag.IndexEntry), await count(KeyTag.IndexRemoval)], [0, 2500]);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('format 3 → 4: deleted documents kept apart', () => {
  const latest = (ts: bigint, action: number) => concatBytes(encodeU64Value(ts), Uint8Array.of(action));
  const keys = async (engine: Engine, tag: number) => {
    const out: string[] = [];
    for await (const kv of engine.range({ start: Uint8Array.of(tag), end: Uint8Array.of(tag + 1) })) out.push(Buffer.from(kv.key).toString('hex'));
    return out;
  };
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

  test("a user collection's deleted documents leave L for D records at their times; live ones and the schema's deleted ones stay", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flora-format3-'));
    const engine = await openLmdbEngine(dir);
    try {
      const live = { db: 0n, coll: 1024, id: 1n };
      const gone = { db: 0n, coll: 1024, id: 2n };
      const token = { db: 3n, coll: NATIVE_IDS.tokens, id: 9n };
      const schema = { db: 0n, coll: NATIVE_IDS.collections, id: 1025n };
      await engine.write([
        formatRecord(3),
        { key: latestKey(live), value: concatBytes(latest(10n, 0), encodeValue(new Map())) },
        { key: latestKey(gone), value: latest(20n, 2) },
        { key: latestKey(token), value: latest(30n, 2) }, // a logged-out token: not a schema document
        { key: latestKey(schema), value: latest(40n, 2) }, // a deleted collection: the catalog reads it
      ]);
      const lines: string[] = [];
      await upgradeStorage(engine, (l) => lines.push(l));
      assert.equal(await storedFormat(engine), FORMAT_VERSION);
      assert.deepEqual(await keys(engine, KeyTag.Latest), [hex(latestKey(schema)), hex(latestKey(live))]);
      assert.deepEqual(await keys(engine, KeyTag.Deletion), [hex(deletionKey(0n, 1024, 20n, 2n)), hex(deletionKey(3n, NATIVE_IDS.tokens, 30n, 9n))]);
      assert.match(lines.join('\n'), /storage format 4: 2 deleted documents moved apart from the live ones/);
      await upgradeStorage(engine, (l) => lines.push(l));
      assert.equal(lines.length, 1, 'a current store is not upgraded again');
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a move interrupted between batches is finished by the next start, each document moved once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flora-format3-resume-'));
    const engine = await openLmdbEngine(dir);
    try {
      // 2,500 deleted documents: three batches of moves, then the format record.
      const deleted = [...Array(2500).keys()].map((i) => ({ key: latestKey({ db: 0n, coll: 1024, id: BigInt(i + 1) }), value: latest(BigInt(i + 1), 2) }));
      await engine.write([formatRecord(3), ...deleted]);
      await assert.rejects(upgradeStorage(dying(engine, 2), () => undefined), /killed/);
      assert.equal(await storedFormat(engine), 3, 'not stamped before every document is moved');
      await upgradeStorage(engine, () => undefined);
      assert.equal(await storedFormat(engine), FORMAT_VERSION);
      assert.deepEqual([(await keys(engine, KeyTag.Latest)).length, (await keys(engine, KeyTag.Deletion)).length], [0, 2500]);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
