// Real-world FQL-JS text: fauna-schema-migrate resource files (its own test fixtures, .fql and
// .js, and hand-written ones of every kind it manages) against the tool's own evaluation, and the
// shell's multi-statement inputs with bindings kept across inputs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { FqlJsError, FqlJsSession, parseFqlJs, wireText } from '../../src/fqljs';

process.noDeprecation = true;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const faunadb = require('faunadb') as { query: { wrap(v: unknown): unknown } };
const MIGRATE = path.dirname(require.resolve('@fauna-labs/fauna-schema-migrate/package.json'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { evalFQLCode } = require(path.join(MIGRATE, 'dist/fql/eval.js')) as { evalFQLCode(code: string): unknown };

/** What fauna-schema-migrate sends for an .fql resource. */
const migrateWire = (code: string): string => JSON.stringify(faunadb.query.wrap(evalFQLCode(code)));

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'temp' ? [] : files(p, ext);
    return e.name.endsWith(ext) ? [p] : [];
  });
}

test('every .fql fixture of fauna-schema-migrate: the tool\'s own wire JSON', () => {
  const found = files(path.join(MIGRATE, 'tests'), '.fql');
  assert.ok(found.length > 100, `only ${found.length} fixtures`);
  for (const f of found) {
    const code = readFileSync(f, 'utf8');
    assert.equal(wireText(parseFqlJs(code)), migrateWire(code), f);
  }
});

test('.js resources: import from faunadb and export default', () => {
  const found = files(path.join(MIGRATE, 'tests'), '.js');
  assert.ok(found.length >= 4);
  for (const f of found) {
    const code = readFileSync(f, 'utf8');
    // The driver's reading: the module run as CommonJS.
    const cjs = code.replace(/import \* as (\w+) from 'faunadb'/, "const $1 = require('faunadb')").replace('export default', 'return');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const expected = JSON.stringify(faunadb.query.wrap(new Function('require', cjs)(require)));
    assert.equal(wireText(parseFqlJs(code)), expected, f);
  }
  const get = "Get(Ref(Collection('a'), '1'))";
  for (const [code, expression] of [
    ["import { query as q } from 'faunadb'\nexport default q.CreateCollection({ name: 'a' })", "CreateCollection({ name: 'a' })"],
    ["import { query } from 'faunadb';\nconst q = query;\nexport default q.CreateIndex({ name: 'i', source: q.Collection('a') });", "CreateIndex({ name: 'i', source: Collection('a') })"],
    ["import faunadb from 'faunadb'\nconst q = faunadb.query\nexport default q.Get(q.Ref(q.Collection('a'), '1'))", get],
    ["const { query: q } = require('faunadb')\nexport default q.Get(q.Ref(q.Collection('a'), '1'))", get],
    ["const { query } = require('faunadb');\nexport default query.Get(query.Ref(query.Collection('a'), '1'));", get],
  ]) {
    assert.equal(wireText(parseFqlJs(code)), migrateWire(expression), code);
  }
});

