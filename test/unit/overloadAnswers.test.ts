// The overload part's judgement of one answer (torture/answers.ts), fed hand-made answers: only a
// success or a refusal in Fauna's shape a client can act on passes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAnswer } from '../../torture/answers';

const BUSY = '{"errors":[{"code":"too many requests","description":"Too many pending requests"}]}';

test('successes and refusals in Fauna\'s shape', () => {
  assert.equal(classifyAnswer(200, undefined, '{"resource":3}').verdict, 'ok');
  assert.equal(classifyAnswer(201, undefined, '{"resource":{}}').verdict, 'ok');
  assert.equal(classifyAnswer(429, '1', BUSY).verdict, '429');
  assert.equal(classifyAnswer(503, undefined, '{"errors":[{"code":"time out","description":"Read timed out"}]}').verdict, '503');
});

test('a 429 without a Retry-After in seconds, or not in Fauna\'s shape, is a fault', () => {
  assert.equal(classifyAnswer(429, undefined, BUSY).verdict, 'other');
  assert.equal(classifyAnswer(429, 'Wed, 21 Oct 2026 07:28:00 GMT', BUSY).verdict, 'other');
  assert.equal(classifyAnswer(429, '1', 'Too Many Requests').verdict, 'other');
  assert.equal(classifyAnswer(429, '1', '{"errors":[{"code":"bad request","description":"x"}]}').verdict, 'other');
});

test('anything else is a fault: a 500, a 503 that is not Fauna\'s, a client error', () => {
  assert.equal(classifyAnswer(500, undefined, '{"errors":[{"code":"internal server error","description":"x"}]}').verdict, 'other');
  assert.equal(classifyAnswer(503, undefined, '<html>Service Unavailable</html>').verdict, 'other');
  assert.equal(classifyAnswer(503, undefined, '{"errors":[{"code":"unavailable","description":""}]}').verdict, 'other');
  assert.equal(classifyAnswer(400, undefined, '{"errors":[{"code":"invalid expression","description":"x"}]}').verdict, 'other');
  assert.equal(classifyAnswer(0, undefined, '').verdict, 'other');
});
