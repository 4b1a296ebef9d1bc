// Conversions (fql-v4.md §3.11, §3.2 to_object/to_array) and the Is* type checks (§3.12),
// through the official driver over HTTP/2 and HTTP/1.1. The driver decodes Longs and Doubles
// both as JS numbers, so the Long/Double distinction is checked on raw response text.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, values, type ExprArg } from 'faunadb';
import { clients, startFlora, type DriverClients, type FloraProcess, rawQuery } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let flora: FloraProcess;
let drivers: DriverClients;

const COLL = 'conv_things';
const INDEX = 'conv_by_a';
const DB = 'conv_db';
let docId = '';
let keyId = '';

before(async () => {
  flora = await startFlora();
  drivers = clients(flora.url, flora.secret);
  const c = drivers.h2;
  await c.query(q.CreateCollection({ name: COLL }));
  const doc = (await c.query(q.Create(q.Collection(COLL), { data: { a: 1 } }))) as { ref: values.Ref };
  docId = doc.ref.id;
  await c.query(q.CreateIndex({ name: INDEX, source: q.Collection(COLL), terms: [{ field: ['data', 'a'] }] }));
  await c.query(q.CreateDatabase({ name: DB }));
  const key = (await c.query(q.CreateKey({ role: 'server' }))) as { ref: values.Ref };
  keyId = key.ref.id;
});

after(async () => {
  await drivers?.close();
  await flora?.stop();
});

// The driver's typings omit null from ExprArg, but it sends it as JSON null.
const NULL = null as unknown as ExprArg;
const bytes = () => new values.Bytes('AQID');
const lambda = () => q.Query(q.Lambda('x', q.Var('x')));
const theDoc = () => q.Ref(q.Collection(COLL), docId);
const theKey = () => q.Ref(q.Keys(), keyId);
const aPage = () => q.Paginate(q.Documents(q.Collection(COLL)));

/** Driver values → comparable plain data (times, dates and refs as tagged strings). */
function show(v: unknown): unknown {
  // The typings omit `value`, the wire string both classes keep.
  if (v instanceof values.FaunaTime) return `@ts ${(v as unknown as { value: string }).value}`;
  if (v instanceof values.FaunaDate) return `@date ${(v as unknown as { value: string }).value}`;
  if (v instanceof values.Ref) return `@ref ${v.collection ? `${v.collection.id}/` : ''}${v.id}`;
  if (Array.isArray(v)) return v.map(show);
  if (v && typeof v === 'object' && v.constructor === Object)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, show(x)]));
  return v;
}

