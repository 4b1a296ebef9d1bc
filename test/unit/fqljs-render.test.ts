// The renderer: response values as fauna-shell 0.x printed them (util.inspect of the driver's
// decoded values), expressions in the driver's syntax, the two layouts, and the colour hook.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { parseFqlJs, renderExpr, renderValue, wireText, type TokenKind } from '../../src/fqljs';
import { inspectString } from '../../src/fqljs/quote';
import { parseJson } from '../../src/wire/json';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseJSON } = require('faunadb/src/_json') as { parseJSON(text: string): unknown };

const render = (json: string, width?: number) => renderValue(parseJson(json), { width });
/** What fauna-shell 0.x printed for a response: util.inspect of the driver's parse of it. */
const shell = (json: string) => inspect(parseJSON(json), { depth: null });

const ref = (id: string, coll?: string, db?: string) =>
  `{"@ref":{"id":"${id}"${coll ? `,"collection":${coll}` : ''}${db ? `,"database":${db}` : ''}}}`;
const COLLECTIONS = ref('collections');
const users = ref('users', COLLECTIONS);
const dbA = ref('a', ref('databases'));

test('refs print as the driver\'s Ref.toString', () => {
  const cases: [string, string][] = [
    [ref('1', users), 'Ref(Collection("users"), "1")'],
    [users, 'Collection("users")'],
    [ref('by_email', ref('indexes')), 'Index("by_email")'],
    [dbA, 'Database("a")'],
    [ref('b', ref('databases'), dbA), 'Database("b", Database("a"))'],
    [ref('f', ref('functions')), 'Function("f")'],
    [ref('r', ref('roles')), 'Role("r")'],
    [ref('p', ref('access_providers')), 'AccessProvider("p")'],
    [ref('1', ref('keys')), 'Ref(Keys(), "1")'],
    [ref('1', ref('tokens', undefined, dbA)), 'Ref(Tokens(Database("a")), "1")'],
    [COLLECTIONS, 'Collections()'],
    [ref('access_providers'), 'AccessProviders()'],
    [ref('users', COLLECTIONS, dbA), 'Collection("users", Database("a"))'],
    [ref('1', ref('users', COLLECTIONS, dbA)), 'Ref(Collection("users", Database("a")), "1")'],
  ];
  for (const [json, text] of cases) {
    assert.equal(render(json), text, json);
    assert.equal(render(json), shell(json), json);
  }
  assert.equal(render('{"@ref":{"id":"1","class":{"@ref":{"id":"users","class":{"@ref":{"id":"classes"}}}}}}'), 'Ref(Class("users"), "1")');
  assert.equal(render('{"@ref":"classes/users/1"}'), 'Ref("classes/users/1")');
});

test('special values, nested, match fauna-shell where the layout is the same', () => {
  const doc = `{"ref":${ref('123', users)},"ts":1603756535320000,"data":{"name":"Alice","tags":["a","b"],"n":null,"ok":true}}`;
  const cases: [string, string][] = [
    [doc, `{
  ref: Ref(Collection("users"), "123"),
  ts: 1603756535320000,
  data: { name: 'Alice', tags: [ 'a', 'b' ], n: null, ok: true }
}`],
    ['{"@ts":"2020-01-01T00:00:00.123456Z"}', 'Time("2020-01-01T00:00:00.123456Z")'],
    ['{"@date":"2020-01-01"}', 'Date("2020-01-01")'],
    ['{"@bytes":"AQID"}', 'Bytes("AQID")'],
    ['{"@obj":{"@name":"x","a-b":1}}', "{ '@name': 'x', 'a-b': 1 }"],
    ['[]', '[]'],
    ['{}', '{}'],
    ['"it\'s"', '"it\'s"'],
    ['[-1, "x", false]', "[ -1, 'x', false ]"],
  ];
  for (const [json, text] of cases) assert.equal(render(json), text, json);
  for (const [json] of cases.slice(1)) assert.equal(render(json), shell(json), json);
});

test('sets and queries print as expressions', () => {
  const byEmail = ref('by_email', ref('indexes'));
  assert.equal(render(`{"@set":{"match":${byEmail},"terms":"a@b.c"}}`), 'Match(Index("by_email"), "a@b.c")');
  assert.equal(render(`{"@set":{"match":${byEmail},"terms":["a", 1]}}`), 'Match(Index("by_email"), "a", 1)');
  assert.equal(render(`{"@set":{"documents":${users}}}`), 'Documents(Collection("users"))');
  assert.equal(render(`{"@set":{"union":[{"@set":{"documents":${users}}},{"@set":{"match":${byEmail}}}]}}`), 'Union(Documents(Collection("users")), Match(Index("by_email")))');
  const query = '{"@query":{"api_version":"4","lambda":["a","b"],"expr":{"let":{"s":{"add":[{"var":"a"},{"var":"b"}]}},"in":{"object":{"sum":{"var":"s"},"half":{"divide":[{"var":"s"},2.0]}}}}}}';
  assert.equal(render(query, 120), 'Query(Lambda(["a", "b"], Let({s: Add(Var("a"), Var("b"))}, {sum: Var("s"), half: Divide(Var("s"), 2.0)})))');
  assert.equal(
    render(query),
    `Query(
  Lambda(
    ["a", "b"],
    Let(
      {s: Add(Var("a"), Var("b"))},
      {sum: Var("s"), half: Divide(Var("s"), 2.0)}
    )
  )
)`,
  );
  assert.equal(render('{"@query":{"lambda":"x","expr":{"get":{"var":"x"}}}}'), shell('{"@query":{"lambda":"x","expr":{"get":{"var":"x"}}}}'));
});

