// A real LMDB-backed store in a temporary folder, with an engine wrapper that counts writes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Engine, Head, HeadQuery, KV, RangeOptions, WriteOp } from '../../src/storage/engine';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore } from '../../src/storage/store';
import type { Store } from '../../src/storage/types';

/** One engine for several stores, closed with the last of them (as each process closes its own). */
export function sharedBy(inner: Engine, users: number): Engine {
  let open = users;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'close') return async () => (--open === 0 ? target.close() : undefined);
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'flora-store-'));
}

/** Counts writes and records which keys are durable; everything else goes to the real engine. */
export class CountingEngine implements Engine {
  writes = 0;
  durable = new Set<string>();
  constructor(readonly inner: Engine) {}
  get maxKeySize() {
    return this.inner.maxKeySize;
  }
  get(key: Uint8Array) {
    return this.inner.get(key);
  }
  range(opts: RangeOptions): AsyncIterable<KV> {
    return this.inner.range(opts);
  }
  async write(ops: WriteOp[]) {
    this.writes++;
    await this.inner.write(ops);
    for (const op of ops) this.durable.add(Buffer.from(op.key).toString('hex'));
  }
  close() {
    return this.inner.close();
  }
  get shared() {
    return this.inner.shared;
  }
  startup<T>(fn: () => Promise<T>) {
    return this.inner.startup(fn);
  }
  checkReaders() {
    this.inner.checkReaders();
  }
  sizeBytes() {
    return this.inner.sizeBytes();
  }
  snapshot() {
    return this.inner.snapshot();
  }
  readHead(q: HeadQuery) {
    return this.inner.readHead(q);
  }
  async exclusive(q: HeadQuery, build: (head: Head) => WriteOp[]) {
    let written: WriteOp[] = [];
    this.writes++;
    await this.inner.exclusive(q, (head) => (written = build(head)));
    for (const op of written) this.durable.add(Buffer.from(op.key).toString('hex'));
  }
}

/** A fresh LMDB engine in a temporary folder, closed and removed after `fn`. */
export async function withLmdbEngine(fn: (engine: Engine) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const engine = await openLmdbEngine(dir);
  try {
    await fn(engine);
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function withStore(
  fn: (store: Store, engine: CountingEngine, dir: string) => Promise<void>,
  clock?: () => bigint,
): Promise<void> {
  const dir = tempDir();
  const engine = new CountingEngine(await openLmdbEngine(dir));
  const store = await openStore(engine, { clock });
  try {
    await fn(store, engine, dir);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

