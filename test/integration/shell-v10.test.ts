// `flora eval` and `flora shell` with FQL v10 (issue 32): --version 10 sends each input to
// /query/1 and prints it as fauna-shell 4 does (the decorated result; a failure's summary with its
// carets, abort's value); the default (auto) runs what v4's syntax refuses and v10 parses as v10,
// and every v4 input as before. Child processes against a real server.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FLORA_BIN, ROOT, serverForFile } from '../helpers/server';

interface Run {
  code: number;
  out: string;
  err: string;
}

const server = serverForFile();
let home: string;

before(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'flora-shell-v10-test-'));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

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

const ABORT_SUMMARY = 'error: Query aborted.\nat *query*:1:6\n  |\n1 | abort({ x: 1 })\n  |      ^^^^^^^^^^\n  |';

describe('flora eval, FQL v10', () => {
  before(async () => {
    // Two queries: a collection made by a query is not there for that query (the core's rule).
    for (const q of ['Collection.create({ name: "books" })', 'books.create({ id: "1", title: "Dune" })\n"ok"']) {
      const setup = await flora(['eval', '--version', '10', q]);
      assert.deepEqual([setup.code, setup.err], [0, '']);
    }
  });

  test('prints the decorated result (FQL syntax), or the simple format\'s JSON', async () => {
    assert.deepEqual(await flora(['eval', '--version', '10', 'Math.abs(-1)']), { code: 0, out: '1\n', err: '' });
    const shell = await flora(['eval', '--version', '10', '--format', 'shell', '[1, 2.0, Time.epoch(0, "second"), { a: "x" }, books.byId("1")!.title]']);
    assert.deepEqual(shell, { code: 0, out: '[\n  1,\n  2.0,\n  Time("1970-01-01T00:00:00Z"),\n  {\n    a: "x"\n  },\n  "Dune"\n]\n', err: '' });
    const json = await flora(['eval', '--version', '10', '--format', 'json', '[1, 2.0, 9007199254740993, Time.epoch(0, "second")]']);
    assert.deepEqual(json, { code: 0, out: '[1,2.0,9007199254740993,"1970-01-01T00:00:00Z"]\n', err: '' });
  });

  test('a failure as fauna-shell 4 prints it: the summary with carets, then the abort value; exit code 1', async () => {
    const r = await flora(['eval', '--version', '10', '--format', 'shell', 'abort({ x: 1 })']);
    assert.deepEqual(r, { code: 1, out: '', err: `The query failed with the following error:\n\n${ABORT_SUMMARY}\n\nAbort value:\n{\n  x: 1\n}\n` });
    const parse = await flora(['eval', '--version', '10', '--format', 'shell', '1 +']);
    assert.equal(parse.code, 1);
    assert.equal(parse.err, 'The query failed with the following error:\n\nerror: Expected expression\nat *query*:1:4\n  |\n1 | 1 +\n  |    ^\n  |\n');
    // --format json: the server's answer as it came.
    const json = await flora(['eval', '--version', '10', '--format', 'json', 'abort({ x: 1 })']);
    assert.equal(json.code, 1);
    assert.match(json.err, /^\{"error":\{"code":"abort","message":"Query aborted\.","abort":\{"x":1\}\},"summary":/);
    // A request that did not run has no summary: its code and message.
    const refused = await flora(['eval', '--version', '10', '--format', 'shell', '--secret', 'wrong', '1']);
    assert.deepEqual(refused, { code: 1, out: '', err: 'Error: unauthorized: Access token required\n' });
  });

  test('--database runs in a child database; --metrics; --version 4 is v4 only; a bad --version is bad usage', async () => {
    const created = await flora(['eval', 'CreateDatabase({name: "child"})']);
    assert.equal(created.code, 0, created.err);
    const inChild = await flora(['eval', '--version', '10', '--database', 'child', '--metrics', 'Collection.all().count()']);
    assert.equal(inChild.code, 0, inChild.err);
    assert.equal(inChild.out, '0\n');
    assert.match(inChild.err, /^time \d+ ms, compute \d+, reads \d+, writes \d+\n$/);
    const v4 = await flora(['eval', '--version', '4', 'Math.abs(-1)']);
    assert.equal(v4.code, 1);
    assert.match(v4.err, /^Error: only FQL functions can be called/);
    const bad = await flora(['eval', '--version', '9', '1']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--version is one of 4, 10, auto \(got '9'\)/);
  });

  test('the default (auto): v10 where the v4 syntax fails and v10 parses; v4 otherwise, typos included', async () => {
    assert.deepEqual(await flora(['eval', 'Math.abs(-1)']), { code: 0, out: '1\n', err: '' });
    assert.deepEqual(await flora(['eval', 'books.all().map(.title)']), { code: 0, out: '{"data":["Dune"]}\n', err: '' });
    assert.deepEqual(await flora(['eval', 'Add(1, 2)']), { code: 0, out: '3\n', err: '' });
    // Valid v10 syntax, but a call of a v4-only function: v4's error, which names the typo.
    const typo = await flora(['eval', 'Paginate(Colections())']);
    assert.equal(typo.code, 1);
    assert.equal(typo.err, 'Error: unknown FQL function Colections (line 1, column 10)\n  Paginate(Colections())\n           ^\n');
  });
});

describe('flora shell, FQL v10', () => {
  test('--version 10: multi-line blocks run when complete, errors shown and the shell goes on, .use, history', async () => {
    const history = path.join(home, 'history');
    const input = ['let x = 3', 'x * 2', 'if (3 > 2) {', '  "big"', '} else {', '  "small"', '}', 'abort({ x: 1 })', '.use child', 'Collection.all().count()', ''].join('\n');
    const r = await flora(['shell', '--version', '10'], { stdin: input, env: { FLORA_HISTORY_FILE: history } });
    assert.equal(r.code, 1, r.err); // an input failed
    const results = r.out.split('\n').filter((l) => !/^time \d+ ms/.test(l));
    assert.deepEqual(results, ['6', '"big"', '0', '']);
    assert.equal(r.err, `The query failed with the following error:\n\n${ABORT_SUMMARY}\n\nAbort value:\n{\n  x: 1\n}\n`);
    assert.equal((await readFile(history, 'utf8')).split('\n')[0], 'let x = 3');
  });

  test('the default takes v4 and v10 inputs side by side', async () => {
    const r = await flora(['shell'], { stdin: 'Add(1, 2)\nMath.max(1, 5)\nbooks.byId("1")!.title\nConcat(["a", "b"])\n' });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.out.split('\n').filter((l) => !/^time \d+ ms/.test(l)), ['3', '5', '"Dune"', "'ab'", '']);
  });
});
