// GraphQL work bounds (issue 30), pure parts: one introspection field per operation, the count of
// same-named field pairs graphql-js would compare, per-field charging and slicing (meter.ts) on a
// plain graphql-js schema, and the sliced answer writer against the one-go writer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSchema, execute, parse, validate, type GraphQLError } from 'graphql';
import { Budget, DEFAULT_LIMITS, LimitExceeded, MemoryPool, QueryCancelled, type QueryLimits } from '../../src/model/budget';
import { secondIntrospectionError } from '../../src/graphql/introspection';
import { FieldMeter, meterSchema } from '../../src/graphql/meter';
import { responseBody } from '../../src/graphql/response';
import { MAX_FIELD_PAIRS, repeatedFieldsError, validateOperation } from '../../src/graphql/validation';
import { responseJson } from '../../src/graphql/values';
import { TxnTime } from '../../src/values/types';

const schema = buildSchema('type Thing { name: String! tags: [String!] next: Thing } type Query { things(n: Int!): [Thing!]! thing: Thing }');
meterSchema(schema);
const things = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `thing ${i}`, tags: ['a', 'b'], next: null }));
const root = { things: ({ n }: { n: number }) => things(n), thing: () => things(1)[0] };

function budget(limits: Partial<QueryLimits> = {}): Budget {
  return new Budget({ ...DEFAULT_LIMITS, ...limits }, Date.now() + 60_000);
}

async function run(query: string, b: Budget) {
  const meter = new FieldMeter(b);
  return meter.run(() => execute({ schema, document: parse(query), rootValue: root, contextValue: { meter } }));
}

test('a second __schema or __type is found through aliases, fragments and inline fragments', () => {
  const second = (q: string) => secondIntrospectionError(parse(q))?.message;
  assert.equal(second('{ __schema { queryType { name } } }'), undefined);
  assert.equal(second('{ __type(name: "Thing") { name } thing { name } __typename }'), undefined);
  // Merged by graphql-js into one field: one.
  assert.equal(second('{ __schema { queryType { name } } __schema { types { name } } }'), undefined);
  assert.equal(second('{ a: __schema { queryType { name } } b: __schema { queryType { name } } }'), "Only one '__schema' or '__type' field is allowed per operation: 'b' is a second one.");
  assert.equal(second('{ ...A ... on Query { __type(name: "Thing") { name } } } fragment A on Query { __schema { queryType { name } } }'), "Only one '__schema' or '__type' field is allowed per operation: '__type' is a second one.");
  // A fragment spread twice counts once; each operation is counted alone.
  assert.equal(second('query X { ...A ...A } query Y { ...A } fragment A on Query { __schema { queryType { name } } }'), undefined);
  // Cyclic fragments (validation reports them) do not loop.
  assert.equal(second('{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }'), undefined);
});

test('same-named fields: a few are merged as usual, thousands in one selection set are refused', () => {
  assert.equal(repeatedFieldsError(parse(`{ thing { ${'name '.repeat(100)} } ${'x: thing { name } '.repeat(100)} }`)), undefined);
  const many = Math.ceil(Math.sqrt(2 * MAX_FIELD_PAIRS)) + 1;
  const e = repeatedFieldsError(parse(`{ ${'x: thing { name } '.repeat(many)} }`));
  assert.equal(e?.message, "The query is too complex to validate: 'x' is selected too many times in one selection set.");
  // Through fragments, each spread into the selection set once.
  const fragments = Array.from({ length: many }, (_, i) => `fragment F${i} on Thing { name }`).join(' ');
  const spreads = Array.from({ length: many }, (_, i) => `...F${i}`).join(' ');
  assert.match(repeatedFieldsError(parse(`{ thing { ${spreads} } } ${fragments}`))?.message ?? '', /'name' is selected too many times/);
});

test('a long operation is validated a few rules at a time: the errors graphql-js finds in one pass, in its order, the first 100 and its error for the rest', async () => {
  let pauses = 0;
  const pacer = {
    sliceMs: 0,
    pause: () => {
      pauses++;
      return new Promise<void>((r) => setImmediate(r));
    },
  };
  const shown = (errors: readonly GraphQLError[]) => errors.map((e) => `${e.message} ${JSON.stringify(e.locations)}`);
  const long = Array.from({ length: 1500 }, (_, i) => `n${i}: name`).join(' '); // over the 16 KiB validated at once
  // Errors of several rules, some reported when the walk leaves a node (an unused variable, an unused fragment).
  const several = parse(
    `query Q($unused: Int, $n: Int!) { things(n: $n) { ${long} nope ...F } thing { tags { x } } bad: things { name } } fragment F on Thing { other } fragment G on Thing { name }`,
  );
  const expected = validate(schema, several);
  assert.equal(expected.length, 6);
  assert.deepEqual(shown(await validateOperation(schema, several, pacer)), shown(expected));
  assert.ok(pauses > 1, `${pauses} pauses`);
  // graphql-js stops at 100 errors, and says so in a 101st.
  const many = parse(`{ things(n: 1) { ${long} ${Array.from({ length: 150 }, (_, i) => `x${i}`).join(' ')} } }`);
  const sliced = await validateOperation(schema, many, pacer);
  assert.equal(sliced.length, 101);
  assert.deepEqual(shown(sliced), shown(validate(schema, many)));
});

