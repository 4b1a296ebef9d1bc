// The store's shared mode (store.ts), at the store level: two stores on one shared engine behave as
// two processes of a tier (each has its own commit log view, snapshots and caches; only the engine
// is common). Real LMDB in a temporary folder.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { openStore, type StoreOptions } from '../../src/storage/store';
import { LOG_RETENTION_US, LOG_TAG } from '../../src/storage/commitLog';
import { EngineConflict, StorageUnavailable, type Engine } from '../../src/storage/engine';
import type { CommitEvent, DocKey, Store } from '../../src/storage/types';
import { obj, type Obj } from '../../src/values/types';
import { QueryError } from '../../src/values/errors';
import { sharedBy, tempDir } from '../helpers/store';
import { LEASE_US, LeaseLost, Leases } from '../../src/tier/leases';

const doc = (id: bigint): DocKey => ({ db: 1n, coll: 1024, id });
const data = (n: bigint): Obj => obj([['data', obj([['n', n]])]]);
const valueOf = (d: Obj | null | undefined): bigint | undefined => (d?.get('data') as Obj | undefined)?.get('n') as bigint | undefined;

async function withTwo(fn: (a: Store, b: Store, engine: Engine) => Promise<void>, opts: StoreOptions = {}, optsB: StoreOptions = opts): Promise<void> {
  const dir = tempDir();
  const engine = sharedBy(await openLmdbEngine(dir, { shared: true }), 2);
  const a = await openStore(engine, opts);
  const b = await openStore(engine, optsB);
  try {
    await fn(a, b, engine);
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function logRecords(engine: Engine): Promise<number> {
  let n = 0;
  for await (const _ of engine.range({ start: Uint8Array.of(LOG_TAG), end: Uint8Array.of(LOG_TAG + 1) })) n++;
  return n;
}

test('a write through one store is read through the other; commit times increase across them', async () => {
  await withTwo(async (a, b) => {
    assert.ok(a.shared && b.shared);
    const first = await a.run(async (txn) => txn.putVersion(doc(1n), 'create', data(1n)));
    const read = await b.run(async (txn) => valueOf((await txn.getVersion(doc(1n)))?.data), { minSnapshotTs: first.ts });
    assert.equal(read.result, 1n);
    const second = await b.run(async (txn) => txn.putVersion(doc(1n), 'update', data(2n)));
    assert.ok(second.ts > first.ts);
    const third = await a.run(async (txn) => txn.putVersion(doc(2n), 'create', data(3n)));
    assert.ok(third.ts > second.ts, 'a commit after another, on another store, has the larger ts');
  });
});

test('no lost update: increments from both stores at once all count', async () => {
  await withTwo(async (a, b) => {
    await a.run(async (txn) => txn.putVersion(doc(1n), 'create', data(0n)));
    const increment = (s: Store) =>
      s.run(
        async (txn) => {
          const n = valueOf((await txn.getVersion(doc(1n)))?.data)!;
          txn.putVersion(doc(1n), 'update', data(n + 1n));
        },
        { maxRetries: 1000 },
      );
    const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => increment(i % 2 ? a : b)));
    assert.ok(runs.some((r) => r.retries > 0), 'the two stores did race');
    const last = runs.reduce((m, r) => (r.ts > m ? r.ts : m), 0n);
    const final = await b.run(async (txn) => valueOf((await txn.getVersion(doc(1n)))?.data), { minSnapshotTs: last });
    assert.equal(final.result, 40n);
  });
});

test('under the default limit, losses to another store\'s commits are allowed four times as often; a client\'s limit counts every loss', async () => {
  await withTwo(async (a, b) => {
    await a.run(async (txn) => txn.putVersion(doc(1n), 'create', data(0n)));
    // Every attempt of `a` reads the document, then `b` commits to it first: `a` loses to another
    // process until it has lost `losses` times (a hot document whose other process's queue wins).
    const losing = (losses: number, maxRetries?: number) => {
      let attempts = 0;
      return a.run(
        async (txn) => {
          const n = valueOf((await txn.getVersion(doc(1n)))?.data)!;
          if (attempts++ < losses) await b.run(async (t) => t.putVersion(doc(1n), 'update', data(valueOf((await t.getVersion(doc(1n)))?.data)! + 1n)));
          txn.putVersion(doc(1n), 'update', data(n + 1n));
        },
        { maxRetries },
      );
    };
    assert.equal((await losing(12)).retries, 12, 'twelve losses to b, then a commits');
    assert.equal((await losing(7, 7)).retries, 7, 'a client\'s limit of 7 allows 7');
    await assert.rejects(losing(8, 7), /concurrent modification/, 'and no more');
    await assert.rejects(losing(40), /concurrent modification/, 'the default for losses to another process is bounded too');
  });
});

