// node:test reporter for `npm test` (node --test --test-reporter=dist/scripts/testReporter.js):
// a line per test file and a summary with the failures' details (see testProgress.ts).
// FLORA_TEST_FILES (number of files), FLORA_TEST_BASE (directory file names are shown relative to)
// and FLORA_TEST_LOG (where the full output goes) come from scripts/runTests.ts.

import path from 'node:path';
import { TestProgress, type TestEvent } from './testProgress';

async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const base = process.env.FLORA_TEST_BASE;
  const total = Number(process.env.FLORA_TEST_FILES);
  const progress = new TestProgress({
    displayName: (file) => (base ? path.relative(base, file) : file),
    totalFiles: Number.isInteger(total) && total > 0 ? total : undefined,
    logFile: process.env.FLORA_TEST_LOG,
  });
  for await (const event of source) {
    const lines = progress.push(event);
    if (lines.length > 0) yield lines.join('\n') + '\n';
  }
  yield progress.end().join('\n') + '\n';
}

// node loads a reporter with import(): a CommonJS module must export the function itself.
export = reporter;
