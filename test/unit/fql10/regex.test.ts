// FQL v10's regex string functions run on the linear-time engine (src/regex/), with the core's
// invalid_regex failures (FQL2StringSpec) and a search cost charged to the compute budget.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BudgetExceeded, err, evalQuery, ok, testHooks } from './harness';

test('a pattern that backtracks catastrophically in a backtracking engine answers at once', async () => {
  // (a+)+$ on 40 a's and a '!' takes 2^40 steps in JavaScript's RegExp; RE2 is linear.
  const started = performance.now();
  assert.equal(await ok("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.includesRegex('^(a+)+$')"), 'false');
  assert.equal(await ok("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('(a|aa)+$')"), '[]');
  assert.equal(await ok("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.replaceAllRegex('(a*)*b', 'x')"), '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"');
  assert.ok(performance.now() - started < 1000);
});

test('Java regex syntax, as the core has it', async () => {
  assert.equal(await ok("'foo bar baz'.matches('\\\\w+')"), '["foo","bar","baz"]');
  assert.equal(await ok("'f😍😍 bar baz'.matchIndexes('\\\\S+')"), '[[0,"f😍😍"],[4,"bar"],[8,"baz"]]');
  assert.equal(await ok("'abc'.replaceAllRegex('', '-')"), '"-a-b-c-"');
  assert.equal(await ok("'a1b22c'.splitRegex('\\\\d+')"), '["a","b","c"]');
  assert.equal(await ok("'ABC'.includesRegex('(?i)abc')"), 'true');
  assert.equal(await ok("'xay'.indexOfRegex('\\\\p{Lower}', 1)"), '1');
});

test('an invalid pattern is the core invalid_regex failure', async () => {
  // FQL2StringSpec: 'foo bar baz'.matches('+') → Dangling meta character '+' at index 0, span 21..26.
  const e = await err("'foo bar baz'.matches('+')");
  assert.equal(e.code, 'invalid_regex');
  assert.equal(e.message, "Invalid regular expression. Dangling meta character '+' at index 0");
  assert.match(e.summary, /^error: Invalid regular expression\. Dangling meta character '\+' at index 0\nat \*query\*:1:22\n/);
  const unclosed = await err("'x'.includesRegex('(a')");
  assert.equal(unclosed.code, 'invalid_regex');
  // RE2 has no backreferences: refused in the same shape rather than run by a backtracker.
  const backref = await err("'aa'.includesRegex('(a)\\\\1')");
  assert.equal(backref.code, 'invalid_regex');
  assert.match(backref.message, /^Invalid regular expression\. Unsupported construct: /);
});

test('a search is charged to the compute budget before it runs', async () => {
  const args = new Map([['big', 'ab'.repeat(200_000)]]);
  await assert.rejects(evalQuery("big.matches('(a|b)*c')", args, testHooks({ computeLimit: 1000 })), BudgetExceeded);
  const r = await evalQuery("big.matches('(a|b)*c')", args, testHooks({ computeLimit: 1_000_000 }));
  assert.ok(r.ok);
});
