// The shell's input handling: when to keep reading (incomplete input), tab completion, the history
// file, and the output helpers (metrics line, exact resource JSON).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { complete } from '../../src/cli/shell/completer';
import { History, historyFilePath, MAX_ENTRIES } from '../../src/cli/shell/history';
import { isIncomplete } from '../../src/cli/shell/incomplete';
import { refusedByV4IsV10 } from '../../src/cli/shell/language';
import { metricsLine, resourceJson } from '../../src/cli/shell/output';
import { parseJson } from '../../src/wire/json';

test('incomplete: open brackets, templates and comments, or an expression that stops short', () => {
  const incomplete = [
    'Paginate(',
    'Map(Paginate(Documents(Collection("users"))),\n  Lambda("x",',
    '[1, 2,',
    '{ data: {',
    'Add(1, 2) +',
    'x =>',
    'let c =',
    'Lambda("x", Var("x")) /* a note',
    '`text ${',
    '`line one\nline two',
    'Add(\n  1, // one\n',
  ];
  for (const input of incomplete) assert.equal(isIncomplete(input), true, input);
});

test('complete: whole inputs, and errors the user should see at once', () => {
  const complete = [
    '',
    '   ',
    'Add(1, 2)',
    'Paginate(Collections())\n',
    'let c = Collection("users")',
    '{ name: "x", n: 1 }',
    '{a: 1, b: 2}', // an object literal, which the parser reads as such
    'Add(1, 2))', // a closing bracket too many
    'Add(1,,2)', // an error before the end
    '"unterminated string', // strings do not run over lines in JavaScript
    'Add(1, 2) // done',
    'x => Get(x)',
  ];
  for (const input of complete) assert.equal(isIncomplete(input), false, input);
});

test('incomplete FQL v10: an error at the very end, or an open comment; auto: v10 only where JavaScript fails', () => {
  for (const input of ['1 +', 'if (true) {', 'let x = 3', 'let x = 3\nlet y = 4', '[1,\n2', 'foo(', '"a #{', 'x => ', '1 /* note'])
    assert.equal(isIncomplete(input, '10'), true, input);
  for (const input of ['', '1 + 1', 'let x = 3\nx', '1 )', '"unterminated', 'Math.abs(-1)'])
    assert.equal(isIncomplete(input, '10'), false, input);
  // auto: JavaScript's rule first (`let x = 3` is a whole v4 declaration), then v10's for what JavaScript refuses.
  assert.equal(isIncomplete('let x = 3', 'auto'), false);
  assert.equal(isIncomplete('Paginate(', 'auto'), true);
  assert.equal(isIncomplete('"a #{', 'auto'), true);
  assert.equal(isIncomplete('if (x) 1 else', 'auto'), true);
  assert.equal(isIncomplete('if (x) 1 else 2', 'auto'), false);
});

test('auto: an input the v4 syntax refused is v10 if it parses as v10 and calls no v4-only function', () => {
  assert.equal(refusedByV4IsV10('Math.abs(-1)', '4'), true);
  assert.equal(refusedByV4IsV10('Collection("users").all()', '4'), true);
  assert.equal(refusedByV4IsV10('users.byId("1")!.name', '4'), true);
  assert.equal(refusedByV4IsV10('Paginate(Colections())', '4'), false);
  assert.equal(refusedByV4IsV10('x.Paginate(1)', '4'), true); // a method, not v4's function
  // Neither parser takes it: the previous input's language.
  assert.equal(refusedByV4IsV10('1 +', '4'), false);
  assert.equal(refusedByV4IsV10('1 +', '10'), true);
});

test('completion for FQL v10: its globals and keywords, none after a dot; auto offers both', () => {
  assert.deepEqual(complete('Ma', [], '10'), [['Math'], 'Ma']);
  assert.deepEqual(complete('ab', [], '10'), [['abort'], 'ab']);
  assert.deepEqual(complete('Math.ab', [], '10'), [[], 'ab']);
  assert.deepEqual(complete('Pagin', [], '10'), [[], 'Pagin']);
  assert.deepEqual(complete('Ma', [], 'auto'), [['Map', 'Match', 'Math', 'Max'], 'Ma']);
});