/** [label, expression, expected result after show()] */
const VALUES: [string, ExprArg | (() => ExprArg), unknown][] = [
  // to_string
  ['ToString Integer', q.ToString(42), '42'],
  ['ToString negative Integer', q.ToString(-7), '-7'],
  ['ToString Double', q.ToString(1.5), '1.5'],
  ['ToString ToDouble(10) is Java text', q.ToString(q.ToDouble(10)), '10.0'],
  ['ToString small Double', q.ToString(0.0001), '1.0E-4'],
  ['ToString true', q.ToString(true), 'true'],
  ['ToString false', q.ToString(false), 'false'],
  ['ToString null', q.ToString(NULL), 'null'],
  ['ToString String', q.ToString('abc'), 'abc'],
  ['ToString Time', q.ToString(q.Time('2020-01-02T03:04:05.123Z')), '2020-01-02T03:04:05.123Z'],
  ['ToString Time with offset renders UTC', q.ToString(q.Time('2020-01-02T03:04:05+01:00')), '2020-01-02T02:04:05Z'],
  ['ToString Date', q.ToString(q.Date('2020-02-29')), '2020-02-29'],
  ['ToString of ToInteger(10.5)', q.ToString(q.ToInteger(10.5)), '10'],

  // to_number
  ['ToNumber Integer', q.ToNumber(5), 5],
  ['ToNumber Double', q.ToNumber(2.5), 2.5],
  ['ToNumber "12"', q.ToNumber('12'), 12],
  ['ToNumber "1.5"', q.ToNumber('1.5'), 1.5],
  ['ToNumber "-3"', q.ToNumber('-3'), -3],
  ['ToNumber "1,000" (grouping)', q.ToNumber('1,000'), 1000],
  ['ToNumber "12abc" (prefix)', q.ToNumber('12abc'), 12],
  ['ToNumber "1E3"', q.ToNumber('1E3'), 1000],
  ['ToNumber "0.25"', q.ToNumber('0.25'), 0.25],
  ['ToNumber ".5"', q.ToNumber('.5'), 0.5],
  ['ToNumber "007"', q.ToNumber('007'), 7],

  // to_double / to_integer
  ['ToDouble Integer', q.ToDouble(3), 3],
  ['ToDouble Double', q.ToDouble(3.25), 3.25],
  ['ToDouble String', q.ToDouble('3.5'), 3.5],
  ['ToInteger Integer', q.ToInteger(9), 9],
  ['ToInteger truncates', q.ToInteger(9.99), 9],
  ['ToInteger truncates toward zero', q.ToInteger(-9.99), -9],
  ['ToInteger String', q.ToInteger('12'), 12],
  ['ToInteger decimal String', q.ToInteger('12.7'), 12],

  // to_time / to_date
  ['ToTime Integer is milliseconds', q.ToTime(1000), '@ts 1970-01-01T00:00:01Z'],
  ['ToTime negative milliseconds', q.ToTime(-1), '@ts 1969-12-31T23:59:59.999Z'],
  ['ToTime Date is midnight UTC', q.ToTime(q.Date('2021-03-04')), '@ts 2021-03-04T00:00:00Z'],
  ['ToTime String', q.ToTime('2021-03-04T05:06:07.000008Z'), '@ts 2021-03-04T05:06:07.000008Z'],
  ['ToTime Time', q.ToTime(q.Time('2021-03-04T05:06:07Z')), '@ts 2021-03-04T05:06:07Z'],
  ['ToTime "now" is Now()', q.Equals(q.ToTime('now'), q.Now()), true],
  ['ToDate Time', q.ToDate(q.Time('2021-03-04T23:59:59Z')), '@date 2021-03-04'],
  ['ToDate Time with offset is the UTC date', q.ToDate(q.Time('2021-03-04T23:30:00-01:00')), '@date 2021-03-05'],
  ['ToDate before the epoch', q.ToDate(q.Time('1969-12-31T23:59:59Z')), '@date 1969-12-31'],
  ['ToDate String', q.ToDate('2021-03-04'), '@date 2021-03-04'],
  ['ToDate Date', q.ToDate(q.Date('2021-03-04')), '@date 2021-03-04'],
  ['ToDate(ToTime(Date)) round-trips', q.ToDate(q.ToTime(q.Date('1900-01-01'))), '@date 1900-01-01'],

  // to_object / to_array
  ['ToObject pairs', q.ToObject([['a', 1], ['b', 'x']]), { a: 1, b: 'x' }],
  ['ToObject empty', q.ToObject([]), {}],
  ['ToObject object', q.ToObject({ a: 1 }), { a: 1 }],
  ['ToObject last duplicate wins', q.ToObject([['a', 1], ['a', 2]]), { a: 2 }],
  ['ToArray object', q.ToArray({ a: 1, b: [2] }), [['a', 1], ['b', [2]]]],
  ['ToArray empty object', q.ToArray({}), []],
  ['ToObject(ToArray(o)) round-trips', q.ToObject(q.ToArray({ x: 1, y: 2 })), { x: 1, y: 2 }],
  ['ToArray document starts with its ref', () => q.Equals(q.Select([0], q.ToArray(q.Get(theDoc()))), ['ref', theDoc()]), true],
  ['ToArray document keys', () => q.Map(q.ToArray(q.Get(theDoc())), q.Lambda(['k', 'v'], q.Var('k'))), ['ref', 'ts', 'data']],
  ['ToObject document', () => q.Select(['data', 'a'], q.ToObject(q.Get(theDoc()))), 1],
];

