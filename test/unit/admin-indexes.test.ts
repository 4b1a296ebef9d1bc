// The dashboard's index and database logic without a browser: the create-index form turned into
// CreateIndex's parameters (and each mistake named), index documents described for the table, Match
// terms read as JSON or FQL, and database renames and moves checked against the tree.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from '../../src/wire/json';
import { wireText } from '../../src/fqljs/wireText';
import { describeField, indexParams, sourceNames, termValue, type IndexForm } from '../../src/admin/indexDefs';
import { matchPage } from '../../src/admin/indexQueries';
import { planMove, renameProblem } from '../../src/admin/databaseMoves';
import { fql, moveDatabase } from '../../src/admin/queries';
import type { DatabaseNode } from '../../src/admin/databases';

const form = (over: Partial<IndexForm> = {}): IndexForm => ({
  name: 'orders_by_customer', source: 'orders', terms: [], values: [], bindings: [], unique: false, serialized: true, ...over,
});
const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
};

test('a form with terms and values becomes CreateIndex parameters, every object a literal', () => {
  const params = indexParams(form({ terms: ['data.customer'], values: [{ field: 'data.total', reverse: true }, { field: 'ref', reverse: false }], unique: true }));
  assert.equal(
    wireText(params),
    '{"object":{"name":"orders_by_customer","source":{"collection":"orders"},' +
      '"terms":[{"object":{"field":["data","customer"]}}],' +
      '"values":[{"object":{"field":["data","total"],"reverse":true}},{"object":{"field":["ref"]}}],"unique":true,"serialized":true}}',
  );
});

test('a binding goes into the source, is used by its name, and a numeric path part is an array index', () => {
  const params = indexParams(form({
    terms: ['name_lower', 'data.tags.0'],
    bindings: [{ name: 'name_lower', body: 'Query(Lambda("doc", Casefold(Select(["data", "name"], Var("doc")))))' }],
  }));
  assert.equal(
    wireText(params),
    '{"object":{"name":"orders_by_customer","source":{"object":{"collection":{"collection":"orders"},"fields":{"object":{"name_lower":' +
      '{"query":{"lambda":"doc","expr":{"casefold":{"select":["data","name"],"from":{"var":"doc"}}}}}}}}},' +
      '"terms":[{"object":{"binding":"name_lower"}},{"object":{"field":["data","tags",0]}}],"unique":false,"serialized":true}}',
  );
});

