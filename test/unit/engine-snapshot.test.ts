// Engine.snapshot() on both engines: one state of the whole map, in key order and in bounded
// chunks, that a write made while it is open neither waits for nor shows up in.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine, KV } from '../../src/storage/engine';
import { openPgEngine } from '../../src/storage/pgEngine';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { withLmdbEngine } from '../helpers/store';

const N = 3000;
const key = (i: number) => Uint8Array.of(0x41, i >> 8, i & 0xff);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const entry = (kv: KV) => `${hex(kv.key)}=${hex(kv.value)}`;

/** Resolves with `p`, or rejects when it takes longer than `ms` (a write blocked by the snapshot). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms).unref())]);
}

async function contract(engine: Engine): Promise<void> {
  // Written in shuffled order: the scan's order is the engine's, not the writes'.
  const order = Array.from({ length: N }, (_, i) => (i * 7919) % N);
  await engine.write(order.map((i) => ({ key: key(i), value: Uint8Array.of(1, i & 0xff) })));
  const before = Array.from({ length: N }, (_, i) => entry({ key: key(i), value: Uint8Array.of(1, i & 0xff) }));

  const snapshot = await engine.snapshot();
  const seen: string[] = [];
  let chunks = 0;
  let wrote = false;
  for await (const chunk of snapshot.scan()) {
    chunks++;
    assert.ok(chunk.length > 0 && chunk.length <= 1024, `a chunk of ${chunk.length} entries`);
    for (const kv of chunk) seen.push(entry(kv));
    if (!wrote) {
      wrote = true;
      // Mid-scan: change entries behind and ahead of the scan, delete one, add some. The write
      // completes while the snapshot is open (no writer waits for it).
      await within(
        engine.write([
          { key: key(0), value: Uint8Array.of(2) },
          { key: key(N - 1), value: Uint8Array.of(2) },
          { key: key(1500), value: null },
          { key: Uint8Array.of(0x41, 0xff, 0xff), value: Uint8Array.of(3) },
          { key: Uint8Array.of(0x40), value: Uint8Array.of(3) },
        ]),
        5000,
        'a write during the scan',
      );
      assert.equal(hex((await snapshot.get(key(N - 1)))!), '01' + (N - 1).toString(16).slice(-2).padStart(2, '0'));
      assert.equal(hex((await snapshot.get(key(1500)))!), '01' + (1500 & 0xff).toString(16).padStart(2, '0'));
      assert.equal(await snapshot.get(Uint8Array.of(0x40)), undefined);
    }
  }
  await snapshot.close();
  assert.ok(chunks >= 3, `${chunks} chunks for ${N} entries`);
  assert.deepEqual(seen, before, 'the snapshot shows the state it was opened on, in key order');
  // The engine itself has moved on, and so does the next snapshot.
  assert.equal(hex((await engine.get(key(0)))!), '02');
  assert.equal(await engine.get(key(1500)), undefined);
  const next = await engine.snapshot();
  let count = 0;
  for await (const chunk of next.scan()) count += chunk.length;
  await next.close();
  assert.equal(count, N + 1);
}

describe('engine snapshots', () => {
  let pg: Postgres | undefined;
  before(async () => {
    pg = await startPostgres();
  });
  after(async () => {
    await pg?.stop();
  });

  test('LMDB: one state, key order, bounded chunks, writers not blocked', () => withLmdbEngine(contract));

  test('PostgreSQL: the same', async () => {
    const engine = await openPgEngine(await pg!.newDatabase('snapshot'));
    try {
      await contract(engine);
    } finally {
      await engine.close();
    }
  });

  test('a closed snapshot reads no more', () =>
    withLmdbEngine(async (engine) => {
      await engine.write([{ key: key(1), value: Uint8Array.of(1) }]);
      const s = await engine.snapshot();
      await s.close();
      await s.close(); // twice is fine
      await assert.rejects(async () => {
        for await (const _ of s.scan());
      }, /closed/);
    }));
});
