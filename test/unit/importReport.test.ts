// ImportReport (src/transfer/import/report.ts): a bounded report (an import job's) of a source of
// nothing but bad records is of bounded size: the first maxProblems problems, each reason cut to a
// length, the rest counted; an unbounded one (`flora import`) lists every problem in full.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportReport } from '../../src/transfer/import/report';

const MAX_PROBLEMS = 100;

test('bounded: the first problems are listed and the rest counted; long reasons are cut', () => {
  const report = new ImportReport({ maxProblems: MAX_PROBLEMS });
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

test('unbounded (flora import): every problem is listed with its whole reason', () => {
  const report = new ImportReport();
  for (let line = 1; line <= 1000; line++) report.problem({ file: 'f', line }, line === 1 ? 'x'.repeat(10_000) : 'malformed JSON');
  assert.equal(report.problems.length, 1000);
  assert.equal(report.problemsOmitted, 0);
  assert.equal(report.problems[999].line, 1000);
  assert.equal(report.problems[0].reason.length, 10_000);
  assert.equal(JSON.parse(JSON.stringify(report)).problems.length, 1000);
  assert.match(report.render(), /^1000 record\(s\) not imported:$/m);
  assert.doesNotMatch(report.render(), /more$/);
});
