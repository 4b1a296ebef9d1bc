// The pure parts of the dashboard's Functions, Roles and Access providers screens: a function's
// body shown in the driver's syntax parses back to the same wire; the checks of typed lambdas and
// call arguments; the role editor's CreateRole/Update parameters against the driver's own wire for
// the same text; a stored role read back; who loses access when a role is deleted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from '../../src/wire/json';
import { wireText } from '../../src/fqljs/wireText';
import { parseFqlJs } from '../../src/fqljs/parse';
import { renderExpr } from '../../src/fqljs/render';
import { FqlJsError } from '../../src/fqljs/errors';
import { asQueryLambda, parseArguments } from '../../src/admin/fqlChecks';
import { callFunction, createAccessProvider, createFunction, createRole, updateFunction, updateRole } from '../../src/admin/securityQueries';
import { actionsOf, readRole, resourceOfRef, rolesGranting, roleDependents, roleParams, type LoadedRole } from '../../src/admin/roleDocument';
import { providerFieldsMistake } from '../../src/admin/accessProviders';
import type { JsonValue } from '../../src/wire/expr';

const same = (actual: JsonValue, driverText: string) => assert.equal(wireText(actual), wireText(parseFqlJs(driverText)));

const BODIES = [
  'Query(Lambda("x", Add(Var("x"), 1)))',
  'Query(Lambda(["a", "b"], Concat([Var("a"), Var("b")], " ")))',
  'Query(Lambda("ref", Let({doc: Get(Var("ref")), n: 2}, If(Equals(Select(["data", "n"], Var("doc")), Var("n")), {ok: true, list: [1, 2.5, null]}, Abort("no")))))',
  'Query(Lambda("x", Map(Paginate(Match(Index("by_x"), Var("x")), {size: 10}), Lambda("r", Get(Var("r"))))))',
  'Query(Lambda("x", Call(Function("other"), Var("x"), 9007199254740993n)))',
  'Query(Lambda("x", Create(Collection("log"), {data: {at: Now(), ref: Ref(Collection("users"), "12"), day: Date("2024-01-02")}})))',
  'Query(Lambda([], Select("get", {get: {var: "x"}})))',
  'Query(Lambda("s", Do(Update(CurrentIdentity(), {data: {seen: Time("2024-01-02T03:04:05Z")}}), ContainsPath(["a", 0], Var("s")))))',
];

test('a body shown in the driver syntax parses back to the same wire: parse(render(x)) == x', () => {
  for (const text of BODIES) {
    const wire = parseFqlJs(text);
    for (const width of [1e9, 72, 20]) assert.equal(wireText(parseFqlJs(renderExpr(wire, { width }))), wireText(wire), `${text} at width ${width}`);
  }
});

test("a body as the server answers it (@query with api_version, Let as one object) shows as the driver's text", () => {
  const stored = parseJson('{"@query":{"api_version":"4","lambda":"x","expr":{"let":{"a":1,"b":[{"var":"x"}]},"in":{"select":["a"],"from":{"object":{"a":{"var":"a"}}}}}}}');
  const text = renderExpr(stored);
  assert.equal(text, 'Query(Lambda("x", Let({a: 1, b: [Var("x")]}, Select(["a"], {a: Var("a")}))))');
  const again = parseFqlJs(text);
  assert.equal(wireText(parseFqlJs(renderExpr(again))), wireText(again), 'stable from then on');
});