test('in one section, a transaction that already lost is validated before fresh ones on the same document', async () => {
  await withTwo(async (a, b) => {
    await a.run(async (txn) => txn.putVersion(doc(2n), 'create', data(0n)));
    let yRead!: () => void;
    const yHasRead = new Promise<void>((r) => (yRead = r));
    let go!: () => void;
    const yMayCommit = new Promise<void>((r) => (go = r));
    let y: Promise<{ retries: number }> | undefined;
    let attempts = 0;
    // x loses once to b; on its second attempt a fresh y reads the same document and commits just
    // before x in the same tick, so both are in one section's batch, y first.
    const x = await a.run(async (txn) => {
      const n = valueOf((await txn.getVersion(doc(2n)))?.data)!;
      if (attempts++ === 0) {
        await b.run(async (t) => t.putVersion(doc(2n), 'update', data(100n)));
      } else {
        y = a.run(async (t) => {
          const m = valueOf((await t.getVersion(doc(2n)))?.data)!;
          yRead();
          await yMayCommit;
          t.putVersion(doc(2n), 'update', data(m + 1n));
        });
        await yHasRead;
        go();
        for (let i = 0; i < 20; i++) await null; // y's commit is queued first
      }
      txn.putVersion(doc(2n), 'update', data(n + 10n));
    });
    assert.equal(x.retries, 1, 'x won its second attempt although y was queued before it');
    assert.equal((await y!).retries, 1, 'y, fresh, lost to x and ran again');
    const final = await a.run(async (txn) => valueOf((await txn.getVersion(doc(2n)))?.data));
    assert.equal(final.result, 111n);
  });
});

test('a store far behind catches up in steps: it validates against every commit, and its streams hear each one with its data', async () => {
  await withTwo(
    async (a, b) => {
      const heard: CommitEvent[] = [];
      b.onCommit((c) => heard.push(c));
      const created = await a.run(async (txn) => txn.putVersion(doc(1n), 'create', data(0n)));
      // b reads the counter at an old snapshot (one with the create: b need not have seen it yet
      // otherwise), then a commits 30 times (more than 4 reads' worth).
      let stale = true;
      let attempts = 0;
      const slowIncrement = b.run(async (txn) => {
        attempts++;
        const n = valueOf((await txn.getVersion(doc(1n)))?.data)!;
        if (stale) {
          stale = false;
          for (let i = 1; i <= 30; i++) await a.run(async (t) => t.putVersion(doc(1n), 'update', data(BigInt(i))));
        }
        txn.putVersion(doc(1n), 'update', data(n + 1000n));
      }, { minSnapshotTs: created.ts });
      const done = await slowIncrement;
      assert.equal(attempts, 2, 'the first attempt conflicted with a write it had not seen');
      const final = await a.run(async (txn) => valueOf((await txn.getVersion(doc(1n)))?.data), { minSnapshotTs: done.ts });
      assert.equal(final.result, 1030n);
      // Every commit of a (the create, then 30 updates) reached b's feed, in order, with its data
      // (read from the store).
      const fromA = heard.filter((c) => c.ts < done.ts);
      assert.deepEqual(
        fromA.map((c) => valueOf(c.versions[0].data)),
        Array.from({ length: 31 }, (_, i) => BigInt(i)),
      );
      assert.ok(fromA.every((c, i) => i === 0 || c.ts > fromA[i - 1].ts));
    },
    { logReadLimit: 8 },
  );
});

