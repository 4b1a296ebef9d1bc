// node:test reporter for `npm test` (node --test --test-reporter=dist/scripts/testReporter.js):
// a line per test file and a summary with the failures' details (see testProgress.ts). It also
// keeps each file to its time limit (testDeadlines.ts), as node --test's process is where it runs.
// FLORA_TEST_FILES (number of files), FLORA_TEST_BASE (directory file names are shown relative to)
// and FLORA_TEST_LOG (where the full output goes) come from scripts/runTests.ts;
// FLORA_TEST_FILE_TIMEOUT (seconds) changes the time limit.

import { writeSync } from 'node:fs';
import path from 'node:path';
import { childrenOf, killTree } from '../test/helpers/procs';
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
  // Ctrl-C (runTests.ts passes on a SIGINT too): node --test's own handler would exit without a
  // word, so this one goes first. The files running are stopped with what they started, and the
  // summary so far is printed at once, as the events of files that were stopped would only report
  // them failed.
  let interrupted = false;
  process.prependListener('SIGINT', () => {
    if (interrupted) return;
    interrupted = true;
    for (const pid of childrenOf(process.pid)) killTree(pid);
    deadlines.close();
    writeSync(1, progress.interrupt().join('\n') + '\n');
    process.exit(130);
  });
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
