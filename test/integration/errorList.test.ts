// Several errors in one response (fql-v4.md §1.7): the errors of the elements of an array or
// object literal accumulate; a call reports only its first failing argument; inside a function
// they all become the `cause` of its `call error`.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type faunadb from 'faunadb';
import { query as q } from 'faunadb';
import { startFlora, clients, type FloraProcess, type DriverClients } from '../helpers/server';

let srv: FloraProcess;
let c: DriverClients;

before(async () => {
  srv = await startFlora();
  c = clients(srv.url, srv.secret);
  await c.h2.query(q.CreateFunction({ name: 'two_failures', body: q.Query(q.Lambda('x', [q.Divide(1, 0), q.Abort('no')])) }));
});
after(async () => {
  await c.close();
  await srv.stop();
});

type Err = { position: unknown[]; code: string; description: string; cause?: Err[] };

async function errorsOf(client: faunadb.Client, expr: faunadb.ExprArg): Promise<{ status: number; errors: Err[] }> {
  try {
    await client.query(expr);
  } catch (e) {
    const r = (e as { requestResult: { statusCode: number; responseContent: { errors: Err[] } } }).requestResult;
    return { status: r.statusCode, errors: r.responseContent.errors };
  }
  assert.fail('query unexpectedly succeeded');
}

const brief = (errs: Err[]) => errs.map((e) => [e.position, e.code]);

for (const name of ['h2', 'h1'] as const) {
  describe(`error lists (${name})`, () => {
    test('array elements: every failing element, in order', async () => {
      const r = await errorsOf(c[name], [q.Divide(1, 0), 1, q.ToNumber('x'), q.Abort('stop')]);
      assert.equal(r.status, 400);
      assert.deepEqual(brief(r.errors), [[[0], 'invalid argument'], [[2, 'to_number'], 'invalid argument'], [[3], 'transaction aborted']]);
    });

    test('object fields and nested literals flatten into one list', async () => {
      const r = await errorsOf(c[name], { a: q.Divide(1, 0), b: [1, q.Abort('x'), q.Abort('y')] });
      assert.deepEqual(brief(r.errors), [[['object', 'a'], 'invalid argument'], [['object', 'b', 1], 'transaction aborted'], [['object', 'b', 2], 'transaction aborted']]);
    });

    test('the status is that of the first error', async () => {
      const r = await errorsOf(c[name], [q.Get(q.Ref(q.Collection('nope'), '1')), q.Divide(1, 0)]);
      assert.equal(r.status, 400);
      assert.equal(r.errors.length, 2);
      const missing = await errorsOf(c[name], [q.Select('x', {}), q.Divide(1, 0)]);
      assert.equal(missing.status, 404);
      assert.deepEqual(brief(missing.errors), [[[0, 'from'], 'value not found'], [[1], 'invalid argument']]);
    });

    test('a call stops at its first failing argument; an argument that fails after its elements is one error', async () => {
      const r = await errorsOf(c[name], q.Add([1, q.Divide(1, 0), 'x']));
      assert.deepEqual(brief(r.errors), [[['add', 1], 'invalid argument']]);
      const one = await errorsOf(c[name], q.Add(1, 'x'));
      assert.equal(one.errors.length, 1);
    });

    test('inside a function the errors are the causes of one call error', async () => {
      const r = await errorsOf(c[name], q.Call(q.Function('two_failures'), 1));
      assert.deepEqual(brief(r.errors), [[[], 'call error']]);
      assert.deepEqual(brief(r.errors[0].cause!), [[['expr', 0], 'invalid argument'], [['expr', 1], 'transaction aborted']]);
    });
  });
}