test('the commit log stays bounded; a store that fell behind what was trimmed drops its caches and retries older snapshots', async () => {
  let now = 1_000_000_000_000n;
  const clock = () => now;
  await withTwo(
    async (a, b, engine) => {
      const dropped: ('all' | number)[] = [];
      b.onNativeWrites((_ts, docs) => dropped.push(docs === 'all' ? 'all' : docs.length));
      await b.run(async (txn) => txn.putVersion(doc(1n), 'create', data(0n)));
      for (let i = 0; i < 40; i++) {
        now += 1000n;
        await a.run(async (txn) => txn.putVersion(doc(2n + BigInt(i)), 'create', data(BigInt(i))));
      }
      assert.equal(await logRecords(engine), 41);
      // Ten minutes later, the next commits trim the old records, a few per commit.
      now += LOG_RETENTION_US + 1_000_000n;
      for (let i = 0; i < 5; i++) await a.run(async (txn) => txn.putVersion(doc(100n), i === 0 ? 'create' : 'update', data(BigInt(i))));
      assert.equal(await logRecords(engine), 5, 'only the recent records are left');
      // b had not looked since its own commit: what it missed is gone, so it drops every cache.
      const read = await b.run(async (txn) => valueOf((await txn.getVersion(doc(41n)))?.data), { minSnapshotTs: now });
      assert.equal(read.result, 39n);
      assert.ok(dropped.includes('all'), `caches dropped: ${JSON.stringify(dropped)}`);
    },
    { clock },
  );
});

test('a commit that cannot be written leaves nothing behind, in either store', async () => {
  await withTwo(async (a, b) => {
    const tooLong = { db: 1n, coll: 1024, id: 1n };
    await assert.rejects(
      a.run(async (txn) => {
        txn.putVersion(tooLong, 'create', data(1n));
        txn.putMeta(new Uint8Array(3000), new Uint8Array(1)); // beyond the engine's key size
      }),
    );
    const seen = await b.run(async (txn) => txn.getVersion(tooLong), { minSnapshotTs: a.now() });
    assert.equal(seen.result, null);
    // And both go on committing.
    await a.run(async (txn) => txn.putVersion(doc(5n), 'create', data(5n)));
    await b.run(async (txn) => txn.putVersion(doc(6n), 'create', data(6n)));
  });
});

