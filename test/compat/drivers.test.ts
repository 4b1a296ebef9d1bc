// The JavaScript drivers configured exactly as the README's "Coming from Fauna" section says: faunadb
// 4.x with domain/port/scheme (its default HTTP/2 transport) or one endpoint URL, and faunadb 2.x with
// domain/port/scheme (old-drivers.test.ts covers what 2.x needs of the wire format in depth).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, query as q, values } from 'faunadb';
import { serverForFile } from '../helpers/server';

const server = serverForFile();

// eslint-disable-next-line @typescript-eslint/no-require-imports
const faunadb2 = require('faunadb-2') as {
  Client: new (opts: Record<string, unknown>) => { query(expr: unknown): Promise<any> };
  query: Record<string, (...args: any[]) => unknown>;
  values: { Ref: new (...args: any[]) => unknown };
};

const opened: Client[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close({ force: true })));
});

describe('faunadb 4.x', () => {
  test('{ secret, domain, port, scheme: "http" }', async () => {
    const client = new Client({ secret: 'secret', domain: '127.0.0.1', port: server.flora.port, scheme: 'http' });
    opened.push(client);
    await client.query(q.CreateCollection({ name: 'posts4' }));
    const post = await client.query<{ ref: values.Ref; data: { title: string } }>(q.Create(q.Collection('posts4'), { data: { title: 'Hello' } }));
    assert.equal(post.data.title, 'Hello');
    assert.equal((await client.query<{ data: { title: string } }>(q.Get(post.ref))).data.title, 'Hello');
  });

  test('{ secret, endpoint: "http://127.0.0.1:PORT" }', async () => {
    const client = new Client({ secret: 'secret', endpoint: `http://127.0.0.1:${server.flora.port}` });
    opened.push(client);
    assert.equal(await client.query(q.Add(1, 2)), 3);
  });
});

describe('faunadb 2.x', () => {
  test('{ secret, domain, port, scheme: "http" }: refs go back as they came', async () => {
    const { query: q2 } = faunadb2;
    const client = new faunadb2.Client({ secret: 'secret', domain: '127.0.0.1', port: server.flora.port, scheme: 'http' });
    await client.query(q2.CreateClass({ name: 'posts2' }));
    const post = await client.query(q2.Create(q2.Class('posts2'), { data: { title: 'Hello' } }));
    assert.ok(post.ref instanceof faunadb2.values.Ref);
    assert.equal((await client.query(q2.Get(post.ref))).data.title, 'Hello');
  });
});
