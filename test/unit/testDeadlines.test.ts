// scripts/testDeadlines.ts: a test file's time limit (the killing itself is tested through node
// --test in integration/test-time-limit.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileLimitMs } from '../../scripts/testDeadlines';

test('5 minutes a file, FLORA_TEST_FILE_TIMEOUT seconds when set, twice that for the tiers', () => {
  assert.equal(fileLimitMs('/r/dist/test/unit/json.test.js', {}), 300_000);
  assert.equal(fileLimitMs('/r/dist/test/integration/tier.test.js', {}), 600_000);
  assert.equal(fileLimitMs('/r/dist/test/unit/json.test.js', { FLORA_TEST_FILE_TIMEOUT: '20' }), 20_000);
  assert.equal(fileLimitMs('/r/dist/test/integration/tier.test.js', { FLORA_TEST_FILE_TIMEOUT: '20' }), 40_000);
  assert.equal(fileLimitMs('/r/dist/test/integration/logs-tier.test.js', {}), 300_000, 'a name ending alike is another file');
  for (const bad of ['', '0', '-5', 'soon']) assert.equal(fileLimitMs('/r/dist/test/unit/json.test.js', { FLORA_TEST_FILE_TIMEOUT: bad }), 300_000, bad);
});
