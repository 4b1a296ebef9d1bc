// faunadb-fql-lib (0.13.0), the library of FQL helpers many Fauna projects kept: its functions build
// FQL whose error branches (Abort) sit in arguments Fauna evaluates only when needed (If branches,
// Select's default, And/Or), so they work only if Flora is lazy in the same places.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, type Client, type ExprArg } from 'faunadb';
import { serverForFile } from '../helpers/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const lib = require('faunadb-fql-lib') as Record<string, (...args: any[]) => ExprArg>;

const server = serverForFile();
const run = <T>(e: ExprArg): Promise<T> => (server.drivers.h2 as Client).query<T>(e);

async function aborted(e: ExprArg): Promise<string> {
  try {
    await run(e);
  } catch (err) {
    const errors = (err as { requestResult?: { responseContent?: { errors?: { code: string; description: string }[] } } }).requestResult?.responseContent?.errors;
    assert.equal(errors?.[0].code, 'transaction aborted');
    return errors![0].description;
  }
  assert.fail('expected the query to abort');
}

describe('faunadb-fql-lib', () => {
  test('Select with an Abort default: the default only when the path is missing', async () => {
    const obj = { a: { b: 1 } };
    assert.equal(await run(q.Select(['a', 'b'], obj, q.Abort('missing'))), 1);
    assert.equal(await aborted(q.Select(['a', 'c'], obj, q.Abort('missing'))), 'missing');
    assert.equal(await run(lib.SelectFQLib('a.b', obj, q.Abort('missing'))), 1);
    assert.equal(await aborted(lib.SelectFQLib('a.c', obj, q.Abort('missing'))), 'missing');
  });

  test('Switch, Flatten, StringSplit, ObjectKeys, DeepMerge, ArrayReverse, Slice, Find', async () => {
    assert.equal(await run(lib.Switch('b', { a: 1, b: 2 })), 2);
    assert.equal(await aborted(lib.Switch('z', { a: 1, b: 2 })), "Key 'z' not supported by Switch");
    assert.deepEqual(await run(lib.Flatten([[1, 2], [3], 4])), [1, 2, 3, 4]);
    assert.equal(await aborted(lib.Flatten('x')), 'Flatten does not pass IsArray check');
    assert.deepEqual(await run(lib.StringSplit('a.b.c')), ['a', 'b', 'c']);
    assert.deepEqual(await run(lib.ObjectKeys({ x: 1, y: 2 })), ['x', 'y']);
    assert.deepEqual(await run(lib.DeepMerge({ a: { b: 1, c: 2 } }, { a: { c: 3 } })), { a: { b: 1, c: 3 } });
    assert.deepEqual(await run(lib.ArrayReverse([1, 2, 3])), [3, 2, 1]);
    assert.deepEqual(await run(lib.Slice([1, 2, 3, 4], 1, 3)), [2, 3, 4]); // its end is inclusive
    assert.equal(await run(lib.Find([1, 5, 9], q.Lambda('x', q.GT(q.Var('x'), 4)))), 5);
  });

  test('history helpers: CreateAt, UpdateAt, DeleteAt write the past', async () => {
    await run(q.CreateCollection({ name: 'fqllib' }));
    const ref = q.Ref(q.Collection('fqllib'), '1');
    const now = await run<{ value: string }>(q.Now());
    const t0 = q.TimeSubtract(now as never, 3, 'seconds');
    const t1 = q.TimeSubtract(now as never, 2, 'seconds');
    const t2 = q.TimeSubtract(now as never, 1, 'seconds');
    await run(lib.CreateAt(ref, q.ToMicros(t0), { data: { v: 0 } }));
    assert.equal(await aborted(lib.CreateAt(ref, q.ToMicros(t0), { data: { v: 0 } })), 'The item you are trying to insert (CreateAt) already exists');
    await run(lib.UpdateAt(ref, q.ToMicros(t1), { data: { w: 1 } }));
    assert.deepEqual((await run<{ data: unknown }>(q.Get(ref, t1))).data, { v: 0, w: 1 });
    await run(lib.DeleteAt(ref, q.ToMicros(t2)));
    assert.equal(await run(q.Exists(ref)), false);
    assert.equal(await aborted(lib.DeleteAt(q.Ref(q.Collection('fqllib'), '2'), q.ToMicros(t2))), 'The item you are trying to delete does not exist at given ts');
  });
});
