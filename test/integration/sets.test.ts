// Set algebra, set shapes and aggregates through the official driver (fql-v4.md §3.3, §3.4, §5.4).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { Expr, query as q, values } from 'faunadb';
import { startFlora, clients, httpRequest, type FloraProcess, type DriverClients } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let c: DriverClients;

const A = (id: number | string) => q.Ref(q.Collection('sa'), String(id));
const B = (id: number | string) => q.Ref(q.Collection('sb'), String(id));
const docsA = () => q.Documents(q.Collection('sa'));
const docsB = () => q.Documents(q.Collection('sb'));
// The driver (4.8) has no First/Last helpers: build the wire forms directly.
const First = (x: unknown) => new Expr({ first: x as object });
const Last = (x: unknown) => new Expr({ last: x as object });

before(async () => {
  srv = await startFlora();
  c = clients(srv.url, srv.secret);
  await c.h2.query(q.Do(q.CreateCollection({ name: 'sa' }), q.CreateCollection({ name: 'sb' }), q.CreateCollection({ name: 'empty' }), q.CreateCollection({ name: 'big' })));
  // sa/1..5: n = 10·i, flag = even, k = x for 1..3 else y. sb/3..7: owner = sa/(i-2).
  for (let i = 1; i <= 5; i++) {
    await c.h2.query(q.Create(A(i), { data: { n: i * 10, flag: i % 2 === 0, k: i <= 3 ? 'x' : 'y' } }));
    await c.h2.query(q.Create(B(i + 2), { data: { owner: A(i), m: i } }));
  }
  // big/1..2000, written 250 per transaction.
  for (let start = 1; start <= 2000; start += 250) {
    const batch = Array.from({ length: 250 }, (_, j) => [String(start + j), start + j]);
    await c.h2.query(q.Foreach(batch, q.Lambda(['id', 'i'], q.Create(q.Ref(q.Collection('big'), q.Var('id')), { data: { i: q.Var('i') } }))));
  }
});
after(async () => {
  await c.close();
  await srv.stop();
});


async function raw(body: unknown): Promise<unknown> {
  const res = await httpRequest(srv.url, { method: 'POST', path: '/', headers: { authorization: `Bearer ${srv.secret}` }, body: JSON.stringify(body) });
  return JSON.parse(res.body);
}

type Page = { data: unknown[]; after?: unknown[]; before?: unknown[] };
const query = (expr: unknown) => c.h2.query(expr as faunadb.ExprArg);
const page = async (expr: unknown) => (await query(expr)) as Page;

/** A ref as "collection/id"; other values as they are. */
function show(v: unknown): unknown {
  if (v instanceof values.Ref) return `${v.collection?.id}/${v.id}`;
  if (Array.isArray(v)) return v.map(show);
  return v;
}
const data = async (expr: unknown) => show((await page(expr)).data);
const cursor = (p: Page, k: 'after' | 'before') => show(p[k]);