test('asQueryLambda: Query(Lambda) kept, a bare Lambda wrapped, anything else refused with what is expected', () => {
  assert.equal(wireText(asQueryLambda(parseFqlJs('Query(Lambda("x", 1))'), [1], 'e.g.')), '{"query":{"lambda":"x","expr":1}}');
  assert.equal(wireText(asQueryLambda(parseFqlJs('Lambda(["a", "b"], 1)'), [2, 3], 'e.g.')), '{"query":{"lambda":["a","b"],"expr":1}}');
  assert.equal(wireText(asQueryLambda(parseFqlJs('Query((a, b, c, d, e) => 1)'), undefined, 'e.g.')), '{"query":{"lambda":["a","b","c","d","e"],"expr":1}}');
  assert.throws(() => asQueryLambda(parseFqlJs('Add(1, 2)'), undefined, 'Query(Lambda("x", 1))'), /^Error: Expected a lambda written as Query\(Lambda\(…\)\), e\.g\. Query\(Lambda\("x", 1\)\)$/);
  assert.throws(() => asQueryLambda(parseFqlJs('Query(Lambda("x", true))'), [2, 3], 'EX'), /^Error: This lambda takes 1 parameter; here it must take 2 parameters or 3 parameters, e\.g\. EX$/);
  assert.throws(() => asQueryLambda(parseFqlJs('{lambda: "x", expr: 1}'), undefined, 'EX'), /Expected a lambda/);
});