/** Type-check rows: [label, expression, expected]. */
const CHECKS: [string, ExprArg | (() => ExprArg), boolean][] = [
  ['IsNumber Integer', q.IsNumber(1), true],
  ['IsNumber Double', q.IsNumber(1.5), true],
  ['IsNumber String', q.IsNumber('1'), false],
  ['IsDouble Double', q.IsDouble(1.5), true],
  ['IsDouble ToDouble', q.IsDouble(q.ToDouble(1)), true],
  ['IsDouble Integer', q.IsDouble(1), false],
  ['IsInteger Integer', q.IsInteger(1), true],
  ['IsInteger Double', q.IsInteger(1.5), false],
  ['IsInteger ToNumber("1.0")', q.IsInteger(q.ToNumber('1.0')), true],
  ['IsBoolean true', q.IsBoolean(true), true],
  ['IsBoolean string', q.IsBoolean('true'), false],
  ['IsNull null', q.IsNull(NULL), true],
  ['IsNull 0', q.IsNull(0), false],
  ['IsBytes bytes', () => q.IsBytes(bytes()), true],
  ['IsBytes string', q.IsBytes('AQID'), false],
  ['IsTimestamp Time', q.IsTimestamp(q.Now()), true],
  ['IsTimestamp Date', q.IsTimestamp(q.Date('2020-01-01')), false],
  ['IsTimestamp Integer', q.IsTimestamp(1), false],
  ['IsDate Date', q.IsDate(q.Date('2020-01-01')), true],
  ['IsDate Time', q.IsDate(q.Now()), false],
  ['IsString String', q.IsString('x'), true],
  ['IsString empty', q.IsString(''), true],
  ['IsString number', q.IsString(1), false],
  ['IsArray array', q.IsArray([1]), true],
  ['IsArray object', q.IsArray({ a: 1 }), false],
  ['IsArray page', () => q.IsArray(aPage()), false],
  ['IsObject object', q.IsObject({ a: 1 }), true],
  ['IsObject page', () => q.IsObject(aPage()), true],
  ['IsObject document', () => q.IsObject(q.Get(theDoc())), true],
  ['IsObject array', q.IsObject([]), false],
  ['IsObject ref', () => q.IsObject(theDoc()), false],
  ['IsRef document ref', () => q.IsRef(theDoc()), true],
  ['IsRef collection ref', q.IsRef(q.Collection(COLL)), true],
  ['IsRef unresolved ref', q.IsRef(q.Collection('no_such_collection')), true],
  ['IsRef string', q.IsRef(COLL), false],
  ['IsRef document', () => q.IsRef(q.Get(theDoc())), false],
  ['IsSet Match', q.IsSet(q.Match(q.Index(INDEX), 1)), true],
  ['IsSet Documents', q.IsSet(q.Documents(q.Collection(COLL))), true],
  ['IsSet Union', q.IsSet(q.Union(q.Match(q.Index(INDEX), 1), q.Match(q.Index(INDEX), 2))), true],
  ['IsSet Collections()', q.IsSet(q.Collections()), true],
  ['IsSet Keys()', q.IsSet(q.Keys()), true],
  ['IsSet collection ref', q.IsSet(q.Collection(COLL)), false],
  ['IsSet array', q.IsSet([1]), false],
  ['IsSet page', () => q.IsSet(aPage()), false],
  ['IsDoc document ref', () => q.IsDoc(theDoc()), true],
  ['IsDoc document', () => q.IsDoc(q.Get(theDoc())), true],
  ['IsDoc document created in the same query', q.IsDoc(q.Create(q.Collection(COLL), { data: { a: 2 } })), true],
  ['IsDoc schema document', q.IsDoc(q.Get(q.Collection(COLL))), true],
  ['IsDoc key ref', () => q.IsDoc(theKey()), true],
  ['IsDoc native collection', q.IsDoc(q.Collections()), false],
  ['IsDoc set', q.IsDoc(q.Documents(q.Collection(COLL))), false],
  ['IsDoc plain object', q.IsDoc({ a: 1 }), false],
  ['IsDoc string', q.IsDoc('x'), false],
  ['IsLambda query', () => q.IsLambda(lambda()), true],
  ['IsLambda string', q.IsLambda('x'), false],
  ['IsLambda object', q.IsLambda({ lambda: 'x' }), false],

  ['IsCollection ref', q.IsCollection(q.Collection(COLL)), true],
  ['IsCollection document', q.IsCollection(q.Get(q.Collection(COLL))), true],
  ['IsCollection created in the same query', q.IsCollection(q.CreateCollection({ name: q.Concat(['conv_', q.NewId()]) })), true],
  ['IsCollection scoped ref', q.IsCollection(q.Collection('x', q.Database(DB))), true],
  ['IsCollection Collections()', q.IsCollection(q.Collections()), false],
  ['IsCollection user document ref', () => q.IsCollection(theDoc()), false],
  ['IsCollection index ref', q.IsCollection(q.Index(INDEX)), false],
  ['IsCollection string', q.IsCollection(COLL), false],
  ['IsDatabase ref', q.IsDatabase(q.Database(DB)), true],
  ['IsDatabase document', q.IsDatabase(q.Get(q.Database(DB))), true],
  ['IsDatabase Databases()', q.IsDatabase(q.Databases()), false],
  ['IsDatabase collection ref', q.IsDatabase(q.Collection(COLL)), false],
  ['IsIndex ref', q.IsIndex(q.Index(INDEX)), true],
  ['IsIndex document', q.IsIndex(q.Get(q.Index(INDEX))), true],
  ['IsIndex Match set', q.IsIndex(q.Match(q.Index(INDEX), 1)), false],
  ['IsIndex collection document', q.IsIndex(q.Get(q.Collection(COLL))), false],
  ['IsFunction ref', q.IsFunction(q.Function('conv_fn')), true],
  ['IsFunction scoped ref', q.IsFunction(q.Function('conv_fn', q.Database(DB))), true],
  ['IsFunction lambda', () => q.IsFunction(lambda()), false],
  ['IsFunction Functions()', q.IsFunction(q.Functions()), false],
  ['IsKey ref', () => q.IsKey(theKey()), true],
  ['IsKey document', () => q.IsKey(q.Get(theKey())), true],
  ['IsKey Keys()', q.IsKey(q.Keys()), false],
  ['IsKey token ref', q.IsKey(q.Ref(q.Tokens(), '123')), false],
  ['IsToken ref', q.IsToken(q.Ref(q.Tokens(), '123')), true],
  ['IsToken key ref', () => q.IsToken(theKey()), false],
  ['IsToken Tokens()', q.IsToken(q.Tokens()), false],
  ['IsCredentials ref', q.IsCredentials(q.Ref(q.Credentials(), '123')), true],
  ['IsCredentials Credentials()', q.IsCredentials(q.Credentials()), false],
  ['IsCredentials document ref', () => q.IsCredentials(theDoc()), false],
  ['IsRole ref', q.IsRole(q.Role('conv_role')), true],
  ['IsRole Roles()', q.IsRole(q.Roles()), false],
  ['IsRole string', q.IsRole('conv_role'), false],
  ['IsRole function ref', q.IsRole(q.Function('conv_role')), false],
];