describe('union, intersection, difference', () => {
  test('Union merges sets in ref order and keeps each entry once', async () => {
    assert.deepEqual(await data(q.Paginate(q.Union(docsA(), docsB()))), ['sa/1', 'sa/2', 'sa/3', 'sb/3', 'sa/4', 'sb/4', 'sa/5', 'sb/5', 'sb/6', 'sb/7']);
    assert.deepEqual(await data(q.Paginate(q.Union(docsA(), docsA(), q.Singleton(A(2))))), ['sa/1', 'sa/2', 'sa/3', 'sa/4', 'sa/5']);
    assert.deepEqual(await data(q.Paginate(q.Union(docsA()))), ['sa/1', 'sa/2', 'sa/3', 'sa/4', 'sa/5']);
  });

  test('Union pages forward and backward', async () => {
    const p1 = await page(q.Paginate(q.Union(docsA(), docsB()), { size: 4 }));
    assert.deepEqual(show(p1.data), ['sa/1', 'sa/2', 'sa/3', 'sb/3']);
    assert.deepEqual(cursor(p1, 'after'), ['sa/4']);
    const p2 = await page(q.Paginate(q.Union(docsA(), docsB()), { size: 4, after: p1.after }));
    assert.deepEqual(show(p2.data), ['sa/4', 'sb/4', 'sa/5', 'sb/5']);
    const back = await page(q.Paginate(q.Union(docsA(), docsB()), { size: 3, before: p2.after }));
    assert.deepEqual(show(back.data), ['sb/4', 'sa/5', 'sb/5']);
    assert.deepEqual(cursor(back, 'before'), ['sb/4']);
  });

  test('Intersection keeps entries present in every set', async () => {
    const some = q.Union(q.Singleton(A(2)), q.Singleton(A(4)), q.Singleton(B(4)), q.Singleton(A(9)));
    assert.deepEqual(await data(q.Paginate(q.Intersection(docsA(), some))), ['sa/2', 'sa/4']);
    assert.deepEqual(await data(q.Paginate(q.Intersection(docsA(), docsB()))), []);
    assert.deepEqual(await data(q.Paginate(q.Intersection(docsA(), docsA(), q.Range(docsA(), A(3), [])))), ['sa/3', 'sa/4', 'sa/5']);
  });

  test('Difference removes entries of the other sets', async () => {
    assert.deepEqual(await data(q.Paginate(q.Difference(docsA(), q.Singleton(A(2)), docsB()))), ['sa/1', 'sa/3', 'sa/4', 'sa/5']);
    assert.deepEqual(await data(q.Paginate(q.Difference(docsA(), docsA()))), []);
    const back = await page(q.Paginate(q.Difference(docsA(), q.Singleton(A(4))), { before: null, size: 2 }));
    assert.deepEqual(show(back.data), ['sa/3', 'sa/5']);
  });

  test('sets render as @set shapes; one operand is not wrapped', async () => {
    const two = await raw({ union: [{ documents: { collection: 'sa' } }, { documents: { collection: 'sb' } }] });
    const coll = (name: string) => ({ '@ref': { id: name, collection: { '@ref': { id: 'collections' } } } });
    assert.deepEqual(two, { resource: { '@set': { union: [{ '@set': { documents: coll('sa') } }, { '@set': { documents: coll('sb') } }] } } });
    const one = await raw({ intersection: { documents: { collection: 'sa' } } });
    assert.deepEqual(one, { resource: { '@set': { intersection: { '@set': { documents: coll('sa') } } } } });
    const r = await raw({ range: { documents: { collection: 'sa' } }, from: 1, to: [] });
    assert.deepEqual(r, { resource: { '@set': { range: { '@set': { documents: coll('sa') } }, from: 1, to: [] } } });
    const set = (await query(q.Distinct(q.Reverse(docsA())))) as values.SetRef;
    assert.ok(set instanceof values.SetRef);
    // A set value sent back (as @set) evaluates the same.
    assert.deepEqual(await data(q.Paginate(set)), ['sa/5', 'sa/4', 'sa/3', 'sa/2', 'sa/1']);
  });

  test('arrays: multiset union, intersection and difference', async () => {
    assert.deepEqual(await query(q.Union([1, 2, 2, 3], [2, 2, 2, 4])), [1, 2, 2, 3, 2, 4]);
    assert.deepEqual(await query(q.Union(['a'], ['b'], ['a', 'c'])), ['a', 'b', 'c']);
    assert.deepEqual(await query(q.Intersection([1, 2, 2, 3, 2], [2, 2, 4, 3])), [2, 2, 3]);
    assert.deepEqual(await query(q.Intersection([1, 2], [3])), []);
    assert.deepEqual(await query(q.Difference([1, 2, 2, 3, 2], [2, 3])), [1, 2, 2]);
    assert.deepEqual(await query(q.Union([{ a: 1, b: 2 }], [{ b: 2, a: 1 }, 1.0], [1])), [{ a: 1, b: 2 }, 1.0]);
  });

  test('sets and arrays cannot be mixed', async () => {
    const f = await failure(c.h1, q.Union(docsA(), [1]));
    assert.deepEqual([f.status, f.code, f.description], [400, 'invalid argument', 'Arguments cannot be of different types, expected Set or Array.']);
    const g = await failure(c.h2, q.Difference([1], q.Documents(q.Collection('sb'))));
    assert.equal(g.description, 'Arguments cannot be of different types, expected Set or Array.');
    const h = await failure(c.h2, q.Intersection([1], 'x'));
    assert.deepEqual([h.code, h.description], ['invalid argument', 'Set or Array expected, String provided.']);
  });
});

