// node:test reporter for `npm test` (node --test --test-reporter=dist/scripts/testReporter.js):
// a line per test file and a summary with the failures' details (see testProgress.ts). It also
// keeps each file to its time limit (testDeadlines.ts), as node --test's process is where it runs.
// FLORA_TEST_FILES (number of files), FLORA_TEST_BASE (directory file names are shown relative to)
// and FLORA_TEST_LOG (where the full output goes) come from scripts/runTests.ts;
// FLORA_TEST_FILE_TIMEOUT (seconds) changes the time limit.

import path from 'node:path';
import { FileDeadlines, fileLimitMs } from './testDeadlines';
import { TestProgress, type TestEvent } from './testProgress';

async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const base = process.env.FLORA_TEST_BASE;
  const total = Number(process.env.FLORA_TEST_FILES);
  const progress = new TestProgress({
    displayName: (file) => (base ? path.relative(base, file) : file),
    totalFiles: Number.isInteger(total) && total > 0 ? total : undefined,
    logFile: process.env.FLORA_TEST_LOG,
  });
  const deadlines = new FileDeadlines((file) => fileLimitMs(file, process.env), (file, over) => progress.overTime(file, over));
  for await (const event of source) {
    deadlines.observe(event.type, event.data);
    const lines = progress.push(event);
    if (lines.length > 0) yield lines.join('\n') + '\n';
  }
  deadlines.close();
  yield progress.end().join('\n') + '\n';
}

// node loads a reporter with import(): a CommonJS module must export the function itself.
export = reporter;
