// FQL v10 event feeds and streams through the official `fauna` driver against a real server (one
// process here, a tier of two workers in the runner's tier pass): add/update/remove events, feed
// pages with has_next and cursors, start_ts, a stream resumed from a cursor, a key whose role may
// not read the collection, and the core's answers to bad tokens and cursors.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fql, ServiceError, type EventSource } from 'fauna';
import { startFlora, type FloraProcess } from '../helpers/server';
import { V10Clients } from '../helpers/v10';

let flora: FloraProcess;
let admin: Client;

const clients = new V10Clients(() => flora.url);
const v10 = (secret: string): Client => clients.client(secret);

before(async () => {
  flora = await startFlora();
  admin = v10(flora.secret);
  await admin.query(fql`Collection.create({ name: "Item", indexes: { byColor: { terms: [{ field: ".color" }] }, byColorName: { terms: [{ field: ".color" }], values: [{ field: ".name" }] } } })`);
  await admin.query(fql`Collection.create({ name: "Hidden" })`);
});

after(async () => {
  clients.closeAll();
  await flora?.stop();
});

type Ev = { type: string; data?: { id: string; name?: string } & Record<string, unknown>; txn_ts: number; cursor: string };

async function allFeedEvents(source: EventSource, opts: Record<string, unknown> = {}): Promise<Ev[]> {
  const out: Ev[] = [];
  for await (const page of admin.feed(source, opts)) for (const e of page.events) out.push(e as unknown as Ev);
  return out;
}

async function post(path: string, body: unknown, secret = flora.secret): Promise<{ status: number; json: { error: { code: string; message: string } } }> {
  const res = await fetch(new URL(path, flora.url), { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as { error: { code: string; message: string } } };
}

test('a feed pages through add, update and remove events with has_next and its cursor', async () => {
  const source = (await admin.query<EventSource>(fql`Item.all().eventSource()`)).data;
  const id = (await admin.query<string>(fql`Item.create({ name: "a", color: "red" }).id`)).data;
  await admin.query(fql`Item.byId(${id})!.update({ name: "b" })`);
  await admin.query(fql`Item.create({ name: "c", color: "blue" })`);
  await admin.query(fql`Item.byId(${id})!.delete()`);
  const first = await admin.feed(source, { page_size: 2 })[Symbol.asyncIterator]().next();
  assert.equal([...first.value.events].length, 2);
  assert.equal(first.value.hasNext, true);
  const events = await allFeedEvents(source, { page_size: 2 });
  assert.deepEqual(events.map((e) => [e.type, e.data?.name]), [['add', 'a'], ['update', 'b'], ['add', 'c'], ['remove', 'b']]);
  assert.equal(events[0].data?.id, id);
  // From a cursor: what came after it.
  const rest = await allFeedEvents(source, { cursor: events[1].cursor });
  assert.deepEqual(rest.map((e) => e.type), ['add', 'remove']);
  // start_ts: the first event of that transaction is left out (the core's).
  const fromTs = await allFeedEvents(source, { start_ts: events[2].txn_ts });
  assert.deepEqual(fromTs.map((e) => e.type), ['remove']);
});

test('an index set with terms, behind where and map, and eventsOn watched fields', async () => {
  const reds = (await admin.query<EventSource>(fql`Item.byColor("green").where(.n > 1).map(.n).eventSource()`)).data;
  const watched = (await admin.query<EventSource>(fql`Item.all().eventsOn(.color)`)).data;
  const id = (await admin.query<string>(fql`Item.create({ color: "green", n: 2 }).id`)).data;
  await admin.query(fql`Item.create({ color: "green", n: 1 }); Item.create({ color: "black", n: 5 })`);
  await admin.query(fql`Item.byId(${id})!.update({ n: 3 })`);
  await admin.query(fql`Item.byId(${id})!.update({ color: "white" })`);
  assert.deepEqual((await allFeedEvents(reds)).map((e) => [e.type, e.data]), [['add', 2], ['remove', 3]]);
  assert.deepEqual((await allFeedEvents(watched)).map((e) => e.type), ['add', 'add', 'add', 'update']);
});

test('a stream delivers live events, and resumes from a cursor', async () => {
  // An index source has events only for changes to its terms and values (the core's index
  // partitions): `name` is a value of this index, so renaming a pink item is an update.
  const source = (await admin.query<EventSource>(fql`Item.byColorName("pink").eventSource()`)).data;
  const stream = admin.stream(source, { status_events: true });
  const seen: Ev[] = [];
  const it = stream[Symbol.asyncIterator]();
  const status = (await it.next()).value as unknown as Ev;
  assert.equal(status.type, 'status');
  // The driver keeps only the newest chunk that arrives while its reader is not waiting, and Flora
  // sends an event as soon as the commit is made (before the write's own answer): the reader waits
  // for the next event before the write that makes it, as any consumer looping over the stream does.
  let next = it.next();
  const id = (await admin.query<string>(fql`Item.create({ color: "pink", name: "p" }).id`)).data;
  seen.push((await next).value as unknown as Ev);
  next = it.next();
  await admin.query(fql`Item.byId(${id})!.update({ name: "q" })`);
  seen.push((await next).value as unknown as Ev);
  stream.close();
  assert.deepEqual(seen.map((e) => [e.type, e.data?.name]), [['add', 'p'], ['update', 'q']]);
  await admin.query(fql`Item.byId(${id})!.delete()`);
  const resumed = admin.stream(source, { cursor: seen[0].cursor });
  const events: Ev[] = [];
  for await (const e of resumed) {
    events.push(e as unknown as Ev);
    if (events.length === 2) break;
  }
  resumed.close();
  assert.deepEqual(events.map((e) => e.type), ['update', 'remove']);
});

test('a key whose role cannot read the collection gets no source and no events', async () => {
  await admin.query(fql`Role.create({ name: "itemsOnly", privileges: [{ resource: "Item", actions: { read: true } }] })`);
  const secret = (await admin.query<string>(fql`Key.create({ role: "itemsOnly" }).secret`)).data;
  const reader = v10(secret);
  await assert.rejects(reader.query(fql`Hidden.all().eventSource()`), (e: unknown) => e instanceof ServiceError && e.code === 'permission_denied');
  const hidden = (await admin.query<EventSource>(fql`Hidden.all().eventSource()`)).data;
  const r = await post('/feed/1', { token: hidden.token }, secret);
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, 'invalid_request');
  assert.equal(r.json.error.message, 'Error evaluating provided event source, Insufficient privileges to read from collection Hidden.');
  const s = await post('/stream/1', { token: hidden.token }, secret);
  assert.equal(s.json.error.message, 'Error evaluating provided stream, Insufficient privileges to read from collection Hidden.');
});

