// The /query/1 executor's parts: the parse cache's bounds, decoded inputs as runtime values.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParseCache } from '../../../src/fql10/run/parseCache';
import { STDLIB_ARG_RESOLVER, toRuntime } from '../../../src/fql10/run/inputs';
import { Interp, QueryRun } from '../../../src/fql10/eval/interpreter';
import { ModuleV, NullV } from '../../../src/fql10/runtime/values';
import { STDLIB_GLOBALS } from '../../../src/fql10/stdlib/globals';
import { Bytes, Ref, Time } from '../../../src/values/types';
import { Module } from '../../../src/wire/v10/model';
import { decodeArguments } from '../../../src/wire/v10/args';
import { testHooks } from './harness';

test('the parse cache answers the same tree for the same text, and stays within its bounds', () => {
  const cache = new ParseCache({ entries: 3, chars: 100 });
  const a = cache.parse('1 + 1', false);
  assert.equal(cache.parse('1 + 1', false), a);
  assert.notEqual(cache.parse('1 + 1', true), a, 'a template of the same text is another entry');
  for (const q of ['2', '3', '4']) cache.parse(q, false);
  assert.equal(cache.size, 3);
  cache.parse(`'${'x'.repeat(95)}'`, false);
  assert.ok(cache.size <= 2, 'held text is bounded');
  const bad = cache.parse('{ x ', false);
  assert.equal(bad.ok, false);
  assert.equal(cache.parse('{ x ', false), bad);
});

test('inputs become runtime values; modules come from the standard library', async () => {
  const ctx = new Interp(new QueryRun(testHooks(), STDLIB_GLOBALS));
  const t = new Time(5n);
  const v = await toRuntime(new Map<string, never>([['a', [null, 1n, 1.5, 'x', t, new Bytes(new Uint8Array([1]))] as never], ['m', new Module('Math') as never]]), ctx, {});
  assert.ok(v instanceof Map);
  const arr = v.get('a') as unknown[];
  assert.ok(arr[0] instanceof NullV);
  assert.deepEqual(arr.slice(1, 4), [1n, 1.5, 'x']);
  assert.equal(arr[4], t);
  assert.ok(v.get('m') instanceof ModuleV);
  await assert.rejects(toRuntime(Ref.doc('Books', '1'), ctx, {}), /no document resolver/);
  let asked: Ref | undefined;
  const doc = await toRuntime(Ref.doc('Books', '1'), ctx, { resolveDocument: (_c, r) => ((asked = r), 'the doc') });
  assert.equal(doc, 'the doc');
  assert.equal(asked?.id, '1');
});

test('without storage, arguments may name only the standard library modules (the core errors otherwise)', () => {
  const tagged = (v: unknown) => decodeArguments(new Map([['x', v as never]]), 'tagged', STDLIB_ARG_RESOLVER);
  assert.ok(tagged(new Map([['@mod', 'Math']])).get('x') instanceof Module);
  assert.throws(() => tagged(new Map([['@mod', 'Books']])), /Invalid argument 'x': no such module 'Books'/);
  assert.throws(() => tagged(new Map([['@doc', 'Books:1']])), /Invalid argument 'x': no such collection 'Books'/);
});