interface ErrorRow {
  description: string;
  position: (string | number)[];
}
const bad = (description: string, position: (string | number)[]): ErrorRow => ({ description, position });

const ERRORS: [string, ExprArg | (() => ExprArg), ErrorRow][] = [
  ['ToString array', q.ToString([1]), bad('Cannot cast Array to String.', ['to_string'])],
  ['ToString object', q.ToString({ a: 1 }), bad('Cannot cast Object to String.', ['to_string'])],
  ['ToString ref', q.ToString(q.Collection(COLL)), bad('Cannot cast Collection Ref to String.', ['to_string'])],
  ['ToString bytes', () => q.ToString(bytes()), bad('Cannot cast Bytes to String.', ['to_string'])],
  ['ToNumber non-numeric String', q.ToNumber('abc'), bad('Cannot cast String to Number.', ['to_number'])],
  ['ToNumber empty String', q.ToNumber(''), bad('Cannot cast String to Number.', ['to_number'])],
  ['ToNumber leading space', q.ToNumber(' 1'), bad('Cannot cast String to Number.', ['to_number'])],
  ['ToNumber plus sign', q.ToNumber('+1'), bad('Cannot cast String to Number.', ['to_number'])],
  ['ToNumber Boolean', q.ToNumber(true), bad('Cannot cast Boolean to Number.', ['to_number'])],
  ['ToNumber null', q.ToNumber(NULL), bad('Cannot cast Null to Number.', ['to_number'])],
  ['ToDouble String', q.ToDouble('x'), bad('Cannot cast String to Double.', ['to_double'])],
  ['ToDouble Time', q.ToDouble(q.Now()), bad('Cannot cast Time to Double.', ['to_double'])],
  ['ToInteger String', q.ToInteger('x'), bad('Cannot cast String to Integer.', ['to_integer'])],
  ['ToInteger array', q.ToInteger([1]), bad('Cannot cast Array to Integer.', ['to_integer'])],
  ['ToTime bad String', q.ToTime('2020-01-01'), bad("Cannot cast '2020-01-01' to a time.", ['to_time'])],
  ['ToTime Double', q.ToTime(1.5), bad('Cannot cast Double to Time.', ['to_time'])],
  ['ToTime Boolean', q.ToTime(true), bad('Cannot cast Boolean to Time.', ['to_time'])],
  ['ToDate bad String', q.ToDate('2020-02-30'), bad("Cannot cast '2020-02-30' to a date.", ['to_date'])],
  ['ToDate Integer', q.ToDate(1), bad('Cannot cast Integer to Date.', ['to_date'])],
  ['ToObject String', q.ToObject('x'), bad('Cannot cast String to Object.', ['to_object'])],
  ['ToObject bad pair', q.ToObject([['a', 1, 2]]), bad('Cannot cast Array to Object.', ['to_object'])],
  ['ToObject non-string key', q.ToObject([[1, 1]]), bad('Cannot cast Array to Object.', ['to_object'])],
  ['ToArray String', q.ToArray('x'), bad('Cannot cast String to Array.', ['to_array'])],
  ['ToArray Integer', q.ToArray(1), bad('Cannot cast Integer to Array.', ['to_array'])],
  ['nested position', q.Add(1, q.ToInteger('x')), bad('Cannot cast String to Integer.', ['add', 1, 'to_integer'])],
];

