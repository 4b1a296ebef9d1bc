// /query/1 as the core's FQL2Endpoint answers it, through the official `fauna` driver and plain
// HTTP: constraint failures that name the constraint that failed (unique: its fields; a v4 unique
// index: its name in the summary; check: its name in the message), performance hints in the summary
// with x-performance-hints (full_set_read, collection_scan: exact text and spans), the response
// headers (none of v4's), and x-linearized accepted (a bad value refused as the core refuses it).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConstraintFailureError, fql, ServiceError } from 'fauna';
import faunadb, { query as q } from 'faunadb';
import { httpRequest, startFlora, type FloraProcess, type RawResponse } from '../helpers/server';
import { serviceFailure } from '../helpers/v10';

let flora: FloraProcess;
let client: Client;

function postTo(server: FloraProcess, query: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return httpRequest(server.url, {
    method: 'POST',
    path: '/query/1',
    headers: { authorization: `Bearer ${server.secret}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
}

before(async () => {
  flora = await startFlora();
  client = new Client({ secret: flora.secret, endpoint: new URL(flora.url), max_attempts: 1 });
});

after(async () => {
  client?.close();
  await flora?.stop();
});

function post(query: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return postTo(flora, query, headers);
}

const constraintFailure = (work: Promise<unknown>) => serviceFailure(work, ConstraintFailureError);

describe('constraint failures name the constraint that failed', () => {
  before(async () => {
    await client.query(fql`Collection.create({
      name: "Book",
      constraints: [
        { unique: ["isbn"] },
        { unique: ["name"] },
        { unique: [{ field: "name" }, { field: "address.city" }] },
        { check: { name: "recent", body: "(b) => b.year == null || b.year > 1400" } },
        { check: { name: "titled", body: "(b) => b.name != \\"\\"" } }
      ]
    })`);
    await client.query(fql`Book.create({ isbn: "i-1", name: "TestBook", address: { city: "Ohio" } })`);
  });

  test('a second document with the same name fails both constraints on name, not the first of the collection', async () => {
    // FQL2CollectionsSpec "unique constraints ... simple and complex format": both failures, in order.
    const text = `Book.create({
  name: "TestBook",
  address: { city: "Ohio" }
})`;
    const res = await post(text);
    assert.equal(res.status, 400);
    const body = JSON.parse(res.body);
    assert.deepEqual(body.error, {
      code: 'constraint_failure',
      message: 'Failed unique constraint.',
      constraint_failures: [
        { paths: [['name']], message: 'Failed unique constraint' },
        { paths: [['name'], ['address', 'city']], message: 'Failed unique constraint' },
      ],
    });
    assert.equal(
      body.summary,
      `error: Failed unique constraint.
constraint failures:
  name: Failed unique constraint
  name,address.city: Failed unique constraint
at *query*:1:12
  |
1 |   Book.create({
  |  ____________^
2 | |   name: "TestBook",
3 | |   address: { city: "Ohio" }
4 | | })
  | |__^
  |`,
    );
  });

  test('the driver sees the one constraint that failed', async () => {
    const e = await constraintFailure(client.query(fql`Book.create({ isbn: "i-1", name: "Other" })`));
    assert.deepEqual(e.constraint_failures, [{ paths: [['isbn']], message: 'Failed unique constraint' }]);
  });

  test('a v4 unique index: no paths, its name in the summary (FQL4UniqueConstraintFailure)', async () => {
    const url = new URL(flora.url);
    const v4 = new faunadb.Client({ secret: flora.secret, domain: url.hostname, port: Number(url.port), scheme: 'http' });
    try {
      await v4.query(q.CreateIndex({ name: 'TestIndex', source: q.Collection('Book'), terms: [{ field: ['data', 'b'] }], unique: true }));
    } finally {
      await v4.close();
    }
    const res = await post('Book.create({ b: "x" })\nBook.create({ b: "x" })');
    const body = JSON.parse(res.body);
    assert.deepEqual(body.error.constraint_failures, [{ paths: [], message: 'Failed unique constraint' }]);
    assert.match(body.summary, /^error: Failed unique constraint\.\nconstraint failures:\n {2}TestIndex: Failed unique constraint\nat \*query\*:2:12\n/);
  });

  test('check constraints: each failed one by name, no paths, in the summary without a label', async () => {
    const e = await constraintFailure(client.query(fql`Book.create({ isbn: "i-2", name: "", year: 1200 })`));
    assert.equal(e.message, 'Failed to create document in collection `Book`.');
    assert.deepEqual(e.constraint_failures, [
      { paths: [], message: 'Document failed check constraint `recent`' },
      { paths: [], message: 'Document failed check constraint `titled`' },
    ]);
    assert.match(
      e.queryInfo?.summary ?? '',
      /^error: Failed to create document in collection `Book`\.\nconstraint failures:\n {2}Document failed check constraint `recent`\n {2}Document failed check constraint `titled`\nat \*query\*:1:12\n/,
    );
  });
});

describe('x-performance-hints', () => {
  before(async () => {
    await client.query(fql`Collection.create({ name: "TestColl" })`);
  });

  async function summaryOf(query: string, hints = 'true'): Promise<string> {
    const res = await post(query, { 'x-performance-hints': hints });
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body).summary;
  }

  const fullSetRead = (method: string) =>
    `full_set_read - Using ${method}() causes the full set to be read. See https://docs.fauna.com/performance_hint/full_set_read.`;

  test('collection_scan on where and firstWhere (FQL2DiagnosticRenderingSpec)', async () => {
    assert.equal(
      await summaryOf("TestColl.firstWhere(.name == 'test')"),
      `performance_hint: collection_scan - Using firstWhere() on collection TestColl can cause a read of every document. See https://docs.fauna.com/performance_hint/collection_scan.
at *query*:1:20
  |
1 | TestColl.firstWhere(.name == 'test')
  |                    ^^^^^^^^^^^^^^^^^
  |`,
    );
    assert.equal(
      await summaryOf("TestColl.where(.name == 'test')"),
      `performance_hint: collection_scan - Using where() on collection TestColl can cause a read of every document. See https://docs.fauna.com/performance_hint/collection_scan.
at *query*:1:15
  |
1 | TestColl.where(.name == 'test')
  |               ^^^^^^^^^^^^^^^^^
  |`,
    );
  });

  test('full_set_read on the methods that read a whole storage set, at the span of their arguments (FQL2DiagnosticSpec)', async () => {
    const cases: [string, string, number, number][] = [
      ['TestColl.all().order(.name)', 'order', 20, 27],
      ['TestColl.all().map(v => { name: v.name }).order(.name)', 'order', 47, 54],
      ['[{ name: "a" }, { name: "b" }].toSet().concat(TestColl.all()).map(v => { name: v.name }).order(.name)', 'order', 94, 101],
      ['TestColl.all().map(.num).aggregate(0, (a, b) => a + b)', 'aggregate', 34, 54],
      ['TestColl.all().distinct()', 'distinct', 23, 25],
      ['TestColl.all().count()', 'count', 20, 22],
      ['TestColl.all().map(.name).includes("test_name")', 'includes', 34, 47],
      ['TestColl.all().map(.name).reduce((s, v) => s.name)', 'reduce', 32, 50],
      ['TestColl.all().map(.name).reduceRight((s, v) => s.name)', 'reduceRight', 37, 55],
      ['TestColl.all().toArray()', 'toArray', 22, 24],
    ];
    for (const [query, method, start, end] of cases) {
      const summary = await summaryOf(query);
      const carets = `${' '.repeat(start)}${'^'.repeat(end - start)}`;
      assert.equal(summary, `performance_hint: ${fullSetRead(method)}\nat *query*:1:${start + 1}\n  |\n1 | ${query}\n  | ${carets}\n  |`, query);
    }
  });

  test('none where the set is bounded or read lazily, nor without the header', async () => {
    for (const query of ['TestColl.all().last()', 'TestColl.all().lastWhere(.name == "test_name")', 'TestColl.all().reverse()', 'TestColl.all().take(10).order(.name)', '[1, 2].toSet().count()'])
      assert.equal(await summaryOf(query), '', query);
    assert.equal(await summaryOf('TestColl.all().count()', 'false'), '');
    const plain = await post('TestColl.all().count()');
    assert.equal(JSON.parse(plain.body).summary, '');
  });

  test('a hint earned twice at one place is listed once, after the logs', async () => {
    const summary = await summaryOf('[1, 2].map(_ => TestColl.all().count())\nlog("done")');
    assert.equal(summary, `info at *query*:2: done\n\nperformance_hint: ${fullSetRead('count')}\nat *query*:1:37\n  |\n1 | [1, 2].map(_ => TestColl.all().count())\n  |                                     ^^\n  |`);
  });

  test('the driver asks for them with performance_hints', async () => {
    const res = await client.query(fql`TestColl.all().toArray()`, { performance_hints: true });
    assert.match(res.summary ?? '', /^performance_hint: full_set_read - Using toArray\(\)/);
  });

  test('a bad value is refused (FQL2DiagnosticRenderingSpec)', async () => {
    const res = await post('1 + 1', { 'x-performance-hints': 'invalid_entry' });
    assert.equal(res.status, 400);
    assert.deepEqual(JSON.parse(res.body).error, { code: 'invalid_request', message: "Invalid header 'x-performance-hints': Must be a boolean value." });
  });
});

describe('response headers', () => {
  const V4_ONLY = ['x-txn-time', 'x-compute-ops', 'x-byte-read-ops', 'x-byte-write-ops', 'x-query-time', 'x-query-bytes-in', 'x-query-bytes-out', 'x-storage-bytes-read', 'x-storage-bytes-write', 'x-txn-retries', 'x-fauna-tags'];

  test('a v10 answer carries what the core sends and none of v4\'s headers', async () => {
    for (const [query, status] of [['1 + 1', 200], ['abort(1)', 400], ['1 +', 400]] as const) {
      const res = await post(query, { 'x-query-tags': 'a=b' });
      assert.equal(res.status, status, res.body);
      for (const h of V4_ONLY) assert.equal(res.headers[h], undefined, `${query}: ${h}`);
      assert.equal(res.headers['content-type'], 'application/json;charset=utf-8');
      assert.match(res.headers['x-faunadb-build'] ?? '', /\S/);
      assert.match(res.headers.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      // What v4 put in headers is in the body.
      const body = JSON.parse(res.body);
      assert.equal(typeof body.txn_ts, 'number');
      assert.equal(body.query_tags, 'a=b');
    }
    const refused = await httpRequest(flora.url, { method: 'POST', path: '/query/1', headers: { authorization: 'Bearer nope' }, body: '{"query":"1"}' });
    assert.equal(refused.status, 401);
    for (const h of V4_ONLY) assert.equal(refused.headers[h], undefined, `401: ${h}`);
    assert.equal(refused.headers['www-authenticate'], 'Bearer');
  });

  test('v4 keeps its headers', async () => {
    const res = await httpRequest(flora.url, { method: 'POST', path: '/', headers: { authorization: `Bearer ${flora.secret}` }, body: '1' });
    assert.match(res.headers['x-txn-time'] ?? '', /^\d+$/);
    assert.match(res.headers['x-compute-ops'] ?? '', /^\d+$/);
  });
});

describe('x-linearized', () => {
  test('accepted on reads and writes, through the driver and plain HTTP', async () => {
    const linear = new Client({ secret: flora.secret, endpoint: new URL(flora.url), max_attempts: 1, linearized: true });
    try {
      const doc = await linear.query<{ id: string }>(fql`TestColl.create({ name: "lin" })`);
      assert.equal((await linear.query(fql`TestColl.byId(${doc.data.id})!.name`)).data, 'lin');
    } finally {
      linear.close();
    }
    for (const v of ['true', 'false', 'TRUE']) assert.equal((await post('1 + 1', { 'x-linearized': v })).status, 200, v);
  });

  test('a bad value is refused as the core refuses it (RequestParams.Linearized)', async () => {
    const res = await post('1 + 1', { 'x-linearized': 'yes' });
    assert.equal(res.status, 400);
    assert.deepEqual(JSON.parse(res.body).error, { code: 'invalid_request', message: "Invalid header 'x-linearized': Must be a boolean value." });
    await assert.rejects(
      () => client.query(fql`1`, { linearized: 'yes' as unknown as boolean }),
      (e: unknown) => e instanceof ServiceError && e.code === 'invalid_request',
    );
  });
});

describe('x-linearized on a tier that trades freshness for reads (--max-staleness-ms)', () => {
  let tier: FloraProcess;
  before(async () => {
    tier = await startFlora({ args: ['--workers', '2', '--max-staleness-ms', '60000'] });
    assert.equal((await postTo(tier, 'Collection.create({ name: "Counter" })', { 'x-linearized': 'true' })).status, 200);
  });
  after(() => tier?.stop());

  test('a linearized read sees every write acknowledged before it, whichever worker answers', async () => {
    // Each request on a fresh connection: the workers take turns. Without x-linearized the worker
    // that did not commit answers from a snapshot up to a minute old.
    for (let i = 1; i <= 8; i++) {
      assert.equal((await postTo(tier, `Counter.create({ n: ${i} }).n`, { 'x-linearized': 'true' })).status, 200);
      const read = await postTo(tier, 'Counter.all().count()', { 'x-linearized': 'true' });
      assert.equal(JSON.parse(read.body).data, i, read.body);
    }
  });
});

describe('Database as fauna-shell 4 uses it', () => {
  test('a name that is no identifier is refused (ValidIdentifierValidator); v4 keeps its own rules', async () => {
    const e = await constraintFailure(client.query(fql`Database.create({ name: "1bad" })`));
    assert.equal(e.message, 'Failed to create Database.');
    assert.deepEqual(e.constraint_failures, [{ paths: [['name']], message: 'Invalid identifier.' }]);
    const url = new URL(flora.url);
    const v4 = new faunadb.Client({ secret: flora.secret, domain: url.hostname, port: Number(url.port), scheme: 'http' });
    try {
      assert.equal(await v4.query(q.Select('name', q.CreateDatabase({ name: '1ok_in_v4' }))), '1ok_in_v4');
    } finally {
      await v4.close();
    }
  });

  test('typechecked and protected are kept and shown, in v10 and v4', async () => {
    const made = await client.query(fql`Database.create({ name: "flags", typechecked: false, protected: true, priority: 2 }) { name, priority, typechecked, protected }`);
    assert.deepEqual(made.data, { name: 'flags', priority: 2, typechecked: false, protected: true });
    const bad = await constraintFailure(client.query(fql`Database.byName("flags")!.update({ protected: "yes" })`));
    assert.equal(bad.message, 'Failed to update Database `flags`.');
    const res = await httpRequest(flora.url, { method: 'POST', path: '/', headers: { authorization: `Bearer ${flora.secret}` }, body: '{"get":{"database":"flags"}}' });
    const shown = JSON.parse(res.body).resource;
    assert.deepEqual([shown.priority, shown.typechecked, shown.protected], [2, false, true]);
  });

  test('writing a named document that does not exist is document_not_found, as the core answers', async () => {
    for (const [module, what] of [['Database', 'Database'], ['Role', 'Role'], ['Function', 'Function']]) {
      for (const call of ['delete()', 'update({ data: { a: 1 } })']) {
        const res = await post(`${module}.byName("nope").${call}`);
        assert.equal(res.status, 400);
        assert.deepEqual(JSON.parse(res.body).error, { code: 'document_not_found', message: `${what} \`nope\` not found.` }, `${module} ${call}`);
      }
    }
  });
});

describe('x-performance-hints: non_covered_document_read', () => {
  before(async () => {
    await client.query(fql`Collection.create({ name: "Books", indexes: { byAuthor: { terms: [{ field: ".author" }], values: [{ field: ".title" }] } } })`);
    await client.query(fql`Set.sequence(0, 4).forEach(_ => Books.create({ title: "Dawnshard", author: "test", category: "fantasy", price: 100 }))`);
  });

  const hint = (text: string, query: string, start: number, end: number) =>
    `performance_hint: non_covered_document_read - ${text}. See https://docs.fauna.com/performance_hint/non_covered_document_read.\nat *query*:1:${start + 1}\n  |\n1 | ${query}\n  | ${' '.repeat(start)}${'^'.repeat(end - start)}\n  |`;

  async function summaryOf(query: string): Promise<string> {
    const res = await post(query, { 'x-performance-hints': 'true' });
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body).summary;
  }

  test('whole documents returned from an index set: once, at the index call (FQL2DiagnosticSpec)', async () => {
    for (const query of ['Books.byAuthor("test")', 'Books.byAuthor("test").first()'])
      assert.equal(await summaryOf(query), hint('Full documents returned from Books.byAuthor', query, 14, 22), query);
  });

  test('fields the index does not hold, at each field read; terms and values are held', async () => {
    const query = 'Books.byAuthor("test").first() { price, category }';
    assert.equal(
      await summaryOf(query),
      [hint('.price is not covered by the Books.byAuthor index', query, 33, 38), hint('.category is not covered by the Books.byAuthor index', query, 40, 48)].join('\n\n'),
    );
    assert.equal(await summaryOf('Books.byAuthor("test").first() { title, author, id, ts }'), '');
    assert.equal(await summaryOf('Books.byAuthor("test").take(5).map(.title).toArray()'), '');
    assert.equal(await summaryOf('Books.byAuthor("test").first()!.price'), hint('.price is not covered by the Books.byAuthor index', 'Books.byAuthor("test").first()!.price', 32, 37));
  });

  test('nested fields: a struct the index holds part of is followed to the field it lacks, or hinted when returned whole (FQL2DiagnosticSpec)', async () => {
    await client.query(fql`Collection.create({ name: "PartColl", indexes: { testIndex: { terms: [{ field: ".test_term" }], values: [{ field: ".foo.a.test_1" }] } } })
      Collection.create({ name: "WholeColl", indexes: { testIndex: { terms: [{ field: ".test_term" }], values: [{ field: ".foo.a" }] } } })`);
    await client.query(fql`[PartColl, WholeColl].forEach(c => c.create({ test_term: "t0", foo: { a: { test_1: "t1", test_2: "t2", test_3: "t3" } } }))`);
    const at = (query: string, field: string, from = 0): [number, number] => {
      const i = query.indexOf(field, from);
      return [i, i + field.length];
    };
    const lacks = (path: string, query: string, [start, end]: [number, number]) => hint(`${path} is not covered by the PartColl.testIndex index`, query, start, end);
    for (const prefix of ['', '.data']) {
      const query = `PartColl.testIndex("t0").first() { test_1: ${prefix}.foo.a.test_1, test_2: ${prefix}.foo.a.test_2, test_3: ${prefix}.foo.a.test_3 }`;
      assert.equal(await summaryOf(query), [lacks('.foo.a.test_2', query, at(query, 'test_2', query.indexOf('.test_2'))), lacks('.foo.a.test_3', query, at(query, 'test_3', query.indexOf('.test_3')))].join('\n\n'), query);
    }
    const whole = 'PartColl.testIndex("t0").first()!.foo.a';
    assert.equal(await summaryOf(whole), lacks('.foo.a', whole, [whole.length - 1, whole.length]));
    const hydrated = 'let doc = PartColl.testIndex("t0").first()!; if (doc.foo.a.test_3 != null) { doc.foo.a }';
    assert.equal(
      await summaryOf(hydrated),
      [lacks('.foo.a.test_3', hydrated, at(hydrated, 'test_3')), lacks('.foo.a', hydrated, [hydrated.length - 3, hydrated.length - 2])].join('\n\n'),
    );
    // An index holding `.foo.a` holds all of it.
    assert.equal(await summaryOf(hydrated.replace('PartColl', 'WholeColl')), '');
  });

  test('none for documents read by id, nor without the header', async () => {
    assert.equal(await summaryOf('Books.all().first()!.price'), '');
    const plain = await post('Books.byAuthor("test").first() { price }');
    assert.equal(JSON.parse(plain.body).summary, '');
  });
});
