// The Collections tab's pure pieces: a collection's settings dialog read into CreateCollection's or
// Update's parameters (src/admin/collectionSettings.ts) and back, the document grid's columns and
// sorting (documentGrid.ts), the indexes that can filter a collection and the terms as typed
// (documentFilters.ts), and times (times.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from '../../src/wire/json';
import { wireText } from '../../src/fqljs/wireText';
import { parseFqlJs } from '../../src/fqljs/parse';
import { collectionForm, collectionParams } from '../../src/admin/collectionSettings';
import { cellText, columnsOf, sortDocs, type Column } from '../../src/admin/documentGrid';
import { filteredPage, filterTerm, indexFilters } from '../../src/admin/documentFilters';
import { humanTs, rawTsTitle } from '../../src/admin/times';

const form = { name: 'orders', historyDays: '30', ttlDays: '', data: '', permissions: null };

test('a new collection: the fields typed are sent, an empty optional one is left out; empty history_days keeps history forever', () => {
  assert.equal(wireText(collectionParams(form, false)), '{"object":{"name":"orders","history_days":30}}');
  assert.equal(
    wireText(collectionParams({ ...form, historyDays: '', ttlDays: '7', data: '{"get": 1}', permissions: parseFqlJs('{read: Role("r")}') }, false)),
    '{"object":{"name":"orders","history_days":null,"ttl_days":7,"data":{"object":{"get":1}},"permissions":{"object":{"read":{"role":"r"}}}}}',
  );
});

test('an edit sends an emptied setting as null, which removes it', () => {
  assert.equal(wireText(collectionParams(form, true)), '{"object":{"name":"orders","history_days":30,"ttl_days":null,"data":null,"permissions":null}}');
});

test('each mistake says what to type instead', () => {
  assert.throws(() => collectionParams({ ...form, name: ' ' }, false), /^Error: Type a name for the collection, e.g. orders\.$/);
  assert.throws(() => collectionParams({ ...form, historyDays: '-1' }, false), /^Error: history_days must be a whole number of days \(0 or more\), or empty to keep every version forever; '-1' is not\.$/);
  assert.throws(() => collectionParams({ ...form, ttlDays: '1.5' }, false), /ttl_days must be a whole number of days/);
  assert.throws(() => collectionParams({ ...form, data: '[1]' }, false), /must be a JSON object/);
});

test('the edit dialog is filled from the collection as Get answers it', () => {
  const got = parseJson('{"ref":{"@ref":{"id":"orders"}},"name":"orders","history_days":5,"ttl_days":null,"data":{"team":"ops"},"permissions":{"read":{"@ref":{"id":"r","collection":{"@ref":{"id":"roles"}}}}}}');
  assert.deepEqual(collectionForm(got), { name: 'orders', historyDays: '5', ttlDays: '', data: '{\n  "team": "ops"\n}', permissions: '{ read: Role("r") }' });
});

const doc = (id: string, ts: number, data: string) => parseJson(`{"ref":{"@ref":{"id":"${id}","collection":{"@ref":{"id":"orders","collection":{"@ref":{"id":"collections"}}}}}},"ts":${ts},"data":${data}}`);
const docs = [doc('10', 3, '{"item":"tea","qty":2}'), doc('9', 1, '{"qty":10,"note":"x"}'), doc('100', 2, '{"item":"coffee"}')];
const ids = (list: readonly unknown[]) => list.map((d) => wireText((d as Map<string, Map<string, Map<string, unknown>>>).get('ref')!.get('@ref')!.get('id') as string));

test("the grid's columns: id, last write, then the page's data keys in the order they first appear", () => {
  assert.deepEqual(columnsOf(docs), [{ kind: 'id' }, { kind: 'ts' }, { kind: 'data', key: 'item' }, { kind: 'data', key: 'qty' }, { kind: 'data', key: 'note' }]);
  assert.deepEqual(columnsOf([]), [{ kind: 'id' }, { kind: 'ts' }]);
});

