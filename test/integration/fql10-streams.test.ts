// FQL v10 event feeds and streams through the official `fauna` driver against a real server (one
// process here, a tier of two workers in the runner's tier pass): add/update/remove events, feed
// pages with has_next and cursors, start_ts, a stream resumed from a cursor, a key whose role may
// not read the collection, a stream whose key is deleted, and the core's answers to bad tokens and
// cursors.

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

test('a key with a role that may read the collection gets its events (not history_read); a predicate hides what it denies; deleting the key ends the stream with permission_loss', async () => {
  // `read` only: the events' versions are read as of their time with the read permission, as the
  // core's EventFilter does, not as history reads.
  await admin.query(fql`Role.create({ name: "streamReader", privileges: [{ resource: "Item", actions: { read: "doc => doc.name != 'secret'" } }] })`);
  const key = (await admin.query<{ id: string; secret: string }>(fql`let k = Key.create({ role: "streamReader" }); { id: k.id, secret: k.secret }`)).data;
  const reader = v10(key.secret);
  const source = (await reader.query<EventSource>(fql`Item.byColor("teal").eventSource()`)).data;
  const stream = reader.stream(source, { status_events: true });
  const it = stream[Symbol.asyncIterator]();
  assert.equal(((await it.next()).value as unknown as Ev).type, 'status');
  let next = it.next();
  await admin.query(fql`Item.create({ color: "teal", name: "secret" }); Item.create({ color: "teal", name: "t1" })`);
  const first = (await next).value as unknown as Ev;
  assert.deepEqual([first.type, first.data?.name], ['add', 't1']);
  // The same through a feed: the denied document is left out.
  const page = await reader.feed(source, {})[Symbol.asyncIterator]().next();
  assert.deepEqual([...page.value.events].map((e) => [e.type, (e.data as { name?: string } | undefined)?.name]), [['add', 't1']]);
  // The driver ends the iteration with the error event: wait for it before the writes that cause it.
  next = it.next();
  const ended = assert.rejects(next, (e: unknown) => e instanceof ServiceError && e.code === 'permission_loss' && e.message === 'Stream authentication is no longer valid.');
  await admin.query(fql`Key.byId(${key.id})!.delete()`);
  await admin.query(fql`Item.create({ color: "teal", name: "t2" })`);
  await ended;
  stream.close();
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

test('Set.single(doc) follows one document: its updates and its removal, as feed and stream', async () => {
  const id = (await admin.query<string>(fql`Item.create({ name: "one", color: "teal" }).id`)).data;
  const source = (await admin.query<EventSource>(fql`Set.single(Item.byId(${id})!).eventSource()`)).data;
  await admin.query(fql`Item.create({ name: "other", color: "teal" })`);
  await admin.query(fql`Item.byId(${id})!.update({ name: "two" })`);
  await admin.query(fql`Item.byId(${id})!.delete()`);
  assert.deepEqual((await allFeedEvents(source)).map((e) => [e.type, e.data?.name]), [['update', 'two'], ['remove', 'two']]);
  // Watched fields on the document itself; behind a `map`, they are refused as the core does.
  const id2 = (await admin.query<string>(fql`Item.create({ name: "w", color: "teal" }).id`)).data;
  const watched = (await admin.query<EventSource>(fql`Set.single(Item.byId(${id2})!).eventsOn(.color)`)).data;
  await admin.query(fql`Item.byId(${id2})!.update({ name: "w2" })`);
  await admin.query(fql`Item.byId(${id2})!.update({ color: "navy" })`);
  assert.deepEqual((await allFeedEvents(watched)).map((e) => [e.type, e.data?.color]), [['update', 'navy']]);
  await assert.rejects(admin.query(fql`Set.single(Item.byId(${id2})!).map(.name).eventsOn(.color)`), (e: unknown) => e instanceof ServiceError && e.code === 'invalid_receiver' && /it was not called on the source set\./.test(e.message));
  // A live stream of the document.
  const stream = admin.stream((await admin.query<EventSource>(fql`Set.single(Item.byId(${id2})!).eventSource()`)).data);
  const it = stream[Symbol.asyncIterator]();
  const next = it.next();
  await admin.query(fql`Item.byId(${id2})!.update({ name: "live" })`);
  const e = (await next).value as unknown as Ev;
  stream.close();
  assert.deepEqual([e.type, e.data?.name], ['update', 'live']);
});

test('Set.single of a value that is no document, or one the caller may not read, is refused', async () => {
  await assert.rejects(
    admin.query(fql`Set.single(1).eventSource()`),
    (e: unknown) => e instanceof ServiceError && e.code === 'invalid_receiver' && /streaming on `Set\.single\(\)` is only supported if its element is a document\./.test(e.message),
  );
  const hiddenId = (await admin.query<string>(fql`Hidden.create({ secret: 1 }).id`)).data;
  await admin.query(fql`if (!Role.byName("itemsOnly").exists()) Role.create({ name: "itemsOnly", privileges: [{ resource: "Item", actions: { read: true } }] })`);
  const reader = v10((await admin.query<string>(fql`Key.create({ role: "itemsOnly" }).secret`)).data);
  await assert.rejects(
    reader.query(fql`Set.single(Hidden.byId(${hiddenId})).eventSource()`),
    (e: unknown) => e instanceof ServiceError && e.code === 'permission_denied' && e.message === 'Insufficient privileges to create a stream on the source document.',
  );
  // A token of the admin's for that document: the reader gets the stream but no event of it.
  const source = (await admin.query<EventSource>(fql`Set.single(Hidden.byId(${hiddenId})!).eventSource()`)).data;
  await admin.query(fql`Hidden.byId(${hiddenId})!.update({ secret: 2 })`);
  const events: Ev[] = [];
  for await (const page of reader.feed(source, {})) for (const ev of page.events) events.push(ev as unknown as Ev);
  assert.deepEqual(events, []);
});

test('an idle stream sends a status event with its cursor every status interval', async () => {
  const other = await startFlora({ env: { FLORA_STREAM_STATUS_EVENT_MS: '300' } });
  const c = new Client({ endpoint: new URL(other.url), secret: other.secret });
  try {
    await c.query(fql`Collection.create({ name: "Quiet" })`);
    const source = (await c.query<EventSource>(fql`Quiet.all().eventSource()`)).data;
    const stream = c.stream(source, { status_events: true });
    const it = stream[Symbol.asyncIterator]();
    const opening = (await it.next()).value as unknown as Ev;
    const idle = (await it.next()).value as unknown as Ev;
    assert.equal(opening.type, 'status');
    assert.equal(idle.type, 'status');
    assert.ok(idle.txn_ts >= opening.txn_ts);
    // Its cursor resumes the stream: a document made after it is the next event.
    const next = it.next();
    await c.query(fql`Quiet.create({ n: 1 })`);
    let e = (await next).value as unknown as Ev;
    while (e.type === 'status') e = (await it.next()).value as unknown as Ev;
    assert.equal(e.type, 'add');
    stream.close();
    const resumed = c.stream(source, { cursor: idle.cursor });
    for await (const r of resumed) {
      assert.equal((r as unknown as Ev).type, 'add');
      break;
    }
    resumed.close();
  } finally {
    c.close();
    await other.stop();
  }
});

test('a feed or stream from before the collection keeps history gets invalid_stream_start_time', async () => {
  await admin.query(fql`Collection.create({ name: "Brief", history_days: 0 })`);
  const source = (await admin.query<EventSource>(fql`Brief.all().eventSource()`)).data;
  // 20 minutes ago: below history_days 0 and the 15 minutes every collection keeps on top.
  const oldTs = BigInt(Date.now() - 20 * 60_000) * 1000n;
  const oldCursor = Buffer.from(`${oldTs}.0`).toString('base64');
  const message = `Stream start time ${oldTs} is too far in the past. Recreate the stream and try again.`;
  const res = await fetch(new URL('/feed/1', flora.url), { method: 'POST', headers: { authorization: `Bearer ${flora.secret}` }, body: JSON.stringify({ token: source.token, cursor: oldCursor }) });
  assert.equal(res.status, 200);
  const page = (await res.json()) as { events: { type: string; error: { code: string; message: string } }[]; cursor: string; has_next: boolean };
  assert.deepEqual(page.events.map((e) => [e.type, e.error]), [['error', { code: 'invalid_stream_start_time', message }]]);
  assert.equal(page.cursor, oldCursor, 'an error event does not move the cursor');
  assert.equal(page.has_next, false);
  // A stream whose token was made that long ago: its status event, then the error, then the end.
  const token = JSON.parse(Buffer.from(source.token, 'base64').toString('utf8')) as { c: [string, number] };
  token.c = [String(oldTs), 0];
  const old = Buffer.from(JSON.stringify(token)).toString('base64');
  const stream = await fetch(new URL('/stream/1', flora.url), { method: 'POST', headers: { authorization: `Bearer ${flora.secret}` }, body: JSON.stringify({ token: old }) });
  const lines = (await stream.text()).trim().split('\r\n').map((l) => JSON.parse(l) as { type: string; error?: { code: string; message: string } });
  assert.deepEqual(lines.map((l) => [l.type, l.error?.code]), [['status', undefined], ['error', 'invalid_stream_start_time']]);
  // With history kept, the same cursor replays.
  const kept = (await admin.query<EventSource>(fql`Item.all().eventSource()`)).data;
  const ok = await fetch(new URL('/feed/1', flora.url), { method: 'POST', headers: { authorization: `Bearer ${flora.secret}` }, body: JSON.stringify({ token: kept.token, cursor: oldCursor }) });
  assert.ok(((await ok.json()) as { events: { type: string }[] }).events.every((e) => e.type !== 'error'));
});
