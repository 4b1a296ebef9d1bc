// `flora eval` and `flora shell` (issue 19) run as the user runs them, child processes against a
// real server: results in FQL syntax and as exact wire JSON, parse and query errors with their exit
// codes, a file of several expressions, a child database, the shell fed through a pipe (multi-line
// input, .use, history), and connections taken from fauna-shell's endpoints file.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FLORA_BIN, httpRequest, ROOT, serverForFile } from '../helpers/server';

interface Run {
  code: number;
  out: string;
  err: string;
}

const server = serverForFile();
let home: string;

before(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'flora-shell-test-'));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The connection from the environment, unless a test gives its own; HOME is a temp dir with no endpoints file. */
function flora(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HOME: home, FLORA_URL: server.flora.url, FLORA_SECRET: server.flora.secret, FLORA_HISTORY_FILE: '', NO_COLOR: '', ...opts.env };
    const proc = spawn(process.execPath, [FLORA_BIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    proc.on('error', reject);
    proc.on('exit', (code) => resolve({ code: code ?? 1, out, err }));
    proc.stdin.end(opts.stdin ?? '');
  });
}

/** The body the server answers for `wire`, for comparing with what the command printed. */
async function rawAnswer(wire: string, secret = server.flora.secret): Promise<string> {
  const res = await httpRequest(server.flora.url, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: wire });
  return res.body;
}

