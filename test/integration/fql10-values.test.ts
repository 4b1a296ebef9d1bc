// FQL v10 values against the core through the official `fauna` driver: equality of documents and
// null (ValueCmp.isEqual), Int and Long kept apart on the wire and in storage, `Coll.all(range)`,
// and how documents print (ToString.scala).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fql, type QueryValue, type TimeStub } from 'fauna';
import { httpRequest, startFlora, type FloraProcess } from '../helpers/server';
import { serviceFailure } from '../helpers/v10';

let flora: FloraProcess;
let client: Client;

before(async () => {
  flora = await startFlora();
  client = new Client({ secret: flora.secret, endpoint: new URL(flora.url), max_attempts: 1 });
  await client.query(fql`Collection.create({ name: "Vals" })`);
  await client.query(fql`Collection.create({ name: "Gone" })`);
  await client.query(fql`[1, 2, 3, 4, 5].forEach(i => Vals.create({ id: (100 + i).toString(), n: i }))`);
});

after(async () => {
  client?.close();
  await flora?.stop();
});

const run = async <T extends QueryValue>(q: ReturnType<typeof fql>): Promise<T> => (await client.query<T>(q)).data;

describe('equality of documents and null (ValueCmp.isEqual)', () => {
  test('a missing document equals null on either side; a live one does not', async () => {
    assert.deepEqual(
      await run(fql`[Vals.byId("999") == null, null == Vals.byId("999"), null != Vals.byId("999"), null == Vals.byId("101"), Vals.byId("101") != null]`),
      [true, true, false, false, true],
    );
  });

  test('inside arrays and objects, and for native documents', async () => {
    assert.deepEqual(
      await run(fql`[[null] == [Vals.byId("999")], { a: Vals.byId("999") } == { a: null }, [null] == [Vals.byId("101")], null == Collection.byName("Nope"), null == Collection.byName("Vals")]`),
      [true, true, false, true, false],
    );
  });

  test('documents equal by collection and id, whenever read', async () => {
    assert.deepEqual(
      await run(fql`[Vals.byId("101") == Vals.byId("101"), Vals.byId("101") == Vals.byId("102"), Vals.byId("101") == Vals.all().first(), Vals.byId("101") == "101", Collection.byName("Vals") == Collection.byName("Vals")]`),
      [true, false, true, false, true],
    );
  });
});

