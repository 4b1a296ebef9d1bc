import { collRef, docRef, nativeDocRef } from '../helpers/refs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lambda, Ref, type Obj, type Value } from '../../src/values/types';
import type { BindingEvaluator, FieldSpec, IndexDef, IndexedDoc, IndexEntryValue, IndexSource } from '../../src/model/indexDef';
import {
  checkEntrySize,
  decodePayload,
  deriveEntries,
  entryKey,
  entryPayload,
  MAX_INDEX_FIELD_BYTES,
  sourceFor,
  termsPrefix,
} from '../../src/model/indexer';

type Plain = Value | { [k: string]: Plain } | Plain[];

/** Plain JS objects become Obj maps (numbers stay as written: use 1n for Longs). */
function v(x: Plain): Value {
  if (Array.isArray(x)) return x.map(v);
  if (x !== null && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) {
    return new Map(Object.entries(x as Record<string, Plain>).map(([k, y]) => [k, v(y)]));
  }
  return x as Value;
}

function doc(collection: string, id: string, data: Record<string, Plain>, extra: Record<string, Plain> = {}): IndexedDoc {
  const fields = new Map<string, Value>([['data', v(data)], ...Object.entries(extra).map(([k, x]) => [k, v(x)] as [string, Value])]);
  return { ref: docRef(collection, id), ts: 1234n, fields };
}

type SpecInput = (string | number)[] | { field?: (string | number)[]; binding?: string; reverse?: boolean; mva?: boolean; transform?: 'casefold' };

function spec(s: SpecInput): FieldSpec {
  const o = Array.isArray(s) ? { field: s } : s;
  return { reverse: false, mva: true, ...o };
}

function index(terms: SpecInput[], values: SpecInput[], sources: IndexSource[] = [{ collection: 'c', bindings: new Map() }]): IndexDef {
  return { db: 0n, id: 32768, name: 'idx', sources, terms: terms.map(spec), values: values.map(spec), unique: false, active: true };
}

const noBindings: BindingEvaluator = async () => {
  throw new Error('no binding expected');
};

/** A fake evaluator: each lambda's body names a JS function of the document. */
function fakeBindings(fns: Record<string, (d: Obj) => Value>): { evaluate: BindingEvaluator; calls: string[] } {
  const calls: string[] = [];
  const evaluate: BindingEvaluator = async (lambda, d) => {
    const name = lambda.body as string;
    calls.push(name);
    return fns[name](d as Obj);
  };
  return { evaluate, calls };
}

const lambda = (name: string) => new Lambda('doc', name, '4');

/** Entries as plain [terms, values, ref id] triples, for readable assertions. */
const simple = (es: IndexEntryValue[]) => es.map((e) => [e.terms, e.values, e.ref.id]);

async function derive(def: IndexDef, d: IndexedDoc, evaluate: BindingEvaluator = noBindings) {
  return simple(await deriveEntries(def, d, evaluate));
}

test('§5.2 example: MVAs are flattened', async () => {
  const def = index([['data', 'foo']], [['data', 'bar']]);
  const docs = [
    doc('c', '1', { foo: [1n, 42n], bar: 2n }),
    doc('c', '2', { foo: 1n, bar: [3n, 42n] }),
    doc('c', '3', { foo: 1n, bar: [[4n, 5n], 6n] }),
  ];
  const entries = (await Promise.all(docs.map((d) => deriveEntries(def, d, noBindings)))).flat();
  const keyed = entries.map((e) => ({ e, key: entryKey(def, e) })).sort((a, b) => Buffer.compare(a.key, b.key));
  const match = (term: Value) => {
    const prefix = Buffer.from(termsPrefix(def, [term]));
    return keyed.filter(({ key }) => prefix.equals(Buffer.from(key).subarray(0, prefix.length))).map(({ e }) => e.values[0]);
  };
  assert.deepEqual(match(1n), [2n, 3n, 4n, 5n, 6n, 42n]);
  assert.deepEqual(match(42n), [2n]);
});

test('mva: nested arrays, arrays of objects and integer path elements', async () => {
  const d = doc('c', '1', { tags: [{ n: 'a' }, { n: ['b', ['c', ['d']]] }, { x: 1n }, 'loose', [{ n: 'e' }]] });
  assert.deepEqual(await derive(index([], [['data', 'tags', 'n']]), d), [[[], ['a'], '1'], [[], ['b'], '1'], [[], ['c'], '1'], [[], ['d'], '1'], [[], ['e'], '1']]);
  assert.deepEqual(await derive(index([], [['data', 'tags', 1, 'n']]), d), [[[], ['b'], '1'], [[], ['c'], '1'], [[], ['d'], '1']]);
  assert.deepEqual(await derive(index([], [['data', 'tags', 3]]), d), [[[], ['loose'], '1']]);
  assert.deepEqual(await derive(index([], [['data', 'tags', 9]]), d), []);
});

