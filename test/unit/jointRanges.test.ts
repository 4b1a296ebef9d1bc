import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Engine, KV, RangeOptions } from '../../src/storage/engine';
import { jointRanges } from '../../src/storage/jointRanges';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { tempDir } from '../helpers/store';

const key = (tag: number, n: number) => Uint8Array.of(tag, n >> 8, n & 0xff);
const num = (kv: KV) => (kv.key[1] << 8) | kv.key[2];

async function collect(it: AsyncIterable<KV>): Promise<number[]> {
  const out: number[] = [];
  for await (const kv of it) out.push(num(kv));
  return out;
}

const span = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** An LMDB engine holding keys 1|0..599 and 2|0..9, with its reads counted. */
async function engineWithKeys(t: { after(fn: () => Promise<void>): void }) {
  const dir = tempDir();
  const engine = await openLmdbEngine(dir);
  t.after(async () => {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await engine.write([...span(0, 600).map((n) => ({ key: key(1, n), value: Uint8Array.of(1) })), ...span(0, 10).map((n) => ({ key: key(2, n), value: Uint8Array.of(2) }))]);
  const reads = { heads: 0, ranges: 0 };
  const counted: Engine = Object.assign(Object.create(engine) as Engine, {
    readHead: (q: Parameters<Engine['readHead']>[0]) => (reads.heads++, engine.readHead(q)),
    range: (r: RangeOptions) => (reads.ranges++, engine.range(r)),
  });
  return { engine: counted, reads };
}

const all = (tag: number, reverse = false, limit?: number): RangeOptions => ({ start: Uint8Array.of(tag), end: Uint8Array.of(tag + 1), reverse, limit });

test('two short ranges come from one engine read', async (t) => {
  const { engine, reads } = await engineWithKeys(t);
  const [a, b] = jointRanges(engine, [all(2), { start: key(1, 5), end: key(1, 70) }]);
  assert.deepEqual(await collect(b), span(5, 70));
  assert.deepEqual(await collect(a), span(0, 10));
  assert.deepEqual(reads, { heads: 1, ranges: 0 });
});

test('a range longer than the joint read continues past its last row, in either direction', async (t) => {
  const { engine, reads } = await engineWithKeys(t);
  const [fwd, rev, small] = jointRanges(engine, [all(1), all(1, true), all(2, true)]);
  assert.deepEqual(await collect(fwd), span(0, 600));
  assert.deepEqual(await collect(rev), span(0, 600).reverse());
  assert.deepEqual(await collect(small), span(0, 10).reverse());
  assert.deepEqual(reads, { heads: 1, ranges: 2 });
});

test('limits hold across the joint read and the continuation', async (t) => {
  const { engine } = await engineWithKeys(t);
  const [short, long, longRev, exact] = jointRanges(engine, [all(1, false, 10), all(1, false, 300), all(1, true, 300), all(1, false, 256)]);
  assert.deepEqual(await collect(short), span(0, 10));
  assert.deepEqual(await collect(long), span(0, 300));
  assert.deepEqual(await collect(longRev), span(300, 600).reverse());
  assert.deepEqual(await collect(exact), span(0, 256));
});

test('a failed joint read fails the ranges that are read, and no other', async (t) => {
  const { engine } = await engineWithKeys(t);
  const failing: Engine = Object.assign(Object.create(engine) as Engine, { readHead: () => Promise.reject(new Error('store down')) });
  const [a] = jointRanges(failing, [all(1), all(2)]);
  await assert.rejects(collect(a), /store down/);
});