test('sorting a page: numbers as numbers (ids too), text, and a missing field last both ways', () => {
  const by = (column: Column, direction: 'ascending' | 'descending') => ids(sortDocs(docs, { column, direction }));
  assert.deepEqual(by({ kind: 'id' }, 'ascending'), ['"9"', '"10"', '"100"']);
  assert.deepEqual(by({ kind: 'ts' }, 'descending'), ['"10"', '"100"', '"9"']);
  assert.deepEqual(by({ kind: 'data', key: 'qty' }, 'ascending'), ['"10"', '"9"', '"100"']);
  assert.deepEqual(by({ kind: 'data', key: 'qty' }, 'descending'), ['"9"', '"10"', '"100"']);
  assert.deepEqual(by({ kind: 'data', key: 'item' }, 'ascending'), ['"100"', '"10"', '"9"']);
  assert.equal(cellText('tea'), 'tea');
  assert.equal(cellText(parseJson('{"a":[1]}')), '{ a: [ 1 ] }');
});

const ref = (id: string, coll: string) => `{"@ref":{"id":"${id}","collection":{"@ref":{"id":"${coll}"}}}}`;
test('the indexes that can filter a collection: one source, terms, and entries that name the document', () => {
  const indexes = parseJson(`[
    {"name":"by_item","source":${ref('orders', 'collections')},"terms":[{"field":["data","item"]}]},
    {"name":"by_item_ref","source":{"collection":${ref('orders', 'collections')}},"terms":[{"field":["data","item"]}],"values":[{"field":["data","qty"]},{"field":["ref"]}]},
    {"name":"values_only","source":${ref('orders', 'collections')},"terms":[{"field":["data","item"]}],"values":[{"field":["data","qty"]}]},
    {"name":"all","source":${ref('orders', 'collections')}},
    {"name":"two","source":[${ref('orders', 'collections')},${ref('people', 'collections')}],"terms":[{"field":["data","item"]}]},
    {"name":"other","source":${ref('people', 'collections')},"terms":[{"field":["data","item"]}]}
  ]`) as unknown[];
  assert.deepEqual(indexFilters(indexes as never, 'orders'), [
    { name: 'by_item', terms: ['data.item'], refAt: null },
    { name: 'by_item_ref', terms: ['data.item'], refAt: 1 },
  ]);
  assert.equal(
    wireText(filteredPage({ name: 'by_item_ref', terms: ['data.item'], refAt: 1 }, ['tea'], 20, {})),
    '{"map":{"lambda":"e","expr":{"get":{"select":1,"from":{"var":"e"}}}},"collection":{"paginate":{"match":{"index":"by_item_ref"},"terms":["tea"]},"size":20}}',
  );
});

test('a term as typed: JSON as it is, a bare word as a string, FQL otherwise', () => {
  assert.equal(wireText(filterTerm('"tea"', 't')), '"tea"');
  assert.equal(wireText(filterTerm('3', 't')), '3');
  assert.equal(wireText(filterTerm('false', 't')), 'false');
  assert.equal(wireText(filterTerm('green tea', 't')), '"green tea"');
  assert.equal(wireText(filterTerm('Ref(Collection("people"), "1")', 't')), '{"ref":{"collection":"people"},"id":"1"}');
  assert.throws(() => filterTerm('Ref(', 'data.item'), /^Error: data\.item: not JSON/);
});

test('a ts (µs) as a time people read, the raw ts and UTC instant in the title', () => {
  const ts = parseJson('1765130400123456');
  assert.equal(rawTsTitle(ts), 'ts 1765130400123456 (2025-12-07T18:00:00.123Z)');
  assert.doesNotMatch(humanTs(ts), /1765130400123456/);
  assert.match(humanTs(ts), /2025/);
  assert.equal(humanTs('not a ts'), 'not a ts');
});
