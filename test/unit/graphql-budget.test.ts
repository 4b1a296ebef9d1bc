// A GraphQL request's budget is its own, as an FQL query's is: its answer is written under it (paced,
// what the result holds still reserved from the memory pool) and it is released once the answer is
// written. An in-process server on a temporary store.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q } from 'faunadb';
import { DEFAULT_LIMITS, MemoryPool, type Budget, type ClientLink } from '../../src/model/budget';
import { Executor } from '../../src/fql/executor';
import { runGraphql } from '../../src/graphql/execute';
import { importSchema } from '../../src/graphql/importer';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import { tempDir } from '../helpers/store';

const SECRET = 'secret';
const DOCS = 3000;
const pool = new MemoryPool(1 << 30);
let executor: Executor;

before(async () => {
  const store = await openStore(await openLmdbEngine(tempDir()));
  executor = new Executor(store, SECRET, { limits: { ...DEFAULT_LIMITS, sliceMs: 1 }, pool });
  const query = (expr: unknown, secret = SECRET) =>
    executor.query({ body: JSON.stringify(expr), authorization: `Bearer ${secret}`, timeoutMs: 60_000 });
  assert.equal((await query(q.CreateDatabase({ name: 'g' }))).status, 201);
  const imported = await importSchema(executor, `Bearer ${SECRET}:g:admin`, 'type Thing { name: String! } type Query { allThings: [Thing!] }', 'merge');
  assert.equal(imported.status, 200, imported.body);
  const names = Array.from({ length: DOCS }, (_, i) => `thing number ${i} `.repeat(4));
  const created = await query(q.Map(names, q.Lambda('n', q.Create(q.Collection('Thing'), { data: { name: q.Var('n') } }))), `${SECRET}:g:admin`);
  assert.equal(created.status, 200);
});

after(() => executor?.close());

test('a GraphQL answer is written while its memory is still reserved, and released once written', { timeout: 60_000 }, async () => {
  // Every pause of the request's budget (its execution's and its answer's) sees the reservation.
  const reserved: number[] = [];
  const made = executor.budget.bind(executor);
  executor.budget = (timeoutMs?: number, client?: ClientLink): Budget => {
    const b = made(timeoutMs, client);
    const pause = b.pause.bind(b);
    b.pause = () => {
      reserved.push(pool.inUse);
      return pause();
    };
    return b;
  };
  const a = await runGraphql(executor, `Bearer ${SECRET}:g:admin`, { query: `{ allThings(_size: ${DOCS}) { data { name } } }` });
  assert.equal(a.status, 200);
  assert.equal((JSON.parse(a.body.toString()) as { data: { allThings: { data: unknown[] } } }).data.allThings.data.length, DOCS);
  assert.ok(reserved.length > 0, 'the request never paused');
  const bare = reserved.filter((bytes) => bytes === 0).length;
  assert.equal(bare, 0, `${bare} of ${reserved.length} pauses with nothing reserved`);
  assert.equal(pool.inUse, 0);
});