test('completion: function names and declared names for the identifier at the cursor', () => {
  assert.deepEqual(complete('Paginate(Coll'), [['Collection', 'Collections'], 'Coll']);
  assert.deepEqual(complete('Map(x, Lamb'), [['Lambda'], 'Lamb']);
  assert.deepEqual(complete('q.Ad'), [['Add'], 'Ad']);
  assert.deepEqual(complete('Get(us', ['users', 'user_by']), [['user_by', 'users'], 'us']);
  assert.deepEqual(complete('Zzz'), [[], 'Zzz']);
  // Nothing to complete: no identifier, or one glued to a number.
  assert.deepEqual(complete('Add(1, '), [[], '']);
  assert.deepEqual(complete('1e'), [[], '']);
  // Names declared and built in are offered once.
  assert.deepEqual(complete('Ad', ['Add']), [['Add'], 'Ad']);
});

test("completion: the shell's commands at the start of a line", () => {
  assert.deepEqual(complete('.'), [['.exit', '.help', '.use'], '.']);
  assert.deepEqual(complete('.u'), [['.use'], '.u']);
  assert.deepEqual(complete('  .e'), [['.exit'], '.e']);
  assert.deepEqual(complete('.use a'), [[], '']);
});

test('history: loaded oldest first, bounded, written after each entry (a new file 0600); empty FLORA_HISTORY_FILE: none', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'flora-history-'));
  try {
    assert.equal(historyFilePath({}, dir), path.join(dir, '.flora_history'));
    assert.equal(historyFilePath({ FLORA_HISTORY_FILE: '/x/h' }, dir), '/x/h');
    assert.equal(historyFilePath({ FLORA_HISTORY_FILE: '' }, dir), undefined);

    const file = path.join(dir, 'h');
    writeFileSync(file, Array.from({ length: MAX_ENTRIES + 5 }, (_, i) => `Add(${i}, 1)`).join('\n') + '\n\n');
    const h = History.load(file);
    assert.equal(h.lines().length, MAX_ENTRIES);
    assert.equal(h.lines()[0], 'Add(5, 1)');
    assert.equal(h.add('Now()'), undefined);
    assert.equal(h.add('Now()'), undefined); // the same again is not repeated
    assert.equal(h.add('   '), undefined);
    const written = readFileSync(file, 'utf8').split('\n');
    assert.equal(written.length, MAX_ENTRIES + 1); // and the final newline
    assert.deepEqual(written.slice(-3), [`Add(${MAX_ENTRIES + 4}, 1)`, 'Now()', '']);
    // A new file is the user's alone (queries may hold passwords); an existing one keeps its mode.
    const fresh = path.join(dir, 'fresh');
    History.load(fresh).add('Now()');
    assert.equal(statSync(fresh).mode & 0o777, 0o600);

    // A missing file is an empty history; a file that cannot be written is reported, not thrown.
    assert.deepEqual(History.load(path.join(dir, 'none')).lines(), []);
    assert.match(String(History.load(path.join(dir, 'no', 'such', 'dir')).add('Now()')), /ENOENT/);
    assert.equal(History.load(undefined).add('Now()'), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the metrics line from the response headers', () => {
  assert.equal(
    metricsLine({ 'x-query-time': '3', 'x-compute-ops': '1', 'x-byte-read-ops': '2', 'x-byte-write-ops': '0' }),
    'time 3 ms, compute 1, reads 2, writes 0',
  );
  assert.equal(metricsLine({ 'x-compute-ops': '1' }), 'time ? ms, compute 1, reads ?, writes ?');
  assert.equal(metricsLine({}), undefined);
});

test("JSON output is the resource's text as the server wrote it", () => {
  const answer = (body: string) => ({ body, headers: {}, txnTs: 0n, resource: (parseJson(body) as Map<string, never>).get('resource')! });
  assert.equal(resourceJson(answer('{"resource":[1.0,9007199254740993,1e300,"\\u2028"]}')), '[1.0,9007199254740993,1e300,"\\u2028"]');
  assert.equal(resourceJson(answer(' { "resource" : {"a":1} } ')), '{"a":1}');
  // Another shape than {"resource": …}: re-encoded.
  assert.equal(resourceJson(answer('{"resource":{"a":1},"other":2}')), '{"a":1}');
});
