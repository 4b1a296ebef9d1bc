// A GraphQL import is several transactions; another process of a tier may store a schema for the same
// database between its first and its last. The import then starts over from the schema now stored
// (merging with it), and gives up with 409 when it is overtaken every time. In process: the other
// process's import is a schema written between the import's transactions.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q } from 'faunadb';
import { Executor } from '../../src/fql/executor';
import type { QueryService } from '../../src/fql/api';
import { importSchema } from '../../src/graphql/importer';
import { readSchema, writeSchema } from '../../src/graphql/storage';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import { tempDir } from '../helpers/store';

const ROOT = 'Bearer secret';
let executor: Executor;

before(async () => {
  executor = new Executor(await openStore(await openLmdbEngine(tempDir())), 'secret');
  for (const name of ['once', 'always'])
    assert.equal((await executor.query({ body: JSON.stringify(q.CreateDatabase({ name })), authorization: ROOT, timeoutMs: 60_000 })).status, 201);
});

after(() => executor?.close());

/**
 * The executor, but before the transaction that stores the schema (the third of a merge: check,
 * collections, the rest) another import stores `sdl` in the database, `times` times at most.
 */
function overtakenBy(sdl: string, times: number): { service: QueryService; attempts: () => number } {
  let calls = 0;
  let overtaken = 0;
  const transact: QueryService['transact'] = async (authorization, fn, opts) => {
    if (++calls % 3 === 0 && overtaken < times) {
      overtaken++;
      await executor.transact(authorization, async (ctx) => {
        const ids = (await readSchema(ctx.txn, ctx.scope.db))?.ids() ?? { collections: {}, indexes: {}, functions: {} };
        writeSchema(ctx.txn, ctx.scope.db, sdl, ids);
      });
    }
    return executor.transact(authorization, fn, opts);
  };
  return { service: Object.assign(Object.create(executor) as Executor, { transact }), attempts: () => Math.ceil(calls / 3) };
}

async function collections(db: string): Promise<string[]> {
  const answer = await executor.query({ body: JSON.stringify(q.Paginate(q.Collections())), authorization: `${ROOT}:${db}:admin`, timeoutMs: 60_000 });
  return JSON.parse(String(answer.body)).resource.data.map((r: { '@ref': { id: string } }) => r['@ref'].id);
}

test('an import overtaken once starts over from the schema stored meanwhile, and both land', async () => {
  const auth = `${ROOT}:once:admin`;
  assert.equal((await importSchema(executor, auth, 'type Apple { name: String }', 'merge')).status, 200);
  // The other import stored Apple and Pear; this one, Plum, merges with both.
  const other = overtakenBy('type Apple { name: String }\ntype Pear { name: String }', 1);
  const answer = await importSchema(other.service, auth, 'type Plum { name: String }', 'merge');
  assert.equal(answer.status, 200, answer.body);
  assert.equal(other.attempts(), 2, 'one restart');
  assert.deepEqual((await collections('once')).sort(), ['Apple', 'Pear', 'Plum']);
});

test('an import overtaken every time gives up with 409, and says to import again', async () => {
  const auth = `${ROOT}:always:admin`;
  assert.equal((await importSchema(executor, auth, 'type Apple { name: String }', 'merge')).status, 200);
  // The same text each time, but another import's all the same (a new version).
  const other = overtakenBy('type Apple { name: String }', Infinity);
  const answer = await importSchema(other.service, auth, 'type Plum { name: String }', 'merge');
  assert.deepEqual([answer.status, answer.body], [409, 'Other imports into this database kept overtaking this one: import it again.']);
  assert.equal(other.attempts(), 21, 'the first try and 20 restarts');
});