test('each mistake in the form is named by its row', () => {
  assert.match(thrown(() => indexParams(form({ name: ' ' }))), /^Type a name for the index/);
  assert.match(thrown(() => indexParams(form({ source: '' }))), /^Choose the source collection/);
  assert.match(thrown(() => indexParams(form({ terms: ['data.a', ''] }))), /^Term 2 is empty/);
  assert.match(thrown(() => indexParams(form({ values: [{ field: 'data..x', reverse: false }] }))), /^Value 1: "data..x" has an empty part/);
  assert.match(thrown(() => indexParams(form({ terms: ['customer'] }))), /^Term 1: "customer" is neither a field path \(data\.customer, ref, ts\) nor the name of a binding/);
  assert.match(thrown(() => indexParams(form({ bindings: [{ name: '', body: 'Query(Lambda("d", 1))' }] }))), /^Binding 1 has no name/);
  const twice = { name: 'b', body: 'Query(Lambda("d", 1))' };
  assert.match(thrown(() => indexParams(form({ bindings: [twice, twice] }))), /^Two bindings are named b/);
  assert.match(thrown(() => indexParams(form({ bindings: [{ name: 'b', body: 'Lambda("d", 1)' }] }))), /^Binding b: the body must be a Query\(Lambda/);
  // A syntax error keeps the parser's position and caret.
  const syntax = thrown(() => indexParams(form({ bindings: [{ name: 'b', body: 'Query(Lambda("d", Select(["data" "n"], Var("d"))))' }] })));
  assert.match(syntax, /^Binding b: syntax error: Unexpected token \(line 1, column 34\)\n/);
  assert.match(syntax, /\n {35}\^$/);
});

test('index documents are described as the form writes them', () => {
  assert.equal(describeField(parseJson('{"field":["data","customer"]}')), 'data.customer');
  assert.equal(describeField(parseJson('{"field":["data","total"],"reverse":true}')), 'data.total (reverse)');
  assert.equal(describeField(parseJson('{"binding":"name_lower"}')), 'binding name_lower');
  assert.equal(describeField(parseJson('{"field":"ts"}')), 'ts');
  const ref = (id: string) => `{"@ref":{"id":"${id}","collection":{"@ref":{"id":"collections"}}}}`;
  assert.deepEqual(sourceNames(parseJson(ref('orders'))), ['orders']);
  assert.deepEqual(sourceNames(parseJson(`[${ref('a')},{"collection":${ref('b')},"fields":{}}]`)), ['a', 'b']);
  assert.deepEqual(sourceNames('_'), ['all collections']);
});

test('a Match term is exact JSON, or else an FQL expression; anything else says both', () => {
  assert.equal(wireText(termValue('9007199254740993', 't')), '9007199254740993');
  assert.equal(wireText(termValue('["a"]', 't')), '["a"]');
  assert.equal(wireText(termValue('{"get": 1}', 't')), '{"object":{"get":1}}');
  assert.equal(wireText(termValue('Ref(Collection("people"), "1")', 't')), '{"ref":{"collection":"people"},"id":"1"}');
  assert.match(thrown(() => termValue('tea', 'term 1 (data.item)')), /^term 1 \(data\.item\): not JSON \(a string needs its quotes: "tea"\) nor an FQL expression: unknown name tea/);
  assert.match(thrown(() => termValue('  ', 'term 1 (data.item)')), /^Type a value for term 1 \(data\.item\)/);
});

test('a Match page gives each term its own position, so an array term stays one term', () => {
  assert.equal(wireText(matchPage('by_tags', [parseJson('["a"]')], 20, {})), '{"paginate":{"match":{"index":"by_tags"},"terms":[["a"]]},"size":20}');
  assert.equal(wireText(matchPage('all', [], 5, { after: parseJson('[1]') })), '{"paginate":{"match":{"index":"all"},"terms":[]},"size":5,"after":[1]}');
});

// (root) ─ shop ─ archive ─ old
//        │      └ x
//        └ blog
const tree: DatabaseNode = {
  path: [],
  children: [
    { path: ['shop'], children: [{ path: ['shop', 'archive'], children: [{ path: ['shop', 'archive', 'old'], children: [] }] }, { path: ['shop', 'x'], children: [] }] },
    { path: ['blog'], children: [] },
  ],
};

test('a move is one MoveDatabase with nested refs, up or down the tree', () => {
  assert.deepEqual(planMove(tree, ['shop', 'x'], ['shop', 'archive']), { from: ['shop', 'x'], to: ['shop', 'archive'] });
  assert.deepEqual(planMove(tree, ['blog'], ['shop', 'archive', 'old']), { from: ['blog'], to: ['shop', 'archive', 'old'] });
  assert.deepEqual(planMove(tree, ['shop', 'archive', 'old'], ['blog']), { from: ['shop', 'archive', 'old'], to: ['blog'] }, 'up and across');
  assert.deepEqual(
    moveDatabase(['shop', 'archive', 'old'], ['blog']),
    fql('MoveDatabase(Database("old", Database("archive", Database("shop"))), Database("blog"))'),
  );
});

test('moves FQL cannot make are explained', () => {
  assert.equal(planMove(tree, ['shop'], ['shop']), 'Cannot move database shop into itself or one of its own children.');
  assert.equal(planMove(tree, ['shop'], ['shop', 'archive', 'old']), 'Cannot move database shop into itself or one of its own children.');
  assert.equal(planMove(tree, ['shop', 'x'], ['shop']), 'Database shop/x is already in shop.');
  assert.match(planMove(tree, ['shop', 'x'], []) as string, /^Nothing can move into the database the secret belongs to/);
  assert.equal(planMove(tree, [], ['blog']), 'The database the secret belongs to cannot be moved.');
  assert.equal(planMove(tree, ['blog'], ['nope']), 'There is no database nope.');
  const clash: DatabaseNode = { path: [], children: [{ path: ['x'], children: [] }, { path: ['shop'], children: [{ path: ['shop', 'x'], children: [] }] }] };
  assert.equal(planMove(clash, ['x'], ['shop']), 'shop already has a database named x.');
});

test('a rename is checked for an empty, unchanged or taken name', () => {
  assert.equal(renameProblem(tree, ['shop', 'x'], ''), 'Type the new name of the database.');
  assert.equal(renameProblem(tree, ['shop', 'x'], 'x'), 'Database shop/x is already called x.');
  assert.equal(renameProblem(tree, ['shop', 'x'], 'archive'), 'shop already has a database named archive.');
  assert.equal(renameProblem(tree, ['blog'], 'shop'), '(root) already has a database named shop.');
  assert.match(renameProblem(tree, [], 'y')!, /^The database the secret belongs to cannot be renamed/);
  assert.equal(renameProblem(tree, ['shop', 'x'], 'y'), undefined);
});