test('bad tokens, cursors and bodies get the core answers', async () => {
  const source = (await admin.query<EventSource>(fql`Item.all().eventSource()`)).data;
  const cases: [string, unknown, string][] = [
    ['/feed/1', {}, 'Invalid request body: Value for key token not found.'],
    ['/feed/1', { token: 'INVALID!' }, 'Invalid request body: invalid event source provided.'],
    ['/feed/1', { token: source.token, cursor: 'INVALID!' }, 'Invalid request body: invalid event cursor provided.'],
    ['/feed/1', { token: source.token, start_ts: 'INVALID!' }, "Invalid request body: Unexpected string value 'INVALID!'."],
    ['/feed/1', { token: source.token, start_ts: 1, cursor: 'x' }, 'Invalid request body: can not provide both `start_ts` and `cursor`.'],
    ['/feed/1', { token: source.token, page_size: -1 }, 'Invalid request body: page size must be greater than zero.'],
    ['/feed/1', { token: source.token, page_size: 16001 }, 'Invalid request body: page size can not be greater than 16000.'],
    ['/stream/1', { token: 'INVALID!' }, 'Invalid request body: invalid event source provided'],
    ['/stream/1', { token: source.token, start_ts: 1 }, 'Invalid stream start time: Stream start time can not be before the stream create time.'],
  ];
  for (const [path, body, message] of cases) {
    const r = await post(path, body);
    assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
    assert.deepEqual(r.json.error, { code: 'invalid_request', message });
  }
  assert.equal((await post('/feed/1', { token: source.token }, 'nope')).status, 401);
  await assert.rejects(admin.query(fql`[1, 2].toSet().eventSource()`), (e: unknown) => e instanceof ServiceError && e.code === 'invalid_receiver');
});