test('mva: an object at the leaf is null', async () => {
  const d = doc('c', '1', { o: { a: 1n }, list: [1n, { a: 1n }] });
  assert.deepEqual(await derive(index([['data', 'list']], []), d), [[[1n], [], '1']]);
  assert.deepEqual(await derive(index([['data', 'list']], [['data', 'o']]), d), []);
  assert.deepEqual(await derive(index([['data', 'o'], ['data', 'list']], []), d), [[[null, 1n], [], '1']]);
});

test('mva false: the value as-is, missing is null', async () => {
  const d = doc('c', '1', { a: [1n, [2n]], o: { x: 'y' } });
  const def = index([{ field: ['data', 'a'], mva: false }], [{ field: ['data', 'o'], mva: false }, { field: ['data', 'zz'], mva: false }]);
  assert.deepEqual(await derive(def, d), [[[[1n, [2n]]], [v({ x: 'y' }), null], '1']]);
  const indexed = index([], [{ field: ['data', 'a', 1], mva: false }]);
  assert.deepEqual(await derive(indexed, d), [[[], [[2n]], '1']]);
});

test('missing fields are null; all-null term and value combinations are dropped', async () => {
  const d = doc('c', '1', { a: 1n });
  assert.deepEqual(await derive(index([['data', 'a'], ['data', 'b']], []), d), [[[1n, null], [], '1']]);
  assert.deepEqual(await derive(index([['data', 'b']], []), d), []);
  assert.deepEqual(await derive(index([['data', 'b'], ['data', 'c']], [['data', 'a']]), d), []);
  assert.deepEqual(await derive(index([['data', 'a']], [['data', 'b']]), d), []);
  assert.deepEqual(await derive(index([['data', 'a']], [['data', 'b'], ['data', 'a']]), d), [[[1n], [null, 1n], '1']]);
  // Only the all-null combinations go: an MVA with a null element still indexes its others.
  const mixed = doc('c', '2', { t: [1n, { o: 1n }] });
  assert.deepEqual(await derive(index([['data', 't']], []), mixed), [[[1n], [], '2']]);
  // No terms and no values: one entry (the Documents-like index).
  assert.deepEqual(await derive(index([], []), d), [[[], [], '1']]);
});

test('ref, ts, class and collection', async () => {
  const d = doc('c', '7', { a: 1n });
  const coll = collRef('c');
  assert.deepEqual(await deriveEntries(index([['ref']], []), d, noBindings), [{ terms: [d.ref], values: [], ref: d.ref }]);
  assert.deepEqual(await derive(index([['ts']], []), d), []); // QUIRK: ts is unresolved → null
  assert.deepEqual(await derive(index([['data', 'a']], [['ref'], ['ts']]), d), [[[1n], [d.ref, null], '7']]);
  assert.deepEqual(await derive(index([['class']], [['collection']]), d), [[[coll], [coll], '7']]);
  assert.deepEqual(await derive(index([{ field: ['collection'], mva: false }], []), d), [[[coll], [], '7']]);
});

test('other stored fields are reachable (e.g. a token instance)', async () => {
  const d: IndexedDoc = { ref: nativeDocRef('tokens', '5'), ts: 1n, fields: new Map<string, Value>([['instance', docRef('users', '1')]]) };
  const def = index([['instance']], [], [{ collection: '@tokens', bindings: new Map() }]);
  assert.deepEqual(await derive(def, d), [[[docRef('users', '1')], [], '5']]);
  // A user collection called `tokens` and the wildcard do not cover the native collection.
  assert.deepEqual(await derive(index([['instance']], [], [{ collection: 'tokens', bindings: new Map() }]), d), []);
  assert.deepEqual(await derive(index([['instance']], [], [{ collection: '_', bindings: new Map() }]), d), []);
  // Secret hashes are never indexed.
  const hashed: IndexedDoc = { ...d, fields: new Map<string, Value>([...d.fields, ['hashed_secret', 'h']]) };
  assert.deepEqual(await derive(index([['instance']], [['hashed_secret']], [{ collection: '@tokens', bindings: new Map() }]), hashed), []);
});

test('bindings: evaluated on the document, flattened when mva, once per document', async () => {
  const { evaluate, calls } = fakeBindings({
    words: (d) => ((d.get('data') as Obj).get('s') as string).split(' '),
    whole: (d) => [d.get('ref') as Ref, d.get('ts') as bigint],
  });
  const bindings = new Map([['words', lambda('words')], ['whole', lambda('whole')]]);
  const def = index([{ binding: 'words' }], [{ binding: 'whole', mva: false }, { binding: 'words', mva: false }], [{ collection: 'c', bindings }]);
  const d = doc('c', '1', { s: 'x y x' });
  assert.deepEqual(await derive(def, d, evaluate), [
    [['x'], [[d.ref, 1234n], ['x', 'y', 'x']], '1'],
    [['y'], [[d.ref, 1234n], ['x', 'y', 'x']], '1'],
  ]);
  assert.deepEqual(calls, ['words', 'whole']);
});