test('a section that fails before it looks at its batch answers every transaction of it: retried after a conflict, refused when the store is down', async () => {
  const dir = tempDir();
  const inner = await openLmdbEngine(dir, { shared: true });
  let failures: Error[] = [];
  const flaky = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'exclusive')
        return (...args: Parameters<Engine['exclusive']>) => {
          const failure = failures.shift();
          return failure ? Promise.reject(failure) : target.exclusive(...args);
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const store = await openStore(flaky);
  try {
    // The first sections (a tick for the snapshot, then the commit) ask to be run again: the commit retries.
    failures = [new EngineConflict(), new EngineConflict(), new EngineConflict()];
    const done = await store.run(async (txn) => txn.putVersion(doc(1n), 'create', data(1n)));
    assert.ok(done.retries >= 1);
    assert.equal(failures.length, 0);
    // Down while committing: the commit is refused with the reason, not left waiting.
    failures = [new StorageUnavailable('down'), new StorageUnavailable('down'), new StorageUnavailable('down')];
    await assert.rejects(
      store.run(async (txn) => txn.putVersion(doc(2n), 'create', data(2n))),
      (e: unknown) => e instanceof StorageUnavailable,
    );
    failures = [];
    const read = await store.run(async (txn) => [await txn.getVersion(doc(1n)), await txn.getVersion(doc(2n))]);
    assert.equal(valueOf(read.result[0]?.data), 1n);
    assert.equal(read.result[1], null, 'the refused write is not there');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A clock standing still: a store moves its snapshots up only when it learns the head. */
const stillClock = () => 2_000_000_000_000n;
/** A staleness bound spares a store reading the head: with the clock standing still, it stays behind. */
const BEHIND: StoreOptions = { clock: stillClock, maxStalenessMs: 60_000 };

/** b takes its last look at the store (a commit of its own), then a creates doc 1, which b has not seen. */
async function leaveBehind(a: Store, b: Store): Promise<void> {
  await b.run(async (txn) => txn.putVersion(doc(9n), 'create', data(9n)));
  await a.run(async (txn) => txn.putVersion(doc(1n), 'create', data(1n)));
}

test('every snapshot holds the commits another store acknowledged before it began, the clock standing still', async () => {
  await withTwo(
    async (a, b) => {
      await b.run(async (txn) => txn.putVersion(doc(9n), 'create', data(9n)));
      for (let i = 1n; i <= 5n; i++) {
        await a.run(async (txn) => txn.putVersion(doc(i), 'create', data(i)));
        const seen = await b.run(async (txn) => (await txn.getVersion(doc(i))) !== null);
        assert.equal(seen.result, true, `b saw a's commit ${i}`);
        assert.equal(seen.retries, 0);
      }
    },
    { clock: stillClock },
  );
});

test('with a staleness bound, a transaction that set out to write and wrote nothing is validated like a commit', async () => {
  await withTwo(
    async (a, b) => {
      await leaveBehind(a, b);
      const seen: boolean[] = [];
      // An update that finds no document answers without writing (as GraphQL answers null).
      await b.run(async (txn) => {
        txn.intendsWrite();
        const v = await txn.getVersion(doc(1n), undefined, { forWrite: true });
        seen.push(v !== null);
        if (v) txn.putVersion(doc(1n), 'update', data(2n));
      });
      assert.deepEqual(seen, [false, true], 'run again from a snapshot with the document, which it then updates');
      // The same without the intent is a read-only transaction at its snapshot: answered once.
      await a.run(async (txn) => txn.putVersion(doc(3n), 'create', data(3n)));
      let attempts = 0;
      await b.run(async (txn) => {
        attempts++;
        await txn.getVersion(doc(3n));
      });
      assert.equal(attempts, 1);
    },
    BEHIND,
  );
});

test('a failure answered from a snapshot that missed a commit of another store is run again; one that holds is not', async () => {
  await withTwo(
    async (a, b) => {
      await leaveBehind(a, b);
      let attempts = 0;
      const found = await b.run(async (txn) => {
        attempts++;
        const v = await txn.getVersion(doc(1n));
        if (!v) throw new QueryError('instance not found', 'Document not found.');
        return valueOf(v.data);
      });
      assert.deepEqual([found.result, attempts], [1n, 2], 'the not-found was read before a commit that made it wrong');
      // A failure that still holds (nothing it read changed) is answered as it is, once.
      attempts = 0;
      await assert.rejects(
        b.run(async (txn) => {
          attempts++;
          if (!(await txn.getVersion(doc(2n)))) throw new QueryError('instance not found', 'Document not found.');
        }),
        (e: unknown) => e instanceof QueryError,
      );
      assert.equal(attempts, 1);
    },
    BEHIND,
  );
});

test('leases: one holder at a time, taken over once it runs out, and its holder fenced from then on', async () => {
  let now = 3_000_000_000_000n;
  const clock = () => now;
  await withTwo(
    async (a, b) => {
      const la = new Leases(a);
      const lb = new Leases(b);
      assert.equal(await la.acquire('job'), true);
      assert.equal(await lb.acquire('job'), false, 'held by a');
      assert.equal(await la.acquire('job'), true, 'renewed by its holder');
      // a fences its work with the lease: fine while it holds it.
      await a.run(async (txn) => la.check(txn, 'job'));
      // a stops renewing (paused, dead): once the lease has run out, b takes it over…
      now += LEASE_US + 1_000_000n; // (commits in a standing clock step 1 µs past it each)
      assert.equal(await lb.acquire('job'), true);
      // …and a can commit nothing more under it.
      await assert.rejects(
        a.run(async (txn) => {
          await la.check(txn, 'job');
          txn.putVersion(doc(1n), 'create', data(1n));
        }),
        (e: unknown) => e instanceof LeaseLost,
      );
      await lb.release('job');
      assert.equal(await la.acquire('job'), true, 'free again once released');
      // Heartbeats: a process is alive while its heartbeat lease runs.
      const beat = la.heartbeat();
      await waitUntil(async () => lb.alive(la.holder));
      await beat.stop();
      assert.equal(await lb.alive(la.holder), false, 'gone once stopped');
    },
    { clock },
  );
});

test('leases on a store no other process shares are always this process\'s', async () => {
  const dir = tempDir();
  const store = await openStore(await openLmdbEngine(dir));
  try {
    const leases = new Leases(store);
    assert.equal(store.shared, false);
    assert.equal(await leases.acquire('job'), true);
    assert.equal(await new Leases(store).acquire('job'), true, 'no record is kept: a restarted process resumes at once');
    await store.run(async (txn) => leases.check(txn, 'job'));
    assert.equal(leases.role('collector').held(), true);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

async function waitUntil(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(await cond(), 'condition never held');
}
