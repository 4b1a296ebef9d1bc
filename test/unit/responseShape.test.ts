// The fuzz part's judge of answers (torture/responseShape.ts) and its request writer
// (torture/wireText.ts), fed hand-made answers that must pass and ones that must fail.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge } from '../../torture/responseShape';
import { Raw, wireText } from '../../torture/wireText';

const fauna = (code: string, description: string, position: unknown[] = []) => JSON.stringify({ errors: [{ position, code, description }] });

test('well-formed answers pass: resources, Fauna errors, GraphQL, the log-export API, Netty-level answers', () => {
  assert.equal(judge('fql', 200, '{"resource":3}').problem, undefined);
  assert.equal(judge('fql', 400, fauna('invalid argument', 'Integer expected, String provided.', ['add', 0])).problem, undefined);
  assert.equal(judge('fql', 400, fauna('invalid ref', "Ref refers to undefined collection 'nope'")).problem, undefined);
  assert.equal(judge('fql', 401, '{"errors":[{"code":"unauthorized","description":"Unauthorized"}]}').problem, undefined);
  assert.equal(judge('fql', 503, '{"errors":[{"code":"time out","description":"Read timed out"}]}').problem, undefined);
  assert.equal(judge('http', 400, '{"error":"bad request"}').problem, undefined);
  assert.equal(judge('http', 408, '{"error":"request timeout: Client timed out."}').problem, undefined);
  assert.equal(judge('graphql', 200, '{"data":{"a":1}}').problem, undefined);
  assert.equal(judge('graphql', 200, '{"data":null,"errors":[{"message":"Cannot query field \\"x\\" on type \\"Query\\"."}]}').problem, undefined);
  assert.equal(judge('logs', 405, '{"message":"Method PUT is not allowed here; use POST."}').problem, undefined);
  // The user's own words come back verbatim: an Abort message, however short or odd.
  assert.equal(judge('fql', 400, fauna('transaction aborted', 'x'), '{"abort":"x"}').problem, undefined);
  assert.equal(judge('fql', 400, fauna('transaction aborted', 'undefined'), '{"abort":"undefined"}').problem, undefined);
  assert.equal(judge('fql', 400, fauna('transaction aborted', 'ab'), '[{"abort":{"concat":["a","b"]}}]').problem, undefined);
  // A body longer than what is judged: its beginning.
  assert.equal(judge('fql', 200, '{"resource":"' + 'x'.repeat(70_000)).problem, undefined);
});

test('malformed answers fail: not JSON, no errors list, unknown codes, empty or internal descriptions', () => {
  const fails = (why: RegExp, ...args: Parameters<typeof judge>) => assert.match(judge(...args).problem ?? '(passed)', why);
  fails(/not JSON/, 'fql', 500, 'Internal Server Error');
  fails(/not JSON/, 'fql', 417, '');
  fails(/without an errors list/, 'fql', 405, '{"message":"nope"}');
  fails(/without a resource/, 'fql', 200, '{"data":1}');
  fails(/unknown error code/, 'fql', 400, fauna('oops', 'Something.'));
  fails(/says nothing/, 'fql', 400, fauna('invalid argument', ''));
  fails(/not a text/, 'logs', 405, '{"msg":"x"}');
  fails(/leaks internals/, 'fql', 400, fauna('invalid argument', "Cannot read properties of undefined (reading 'x')"));
  fails(/leaks internals/, 'fql', 400, fauna('bad request', 'TypeError: x is not a function'));
  fails(/leaks internals/, 'fql', 400, fauna('invalid argument', 'Number expected, [object Object] provided.'));
  fails(/leaks internals/, 'fql', 400, fauna('invalid argument', 'boom\n    at evaluate (/srv/dist/fql/evaluator.js:10:5)'));
  fails(/leaks internals/, 'graphql', 200, '{"errors":[{"message":"Maximum call stack size exceeded"}]}');
  fails(/leaks internals/, 'fql', 400, JSON.stringify({ errors: [{ position: [], code: 'call error', description: 'Calling the function resulted in an error.', cause: [{ position: [], code: 'invalid argument', description: 'NaN is not a number' }] }] }));
  fails(/unknown \{"error"/, 'http', 400, '{"error":"nope"}');
  fails(/does not begin/, 'fql', 200, 'x'.repeat(70_000));
});

test('wireText writes number tokens verbatim, bigints exactly, and trees deeper than JSON.stringify can', () => {
  assert.equal(wireText({ add: [new Raw('1e309'), new Raw('-0'), 9223372036854775807n, 1.5, 'x\u0000'] }), '{"add":[1e309,-0,9223372036854775807,1.5,"x\\u0000"]}');
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const text = wireText(deep);
  assert.equal(text.length, 200_001);
  assert.ok(text.startsWith('[[[') && text.endsWith(']]]'));
});
