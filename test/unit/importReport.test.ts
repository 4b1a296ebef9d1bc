// ImportReport (src/transfer/import/report.ts): a source of nothing but bad records makes a report
// of bounded size: the first MAX_PROBLEMS problems, each reason cut to a length, the rest counted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportReport, MAX_PROBLEMS } from '../../src/transfer/import/report';

test('the first problems are listed and the rest counted; long reasons are cut', () => {
  const report = new ImportReport();
  for (let line = 1; line <= 10_000; line++) report.problem({ file: 'f', line }, line === 1 ? 'x'.repeat(100_000) : 'malformed JSON');
  assert.equal(report.problems.length, MAX_PROBLEMS);
  assert.equal(report.problemsOmitted, 10_000 - MAX_PROBLEMS);
  assert.equal(report.problemCount, 10_000);
  assert.equal(report.problems[MAX_PROBLEMS - 1].line, MAX_PROBLEMS);
  assert.ok(report.problems[0].reason.length <= 501);
  const json = JSON.stringify(report);
  assert.ok(json.length < 16_384, `${json.length} bytes`);
  assert.equal(JSON.parse(json).problems_omitted, 10_000 - MAX_PROBLEMS);
  assert.match(report.render(), /^10000 record\(s\) not imported \(the first 100 listed\):$/m);
  assert.match(report.render(), /… and 9900 more$/);
});