test('numbers: Longs as digits, Doubles with a fraction or exponent', () => {
  assert.equal(render('[1, 1.0, -0.0, 2.5, 1e21, 1.5e-7, 9223372036854775807]'), '[ 1, 1.0, -0.0, 2.5, 1.0E21, 1.5E-7, 9223372036854775807 ]');
  assert.equal(render('["NaN"]'), "[ 'NaN' ]");
});

test('strings quoted as util.inspect quotes them', () => {
  for (const s of ['plain', "it's", 'say "hi"', 'both \' and "', 'all \' " `', 'tpl ${x} \' "', 'a\nb\tc\\', '\u0000\u001f\u007f\u0085', '\ud800 lone', '😀', 'é']) {
    assert.equal(inspectString(s), inspect(s), s);
  }
});

test('long values break one item per line, indented by two, within the width', () => {
  const long = `{"data":[{"ref":${ref('1', users)},"data":{"name":"${'x'.repeat(60)}","short":[1,2]}},{"ref":${ref('2', users)},"data":{}}],"after":[${ref('3', users)}]}`;
  const text = render(long);
  assert.equal(text, `{
  data: [
    {
      ref: Ref(Collection("users"), "1"),
      data: {
        name: '${'x'.repeat(60)}',
        short: [ 1, 2 ]
      }
    },
    { ref: Ref(Collection("users"), "2"), data: {} }
  ],
  after: [ Ref(Collection("users"), "3") ]
}`);
  for (const line of text.split('\n')) assert.ok(line.length <= 80, line);
  // A wider page keeps more on one line; the widest keeps everything.
  assert.equal(render(long, 1000).includes('\n'), false);
  assert.equal(render('[1, 2, 3]', 5), '[\n  1,\n  2,\n  3\n]');
});

test('long expressions break too, and still parse back', () => {
  const wire = parseFqlJs('Map(Paginate(Match(Index("users_by_email"), "someone@example.com"), {size: 100}), Lambda("ref", Let({doc: Get(Var("ref"))}, {email: Select(["data", "email"], Var("doc")), name: Select(["data", "name"], Var("doc"))})))');
  const text = renderExpr(wire);
  assert.ok(text.split('\n').length > 3, text);
  for (const line of text.split('\n')) assert.ok(line.length <= 80, line);
  assert.equal(wireText(parseFqlJs(text)), wireText(wire));
});

test('the colouriser sees every token by kind; the layout ignores its codes', () => {
  const seen = new Map<TokenKind, string[]>();
  const colour = (kind: TokenKind, text: string) => {
    seen.set(kind, [...(seen.get(kind) ?? []), text]);
    return `<${text}>`;
  };
  const json = `{"ref":${ref('1', users)},"n":1.5,"ok":true,"s":"x"}`;
  const text = renderValue(parseJson(json), { colour });
  assert.equal(text, '<{> ref<: ><Ref><(><Collection><(><"users"><)><, ><"1"><)><, >n<: ><1.5><, >ok<: ><true><, >s<: ><\'x\'> <}>');
  assert.deepEqual(seen.get('function'), ['Ref', 'Collection']);
  assert.deepEqual(seen.get('string'), ['"users"', '"1"', "'x'"]);
  assert.deepEqual(seen.get('number'), ['1.5']);
  assert.deepEqual(seen.get('keyword'), ['true']);
  assert.equal(renderValue(parseJson(json), { colour: (_k, t) => `\u001b[1m${t}\u001b[0m` }).includes('\n'), false);
});

test('wire JSON no builder writes still prints, as the driver\'s Expr.toString would', () => {
  assert.equal(renderExpr(parseJson('{"do":1}')), 'Do(1)');
  assert.equal(renderExpr(parseJson('{"unknown_fn":1,"x":2}')), 'unknown_fn(1, 2)');
});

test('one-item and empty argument arrays keep their shape', () => {
  const cases: [string, string][] = [
    ['{"let":[{"1":1},{"1":2}],"in":{"var":"1"}}', 'Let([{"1": 1}, {"1": 2}], Var("1"))'],
    ['{"add":[1]}', 'Add([1])'],
    ['{"add":[]}', 'Add([])'],
    ['{"add":5}', 'Add(5)'],
    ['{"call":{"function":"f"},"arguments":[[1]]}', 'Call(Function("f"), [[1]])'],
    ['{"call":{"function":"f"},"arguments":[1]}', 'Call(Function("f"), [1])'],
    ['{"call":{"function":"f"},"arguments":[]}', 'Call(Function("f"))'],
    ['{"match":{"index":"i"},"terms":[1,2]}', 'Match(Index("i"), 1, 2)'],
    ['{"findstrregex":"a","pattern":"b","num_results":3}', 'FindStrRegex("a", "b", null, 3)'],
    ['{"collections":null}', 'Collections()'],
    ['{"select":["a"],"from":{"object":{"a":1}},"default":null}', 'Select(["a"], {a: 1}, null)'],
  ];
  for (const [json, text] of cases) {
    assert.equal(renderExpr(parseJson(json)), text, json);
    assert.equal(wireText(parseFqlJs(text)), json, text);
  }
});