// Resources of the five kinds fauna-schema-migrate manages, in the styles people write them.
const RESOURCES = [
  `// users
CreateCollection({ name: "users", history_days: 30, ttl_days: null, data: { owner: 'me' } });`,
  `q.CreateCollection({
  name: 'orders',
  history_days: 0,
  permissions: { create: Query(Lambda("x", Equals(Var("x"), CurrentIdentity()))) },
})`,
  `CreateIndex({
  name: "users_by_email",
  source: Collection("users"),
  terms: [{ field: ["data", "email"] }],
  values: [{ field: ["ref"] }, { field: ["data", "age"], reverse: true }],
  unique: true,
  serialized: true,
})`,
  `CreateIndex({
  name: "users_by_name_lower",
  source: {
    collection: Collection("users"),
    fields: { lower: Query(Lambda("doc", LowerCase(Select(["data", "name"], Var("doc"), "")))) },
  },
  terms: [{ binding: "lower" }],
})`,
  `CreateFunction({
  name: "register",
  role: "server",
  body: Query(
    Lambda(["email", "password"],
      Let(
        { user: Create(Collection("users"), { credentials: { password: Var("password") }, data: { email: Var("email") } }) },
        Select(["ref"], Var("user"))
      )
    )
  ),
  data: { version: 2 },
})`,
  `CreateFunction({ name: "double", body: Query(x => Multiply(x, 2)) })`,
  `CreateFunction({ name: "pair", body: Query((a, b) => [a, b]), role: Role("reader") })`,
  `CreateRole({
  name: "owner",
  membership: [{ resource: Collection("users"), predicate: Query(Lambda("ref", Equals(Select(["data", "active"], Get(Var("ref"))), true))) }],
  privileges: [
    {
      resource: Collection("orders"),
      actions: {
        read: Query(Lambda("ref", Equals(CurrentIdentity(), Select(["data", "owner"], Get(Var("ref")))))),
        write: Query((oldData, newData) => And(Equals(CurrentIdentity(), Select(["data", "owner"], oldData)), Equals(Select(["data", "owner"], oldData), Select(["data", "owner"], newData)))),
        create: true,
        delete: false,
      },
    },
    { resource: Index("users_by_email"), actions: { read: true } },
    { resource: Function("register"), actions: { call: Query(args => Equals(Count(args), 2)) } },
  ],
})`,
  `CreateAccessProvider({
  name: "auth0",
  issuer: "https://example.auth0.com/",
  jwks_uri: "https://example.auth0.com/.well-known/jwks.json",
  roles: [Role("owner"), { role: Role("admin"), predicate: Query(Lambda("accessToken", ContainsValue("admin", Select(["https://example.com/roles"], Var("accessToken"), [])))) }],
})`,
  `{ name: "just_an_object", history_days: 1 }`,
];

test('resources of every kind, with Query(Lambda) predicates and arrow functions', () => {
  for (const code of RESOURCES) assert.equal(wireText(parseFqlJs(code)), migrateWire(code), code);
});

test('shell inputs: several statements, let/const bindings kept across inputs', () => {
  const session = new FqlJsSession();
  const texts = (input: string) => session.parse(input).map(wireText);
  assert.deepEqual(texts('let users = Collection("users"); Paginate(Documents(users)); Get(Ref(users, "1"))'), [
    '{"paginate":{"documents":{"collection":"users"}}}',
    '{"get":{"ref":{"collection":"users"},"id":"1"}}',
  ]);
  assert.deepEqual(texts('const byId = id => Get(Ref(users, id))'), []);
  assert.deepEqual(texts('byId("2")'), ['{"get":{"ref":{"collection":"users"},"id":"2"}}']);
  assert.deepEqual(texts('Map(Paginate(Documents(users)), byId)'), [
    '{"map":{"lambda":"id","expr":{"get":{"ref":{"collection":"users"},"id":{"var":"id"}}}},"collection":{"paginate":{"documents":{"collection":"users"}}}}',
  ]);
  assert.deepEqual(session.names(), ['users', 'byId']);
  // A failing input keeps none of its declarations.
  assert.throws(() => session.parse('let n = 1; Nope(n)'), FqlJsError);
  assert.deepEqual(session.names(), ['users', 'byId']);
  assert.deepEqual(texts('let users = Collection("people"); Get(Ref(users, "1"))'), ['{"get":{"ref":{"collection":"people"},"id":"1"}}']);
  assert.deepEqual(texts(''), []);
  assert.deepEqual(texts('{ a: 1 }'), ['{"object":{"a":1}}']);
});

test('one expression, after declarations, for a file', () => {
  assert.equal(wireText(parseFqlJs('const c = Collection("c");\nlet f = x => Get(x);\nMap(Paginate(Documents(c)), f);')), migrateWire('Map(Paginate(Documents(Collection("c"))), x => Get(x))'));
  assert.equal(wireText(parseFqlJs('Add(1, 2);;')), '{"add":[1,2]}');
});

test('BigInt literals send exact 64-bit integers', () => {
  assert.equal(wireText(parseFqlJs('[9007199254740993n, -9223372036854775808n, 9223372036854775807n]')), '[9007199254740993,-9223372036854775808,9223372036854775807]');
});
