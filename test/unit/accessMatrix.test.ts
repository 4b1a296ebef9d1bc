// The pure parts of the access matrix: how an answer compares with its cell, and what counts as a leak.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COLUMNS, SUBJECTS, expected, verdict } from '../../torture/accessMatrix';
import { answerLeaks, found, type Needles } from '../../torture/accessLeaks';
import type { Exchange } from '../../torture/accessOps';

describe('access matrix', () => {
  test('every cell has an expected outcome; dead secrets expect 401 everywhere', () => {
    for (const s of SUBJECTS) for (const c of COLUMNS) assert.equal(typeof expected(s.id, c.id), 'string', `${s.id} × ${c.id}`);
    for (const s of SUBJECTS.filter((x) => x.dead)) for (const c of COLUMNS) assert.equal(expected(s.id, c.id), '401');
    assert.equal(new Set(COLUMNS.map((c) => c.id)).size, COLUMNS.length, 'operation ids are unique');
  });

  test('more access than the cell is beyond the table, less is denied, another refusal differs', () => {
    assert.equal(verdict('403', 'ok'), 'beyond');
    assert.equal(verdict('401', 'ok'), 'beyond');
    assert.equal(verdict('own', 'all'), 'beyond');
    assert.equal(verdict('none', 'own'), 'beyond');
    assert.equal(verdict('false', 'true'), 'beyond');
    assert.equal(verdict('all', 'LEAK: another database’s documents'), 'beyond');
    assert.equal(verdict('ok', '403'), 'denied');
    assert.equal(verdict('all', 'own'), 'denied');
    assert.equal(verdict('401', '403'), 'differs');
    assert.equal(verdict('ok: child, sibling', 'ok: grandchild'), 'differs');
    assert.equal(verdict('ok', 'ok'), 'match');
  });
});

describe('leaks', () => {
  const needles: Needles = { secrets: ['fnAsecretKEY123456'], password: 'pw-xyz', hashedPasswords: ['$2a$05$hashedPW'], hashedSecrets: ['$2a$05$hashedSECRET'] };
  const x = (op: string, status: number, request: string, body: string): Exchange => ({ subject: 's', op, transport: 'http', secret: undefined, request, status, body });

  test('found names every needle in a text', () => {
    assert.deepEqual(found('nothing here', needles), []);
    assert.equal(found('a fnAsecretKEY123456 and pw-xyz and $2a$05$hashedPW and $2a$05$hashedSECRET', needles).length, 4);
  });

  test('a secret the request body carried may come back; nothing else may', () => {
    assert.deepEqual(answerLeaks([x('key-from-secret', 400, 'KeyFromSecret fnAsecretKEY123456', 'No key found for secret fnAsecretKEY123456.')], needles), []);
    assert.equal(answerLeaks([x('get-own', 403, 'other', 'echo fnAsecretKEY123456')], needles).length, 1);
    assert.equal(answerLeaks([x('login', 400, 'Login pw-xyz', 'wrong password pw-xyz')], needles).length, 1);
    // The secret of the Authorization header is never echoed, not even to its sender.
    assert.equal(answerLeaks([{ ...x('get-own', 401, '{"get":1}', 'unauthorized fnAsecretKEY123456'), secret: 'fnAsecretKEY123456' }], needles).length, 1);
  });

  test('hashes only where Fauna showed them: reads of keys, tokens and credentials that succeeded', () => {
    assert.deepEqual(answerLeaks([x('get-key', 200, '', '{"hashed_secret":"$2a$05$hashedSECRET"}')], needles), []);
    assert.deepEqual(answerLeaks([x('get-own-credentials', 200, '', '{"hashed_password":"$2a$05$hashedPW"}')], needles), []);
    assert.equal(answerLeaks([x('get-key', 403, '', '$2a$05$hashedSECRET')], needles).length, 1);
    assert.equal(answerLeaks([x('get-own', 200, '', '$2a$05$hashedPW')], needles).length, 1);
    assert.equal(answerLeaks([x('page-keys', 200, '', '$2a$05$hashedSECRET')], needles).length, 1);
  });
});
