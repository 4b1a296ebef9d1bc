// The dashboard's value helpers (src/admin/values.ts) and its document-data check: pure functions,
// tested here without a browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from '../../src/wire/json';
import { wireText } from '../../src/fqljs/wireText';
import { literal, partialListNote, prettyJson, refId } from '../../src/admin/values';
import type { JsonValue } from '../../src/wire/expr';
import { parseDocumentData } from '../../src/admin/dataJson';
import { documentPage } from '../../src/admin/queries';
import { highlightPieces } from '../../src/admin/highlight';

test('literal wraps every object so that data keys are never read as FQL calls', () => {
  const data = parseJson('{"get":{"var":"x"},"list":[{"add":[1,2]}],"n":9007199254740993}');
  assert.equal(
    wireText(literal(data)),
    '{"object":{"get":{"object":{"var":"x"}},"list":[{"object":{"add":[1,2]}}],"n":9007199254740993}}',
  );
});

test('prettyJson indents, keeps 64-bit integers and doubles exact', () => {
  const v = parseJson('{"a":[1,2.5,9223372036854775807],"b":{},"c":[],"d":"x\\"y"}');
  assert.equal(prettyJson(v), '{\n  "a": [\n    1,\n    2.5,\n    9223372036854775807\n  ],\n  "b": {},\n  "c": [],\n  "d": "x\\"y"\n}');
});

test('refId reads a ref of an answer, and is empty for anything else', () => {
  assert.equal(refId(parseJson('{"@ref":{"id":"42","collection":{"@ref":{"id":"people","collection":{"@ref":{"id":"collections"}}}}}}')), '42');
  assert.equal(refId(parseJson('{"id":"42"}')), '');
  assert.equal(refId(undefined), '');
});

test('document data must be a JSON object; a syntax error says so', () => {
  assert.equal(wireText(parseDocumentData('{"n": 9007199254740993}')), '{"n":9007199254740993}');
  assert.throws(() => parseDocumentData('{"a": }'), /^Error: The data is not valid JSON: /);
  assert.throws(() => parseDocumentData('[1]'), /must be a JSON object/);
  assert.throws(() => parseDocumentData('{"n": 99999999999999999999}'), /^Error: The data has an integer outside the 64-bit range/);
  assert.equal(wireText(parseDocumentData('{"n": -9223372036854775808}')), '{"n":-9223372036854775808}', 'the edge of the range is taken');
});

test('a document page carries the cursor it is given, as it came', () => {
  const after = parseJson('[{"@ref":{"id":"7","collection":{"@ref":{"id":"c","collection":{"@ref":{"id":"collections"}}}}}}]');
  const text = wireText(documentPage('my "c"', 20, { after }));
  assert.equal(
    text,
    '{"map":{"lambda":"ref","expr":{"get":{"var":"ref"}}},"collection":{"paginate":{"documents":{"collection":"my \\"c\\""}},"size":20,"after":' + wireText(after) + '}}',
  );
});

test('the query editor colours functions, strings, numbers and literals, and keeps every character', () => {
  const source = 'Map(Paginate(Collections()), Lambda("x", Var("x"))) // all\n[1, true, foo]';
  const pieces = highlightPieces(source);
  assert.equal(pieces.map((p) => p.text).join(''), source);
  const kinds = (kind: string) => pieces.filter((p) => p.kind === kind).map((p) => p.text);
  assert.deepEqual(kinds('fn'), ['Map', 'Paginate', 'Collections', 'Lambda', 'Var']);
  assert.deepEqual(kinds('string'), ['"x"', '"x"']);
  assert.deepEqual(kinds('number'), ['1']);
  assert.deepEqual(kinds('literal'), ['true']);
  assert.deepEqual(kinds('name'), ['foo']);
  // Half typed: what cannot be read is kept as it is.
  const unfinished = 'Add(1, "abc';
  assert.equal(highlightPieces(unfinished).map((p) => p.text).join(''), unfinished);
  assert.deepEqual(highlightPieces(unfinished).at(-1), { text: ' "abc', kind: 'plain' });
});

test('a list read as one page says when there is more after it, and only then', () => {
  const page = (after: boolean) => new Map<string, JsonValue>([['data', ['a', 'b']], ...(after ? ([['after', ['c']]] as [string, JsonValue][]) : [])]);
  assert.equal(partialListNote(page(true), 'keys'), 'Only the first 2 keys are shown.');
  assert.equal(partialListNote(page(false), 'keys'), '');
});
