// How lambdas (`@query` values) come back (Expression.scala LambdaL.renderableLiteral, LetE.literal):
// a legacy `@query` sent without `api_version` is version 2.12 and renders `"api_version": "2.12"`;
// `Let` bindings render as one object whether they were sent as an object or as an array
// (DECISIONS #16), and so do the variables a lambda captures.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, values } from 'faunadb';
import { serverForFile, rawQuery } from '../helpers/server';

const srv = serverForFile();

/** The `@query` object of a Query value the driver decoded. */
function queryObject(v: unknown): Record<string, unknown> {
  assert.ok(v instanceof values.Query, `not a Query value: ${String(v)}`);
  return (JSON.parse(JSON.stringify(v)) as { '@query': Record<string, unknown> })['@query'];
}

describe('api_version of a rendered lambda', () => {
  for (const proto of ['h2', 'h1'] as const) {
    test(`a legacy @query comes back as 2.12, one with a version keeps it (${proto})`, async () => {
      const c = srv.drivers[proto];
      const legacy = new values.Query({ lambda: 'x', expr: { add: [{ var: 'x' }, 1] } });
      assert.deepEqual(queryObject(await c.query(legacy)), { api_version: '2.12', lambda: 'x', expr: { add: [{ var: 'x' }, 1] } });
      const v3 = new values.Query({ api_version: '3', lambda: 'x', expr: { var: 'x' } });
      assert.deepEqual(queryObject(await c.query(v3)), { api_version: '3', lambda: 'x', expr: { var: 'x' } });
      // Made by this (API 4) request: 4.
      assert.deepEqual(queryObject(await c.query(q.Query(q.Lambda('x', q.Var('x'))))), { api_version: '4', lambda: 'x', expr: { var: 'x' } });
    });
  }

  test('a function body stored from a legacy @query reads back as 2.12 and still runs', async () => {
    const c = srv.drivers.h2;
    const body = new values.Query({ lambda: ['a', 'b'], expr: { add: [{ var: 'a' }, { var: 'b' }] } });
    await c.query(q.CreateFunction({ name: 'legacy_sum', body }));
    const stored = (await c.query(q.Get(q.Function('legacy_sum')))) as { body: unknown };
    assert.equal(queryObject(stored.body).api_version, '2.12');
    assert.equal(await c.query(q.Call(q.Function('legacy_sum'), 2, 3)), 5);
  });

  test('the raw response names the version first, as Fauna renders it', async () => {
    const body = await rawQuery(srv.flora.url, srv.flora.secret, '{"@query":{"lambda":"x","expr":{"var":"x"}}}');
    assert.equal(body, '{"resource":{"@query":{"api_version":"2.12","lambda":"x","expr":{"var":"x"}}}}');
  });
});

describe('Let bindings of a rendered lambda', () => {
  for (const proto of ['h2', 'h1'] as const) {
    test(`the driver's array form comes back as one object, bindings in order (${proto})`, async () => {
      const c = srv.drivers[proto];
      // The driver's own let/var test (faunadb-js test/query.test.js).
      const got = await c.query(q.Query(q.Lambda((_: unknown) => q.Let([{ x: 1 }, { y: 2 }], (x: unknown, y: unknown) => [x, y]))));
      assert.deepEqual(queryObject(got), { api_version: '4', lambda: '_', expr: { let: { x: 1, y: 2 }, in: [{ var: 'x' }, { var: 'y' }] } });
      // The object form (Let({x, y})) is sent as an array by the driver too; it reads back the same.
      const fromObject = await c.query(q.Query(q.Lambda('z', q.Let({ a: q.Var('z'), b: q.Var('a') }, q.Var('b')))));
      assert.deepEqual(queryObject(fromObject).expr, { let: { a: { var: 'z' }, b: { var: 'a' } }, in: { var: 'b' } });
    });
  }

  test('a let sent as an object stays an object; nested lets and captured variables are objects too', async () => {
    const { url, secret } = srv.flora;
    const asObject = await rawQuery(url, secret, '{"query":{"lambda":"x","expr":{"let":{"a":1,"b":{"var":"x"}},"in":{"var":"b"}}}}');
    assert.equal(asObject, '{"resource":{"@query":{"api_version":"4","lambda":"x","expr":{"let":{"a":1,"b":{"var":"x"}},"in":{"var":"b"}}}}}');
    const nested = await rawQuery(url, secret, '{"query":{"lambda":"x","expr":{"map":{"lambda":"y","expr":{"let":[{"z":{"var":"y"}}],"in":{"var":"z"}}},"collection":{"var":"x"}}}}');
    assert.equal(
      nested,
      '{"resource":{"@query":{"api_version":"4","lambda":"x","expr":{"map":{"lambda":"y","expr":{"let":{"z":{"var":"y"}},"in":{"var":"z"}}},"collection":{"var":"x"}}}}}',
    );
    const captured = await rawQuery(url, secret, '{"let":[{"k":10},{"m":"s"}],"in":{"query":{"lambda":"x","expr":[{"var":"k"},{"var":"m"},{"var":"x"}]}}}');
    assert.equal(captured, '{"resource":{"@query":{"api_version":"4","lambda":"x","expr":{"let":{"k":10,"m":"s"},"in":[{"var":"k"},{"var":"m"},{"var":"x"}]}}}}');
  });

  test('a rendered lambda sent back evaluates the same', async () => {
    const c = srv.drivers.h2;
    const fn = await c.query(q.Let({ k: 10 }, q.Query(q.Lambda('x', q.Let([{ a: q.Var('x') }, { b: q.Add(q.Var('a'), q.Var('k')) }], q.Var('b'))))));
    assert.deepEqual(queryObject(fn).expr, { let: { k: 10 }, in: { let: { a: { var: 'x' }, b: { add: [{ var: 'a' }, { var: 'k' }] } }, in: { var: 'b' } } });
    await c.query(q.CreateFunction({ name: 'round_trip', body: fn as values.Query }));
    assert.equal(await c.query(q.Call(q.Function('round_trip'), 1)), 11);
  });
});
