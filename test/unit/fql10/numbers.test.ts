// Int and Long kept apart as the core keeps Value.Int and Value.Long: an `@long` argument stays a Long
// whatever its value, results go through Value.Number (narrowed to an Int when they fit), and the
// functions the core types as Long (Math.round, parseLong, Date.difference) answer Longs.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evalQuery, tagged } from './harness';
import { SmallLong, type RtValue } from '../../../src/fql10/runtime/values';
import { STDLIB_ARG_RESOLVER } from '../../../src/fql10/run/inputs';
import { decodeArguments } from '../../../src/wire/v10/args';
import { readJson } from '../../../src/wire/v10/json';
import type { UndecidedObject } from '../../../src/wire/v10/json';

/** The tagged result of `text` with `x` bound to a Long 5 (`{"@long": "5"}`). */
async function withLong(text: string, x: RtValue = new SmallLong(5n)): Promise<string> {
  const r = await evalQuery(text, new Map([['x', x]]));
  if (!r.ok) throw new Error(`${text}: ${r.code}: ${r.message}`);
  return r.tagged;
}

describe('Int and Long', () => {
  test('an @long argument decodes as a Long whatever its value; @int as an Int', () => {
    const args = decodeArguments(readJson('{"a":{"@long":"5"},"b":{"@int":"5"},"c":{"@long":"5000000000"}}') as UndecidedObject, 'tagged', STDLIB_ARG_RESOLVER);
    assert.ok(args.get('a') instanceof SmallLong);
    assert.equal(args.get('b'), 5n);
    assert.equal(args.get('c'), 5000000000n);
  });

  test('a Long comes back @long, in the simple format a plain number', async () => {
    assert.equal(await withLong('x'), '{"@long":"5"}');
    assert.equal(await withLong('[x, { y: x }]'), '[{"@long":"5"},{"y":{"@long":"5"}}]');
    const r = await evalQuery('x', new Map([['x', new SmallLong(5n)]]));
    assert.ok(r.ok && r.simple === '5');
  });

  test('its type is Long: isa, errors, and the Long methods', async () => {
    assert.equal(await withLong('[x isa Long, x isa Int, x isa Number, x.toString(), "#{x}"]'), '[true,false,true,"5","5"]');
    const r = await evalQuery('x.bar()', new Map([['x', new SmallLong(5n)]]));
    assert.ok(!r.ok);
    assert.equal(r.message, 'The function `bar` does not exist on `Long`');
  });

  test('arithmetic results are narrowed as Value.Number narrows them; unary minus and Math.abs keep the type', async () => {
    assert.equal(await withLong('[x + 1, x * 2, x - 10, x / 2, x % 2, x ** 2]'), '[{"@int":"6"},{"@int":"10"},{"@int":"-5"},{"@int":"2"},{"@int":"1"},{"@int":"25"}]');
    assert.equal(await withLong('[-x, Math.abs(x), Math.ceil(x), Math.floor(x)]'), '[{"@long":"-5"},{"@long":"5"},{"@long":"5"},{"@long":"5"}]');
    assert.equal(await tagged('[2147483647 + 1, -2147483647 - 2, 9223372036854775807 + 1]'), '[{"@long":"2147483648"},{"@long":"-2147483649"},{"@double":"9.223372036854776E18"}]');
    // Value.Int(-x) wraps at the Int minimum; a Long negated stays a Long; a literal takes its sign.
    assert.equal(await tagged('let m = -2147483647 - 1; -m'), '{"@int":"-2147483648"}');
    assert.equal(await tagged('[-2147483648, -(2147483648), Math.max("7".parseLong(), 1)]'), '[{"@int":"-2147483648"},{"@long":"-2147483648"},{"@long":"7"}]');
  });

  test('Long compares and equals by value', async () => {
    assert.equal(await withLong('[x == 5, 5 == x, x == 5.0, x < 6, x > 4.5, [x].includes(5), [x, 5].distinct().length]'), '[true,true,true,true,true,true,{"@int":"1"}]');
  });

  test('what the core types as Long: Math.round and trunc of integers, parseLong, Date.difference', async () => {
    assert.equal(
      await tagged('[Math.round(5, 0), Math.trunc(5, 0), Math.round(5.4, 0), "7".parseLong(), "7".parseInt(), "ff".parseLong(16), Date("2024-01-10").difference(Date("2024-01-01"))]'),
      '[{"@long":"5"},{"@long":"5"},{"@double":"5.0"},{"@long":"7"},{"@int":"7"},{"@long":"255"},{"@long":"9"}]',
    );
  });

  test('a Long is an Int argument, an index and an ID where the core casts it', async () => {
    assert.equal(await withLong('[[1, 2, 3, 4, 5, 6][x], "abcdefg".slice(x), ID(x), [1, 2, 3, 4, 5, 6].take(x).length]'), '[{"@int":"6"},"fg","5",{"@int":"5"}]');
  });
});