describe('distinct, singleton, range, reverse', () => {
  test('Distinct', async () => {
    assert.deepEqual(await query(q.Distinct([1, 2, 1, 3, 2, 1.0])), [1, 2, 3]);
    assert.deepEqual(await data(q.Distinct(q.Paginate(q.Union(docsA())))), ['sa/1', 'sa/2', 'sa/3', 'sa/4', 'sa/5']);
    assert.deepEqual(await data(q.Paginate(q.Distinct(docsA()))), ['sa/1', 'sa/2', 'sa/3', 'sa/4', 'sa/5']);
    const f = await failure(c.h2, q.Distinct(3));
    assert.equal(f.description, 'Array, Set, or Page expected, Integer provided.');
  });

  test('Singleton is the ref while the document exists', async () => {
    assert.deepEqual(await data(q.Paginate(q.Singleton(A(3)))), ['sa/3']);
    assert.deepEqual(await data(q.Paginate(q.Singleton(A(99)))), []);
    assert.equal(await query(q.Exists(q.Singleton(A(99)))), false);
    assert.equal(await query(q.Exists(q.Singleton(A(1)))), true);
    const gone = (await query(q.Create(q.Collection('sa'), { data: { n: 0 } }))) as { ref: values.Ref; ts: number };
    await query(q.Delete(gone.ref));
    assert.deepEqual(await data(q.Paginate(q.Singleton(gone.ref))), []);
    assert.deepEqual(show(await data(q.Paginate(q.Singleton(gone.ref), { ts: gone.ts }))), [show(gone.ref)]);
    const f = await failure(c.h2, q.Singleton('sa'));
    assert.equal(f.description, 'Ref expected, String provided.');
  });

  test('Range bounds are inclusive prefixes; [] and null are unbounded', async () => {
    assert.deepEqual(await data(q.Paginate(q.Range(docsA(), A(2), A(4)))), ['sa/2', 'sa/3', 'sa/4']);
    assert.deepEqual(await data(q.Paginate(q.Range(docsA(), [], [A(3)]))), ['sa/1', 'sa/2', 'sa/3']);
    assert.deepEqual(await data(q.Paginate(q.Range(docsA(), A(4), null))), ['sa/4', 'sa/5']);
    assert.deepEqual(await data(q.Paginate(q.Range(docsA(), A(4), A(2)))), []);
    const p1 = await page(q.Paginate(q.Range(docsA(), A(2), A(5)), { size: 2 }));
    assert.deepEqual([show(p1.data), cursor(p1, 'after')], [['sa/2', 'sa/3'], ['sa/4']]);
    const p2 = await page(q.Paginate(q.Range(docsA(), A(2), A(5)), { size: 2, after: p1.after }));
    assert.deepEqual([show(p2.data), p2.after], [['sa/4', 'sa/5'], undefined]);
    // Backward from the end stops at the range's upper bound, inclusive.
    const back = await page(q.Paginate(q.Range(docsA(), A(2), A(4)), { size: 2, before: null }));
    assert.deepEqual([show(back.data), cursor(back, 'before')], [['sa/3', 'sa/4'], ['sa/3']]);
    const rest = await page(q.Paginate(q.Range(docsA(), A(2), A(4)), { size: 2, before: back.before }));
    assert.deepEqual([show(rest.data), rest.before], [['sa/2'], undefined]);
    const f = await failure(c.h2, q.Range([1, 2], 1, 2));
    assert.equal(f.description, 'Set expected, Array provided.');
  });

  test('Reverse of arrays, pages and sets', async () => {
    assert.deepEqual(await query(q.Reverse([1, 2, 3])), [3, 2, 1]);
    assert.deepEqual(await data(q.Reverse(q.Paginate(docsA(), { size: 3 }))), ['sa/3', 'sa/2', 'sa/1']);
    assert.deepEqual(await data(q.Paginate(q.Reverse(docsA()))), ['sa/5', 'sa/4', 'sa/3', 'sa/2', 'sa/1']);
    assert.deepEqual(await data(q.Paginate(q.Reverse(q.Reverse(docsA())))), ['sa/1', 'sa/2', 'sa/3', 'sa/4', 'sa/5']);
  });

  test('a reversed set pages forward and backward', async () => {
    const p1 = await page(q.Paginate(q.Reverse(docsA()), { size: 2 }));
    assert.deepEqual([show(p1.data), cursor(p1, 'after')], [['sa/5', 'sa/4'], ['sa/3']]);
    const p2 = await page(q.Paginate(q.Reverse(docsA()), { size: 2, after: p1.after }));
    assert.deepEqual([show(p2.data), cursor(p2, 'before'), cursor(p2, 'after')], [['sa/3', 'sa/2'], ['sa/3'], ['sa/1']]);
    const b1 = await page(q.Paginate(q.Reverse(docsA()), { size: 2, before: p2.after }));
    assert.deepEqual([show(b1.data), cursor(b1, 'before'), cursor(b1, 'after')], [['sa/3', 'sa/2'], ['sa/3'], ['sa/1']]);
    const last = await page(q.Paginate(q.Reverse(docsA()), { size: 2, before: null }));
    assert.deepEqual([show(last.data), cursor(last, 'before')], [['sa/2', 'sa/1'], ['sa/2']]);
  });

  test('Range and Reverse compose in either order', async () => {
    assert.deepEqual(await data(q.Paginate(q.Range(q.Reverse(docsA()), A(4), A(2)))), ['sa/4', 'sa/3', 'sa/2']);
    assert.deepEqual(await data(q.Paginate(q.Reverse(q.Range(docsA(), A(2), A(4))))), ['sa/4', 'sa/3', 'sa/2']);
    const p = await page(q.Paginate(q.Reverse(q.Range(docsA(), A(2), A(4))), { size: 2 }));
    assert.deepEqual([show(p.data), cursor(p, 'after')], [['sa/4', 'sa/3'], ['sa/2']]);
    const p2 = await page(q.Paginate(q.Reverse(q.Range(docsA(), A(2), A(4))), { size: 2, after: p.after }));
    assert.deepEqual([show(p2.data), p2.after], [['sa/2'], undefined]);
  });
});