test('bindings: the source of the document collection, else the wildcard', async () => {
  const { evaluate } = fakeBindings({ own: () => 'own', wild: () => 'wild' });
  const sources: IndexSource[] = [
    { collection: 'c', bindings: new Map([['b', lambda('own')]]) },
    { collection: '_', bindings: new Map([['b', lambda('wild')]]) },
  ];
  const def = index([{ binding: 'b' }], [], sources);
  assert.deepEqual(await derive(def, doc('c', '1', {}), evaluate), [[['own'], [], '1']]);
  assert.deepEqual(await derive(def, doc('d', '2', {}), evaluate), [[['wild'], [], '2']]);
  assert.equal(sourceFor(def, 'd'), sources[1]);
  // A collection no source covers contributes nothing.
  const narrow = index([], [], [{ collection: 'c', bindings: new Map() }]);
  assert.deepEqual(await derive(narrow, doc('d', '2', {}), evaluate), []);
  assert.equal(sourceFor(narrow, 'd'), undefined);
  // A binding the document's source does not define is missing → null.
  const partial = index([{ binding: 'b' }, ['data', 'a']], [], [{ collection: 'c', bindings: new Map() }]);
  assert.deepEqual(await derive(partial, doc('c', '1', { a: 1n }), evaluate), [[[null, 1n], [], '1']]);
});

test('casefold transform', async () => {
  const d = doc('c', '1', { names: ['ÄBC', 'äbc', 'ﬁX', 3n] });
  const def = index([{ field: ['data', 'names'], transform: 'casefold' }], []);
  assert.deepEqual(await derive(def, d), [[['äbc'], [], '1'], [['fix'], [], '1'], [[3n], [], '1']]);
});

test('duplicates are removed with FQL equality', async () => {
  const d = doc('c', '1', { a: [1n, 1, 1n, 'a', ['a'], 'a', { x: 1n }, { y: 1n }], b: [2n, 2] });
  // Objects at the leaf are null (once); the [null] term is all-null and dropped.
  assert.deepEqual(await derive(index([['data', 'a']], [['data', 'b']]), d), [
    [[1n], [2n], '1'],
    [['a'], [2n], '1'],
  ]);
  assert.deepEqual(await derive(index([['data', 'a'], ['data', 'b']], []), d), [
    [[1n, 2n], [], '1'],
    [['a', 2n], [], '1'],
    [[null, 2n], [], '1'],
  ]);
  const numbers = doc('c', '2', { n: [0, -0, 0n, NaN, NaN, Infinity, 2 ** 53, 2n ** 53n, 1.5, docRef('x', '1'), docRef('x', '1'), true, true] });
  const terms = (await derive(index([['data', 'n']], []), numbers)).map(([t]) => (t as Value[])[0]);
  assert.deepEqual(terms, [0, NaN, Infinity, 2 ** 53, 1.5, docRef('x', '1'), true]);
});

test('size limits: stored size of each term/value (32 KiB) and of the entry (64 KiB)', () => {
  const ref = docRef('c', '1');
  const check = (e: IndexEntryValue) => checkEntrySize(e);
  assert.equal(check({ terms: ['a'], values: [1n], ref }), undefined);
  // Limits are on user-visible bytes (about UTF-8 length), not on the collation-weighted key.
  assert.equal(check({ terms: ['x'.repeat(30000)], values: [], ref }), undefined);
  assert.match(check({ terms: ['x'.repeat(MAX_INDEX_FIELD_BYTES)], values: [], ref }) ?? '', /^Index term or value of \d+ bytes exceeds the limit of 32768 bytes\.$/);
  assert.match(check({ terms: [], values: [['é'.repeat(16384)]], ref }) ?? '', /^Index term or value of \d+ bytes exceeds/);
  const third = 'y'.repeat(22000);
  assert.match(check({ terms: [third], values: [third, third], ref }) ?? '', /^Index entry of \d+ bytes exceeds the limit of 65536 bytes\.$/);
});

test('payloads round-trip', () => {
  const e: IndexEntryValue = { terms: [1n, 'a'], values: [1.5, null, [v({ k: true })]], ref: docRef('c', '9') };
  // Without a namer the ref comes back anonymous: the same address, placeholder names.
  const back = decodePayload(entryPayload(e));
  assert.deepEqual({ ...back, ref: null }, { ...e, ref: null });
  assert.deepEqual(back.ref.addr, e.ref.addr);
  assert.ok(back.ref.equals(e.ref));
  assert.throws(() => decodePayload(entryPayload({ terms: [], values: [], ref: null as unknown as Ref })), /malformed/);
});
