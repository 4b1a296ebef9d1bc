// The GraphQL tab's pure pieces (src/admin/graphqlQueries.ts): the query that finds what an earlier
// import made, reading its answer, and the override confirmation that names what is deleted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from '../../src/wire/json';
import { wireText } from '../../src/fqljs/wireText';
import { IMPORT_MODES, importMadeQuery, overrideWarning, readImportMade } from '../../src/admin/graphqlQueries';

test('the query lists the collections, indexes and functions that carry data.gql', () => {
  const text = wireText(importMadeQuery());
  for (const set of ['collections', 'indexes', 'functions'])
    assert.ok(text.includes(`{"filter":{"lambda":"r","expr":{"contains_path":["data","gql"],"in":{"get":{"var":"r"}}}},"collection":{"paginate":{"${set}":null},"size":1000}}`), text);
});

test('its answer is read as names by kind; a missing or odd answer is nothing made', () => {
  const ref = (id: string, kind: string) => `{"@ref":{"id":"${id}","collection":{"@ref":{"id":"${kind}"}}}}`;
  const answer = parseJson(`[{"data":[${ref('User', 'collections')},${ref('Post', 'collections')}]},{"data":[${ref('unique_User_email', 'indexes')}]},{"data":[]}]`);
  assert.deepEqual(readImportMade(answer), { collections: ['User', 'Post'], indexes: ['unique_User_email'], functions: [] });
  assert.deepEqual(readImportMade(null), { collections: [], indexes: [], functions: [] });
});

test('the override confirmation names every collection, index and function it deletes', () => {
  assert.equal(
    overrideWarning('shop', { collections: ['User', 'Post'], indexes: ['unique_User_email'], functions: ['login'] }),
    'Override the GraphQL schema of database shop? This DELETES the collections User, Post with every document in them, the index unique_User_email and the function login (made by an earlier GraphQL import), then imports this schema. It cannot be undone.',
  );
  assert.equal(
    overrideWarning('(root)', { collections: ['User'], indexes: ['a', 'b'], functions: [] }),
    'Override the GraphQL schema of database (root)? This DELETES the collection User with every document in it and the indexes a, b (made by an earlier GraphQL import), then imports this schema. It cannot be undone.',
  );
  assert.match(overrideWarning('shop', { collections: [], indexes: [], functions: [] }), /^Override the GraphQL schema of database shop\? Nothing there was made by a GraphQL import, so nothing is deleted/);
});

test('three modes, override the one that says it deletes', () => {
  assert.deepEqual(IMPORT_MODES.map((m) => m.mode), ['merge', 'replace', 'override']);
  assert.ok(IMPORT_MODES.every((m) => /DELETES/.test(m.explains) === (m.mode === 'override')));
});