describe('Coll.all(range) (CollectionIndexMethod.collectRange on document ids)', () => {
  test('from and to by document, ID, number or string, inclusive; either alone', async () => {
    const ids = (q: ReturnType<typeof fql>) => run<string[]>(fql`${q}.map(.id).toArray()`);
    const expected = ['102', '103', '104'];
    assert.deepEqual(await ids(fql`Vals.all({ from: Vals.byId("102"), to: Vals.byId("104") })`), expected);
    assert.deepEqual(await ids(fql`Vals.all({ from: Vals.byId("102")!.id, to: Vals.byId("104")!.id })`), expected);
    assert.deepEqual(await ids(fql`Vals.all({ from: "102", to: "104" })`), expected);
    assert.deepEqual(await ids(fql`Vals.all({ from: 102, to: 104 })`), expected);
    assert.deepEqual(await ids(fql`Vals.all({ from: 104 })`), ['104', '105']);
    assert.deepEqual(await ids(fql`Vals.all({ to: 102 })`), ['101', '102']);
    assert.deepEqual(await ids(fql`Vals.all({ from: 102, to: 104 }).reverse()`), ['104', '103', '102']);
  });

  test('pages of a range stay in it', async () => {
    const first = await run<{ data: { id: string }[]; after?: string }>(fql`Vals.all({ from: 102, to: 104 }).pageSize(2)`);
    assert.deepEqual(first.data.map((d) => d.id), ['102', '103']);
    const rest = await run<{ data: { id: string }[]; after?: string }>(fql`Set.paginate(${first.after!})`);
    assert.deepEqual(rest.data.map((d) => d.id), ['104']);
    assert.equal(rest.after, undefined);
  });

  test('native collections take the same range (the static environment lists all(range) on each)', async () => {
    await run(fql`["Ra", "Rb", "Rc"].forEach(n => Role.create({ name: n }))`);
    assert.deepEqual(await run(fql`Role.all({ from: Role.byName("Rb") }).map(.name).toArray()`), ['Rb', 'Rc']);
    assert.deepEqual(await run(fql`Role.all({ to: Role.byName("Rb") }).map(.name).toArray()`), ['Ra', 'Rb']);
    assert.deepEqual(await run(fql`Collection.all({ from: Collection.byName("Gone") }).map(.name).toArray()`), ['Gone']);
    const keys = await run<string[]>(fql`[1, 2, 3].map(_ => Key.create({ role: "admin" }).id)`);
    assert.deepEqual(await run(fql`Key.all({ from: ${keys[1]}, to: Key.byId(${keys[2]}) }).map(.id).toArray()`), keys.slice(1));
    const page = await run<{ data: { name: string }[]; after?: string }>(fql`Role.all({ from: "0" }).pageSize(1)`);
    const rest = await run<{ data: { name: string }[] }>(fql`Set.paginate(${page.after!})`);
    assert.deepEqual([...page.data, ...rest.data].map((r) => r.name).slice(0, 2), ['Ra', 'Rb']);
  });

  test('index methods: prefixes of the covered values, an array the single value, other fields ignored', async () => {
    await run(fql`Collection.create({ name: "Ix", indexes: { byA: { terms: [{ field: ".t" }], values: [{ field: ".a" }, { field: ".b" }] }, byX: { values: [{ field: ".x" }] } } })`);
    await run(fql`[[1, 1], [1, 2], [2, 1], [2, 2], [3, 1]].forEach(v => Ix.create({ t: "k", a: v[0], b: v[1], x: v }))`);
    assert.deepEqual(await run(fql`Ix.byA("k", { from: [2, 2], to: 3, other: 1 }).map(d => [d.a, d.b]).toArray()`), [[2, 2], [3, 1]]);
    assert.deepEqual(await run(fql`Ix.byX({ from: [2], to: [2] }).map(.x).toArray()`), [[2, 1], [2, 2]]);
    const msg = async (q: ReturnType<typeof fql>) => (await serviceFailure(client.query(q))).message;
    assert.equal(await msg(fql`Ix.byA("k", { from: [1, 2, 3] })`), 'invalid argument `range`: The field `from` can have at most 2 values');
    assert.equal(await msg(fql`Ix.byA("k", { to: x => x })`), 'invalid argument `range`: The `to` field should be either an indexable value or an array of values');
    assert.equal(await msg(fql`Ix.byA("k", {})`), 'invalid argument `range`: should be an object contining `{ from }`, `{ to }`, or `{ from, to }` fields');
  });

  test('bad bounds fail with the core messages', async () => {
    assert.equal((await serviceFailure(client.query(fql`Vals.all({ from: "foo" })`))).message, 'invalid argument `range`: The `from` field must be a document id.');
    assert.equal(
      (await serviceFailure(client.query(fql`Vals.all({ other: 1 })`))).message,
      'invalid argument `range`: should be an object contining `{ from }`, `{ to }`, or `{ from, to }` fields',
    );
  });
});