test('every resolved field is one compute unit, leaves of lists included in their memory', async () => {
  const b = budget();
  const result = await run('{ things(n: 10) { name tags next { name } } }', b);
  assert.deepEqual(result.errors, undefined);
  // `things`, then per thing: name, tags, next.
  assert.equal(b.units, 1 + 10 * 3);
  assert.ok(b.memory > 31 * 100, String(b.memory));
});

test('past the compute limit the operation stops with Fauna\'s compute error, nothing more resolved', async () => {
  const b = budget({ computeOps: 20 }); // 1,000 units
  const aliases = Array.from({ length: 100 }, (_, i) => `n${i}: name`).join(' ');
  await assert.rejects(run(`{ things(n: 100) { ${aliases} } }`, b), (e: unknown) => {
    assert.ok(e instanceof LimitExceeded);
    assert.equal(e.description, 'Transaction does too much compute: got 21, limit: 20');
    return true;
  });
  assert.equal(b.units, 1001);
});

test('an answer larger than the response limit stops the operation', async () => {
  const b = budget({ maxResponseBytes: 10_000 });
  await assert.rejects(run('{ things(n: 1000) { name } }', b), /Response exceeds the size limit/);
});

test('a long operation gives the event loop away between slices and answers as graphql-js does', async () => {
  const b = budget({ sliceMs: 1 });
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  const aliases = Array.from({ length: 200 }, (_, i) => `n${i}: name`).join(' ');
  const query = `{ things(n: 300) { ${aliases} next { name } } }`;
  try {
    const sliced = await run(query, b);
    assert.ok(turns > 0, 'no timer ran while the operation did');
    const plain = await execute({ schema, document: parse(query), rootValue: root, contextValue: {} });
    assert.deepEqual(JSON.parse(JSON.stringify(sliced)), JSON.parse(JSON.stringify(plain)));
  } finally {
    clearInterval(ticker);
  }
});

test('an operation that ends early (a non-null field failed) resolves nothing more, and gives its memory back', async () => {
  const pool = new MemoryPool(1 << 30);
  const b = new Budget({ ...DEFAULT_LIMITS, sliceMs: 1 }, Date.now() + 60_000, pool);
  let calls = 0;
  const busy = (ms: number) => {
    for (const end = performance.now() + ms; performance.now() < end; );
  };
  const rootValue = {
    things: () => {
      busy(2); // the slice is used up before the list: every item is deferred
      b.poll();
      // Item 1 has no name: graphql-js nulls the list (and `data`) while items 2… are still deferred.
      return Array.from({ length: 200 }, (_, i) => ({ name: () => (calls++, busy(0.2), i === 1 ? null : `thing ${i}`) }));
    },
  };
  const meter = new FieldMeter(b);
  const result = await meter.run(() => execute({ schema, document: parse('{ things(n: 200) { name } }'), rootValue, contextValue: { meter } }));
  const ran = calls;
  b.release();
  assert.equal(result.data, null);
  assert.equal(result.errors?.[0].message, 'Cannot return null for non-nullable field Thing.name.');
  assert.ok(ran < 200, `all ${ran} items ran before the operation ended`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(calls, ran, 'fields were resolved after the operation ended');
  assert.equal(pool.inUse, 0);
});

test('a client gone while deferred fields wait for their turn stops the operation there', async () => {
  let gone = false;
  const b = new Budget({ ...DEFAULT_LIMITS, sliceMs: 1 }, Date.now() + 60_000, undefined, {
    get clientGone() {
      return gone;
    },
  });
  let calls = 0;
  const rootValue = {
    things: () => {
      for (const end = performance.now() + 2; performance.now() < end; );
      b.poll(); // the slice is used up: every item is deferred
      gone = true; // found at the drainer's pause, the next look at the clock
      return Array.from({ length: 10 }, () => ({ name: () => `thing ${calls++}` }));
    },
  };
  const meter = new FieldMeter(b);
  const execution = () => execute({ schema, document: parse('{ things(n: 10) { name } }'), rootValue, contextValue: { meter } });
  await assert.rejects(meter.run(execution), QueryCancelled);
  assert.equal(calls, 0);
});

test('the sliced writer writes what the one-go writer does, and stops past its limit', async () => {
  const pacer = { sliceMs: 0, pause: () => new Promise<void>((r) => setImmediate(r)) };
  const sliced = async (value: unknown, ts: bigint, max: number) => (await responseBody(value, ts, max, pacer, Infinity)).toString();
  const value = { data: { a: [1, 'two', null, true, 12345678901234567890n, { b: undefined, c: 'é"\n' }], t: TxnTime.instance, e: [], o: {} } };
  assert.equal(await sliced(value, 42n, 1000), responseJson(value, 42n));
  const wide = { data: Array.from({ length: 5000 }, (_, i) => ({ i, s: `x${i}` })) };
  assert.equal(await sliced(wide, 0n, 1 << 20), responseJson(wide, 0n));
  await assert.rejects(sliced(wide, 0n, 1000), /Response exceeds the size limit: got 10\d\d bytes or more, limit 1000 bytes/);
});

test('an answer estimated short is written at once, within the same limit', () => {
  const pacer = { sliceMs: 0, pause: () => Promise.reject(new Error('paused')) };
  const value = { data: { findThingByID: { name: 'é"\n', n: 12345678901234567890n, t: TxnTime.instance } } };
  assert.equal(responseBody(value, 42n, 1000, pacer, 0), responseJson(value, 42n));
  assert.throws(() => responseBody(value, 42n, 20, pacer, 0), /Response exceeds the size limit: got \d+ bytes or more, limit 20 bytes/);
});