describe('filter and join', () => {
  test('Filter over a set is lazy: 10 matches out of 2000 documents', async () => {
    const multiple = q.Filter(q.Documents(q.Collection('big')), q.Lambda('r', q.Equals(0, q.Modulo(q.Select(['data', 'i'], q.Get(q.Var('r'))), 100))));
    const p = await page(q.Paginate(multiple, { size: 10 }));
    assert.deepEqual(show(p.data), [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000].map((i) => `big/${i}`));
    assert.deepEqual(cursor(p, 'after'), ['big/1100']);
    const back = await page(q.Paginate(multiple, { size: 3, before: null }));
    assert.deepEqual(show(back.data), ['big/1800', 'big/1900', 'big/2000']);
    assert.equal(await query(q.Count(multiple)), 20);
    // The page stops reading at the 11th match; the count reads everything.
    const readOps = async (expr: unknown) => {
      const res = await httpRequest(srv.url, { method: 'POST', path: '/', headers: { authorization: `Bearer ${srv.secret}` }, body: JSON.stringify(expr) });
      assert.equal(res.status, 200, res.body);
      return Number(res.headers['x-byte-read-ops']);
    };
    const pageOps = await readOps(q.Paginate(multiple, { size: 10 }));
    const countOps = await readOps(q.Count(multiple));
    assert.ok(pageOps * 1.5 < countOps, `page read ${pageOps} ops, count ${countOps}`);
  });

  test('Filter over a set reads documents and closes over variables', async () => {
    const even = q.Filter(docsA(), q.Lambda('r', q.Select(['data', 'flag'], q.Get(q.Var('r')))));
    assert.deepEqual(await data(q.Paginate(even)), ['sa/2', 'sa/4']);
    const above = q.Let({ min: 30 }, q.Filter(docsA(), q.Lambda('r', q.GTE(q.Select(['data', 'n'], q.Get(q.Var('r'))), q.Var('min')))));
    assert.deepEqual(await data(q.Paginate(above)), ['sa/3', 'sa/4', 'sa/5']);
    assert.deepEqual(await data(q.Paginate(q.Reverse(even))), ['sa/4', 'sa/2']);
    assert.equal(await query(q.IsEmpty(q.Filter(docsA(), q.Lambda('r', false)))), true);
    const doc = (await query(q.Get(q.Filter(docsA(), q.Lambda('r', q.Equals(q.Select('id', q.Var('r')), '3')))))) as { data: { n: number } };
    assert.equal(doc.data.n, 30);
  });

  test('a Filter lambda must return a Boolean and may not write', async () => {
    const f = await failure(c.h2, q.Paginate(q.Filter(docsA(), q.Lambda('r', 1))));
    assert.deepEqual([f.code, f.description], ['invalid argument', 'Boolean expected, Integer provided.']);
    const w = await failure(c.h2, q.Paginate(q.Filter(docsA(), q.Lambda('r', q.Do(q.Create(q.Collection('sa'), {}), true)))));
    assert.equal(w.code, 'invalid expression');
    assert.equal(await query(q.Count(docsA())), 5, 'nothing was written');
  });

  test('Join with a lambda: the union of the sets it returns, in order', async () => {
    const owners = q.Join(docsA(), q.Lambda('r', q.Singleton(q.Ref(q.Collection('sb'), q.Select('id', q.Var('r'))))));
    assert.deepEqual(await data(q.Paginate(owners)), ['sb/3', 'sb/4', 'sb/5']);
    const all = q.Join(docsA(), q.Lambda('r', docsB()));
    assert.deepEqual(await data(q.Paginate(all, { size: 3 })), ['sb/3', 'sb/4', 'sb/5']);
    assert.deepEqual(await data(q.Paginate(all, { before: null, size: 2 })), ['sb/6', 'sb/7']);
    const f = await failure(c.h2, q.Paginate(q.Join(docsA(), q.Lambda('r', 1))));
    assert.equal(f.description, 'Set expected, Integer provided.');
  });
});