test('call arguments: a comma-separated list, each in the driver wire; a syntax error points into the typed text', () => {
  assert.deepEqual(parseArguments('  '), []);
  same(callFunction('f', parseArguments('1, "two", {three: [3]}')), 'Call(Function("f"), 1, "two", {three: [3]})');
  same(callFunction('f', parseArguments('Var("x") // a comment')), 'Call(Function("f"), Var("x"))');
  same(callFunction('f', parseArguments('[1, 2]')), 'Call(Function("f"), [1, 2])');
  same(callFunction('f', []), 'Call(Function("f"))');
  const err = (() => {
    try {
      parseArguments('1,\n  2 +* 3');
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof FqlJsError, String(err));
  assert.equal(err.line, 2);
  assert.equal(err.column, 6);
  assert.equal(err.offset, 8);
  assert.match(err.message, /^syntax error: Unexpected token \(line 2, column 6\)\n  {3}2 \+\* 3\n {7}\^$/);
});

test("function writes are the driver's CreateFunction and Update", () => {
  const body = parseFqlJs('Query(Lambda("x", Var("x")))');
  same(createFunction('f', body, null), 'CreateFunction({name: "f", body: Query(Lambda("x", Var("x")))})');
  same(createFunction('f', body, 'server'), 'CreateFunction({name: "f", body: Query(Lambda("x", Var("x"))), role: "server"})');
  same(updateFunction('f', body, parseFqlJs('Role("r")')), 'Update(Function("f"), {body: Query(Lambda("x", Var("x"))), role: Role("r")})');
  same(updateFunction('f', body, null), 'Update(Function("f"), {body: Query(Lambda("x", Var("x"))), role: null})');
});

const pred = (text: string) => parseFqlJs(text);

test("role writes are the driver's CreateRole and Update of the same role", () => {
  const privileges = [
    { resource: { kind: 'collection', name: 'users' } as const, actions: [['read', true], ['write', pred('Query(Lambda(["o", "n"], true))')]] as [never, JsonValue][] },
    { resource: { kind: 'index', name: 'by_email' } as const, actions: [] },
    { resource: { kind: 'schema', name: 'access_providers' } as const, actions: [['read', true]] as [never, JsonValue][] },
    { resource: { kind: 'function', name: 'inc' } as const, actions: [['call', pred('Query(Lambda("args", true))')]] as [never, JsonValue][] },
  ];
  const membership = [{ collection: 'users', predicate: pred('Query(Lambda("ref", true))') }, { collection: 'staff', predicate: null }];
  same(
    createRole(roleParams('r', privileges, membership, false)),
    'CreateRole({name: "r", privileges: [{resource: Collection("users"), actions: {read: true, write: Query(Lambda(["o", "n"], true))}}, ' +
      '{resource: AccessProviders(), actions: {read: true}}, {resource: Function("inc"), actions: {call: Query(Lambda("args", true))}}], ' +
      'membership: [{resource: Collection("users"), predicate: Query(Lambda("ref", true))}, {resource: Collection("staff")}]})',
  );
  same(createRole(roleParams('bare', [], [], false)), 'CreateRole({name: "bare"})');
  same(updateRole('old', roleParams('new', [], [], true)), 'Update(Role("old"), {name: "new", privileges: null, membership: null})');
});

/** A role as the server answered it (recorded from Flora). */
const STORED_ROLE = parseJson(
  '{"ref":{"@ref":{"id":"r","collection":{"@ref":{"id":"roles"}}}},"ts":1795734327756134,"name":"r","privileges":[' +
    '{"resource":{"@ref":{"id":"collections"}},"actions":{"read":true,"create":false,"write":{"@query":{"api_version":"4","lambda":["o","n"],"expr":true}}}},' +
    '{"resource":{"@ref":{"id":"users","collection":{"@ref":{"id":"collections"}}}},"actions":{"history_read":true}}],' +
    '"membership":[{"resource":{"@ref":{"id":"users","collection":{"@ref":{"id":"collections"}}}},"predicate":{"@query":{"api_version":"4","lambda":"x","expr":true}}}]}',
);

test('a stored role reads back with its predicates in the driver syntax, and saves back unchanged', () => {
  const role = readRole(STORED_ROLE);
  assert.equal(role.name, 'r');
  assert.deepEqual(role.privileges[0].resource, { kind: 'schema', name: 'collections' });
  assert.deepEqual([...role.privileges[0].actions], [['read', true], ['write', 'Query(Lambda(["o", "n"], true))']], 'false grants nothing');
  assert.deepEqual(role.privileges[1].resource, { kind: 'collection', name: 'users' });
  assert.deepEqual(role.membership, [{ collection: 'users', predicate: 'Query(Lambda("x", true))' }]);
  const params = roleParams(
    role.name,
    role.privileges.map((p) => ({ resource: p.resource, actions: [...p.actions].map(([a, g]) => [a, g === true ? true : parseFqlJs(g)] as [never, JsonValue]) })),
    role.membership.map((m) => ({ collection: m.collection, predicate: m.predicate ? parseFqlJs(m.predicate) : null })),
    true,
  );
  same(
    updateRole('r', params),
    'Update(Role("r"), {name: "r", privileges: [{resource: Collections(), actions: {read: true, write: Query(Lambda(["o", "n"], true))}}, ' +
      '{resource: Collection("users"), actions: {history_read: true}}], membership: [{resource: Collection("users"), predicate: Query(Lambda("x", true))}]})',
  );
  assert.throws(() => readRole(parseJson('{"name":"odd","privileges":[{"resource":{"@ref":{"id":"1","collection":{"@ref":{"id":"users","collection":{"@ref":{"id":"collections"}}}}}},"actions":{}}]}')), /Role odd grants privileges on Ref\(Collection\("users"\), "1"\), which this editor cannot show/);
});

test('entries naming the same resource are one row with every action (none lost on saving); a clash is refused', () => {
  const users = '{"@ref":{"id":"users","collection":{"@ref":{"id":"collections"}}}}';
  const twice = (second: string) =>
    parseJson(`{"name":"t","privileges":[{"resource":${users},"actions":{"read":true}},{"resource":${users},"actions":${second}}]}`);
  const role = readRole(twice('{"write":true,"read":true}'));
  assert.equal(role.privileges.length, 1);
  assert.deepEqual(role.privileges[0].resource, { kind: 'collection', name: 'users' });
  assert.deepEqual([...role.privileges[0].actions], [['read', true], ['write', true]]);
  assert.throws(
    () => readRole(twice('{"read":{"@query":{"api_version":"4","lambda":"x","expr":true}}}')),
    /^Error: Role t grants read on Collection\("users"\) twice, differently; change it in the query editor\.$/,
  );
});

test('resources: refs of answers named, and the actions each kind has', () => {
  assert.deepEqual(resourceOfRef(parseJson('{"@ref":{"id":"keys"}}')), { kind: 'schema', name: 'keys' });
  assert.deepEqual(resourceOfRef(parseJson('{"@ref":{"id":"f","collection":{"@ref":{"id":"functions"}}}}')), { kind: 'function', name: 'f' });
  assert.equal(resourceOfRef(parseJson('{"@ref":{"id":"x","collection":{"@ref":{"id":"collections"}},"database":{"@ref":{"id":"child","collection":{"@ref":{"id":"databases"}}}}}}')), undefined);
  assert.deepEqual(actionsOf({ kind: 'index', name: 'i' }), ['read', 'unrestricted_read']);
  assert.deepEqual(actionsOf({ kind: 'function', name: 'f' }), ['call']);
  assert.ok(actionsOf({ kind: 'schema', name: 'keys' }).includes('history_write'));
  assert.ok(!actionsOf({ kind: 'schema', name: 'roles' }).includes('history_write'));
  assert.equal(actionsOf({ kind: 'collection', name: 'c' }).length, 8);
});

const roleRef = (name: string) => `{"@ref":{"id":"${name}","collection":{"@ref":{"id":"roles"}}}}`;

test('deleting a role names the keys, functions, access providers and members that lose it', () => {
  const role: LoadedRole = { name: 'r', privileges: [], membership: [{ collection: 'users', predicate: '' }] };
  const keys = [
    parseJson(`{"ref":{"@ref":{"id":"101","collection":{"@ref":{"id":"keys"}}}},"role":${roleRef('r')},"data":{"name":"app"}}`),
    parseJson(`{"ref":{"@ref":{"id":"102","collection":{"@ref":{"id":"keys"}}}},"role":[${roleRef('other')},${roleRef('r')}]}`),
    parseJson('{"ref":{"@ref":{"id":"103","collection":{"@ref":{"id":"keys"}}}},"role":"server"}'),
    parseJson(`{"ref":{"@ref":{"id":"104","collection":{"@ref":{"id":"keys"}}}},"role":${roleRef('rr')}}`),
  ];
  const functions = [parseJson(`{"name":"f","role":${roleRef('r')}}`), parseJson('{"name":"g","role":"admin"}')];
  const providers = [parseJson(`{"name":"auth0","roles":[{"role":${roleRef('r')},"predicate":{"@query":{"lambda":"p","expr":true}}}]}`), parseJson(`{"name":"other","roles":${roleRef('x')}}`)];
  assert.deepEqual(roleDependents(role, { keys, functions, providers }), [
    'key 101 ("app")',
    'key 102',
    'function f (runs with this role)',
    'access provider auth0 (the JWTs it accepts)',
    'the tokens of documents in users (members)',
  ]);
  assert.deepEqual(roleDependents({ ...role, membership: [] }, { keys: [], functions: [], providers: [] }), []);
  assert.deepEqual(rolesGranting({ kind: 'collection', name: 'users' }, [STORED_ROLE, parseJson('{"name":"none"}')]), ['r']);
});

test("access providers: the driver's CreateAccessProvider, and issuer or JWKS URI mistakes said before sending", () => {
  same(
    createAccessProvider('a', 'https://i/', 'https://i/jwks', [{ role: 'r', predicate: null }, { role: 's', predicate: pred('Query(Lambda("p", true))') }]),
    'CreateAccessProvider({name: "a", issuer: "https://i/", jwks_uri: "https://i/jwks", roles: [Role("r"), {role: Role("s"), predicate: Query(Lambda("p", true))}]})',
  );
  same(createAccessProvider('a', 'i', 'https://i/jwks', []), 'CreateAccessProvider({name: "a", issuer: "i", jwks_uri: "https://i/jwks"})');
  assert.match(providerFieldsMistake(' ', 'https://x/') ?? '', /^The issuer is required/);
  assert.match(providerFieldsMistake('i', 'not a url') ?? '', /^The JWKS URI is not a URL: "not a url"/);
  assert.match(providerFieldsMistake('i', 'http://example.com/jwks') ?? '', /must use https/);
  assert.equal(providerFieldsMistake('i', 'http://127.0.0.1:9/jwks'), undefined);
  assert.equal(providerFieldsMistake('i', 'https://example.com/jwks'), undefined);
});
