// `npm test`: every test file (test/**/*.test.ts, as compiled into dist/) under node --test, two
// files at a time, printing a line per file and a summary (testReporter.ts) while node's spec
// reporter writes the whole output to dist/test.log. Exits with node's exit code: non-zero when a
// test failed. Arguments narrow the run to the files whose path contains one of them
// (`npm test -- unit/ renames`).

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { count } from './testProgress';

const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
const LOG = path.join(DIST, 'test.log');

/** test/**\/*.test.ts, sorted, as their compiled paths: a test deleted from test/ is not run from a stale dist/. */
export function testFiles(root: string, filters: readonly string[] = []): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts')) found.push(path.relative(root, p));
    }
  };
  walk(path.join(root, 'test'));
  return found
    .sort()
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .map((f) => path.join(root, 'dist', f.replace(/\.ts$/, '.js')));
}

function main(): void {
  const files = testFiles(ROOT, process.argv.slice(2));
  if (files.length === 0) {
    process.stderr.write(`No test file matches ${process.argv.slice(2).join(' ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`${count(files.length, 'test file')}, 2 at a time; full output in ${path.relative(ROOT, LOG)}\n`);
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-concurrency=2',
      `--test-reporter=${path.join(__dirname, 'testReporter.js')}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=spec',
      `--test-reporter-destination=${LOG}`,
      ...files,
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        FLORA_TEST_FILES: String(files.length),
        FLORA_TEST_BASE: path.join(DIST, 'test'),
        FLORA_TEST_LOG: path.relative(ROOT, LOG),
        // Servers the tests start run this build, even if a source is edited during the run.
        FLORA_NO_BUILD_CHECK: '1',
      },
    },
  );
  // Ctrl-C reaches node --test too; wait for it to stop and report.
  process.on('SIGINT', () => undefined);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (require.main === module) main();
