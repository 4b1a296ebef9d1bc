// GET /api/v1/index-builds (docs/index-builds-api.md) over plain HTTP: a background build seen in
// progress (batches slowed by FLORA_TEST_BUILD_DELAY_MS, so no timing luck), its counts, the
// secret's database only, a role that may not read indexes, and the refusals.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fqlResource, httpRequest, serverForFile } from '../helpers/server';

/** 600 documents: three batches of 256 with a pause of 400 ms after each. */
const DOCS = 600;
const file = serverForFile({ env: { FLORA_TEST_BUILD_DELAY_MS: '400' } });

interface Build {
  index: string;
  done: number;
  total: number | null;
  collection: string | null;
  collections: string[];
}

/** Runs FQL wire JSON with `secret` (the root secret by default), returning the resource. */
const fql = (body: unknown, secret = file.flora.secret): Promise<unknown> => fqlResource(file.flora.url, secret, body);

async function builds(secret = file.flora.secret): Promise<Build[]> {
  const res = await httpRequest(file.flora.url, { path: '/api/v1/index-builds', headers: { authorization: `Bearer ${secret}` } });
  assert.equal(res.status, 200, res.body);
  return (JSON.parse(res.body) as { resource: { builds: Build[] } }).resource.builds;
}

const createIndex = (name: string) => ({ create_index: { object: { name, source: { collection: 'things' }, terms: [{ object: { field: ['data', 'i'] } }] } } });

test('index builds API', { timeout: 60_000 }, async (t) => {
  await fql({ create_database: { object: { name: 'shop' } } });
  const shop = `${file.flora.secret}:shop:admin`;
  await fql({ create_collection: { object: { name: 'things' } } }, shop);
  const numbers = Array.from({ length: DOCS }, (_, i) => i);
  await fql({ foreach: { lambda: 'i', expr: { create: { collection: 'things' }, params: { object: { data: { object: { i: { var: 'i' } } } } } } }, collection: numbers }, shop);

  await t.test('no build: an empty list', async () => {
    assert.deepEqual(await builds(shop), []);
  });

  await t.test('a background build is listed with its progress until the index is active', async () => {
    const created = (await fql(createIndex('things_by_i'), shop)) as { active: boolean };
    assert.equal(created.active, false, 'more than 128 documents: built in the background');
    const first = await builds(shop);
    assert.equal(first.length, 1);
    assert.equal(first[0].index, 'things_by_i');
    assert.deepEqual(first[0].collections, ['things']);
    assert.equal(first[0].total, DOCS);
    assert.ok(first[0].done < DOCS);
    const seen = new Set<number>();
    for (let list = first; list.length > 0; list = await builds(shop)) {
      assert.equal(list[0].total, DOCS, 'nothing written meanwhile: the total stays');
      seen.add(list[0].done);
      if (list[0].done > 0) assert.equal(list[0].collection, 'things');
      await new Promise((r) => setTimeout(r, 100)); // polling a background job: a condition, not luck
    }
    assert.ok([...seen].some((d) => d > 0 && d < DOCS), `a part-way count was seen: ${[...seen].join(', ')}`);
    assert.equal(((await fql({ get: { index: 'things_by_i' } }, shop)) as { active: boolean }).active, true);
  });

  await t.test("only the secret's own database, and only indexes its role may read", async () => {
    await fql(createIndex('things_by_i_2'), shop);
    assert.deepEqual(await builds(), [], 'the top database has no build of its own');
    const client = (await fql({ select: 'secret', from: { create_key: { object: { role: 'client' } } } }, shop)) as string;
    assert.deepEqual(await builds(client), [], 'a client key may not read indexes');
    assert.deepEqual((await builds(shop)).map((b) => b.index), ['things_by_i_2']);
  });

  await t.test('refusals: no secret, a wrong secret, another method', async () => {
    const none = await httpRequest(file.flora.url, { path: '/api/v1/index-builds' });
    assert.equal(none.status, 401);
    assert.equal(JSON.parse(none.body).errors[0].code, 'unauthorized');
    const wrong = await httpRequest(file.flora.url, { path: '/api/v1/index-builds', headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const post = await httpRequest(file.flora.url, { method: 'POST', path: '/api/v1/index-builds', headers: { authorization: `Bearer ${file.flora.secret}` } });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET');
  });
});
