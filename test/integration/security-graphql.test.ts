// Issue 30, GraphQL row: one request multiplying its work through aliases and fragments. A second
// `__schema`/`__type` field in an operation is refused before anything runs (through aliases and
// fragments, POST and GET alike), one full introspection still works (GraphiQL's, fauna-gql-upload's),
// and every other field is charged one compute unit and resolved in slices, so that an operation of
// thousands of aliases ends at the compute limit while /ping stays prompt. The torture attack
// (graphql-introspection) runs at its test size; the exact answers are asserted here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import { ClientPool, httpRequest, startFlora, type FloraProcess } from '../helpers/server';
import { gql, importSchema } from '../helpers/graphql';
import { aliasedNames, graphqlIntrospection, seedLibrary } from '../../torture/targeted/graphqlIntrospection';
import { promptPingMs, whilePinging } from '../../torture/targeted/pingWatch';

/** A ping slower than this fails. Without the slicing, pings wait for the whole operation: several seconds. */
const PROMPT_MS = promptPingMs('test');

/** What a second introspection field gets: Sangria's validation style, `data: null`, HTTP 200. */
function secondIntrospection(query: string, key: string, line: number, column: number): unknown {
  const text = query.split('\n')[line - 1];
  return {
    data: null,
    errors: [
      {
        message: `Only one '__schema' or '__type' field is allowed per operation: '${key}' is a second one. (line ${line}, column ${column}):\n${text}\n${' '.repeat(column - 1)}^`,
        locations: [{ line, column }],
      },
    ],
  };
}

describe('GraphQL work charged and sliced, introspection once per operation (issue 30)', () => {
  let srv: FloraProcess;
  let pool: ClientPool;
  let admin: string;
  let client: string;
  let reader: string;
  before(async () => {
    srv = await startFlora();
    pool = new ClientPool(srv.url);
    ({ admin, client, reader } = await seedLibrary(srv.url, srv.secret, pool, 'gqlsec', 1000));
  });
  after(async () => {
    await pool?.close();
    await srv?.stop();
  });

  test('the graphql-introspection attack at test size: no violations', { timeout: 180_000 }, async () => {
    const result = await graphqlIntrospection.run({ size: 'test', log: () => {} });
    assert.equal(result.violations, 0, result.details.join('\n'));
  });

  test('a second __schema through an alias is refused before it runs', { timeout: 60_000 }, async () => {
    const query = '{ a0: __schema { queryType { name } } a1: __schema { queryType { name } } }';
    const res = await gql(srv.url, client, query);
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.raw), secondIntrospection(query, 'a1', 1, 39));
  });

  test('a __type through a fragment, after a __schema through another, is refused', { timeout: 60_000 }, async () => {
    const query = [
      'query { ...A ... on Query { ...B } }',
      'fragment A on Query { __schema { queryType { name } } }',
      'fragment B on Query { t: __type(name: "Thing") { name } }',
    ].join('\n');
    const res = await gql(srv.url, client, query);
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.raw), secondIntrospection(query, 't', 3, 23));
  });

  test('GET /graphql is refused alike', { timeout: 60_000 }, async () => {
    const query = '{ __type(name: "Thing") { name } __schema { queryType { name } } }';
    const res = await httpRequest(srv.url, { path: `/graphql?query=${encodeURIComponent(query)}`, headers: { authorization: `Bearer ${client}` } });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), secondIntrospection(query, '__schema', 1, 34));
  });

  test('one full introspection (GraphiQL, fauna-gql-upload) still answers, and fields merged into one __schema count once', { timeout: 60_000 }, async () => {
    const full = await gql(srv.url, client, getIntrospectionQuery({ descriptions: true }));
    assert.equal(full.status, 200);
    assert.equal(full.errors, undefined, full.raw.slice(0, 300));
    const schema = buildClientSchema(full.data as never);
    assert.ok(schema.getType('Thing') && schema.getType('ThingPage'));

    const merged = await gql(srv.url, client, '{ __schema { queryType { name } } __schema { mutationType { name } } __typename }');
    assert.deepEqual(merged.data, { __schema: { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } }, __typename: 'Query' });
  });

  test('700 aliases of a field on 1,000 documents end at the compute limit, /ping answered meanwhile', { timeout: 120_000 }, async () => {
    const { value: res, ping } = await whilePinging(srv.url, () => gql(srv.url, reader, aliasedNames(700, 1000)), 'test');
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.raw), {
      data: null,
      errors: [{ message: 'Transaction does too much compute: got 12001, limit: 12000', extensions: { code: 'bad request' } }],
    });
    assert.ok(ping.pings > 0, 'no ping answered');
    assert.ok(ping.maxMs < PROMPT_MS, `a ping took ${ping.maxMs.toFixed(0)} ms`);
  });

  test('within the limit, each field is one compute unit: 2,000 aliases on 100 documents answer in full', { timeout: 120_000 }, async () => {
    const res = await gql<{ allThings: { data: Record<string, string>[] } }>(srv.url, reader, aliasedNames(2000, 100));
    assert.equal(res.status, 200);
    assert.equal(res.errors, undefined, res.raw.slice(0, 300));
    assert.equal(res.data!.allThings.data.length, 100);
    for (const thing of res.data!.allThings.data) assert.ok(/^thing number \d+$/.test(thing.n0) && thing.n1999 === thing.n0, JSON.stringify(thing).slice(0, 100));
    // 200,000 fields, 100 documents, their page: ~4,000 compute ops of 50 units.
    const ops = Number(res.headers['x-compute-ops']);
    assert.ok(ops >= 4000 && ops < 4200, `x-compute-ops ${ops}`);
  });

  test('/import parses a schema only for a secret that may import, and within 100,000 tokens', { timeout: 60_000 }, async () => {
    const huge = `type Big { ${Array.from({ length: 34_000 }, (_, i) => `f${i}: String`).join(' ')} }`;
    const byClient = await importSchema(srv.url, client, huge);
    assert.equal(byClient.status, 403);
    assert.equal(byClient.body, 'Insufficient privileges to import a schema: an admin or server secret is needed.');
    const byAdmin = await importSchema(srv.url, admin, huge);
    assert.equal(byAdmin.status, 400);
    assert.equal(byAdmin.body, 'The schema is too large: at most 100000 tokens are allowed.');
  });
});