/** Exact response text where the driver would lose the Long/Double distinction. */
const RAW: [body: string, response: string][] = [
  ['{"to_number":"1.0"}', '{"resource":1}'],
  ['{"to_number":"1.5"}', '{"resource":1.5}'],
  ['{"to_number":"1,234.0"}', '{"resource":1234}'],
  ['{"to_number":"2.5E1"}', '{"resource":25}'],
  ['{"to_number":"1E-2"}', '{"resource":0.01}'],
  ['{"to_number":"-0"}', '{"resource":-0.0}'],
  ['{"to_number":"9223372036854775807"}', '{"resource":9223372036854775807}'],
  ['{"to_number":"-9223372036854775808"}', '{"resource":-9223372036854775808}'],
  ['{"to_number":"9223372036854775808"}', '{"resource":9.223372036854776E18}'],
  ['{"to_number":"NaN"}', '{"resource":"NaN"}'],
  ['{"to_number":2.0}', '{"resource":2.0}'],
  ['{"to_double":10}', '{"resource":10.0}'],
  ['{"to_double":"7"}', '{"resource":7.0}'],
  ['{"to_integer":10.0}', '{"resource":10}'],
  ['{"to_integer":"7.9"}', '{"resource":7}'],
  ['{"to_integer":1.0E300}', '{"resource":9223372036854775807}'],
  ['{"to_string":{"to_double":10}}', '{"resource":"10.0"}'],
  ['{"to_string":{"to_integer":10.0}}', '{"resource":"10"}'],
  ['{"to_string":1.0E10}', '{"resource":"1.0E10"}'],
  ['{"to_string":1.0E7}', '{"resource":"1.0E7"}'],
  ['{"to_string":123456.789}', '{"resource":"123456.789"}'],
  ['{"to_string":-0.0}', '{"resource":"-0.0"}'],
  ['{"to_string":{"to_number":"NaN"}}', '{"resource":"NaN"}'],
  ['{"to_array":{"object":{"a":1.0}}}', '{"resource":[["a",1.0]]}'],
  ['{"to_object":[["@x",1]]}', '{"resource":{"@obj":{"@x":1}}}'],
  ['{"is_double":2.0}', '{"resource":true}'],
  ['{"is_integer":2.0}', '{"resource":false}'],
  ['{"is_integer":2}', '{"resource":true}'],
];

for (const proto of ['h2', 'h1'] as const) {
  describe(`conversions over ${proto === 'h2' ? 'HTTP/2' : 'HTTP/1.1'}`, () => {
    const run = (expr: ExprArg | (() => ExprArg)) => drivers[proto].query(typeof expr === 'function' ? expr() : expr);

    for (const [label, expr, expected] of VALUES) {
      test(label, async () => {
        assert.deepEqual(show(await run(expr)), expected);
      });
    }

    for (const [label, expr, expected] of CHECKS) {
      test(label, async () => {
        assert.equal(await run(expr), expected);
      });
    }

    for (const [label, expr, expected] of ERRORS) {
      test(`error: ${label}`, async () => {
        const f = await failure(drivers[proto], typeof expr === 'function' ? expr() : expr);
        assert.deepEqual(
          { status: f.status, code: f.code, description: f.description, position: f.position },
          { status: 400, code: 'invalid argument', ...expected },
        );
      });
    }

    for (const [body, response] of RAW) {
      test(`raw ${body}`, async () => {
        assert.equal(await rawQuery(flora.url, flora.secret, body, proto === 'h2'), response);
      });
    }
  });
}