describe('aggregates', () => {
  test('Count over sets, pages and arrays', async () => {
    assert.equal(await query(q.Count(docsA())), 5);
    assert.equal(await query(q.Count(q.Union(docsA(), docsB()))), 10);
    assert.equal(await query(q.Count(q.Documents(q.Collection('empty')))), 0);
    assert.equal(await query(q.Count(q.Documents(q.Collection('big')))), 2000);
    assert.deepEqual(await query(q.Count(q.Paginate(docsA(), { size: 2 }))), { data: [2], after: [await query(A(3))] });
    assert.equal(await query(q.Count([1, 2, 3])), 3);
    const f = await failure(c.h2, q.Count(5));
    assert.equal(f.description, 'Array, Set, or Page expected, Integer provided.');
  });

  test('Sum and Mean', async () => {
    assert.equal(await query(q.Sum([1, 2, 3])), 6);
    assert.equal(await query(q.Sum([])), 0);
    assert.equal(await query(q.Sum([1, 2.5])), 3.5);
    assert.equal(await query(q.Mean([1, 2, 3, 4])), 2.5);
    const mean = await raw({ mean: [2, 4] });
    assert.deepEqual(mean, { resource: 3.0 });
    const ints = await httpRequest(srv.url, { method: 'POST', path: '/', headers: { authorization: `Bearer ${srv.secret}` }, body: '{"mean":[2,4]}' });
    assert.match(ints.body, /3\.0/, 'Mean is always a Double');
    const sums = q.Sum(q.Map(q.Paginate(docsA()), q.Lambda('r', q.Select(['data', 'n'], q.Get(q.Var('r'))))));
    assert.deepEqual(await query(sums), { data: [150] });
    const e = await failure(c.h2, q.Mean([]));
    assert.deepEqual([e.code, e.description], ['invalid argument', 'Non-empty array expected.']);
    const t = await failure(c.h2, q.Sum([1, 'a']));
    assert.equal(t.description, 'Number expected, String provided.');
    const s = await failure(c.h2, q.Sum(docsA()));
    assert.equal(s.description, 'Number expected, Ref provided.');
  });

  test('Any and All', async () => {
    assert.equal(await query(q.Any([false, true])), true);
    assert.equal(await query(q.Any([])), false);
    assert.equal(await query(q.All([true, false])), false);
    assert.equal(await query(q.All([])), true);
    assert.deepEqual(await query(q.All(q.Map(q.Paginate(docsA()), q.Lambda('r', q.Equals(q.Var('r'), q.Var('r')))))), { data: [true] });
    const f = await failure(c.h2, q.Any([true, 1]));
    assert.equal(f.description, 'Boolean expected, Integer provided.');
  });

  test('Max and Min use the index order across types', async () => {
    assert.equal(await query(q.Max(1, 5, 3)), 5);
    assert.equal(await query(q.Min([4, 2.5, 3])), 2.5);
    assert.equal(await query(q.Max([[1, 7]])), 7);
    assert.equal(await query(q.Max(4)), 4);
    assert.equal(await query(q.Max([1, 'a', null])), null);
    assert.equal(await query(q.Min([1, 'a', null])), 1);
    assert.deepEqual(show(await query(q.Max(docsA()))), 'sa/5');
    assert.deepEqual(show(await query(q.Min(q.Union(docsB(), docsA())))), 'sa/1');
    assert.deepEqual(show((await page(q.Max(q.Paginate(docsA())))).data), ['sa/5']);
    const e = await failure(c.h2, q.Min([]));
    assert.equal(e.description, 'Non-empty array expected.');
    const s = await failure(c.h2, q.Max(q.Documents(q.Collection('empty'))));
    assert.equal(s.description, 'Non-empty array expected.');
  });

  test('First and Last', async () => {
    assert.equal(await query(First([1, 2, 3])), 1);
    assert.equal(await query(Last([1, 2, 3])), 3);
    assert.deepEqual(show(await query(First(docsA()))), 'sa/1');
    assert.deepEqual(show(await query(Last(docsA()))), 'sa/5');
    assert.deepEqual(show(await query(Last(q.Reverse(docsA())))), 'sa/1');
    assert.deepEqual(show(await query(First(q.Difference(docsA(), q.Singleton(A(1)))))), 'sa/2');
    const a = await failure(c.h2, First([]));
    assert.deepEqual([a.code, a.description], ['invalid argument', 'Non-empty array expected.']);
    const s = await failure(c.h2, Last(q.Documents(q.Collection('empty'))));
    assert.deepEqual([s.code, s.description], ['invalid argument', 'Non-empty set expected.']);
  });

  test('IsEmpty, IsNonEmpty and Reduce over sets', async () => {
    assert.equal(await query(q.IsEmpty(q.Documents(q.Collection('empty')))), true);
    assert.equal(await query(q.IsNonEmpty(q.Documents(q.Collection('empty')))), false);
    assert.equal(await query(q.IsNonEmpty(docsA())), true);
    assert.equal(await query(q.IsEmpty(q.Intersection(docsA(), docsB()))), true);
    assert.equal(await query(q.Reduce(q.Lambda(['acc', 'r'], q.Add(q.Var('acc'), q.Select(['data', 'n'], q.Get(q.Var('r'))))), 0, docsA())), 150);
  });

  test('Get and Exists on sets', async () => {
    const first = (await query(q.Get(docsA()))) as { ref: values.Ref };
    assert.equal(show(first.ref), 'sa/1');
    const last = (await query(q.Get(q.Reverse(q.Union(docsA(), docsB()))))) as { ref: values.Ref };
    assert.equal(show(last.ref), 'sb/7');
    assert.equal(await query(q.Exists(docsA())), true);
    assert.equal(await query(q.Exists(q.Difference(docsA(), docsA()))), false);
    const f = await failure(c.h2, q.Get(q.Intersection(docsA(), docsB())));
    assert.deepEqual([f.status, f.code, f.description], [404, 'instance not found', 'Set not found.']);
  });

  test('Map and Foreach do not take sets', async () => {
    const f = await failure(c.h2, q.Map(docsA(), q.Lambda('r', q.Var('r'))));
    assert.deepEqual([f.code, f.description], ['invalid argument', 'Array or Page expected, Set provided.']);
    const g = await failure(c.h2, q.Foreach(q.Union(docsA()), q.Lambda('r', q.Var('r'))));
    assert.equal(g.description, 'Array or Page expected, Set provided.');
  });
});