describe('Int and Long on the wire and in storage', () => {
  let big: Client;
  before(() => {
    big = new Client({ secret: flora.secret, endpoint: new URL(flora.url), max_attempts: 1, long_type: 'bigint' });
  });
  after(() => big?.close());

  test('an @long argument comes back @long (the driver decodes @long to a bigint, @int to a number)', async () => {
    const res = await httpRequest(flora.url, {
      method: 'POST',
      path: '/query/1',
      headers: { authorization: `Bearer ${flora.secret}`, 'content-type': 'application/json', 'x-format': 'tagged' },
      body: JSON.stringify({ query: '[x, x + 1, -x, x isa Long]', arguments: { x: { '@long': '5' } } }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body).data, [{ '@long': '5' }, { '@int': '6' }, { '@long': '-5' }, true]);
    assert.deepEqual((await big.query(fql`[Math.round(5, 0), 2147483647 + 1, 7]`)).data, [5n, 2147483648n, 7]);
  });

  test('storage has one integer type (LongV): a Long read back is an Int when it fits, else a Long', async () => {
    const doc = (await big.query<{ id: string }>(fql`Vals.create({ small: Math.round(5, 0), large: 5000000000 })`)).data;
    assert.deepEqual((await big.query(fql`let d = Vals.byId(${doc.id})!; [d.small, d.large, d.large isa Long, d.small isa Int]`)).data, [5, 5000000000n, true, true]);
  });
});

describe('how values print (ToString.scala) and Collection.Deleted', () => {
  test('a document prints its fields; one inside them its reference; a missing one null (FQL2ToStringSpec)', async () => {
    assert.equal(await run(fql`Object.toString(Vals.create({ id: "3" }))`), '{ id: ID("3"), coll: Vals, ts: TransactionTime() }');
    const ts = await run<string>(fql`Vals.create({ id: "9999", x: "a", self: Vals.byId("9999") }).ts`);
    assert.ok(ts !== undefined);
    const printed = await run<string>(fql`Object.toString(Vals.byId("9999"))`);
    assert.match(printed, /^\{ id: ID\("9999"\), coll: Vals, ts: Time\("[^"]+"\), x: "a", self: \[doc 9999 in Vals\] \}$/);
    assert.equal(await run(fql`"#{Vals.byId("404")}"`), 'null');
    assert.equal(await run(fql`"n: " + [Vals.byId("3")!.id, Vals.byId("404")].toString()`), 'n: [ID("3"), null]');
    assert.match(await run<string>(fql`"#{Collection.byName("Vals")}"`), /^\{ name: "Vals", coll: Collection, ts: Time\("[^"]+"\)(, history_days: \d+)? \}$/);
    assert.equal(await run(fql`Object.toString(Vals.all()) + Object.toString(Math) + Object.toString(Math.abs) + Vals.toString()`), '[set]Math[function abs()]Vals');
  });

  test('a reference into a deleted collection is Collection.Deleted (FQL2ValueDecoratedSpec)', async () => {
    const id = await run<string>(fql`Vals.create({ other: Gone.create({ id: "77" }) }).id`);
    await run(fql`Collection.byName("Gone")!.delete()`);
    const res = await httpRequest(flora.url, {
      method: 'POST',
      path: '/query/1',
      headers: { authorization: `Bearer ${flora.secret}`, 'content-type': 'application/json', 'x-format': 'decorated' },
      body: JSON.stringify({ query: `Vals.byId("${id}")!.other` }),
    });
    assert.equal(JSON.parse(res.body).data, 'Collection.Deleted("77") /* collection deleted */');
    const tagged = await httpRequest(flora.url, {
      method: 'POST',
      path: '/query/1',
      headers: { authorization: `Bearer ${flora.secret}`, 'content-type': 'application/json', 'x-format': 'tagged' },
      body: JSON.stringify({ query: `[Vals.byId("${id}")!, Collection.Deleted]` }),
    });
    const [doc, deleted] = JSON.parse(tagged.body).data;
    assert.deepEqual(doc['@doc'].other, { '@ref': { id: '77', coll: { '@mod': 'Deleted' } } });
    assert.deepEqual(deleted, { '@mod': 'Deleted' });
    assert.deepEqual(await run(fql`[Vals.byId(${id})!.other isa Collection.Deleted, Object.toString(Collection.Deleted)]`), [false, 'Collection.Deleted']);
  });
});

describe('at (ts) reads native documents as of that time', () => {
  test('Function, Collection, Role and Key documents show what they were; a deleted one still exists then', async () => {
    await run(fql`Function.create({ name: "then", body: "x => x" }); Role.create({ name: "r1", data: { v: 1 } }); Collection.create({ name: "Old", alias: "A1" })`);
    const key = await run<{ id: string }>(fql`Key.create({ role: "admin", data: { v: 1 } })`);
    const t0 = await run<TimeStub>(fql`Time.now()`);
    await run(fql`Function.byName("then")!.update({ body: "x => x + 1" }); Role.byName("r1")!.update({ data: { v: 2 } }); Collection.byName("Old")!.update({ alias: "A2" }); Key.byId(${key.id})!.update({ data: { v: 2 } })`);
    await run(fql`Function.byName("then")!.delete()`);
    const past = await run<QueryValue[]>(fql`at (${t0}) {
      [Function.byName("then")!.body, Role.byName("r1")!.data.v, Collection.byName("Old")!.alias, Key.byId(${key.id})!.data.v, Function.byName("then").exists()]
    }`);
    assert.deepEqual(past, ['x => x', 1, 'A1', 1, true]);
    assert.deepEqual(await run(fql`(at (${t0}) Role.byName("r1"))!.data.v`), 1);
    assert.deepEqual(await run(fql`[Function.byName("then").exists(), Role.byName("r1")!.data.v, Collection.byName("Old")!.alias, Key.byId(${key.id})!.data.v]`), [false, 2, 'A2', 2]);
  });
});
