// The import's batches (src/transfer/import/batches.ts), against a scripted server answering through
// the client's transport: a record refused by position, a batch refused as a whole, contention,
// and a server failure.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Batcher } from '../../src/transfer/import/batches';
import { QueryClient, QueryFailed, type Exchange } from '../../src/transfer/queryClient';

type Reply = (items: string[]) => Exchange;

const ok = (items: string[]): Exchange => ({ status: 200, text: JSON.stringify({ resource: items.map((i) => `done ${i}`) }), txnTs: 1n });
const refused = (status: number, code: string, position: (string | number)[] = []): Exchange => ({
  status,
  text: JSON.stringify({ errors: [{ position, code, description: `${code}!` }] }),
  txnTs: 1n,
});

/** A batcher whose server answers each batch (its items, as sent) with `reply`; what happened. */
function scripted(reply: Reply, records = 10) {
  const sent: string[][] = [];
  const done: string[] = [];
  const refusals: string[] = [];
  const client = new QueryClient('scripted', 's', [], async (body) => {
    const items = JSON.parse(body) as string[];
    sent.push(items);
    return reply(items);
  });
  const batcher = new Batcher<string>(
    client,
    {
      statement: (item) => JSON.stringify(item),
      done: (item, answer) => done.push(`${item}:${String(answer)}`),
      refused: (item, e) => refusals.push(`${item}:${e.code}`),
    },
    { records, bytes: 1 << 20, inFlight: 2 },
  );
  return { batcher, sent, done, refusals };
}

async function addAll(b: Batcher<string>, items: string[]): Promise<void> {
  for (const i of items) await b.add(i);
  await b.flush();
}

test('a record refused at its position is reported; the rest of its batch is written', async () => {
  const s = scripted((items) => (items.includes('bad') ? refused(400, 'validation failed', [items.indexOf('bad'), 'params']) : ok(items)));
  await addAll(s.batcher, ['a', 'bad', 'c']);
  assert.deepEqual(s.refusals, ['bad:validation failed']);
  assert.deepEqual(s.done, ['a:done a', 'c:done c']);
  assert.deepEqual(s.sent, [['a', 'bad', 'c'], ['a', 'c']]);
});

test('a batch refused as a whole (no position) is halved until the record at fault is alone', async () => {
  const s = scripted((items) => (items.includes('big') ? refused(400, 'bad request') : ok(items)));
  await addAll(s.batcher, ['a', 'b', 'big', 'd']);
  assert.deepEqual(s.refusals, ['big:bad request']);
  assert.deepEqual(s.done.sort(), ['a:done a', 'b:done b', 'd:done d']);
  assert.deepEqual(s.sent, [['a', 'b', 'big', 'd'], ['a', 'b'], ['big', 'd'], ['big'], ['d']]);
});

test('contention and a busy server: the same batch again, later', async () => {
  let answers = 0;
  const s = scripted((items) => (++answers === 1 ? refused(409, 'contended transaction') : answers === 2 ? refused(429, 'too many requests') : ok(items)));
  await addAll(s.batcher, ['a', 'b']);
  assert.deepEqual(s.done, ['a:done a', 'b:done b']);
  assert.deepEqual(s.refusals, []);
  assert.equal(s.sent.length, 3);
});

test('a server failure ends the import with its error, nothing reported as refused', async () => {
  const s = scripted(() => refused(500, 'internal server error'), 2);
  await assert.rejects(addAll(s.batcher, ['a', 'b', 'c', 'd', 'e']), (e: unknown) => e instanceof QueryFailed && e.status === 500);
  assert.deepEqual(s.refusals, []);
  assert.deepEqual(s.done, []);
});