describe('flora eval', () => {
  before(async () => {
    const setup = await flora(['eval', 'CreateCollection({name: "users"}); Create(Ref(Collection("users"), "1"), {data: {name: "Ann", tags: ["a", "b"]}}); CreateDatabase({name: "app"})']);
    assert.equal(setup.code, 0, setup.err);
  });

  test('prints a result in FQL syntax, as fauna-shell did', async () => {
    const r = await flora(['eval', '--format', 'shell', 'Map(Paginate(Documents(Collection("users"))), Lambda("x", Get(Var("x"))))']);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^\{\n {2}data: \[\n {4}\{\n {6}ref: Ref\(Collection\("users"\), "1"\),\n {6}ts: \d+,\n {6}data: \{ name: 'Ann', tags: \[ 'a', 'b' \] \}\n {4}\}\n {2}\]\n\}\n$/,
    );
    assert.equal(r.err, '');
    // Arrow functions, as the driver took them; JSON when standard output is not a terminal.
    const arrow = await flora(['eval', 'Select(["data", "name"], Get(Ref(Collection("users"), "1")))']);
    assert.deepEqual([arrow.code, arrow.out], [0, '"Ann"\n']);
    const lambda = await flora(['eval', '--format=shell', 'Map([1, 2], x => Add(x, 1))']);
    assert.deepEqual([lambda.code, lambda.out], [0, '[ 2, 3 ]\n']);
  });

  test('--format json is exactly the wire JSON of the resource', async () => {
    const expr = '[ToDouble(1), 9007199254740993n, Time("2020-01-01T00:00:00.5Z"), Date("2020-01-01"), Bytes("AQI="), Query(Lambda("x", Var("x"))), "é\\u2028", Get(Ref(Collection("users"), "1"))]';
    const r = await flora(['eval', '--format', 'json', expr]);
    assert.equal(r.code, 0, r.err);
    const wire =
      '[{"to_double":1},9007199254740993,{"time":"2020-01-01T00:00:00.5Z"},{"date":"2020-01-01"},{"@bytes":"AQI="},{"query":{"lambda":"x","expr":{"var":"x"}}},"é\\u2028",{"get":{"ref":{"collection":"users"},"id":"1"}}]';
    const body = await rawAnswer(wire);
    assert.ok(body.startsWith('{"resource":['), body);
    assert.equal(r.out, `${body.slice('{"resource":'.length, -1)}\n`);
    assert.ok(r.out.startsWith('[1.0,9007199254740993,'), r.out);
  });

  test('a file of several expressions: each runs in order, declarations kept, each result printed', async () => {
    const file = path.join(home, 'queries.fql');
    await writeFile(file, 'let users = Collection("users")\n// counts\nCount(Documents(users))\nAdd(1, 2);\nSelect(["data", "name"], Get(Ref(users, "1")))\n');
    const r = await flora(['eval', '--file', file]);
    assert.deepEqual([r.code, r.out, r.err], [0, '1\n3\n"Ann"\n', '']);
    // From standard input with '-'.
    const piped = await flora(['eval', '--file', '-', '--format', 'shell'], { stdin: 'Add(2, 2)\nConcat(["a", "b"])' });
    assert.deepEqual([piped.code, piped.out], [0, "4\n'ab'\n"]);
  });

  test('a parse error: the caret excerpt on stderr, exit code 1, nothing run', async () => {
    const r = await flora(['eval', 'Add(1, 2)\nAdd(1,,2)']);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.equal(r.err, 'Error: syntax error: Unexpected token (line 2, column 7)\n  Add(1,,2)\n        ^\n');
    const unknown = await flora(['eval', 'Paginate(Colections())']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /^Error: .*Colections.* \(line 1, column 10\)\n {2}Paginate\(Colections\(\)\)\n {11}\^\n$/);
  });

  test("a query error: fauna-shell's shape (code, then the errors with position and description); results before it printed", async () => {
    const r = await flora(['eval', '--format', 'shell', 'Add(1, 1); Get(Ref(Collection("nope"), "1")); Add(2, 2)']);
    assert.equal(r.code, 1);
    assert.equal(r.out, '2\n');
    assert.equal(
      r.err,
      "Error: invalid ref\n{\n  errors: [\n    {\n      position: [ 'get' ],\n      code: 'invalid ref',\n      description: \"Ref refers to undefined collection 'nope'\"\n    }\n  ]\n}\n",
    );
    // In JSON, the server's own answer.
    const json = await flora(['eval', 'Divide(1, 0)']);
    assert.equal(json.code, 1);
    assert.equal(json.err, `${await rawAnswer('{"divide":[1,0]}')}\n`);
    assert.match(json.err, /"code":"invalid argument","description":"Illegal division by zero."/);
  });

  test('--database runs in a child database; a missing one is named', async () => {
    const r = await flora(['eval', '--database', 'app', 'CreateCollection({name: "posts"}); Paginate(Collections())', '--format', 'shell']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\{ data: \[ Collection\("posts"\) \] \}\n$/);
    const missing = await flora(['eval', '--database', 'app/none', 'Now()']);
    assert.deepEqual([missing.code, missing.err], [1, "Error: no database 'app/none'\n"]);
  });

  test('--metrics, connection failures and bad usage', async () => {
    const m = await flora(['eval', '--metrics', 'Add(1, 2)']);
    assert.equal(m.code, 0);
    assert.match(m.err, /^time \d+ ms, compute 1, reads 0, writes 0\n$/);
    const unauthorized = await flora(['eval', '--format=shell', '--secret', 'wrong', 'Now()']);
    assert.equal(unauthorized.code, 1);
    assert.match(unauthorized.err, /^Error: unauthorized\n/);
    const unreachable = await flora(['eval', '--url', 'http://127.0.0.1:1', 'Now()']);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.err, /^Error: cannot reach http:\/\/127\.0\.0\.1:1/);
    const usage = [[], ['Now()', '--format', 'xml'], ['Now()', 'Now()'], ['Now()', '--file', 'f'], ['--nope', 'Now()'], ['Now()', '--database', 'a//b']];
    for (const [args, r] of await Promise.all(usage.map(async (args) => [args, await flora(['eval', ...args])] as const))) {
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /^flora eval: .*\n\nRun 'flora eval --help' for the options\.\n$/);
    }
    const noSecret = await flora(['eval', 'Now()'], { env: { FLORA_SECRET: '' } });
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.err, /a secret is required/);
    const help = await flora(['eval', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: flora eval/);
  });
});