describe('with indexes', () => {
  before(async () => {
    await query(q.CreateIndex({ name: 'sa_by_k', source: q.Collection('sa'), terms: [{ field: ['data', 'k'] }] }));
    await query(q.CreateIndex({ name: 'sa_k', source: q.Collection('sa'), values: [{ field: ['data', 'k'] }] }));
    await query(q.CreateIndex({ name: 'sa_n', source: q.Collection('sa'), values: [{ field: ['data', 'n'] }] }));
    await query(q.CreateIndex({ name: 'sa_n_desc', source: q.Collection('sa'), values: [{ field: ['data', 'n'], reverse: true }, { field: ['ref'] }] }));
    await query(q.CreateIndex({ name: 'sa_flag', source: q.Collection('sa'), values: [{ field: ['data', 'flag'] }] }));
    await query(q.CreateIndex({ name: 'sb_by_owner', source: q.Collection('sb'), terms: [{ field: ['data', 'owner'] }] }));
  });

  test('Union, Intersection and Difference of Match sets', async () => {
    const x = q.Match(q.Index('sa_by_k'), 'x');
    const y = q.Match(q.Index('sa_by_k'), 'y');
    assert.deepEqual(await data(q.Paginate(q.Union(x, y))), ['sa/1', 'sa/2', 'sa/3', 'sa/4', 'sa/5']);
    assert.deepEqual(await data(q.Paginate(q.Intersection(x, q.Range(docsA(), A(2), [])))), ['sa/2', 'sa/3']);
    assert.deepEqual(await data(q.Paginate(q.Difference(docsA(), x))), ['sa/4', 'sa/5']);
  });

  test('Distinct of index values', async () => {
    assert.deepEqual(await data(q.Paginate(q.Distinct(q.Match(q.Index('sa_k'))))), ['x', 'y']);
    assert.deepEqual(await data(q.Paginate(q.Distinct(q.Match(q.Index('sa_k'))), { before: null })), ['x', 'y']);
    assert.deepEqual(await data(q.Paginate(q.Reverse(q.Distinct(q.Match(q.Index('sa_k')))))), ['y', 'x']);
    const p = await page(q.Paginate(q.Distinct(q.Match(q.Index('sa_k'))), { size: 1 }));
    assert.deepEqual(p.data, ['x']);
    const p2 = await page(q.Paginate(q.Distinct(q.Match(q.Index('sa_k'))), { size: 1, after: p.after }));
    assert.deepEqual([p2.data, p2.after], [['y'], undefined]);
    const b = await page(q.Paginate(q.Distinct(q.Match(q.Index('sa_k'))), { size: 1, before: p.after }));
    assert.deepEqual([b.data, b.before], [['x'], undefined]);
  });

  test('Range and Reverse over index values', async () => {
    const n = q.Match(q.Index('sa_n'));
    assert.deepEqual(await data(q.Paginate(q.Range(n, 20, 40))), [20, 30, 40]);
    assert.deepEqual(await data(q.Paginate(q.Range(n, [25], []))), [30, 40, 50]);
    assert.deepEqual(await data(q.Paginate(q.Reverse(q.Range(n, 20, 40)))), [40, 30, 20]);
    assert.deepEqual(await data(q.Paginate(q.Range(q.Reverse(n), 40, 20))), [40, 30, 20]);
    // Cursor prefixes keep their meaning on a reversed set: after [30] includes 30.
    assert.deepEqual(await data(q.Paginate(q.Reverse(n), { after: [30] })), [30, 20, 10]);
    assert.deepEqual(await data(q.Paginate(q.Reverse(n), { before: [30] })), [50, 40]);
    // An index with a reversed value: Range and Reverse follow its order.
    const desc = q.Match(q.Index('sa_n_desc'));
    assert.deepEqual(show(await data(q.Paginate(q.Range(desc, 40, 20)))), [[40, 'sa/4'], [30, 'sa/3'], [20, 'sa/2']]);
    assert.deepEqual(show(await data(q.Paginate(q.Reverse(desc), { size: 2 }))), [[10, 'sa/1'], [20, 'sa/2']]);
    assert.deepEqual(show(await data(q.Paginate(q.Union(desc, desc), { size: 2 }))), [[50, 'sa/5'], [40, 'sa/4']]);
  });

  test('aggregates over index values', async () => {
    const n = q.Match(q.Index('sa_n'));
    assert.equal(await query(q.Sum(n)), 150);
    assert.equal(await query(q.Mean(n)), 30);
    assert.equal(await query(q.Max(n)), 50);
    assert.equal(await query(q.Min(q.Range(n, 25, []))), 30);
    assert.equal(await query(q.Count(q.Match(q.Index('sa_by_k'), 'x'))), 3);
    assert.equal(await query(q.Any(q.Match(q.Index('sa_flag')))), true);
    assert.equal(await query(q.All(q.Match(q.Index('sa_flag')))), false);
    assert.equal(await query(First(q.Reverse(n))), 50);
    assert.equal(await query(q.Reduce(q.Lambda(['a', 'v'], q.Add(q.Var('a'), q.Var('v'))), 0, q.Range(n, 10, 20))), 30);
  });

  test('Filter over a Match set', async () => {
    const big = q.Filter(q.Match(q.Index('sa_n')), q.Lambda('v', q.GT(q.Var('v'), 20)));
    assert.deepEqual(await data(q.Paginate(big, { size: 2 })), [30, 40]);
  });

  test('Join with an index: Match(index, element) for each element', async () => {
    const owned = q.Join(q.Match(q.Index('sa_by_k'), 'x'), q.Index('sb_by_owner'));
    assert.deepEqual(await data(q.Paginate(owned)), ['sb/3', 'sb/4', 'sb/5']);
    assert.deepEqual(await data(q.Paginate(owned, { size: 2, before: null })), ['sb/4', 'sb/5']);
    assert.deepEqual(await data(q.Paginate(q.Join(docsA(), 'sb_by_owner'), { size: 10 })), ['sb/3', 'sb/4', 'sb/5', 'sb/6', 'sb/7']);
    const rendered = await raw({ join: { match: { index: 'sa_by_k' }, terms: 'x' }, with: { index: 'sb_by_owner' } });
    const idx = (name: string) => ({ '@ref': { id: name, collection: { '@ref': { id: 'indexes' } } } });
    assert.deepEqual(rendered, { resource: { '@set': { join: { '@set': { match: idx('sa_by_k'), terms: 'x' } }, with: idx('sb_by_owner') } } });
    assert.equal(await query(q.Count(q.Join(docsA(), q.Index('sb_by_owner')))), 5);
  });
});

describe('lambdas of sets', () => {
  test('a Filter lambda may not write', async () => {
    const writes = q.Filter(docsA(), q.Lambda('r', q.IsString(q.NewId())));
    const f = await failure(c.h2, q.Paginate(writes));
    assert.deepEqual([f.status, f.code, f.description], [400, 'invalid expression', 'Call performs a write, which is not allowed in set filters.']);
  });
});