describe('flora shell', () => {
  test('a piped script: multi-line inputs, several per line, .use into a child database and back, metrics, history', async () => {
    const history = path.join(home, 'history');
    const script = [
      'CreateDatabase({name: "shop"})',
      '.use shop',
      'CreateCollection({',
      '  name: "items"',
      '})',
      'let n = 2',
      'Paginate(Collections()); Add(n, 1)',
      '.use /',
      'Exists(Collection("items"))',
      'Map(',
      '  [1, 2],',
      '  x => Multiply(x, 10))',
      '.help',
      '.exit',
      'Add(1, 1)',
    ].join('\n');
    const r = await flora(['shell'], { stdin: script, env: { FLORA_HISTORY_FILE: history } });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    const metrics = /^time \d+ ms, compute \d+, reads \d+, writes \d+$/;
    const lines = r.out.split('\n');
    assert.ok(lines.filter((l) => metrics.test(l)).length === 6, r.out);
    const results = r.out.replace(/^time .*\n/gm, '');
    assert.match(results, /^\{\n {2}ref: Database\("shop"\),\n/);
    assert.match(results, /\{\n {2}ref: Collection\("items"\),\n {2}ts: \d+,\n {2}history_days: 30,\n {2}name: 'items'\n\}\n\{ data: \[ Collection\("items"\) \] \}\n3\nfalse\n\[ 10, 20 \]\nCommands:\n/);
    // Nothing after .exit ran; no prompts or banner on a pipe.
    assert.doesNotMatch(r.out, /^(\.\.\.|[\w/]*>) |Connected/m);
    // Every line entered, oldest first, the one after .exit not read.
    assert.equal(await readFile(history, 'utf8'), script.split('\n').slice(0, -1).join('\n') + '\n');
  });

  test('errors are shown and the shell goes on; a failed input makes a piped run exit 1', async () => {
    const r = await flora(['shell'], { stdin: 'Add(1,,2)\nGet(Ref(Collection("nope"), "1"))\n.use missing\n.use\n.bogus\nAdd(20, 1)\nAdd(1,\n' });
    assert.equal(r.code, 1);
    assert.equal(r.out.replace(/^time .*\n/gm, ''), '21\n');
    const errors = r.err.split(/^(?=Error: )/m);
    assert.deepEqual(
      errors.map((e) => e.split('\n')[0]),
      [
        'Error: syntax error: Unexpected token (line 1, column 7)',
        'Error: invalid ref',
        "Error: no database 'missing'",
        'Error: usage: .use <database path> (a/b below the start database, / for it)',
        "Error: unknown command '.bogus' (.help lists them)",
        // The input cut short by the end of the stream is still run, to show its error.
        'Error: syntax error: Unexpected token (line 1, column 7)',
      ],
    );
    assert.match(errors[1], /position: \[ 'get' \],\n {6}code: 'invalid ref',\n {6}description: "Ref refers to undefined collection 'nope'"/);
  });

  test("uses fauna-shell's endpoints file: 0.x and 1.x layouts, the default or --endpoint", async () => {
    const { hostname, port, protocol } = new URL(server.flora.url);
    const secret = server.flora.secret;
    const env = { FLORA_URL: '', FLORA_SECRET: '' };
    const v0 = `default=local\n\n[local]\ndomain=${hostname}\nport=${port}\nscheme=${protocol.slice(0, -1)}\nsecret=${secret}\n\n[cloud]\ndomain=db.invalid\nscheme=https\nsecret=nope\n`;
    await writeFile(path.join(home, '.fauna-shell'), v0);
    try {
      const r = await flora(['shell'], { stdin: 'Add(1, 2)\n', env });
      assert.deepEqual([r.code, r.out.split('\n')[0], r.err], [0, '3', '']);
      const app = await flora(['eval', '--endpoint', 'local', '--database', 'app', 'Paginate(Collections())'], { env });
      assert.deepEqual([app.code, app.err], [0, '']);
      assert.match(app.out, /"id":"posts"/);
      const unknown = await flora(['shell', '--endpoint', 'staging'], { env });
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /no endpoint 'staging' in .*\.fauna-shell \(it has 'local', 'cloud'\)/);

      await writeFile(path.join(home, '.fauna-shell'), `default=cloud\n\n[endpoint.cloud]\nsecret=nope\n\n[endpoint.dev]\nsecret=${secret}\nurl=${server.flora.url}\n`);
      const v1 = await flora(['eval', '--endpoint', 'dev', 'Add(2, 2)'], { env });
      assert.deepEqual([v1.code, v1.out, v1.err], [0, '4\n', '']);
      // The environment wins over the file's default endpoint.
      const fromEnv = await flora(['eval', 'Add(3, 3)'], { env: { FLORA_URL: server.flora.url, FLORA_SECRET: secret } });
      assert.deepEqual([fromEnv.code, fromEnv.out], [0, '6\n']);
    } finally {
      await rm(path.join(home, '.fauna-shell'), { force: true });
    }
  });
});
