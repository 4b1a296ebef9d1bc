// What `npm test` prints: a line per test file as it finishes and a summary with the failures'
// details, from node:test's reporter events (scripts/testReporter.ts feeds them in; the full output
// goes to a log file through node's own spec reporter).
//
// node --test runs each file in its own process and reports the files in the order given: a file's
// test:start/pass/fail events (declaration ordered) all come before the next file's. Only the
// runner's own test:complete for a file (named by its path, nesting 0) comes when the file's process
// ends, which may be while an earlier file is still being reported. So a file is done when a later
// file's events begin, when its process ends while it is the file being reported, or when the runner
// reports the file itself (a file without tests, or one whose process failed outside a test).

import { inspect } from 'node:util';
import type { OverTime } from './testDeadlines';

/** The part of a node:test reporter event this module reads. */
export interface TestEvent {
  type: string;
  data: {
    name?: string;
    nesting?: number;
    file?: string;
    message?: string;
    skip?: boolean | string;
    todo?: boolean | string;
    details?: { duration_ms?: number; type?: string; error?: unknown; passed?: boolean };
  };
}

export interface Failure {
  file: string;
  /** Names from the outermost suite to the test; empty for a failure of the file itself. */
  path: string[];
  error: unknown;
  /** The file's last lines of stdout/stderr, for a failure of the file itself. */
  output?: string;
}

export interface FileResult {
  file: string;
  passed: number;
  failed: number;
  cancelled: number;
  skipped: number;
  todo: number;
  durationMs?: number;
  failures: Failure[];
  /** Still running when the run was interrupted. */
  stopped?: boolean;
}

export interface ProgressOptions {
  /** How a file is named in the output (default: as given). */
  displayName?: (file: string) => string;
  /** Number of files in the run, for the "[n/total]" counter. */
  totalFiles?: number;
  /** Where the full output is kept, named in the summary. */
  logFile?: string;
}

interface FileState extends FileResult {
  done: boolean;
  /** The process ended with a failure of its own: the runner reports it next. */
  awaitingFileFailure: boolean;
  output: string[];
  /** Why tests were skipped (e.g. a browser that is not installed), each printed once under the file's line. */
  skipReasons: Set<string>;
  /** The tests and suites started and not ended yet, in the order they started. */
  running: { nesting: number; name: string }[];
  /** Whether any test or suite started. */
  startedAny: boolean;
  /** Killed for running over its time limit (testDeadlines.ts). */
  overTime?: OverTime;
}

const OUTPUT_LINES_KEPT = 40;
const ERROR_LINES_SHOWN = 40;

/** node:test's failure kinds (error.failureType). */
function failureType(error: unknown): string | undefined {
  const t = (error as { failureType?: unknown } | null | undefined)?.failureType;
  return typeof t === 'string' ? t : undefined;
}

export class TestProgress {
  private readonly files = new Map<string, FileState>();
  private current: FileState | undefined;
  /** Names of the suites enclosing the test being reported, by nesting level. */
  private stack: string[] = [];
  private finishedCount = 0;
  private readonly totals = new Map<string, number>();

  constructor(private readonly options: ProgressOptions = {}) {}

  /** Takes one event; returns the lines to print now. */
  push(event: TestEvent): string[] {
    const { type, data } = event;
    const lines: string[] = [];
    if (data.file === undefined) {
      // The runner's summary at the end: "tests 12", "pass 11", "duration_ms 345.6", …
      if (type === 'test:diagnostic' && data.nesting === 0 && typeof data.message === 'string') {
        const m = /^(\w+) ([\d.]+)$/.exec(data.message);
        if (m) this.totals.set(m[1], Number(m[2]));
      }
      return lines;
    }
    if (type === 'test:enqueue' || type === 'test:watch:drained' || type === 'test:coverage') return lines;
    const state = this.state(data.file);
    if (type === 'test:stdout' || type === 'test:stderr') {
      state.output.push(...String(data.message ?? '').replace(/\n$/, '').split('\n'));
      if (state.output.length > OUTPUT_LINES_KEPT) state.output.splice(0, state.output.length - OUTPUT_LINES_KEPT);
      return lines;
    }
    const fileLevel = data.nesting === 0 && data.name === data.file;
    // When a test starts and ends, as it happens: what was running when a file was killed.
    if (type === 'test:dequeue') {
      if (!fileLevel) {
        state.running.push({ nesting: data.nesting ?? 0, name: data.name ?? '' });
        state.startedAny = true;
      }
      return lines;
    }
    if (type === 'test:complete') {
      if (!fileLevel) {
        let i = state.running.length - 1;
        while (i >= 0 && !(state.running[i].nesting === data.nesting && state.running[i].name === data.name)) i--;
        if (i >= 0) state.running.splice(i, 1);
        return lines;
      }
      state.durationMs = data.details?.duration_ms;
      const error = data.details?.error;
      state.awaitingFileFailure = data.details?.passed === false && failureType(error) !== 'subtestsFailed';
      if (state === this.current && !state.awaitingFileFailure) lines.push(...this.finish(state));
      return lines;
    }
    if (type !== 'test:start' && type !== 'test:pass' && type !== 'test:fail' && type !== 'test:plan' && type !== 'test:diagnostic') {
      return lines;
    }
    // A declaration-ordered event: the file it belongs to is the one being reported.
    if (state !== this.current) {
      if (this.current && !this.current.done) lines.push(...this.finish(this.current));
      this.current = state;
      this.stack = [];
    }
    if (fileLevel) {
      // (A file killed for its time is failed by finish(), with the reason.)
      if (type === 'test:fail' && failureType(data.details?.error) !== 'subtestsFailed' && !state.overTime) {
        state.failed++;
        state.failures.push({ file: state.file, path: [], error: data.details?.error, output: state.output.join('\n') });
      }
      if (type === 'test:pass' || type === 'test:fail') lines.push(...this.finish(state));
      return lines;
    }
    const nesting = data.nesting ?? 0;
    const name = data.name ?? '';
    if (type === 'test:start') {
      this.stack.length = nesting;
      this.stack[nesting] = name;
    } else if (type === 'test:pass') {
      if (data.details?.type === 'suite') return lines;
      if (data.todo !== undefined && data.todo !== false) state.todo++;
      else if (data.skip !== undefined && data.skip !== false) {
        state.skipped++;
        if (typeof data.skip === 'string') state.skipReasons.add(data.skip);
      } else state.passed++;
    } else if (type === 'test:fail') {
      const error = data.details?.error;
      const kind = failureType(error);
      if (data.todo !== undefined && data.todo !== false) state.todo++; // a failing todo does not fail the run
      else if (kind === 'cancelledByParent') state.cancelled++; // its parent's failure says why
      else if (!(data.details?.type === 'suite' && kind === 'subtestsFailed')) {
        state.failed++;
        state.failures.push({ file: state.file, path: [...this.stack.slice(0, nesting), name], error });
      }
    }
    return lines;
  }

  /** A file killed for running over its time limit (it is reported failed once node reports it). */
  overTime(file: string, over: OverTime): void {
    this.state(file).overTime = over;
  }

  /**
   * The run stopped (Ctrl-C): the files that had not finished, marked stopped, then the summary and
   * the failures so far.
   */
  interrupt(): string[] {
    const lines: string[] = [];
    for (const state of this.files.values()) {
      if (state.done) continue;
      state.stopped = true;
      lines.push(...this.finish(state));
    }
    return [...lines, ...this.end()];
  }

  /** At the end of the run: the files not printed yet, the summary and the failures. */
  end(): string[] {
    const lines: string[] = [];
    for (const state of this.files.values()) if (!state.done) lines.push(...this.finish(state));
    const results = [...this.files.values()];
    const failures = results.flatMap((r) => r.failures);
    const sum = (key: 'passed' | 'failed' | 'cancelled' | 'skipped' | 'todo') => results.reduce((n, r) => n + r[key], 0);
    // node's own totals when it gave them (they also count what never reached a file's report).
    const t = (key: string, fallback: number) => this.totals.get(key) ?? fallback;
    const counts: [string, number][] = [
      ['passed', t('pass', sum('passed'))],
      ['failed', t('fail', sum('failed'))],
      ['cancelled', t('cancelled', sum('cancelled'))],
      ['skipped', t('skipped', sum('skipped'))],
      ['todo', t('todo', sum('todo'))],
    ];
    const tests = t('tests', counts.reduce((n, [, c]) => n + c, 0));
    const failed = failures.length > 0 || counts[1][1] > 0 || counts[2][1] > 0;
    const stopped = results.filter((r) => r.stopped).length;
    const duration = this.totals.get('duration_ms');
    lines.push('');
    if (failures.length > 0) {
      lines.push(`Failures (${failures.length}):`, '');
      failures.forEach((f, i) => lines.push(...formatFailure(f, i + 1, this.name(f.file)), ''));
    }
    lines.push(
      `${stopped > 0 ? `STOPPED (${stopped} running)` : failed ? 'FAILED' : 'ok'}: ${count(results.length, 'file')}, ${count(tests, 'test')}: ` +
        counts.filter(([k, c]) => c > 0 || k === 'passed' || k === 'failed').map(([k, c]) => `${c} ${k}`).join(', ') +
        (duration === undefined ? '' : ` (${formatSeconds(duration)})`),
    );
    if (this.options.logFile) lines.push(`Full output: ${this.options.logFile}`);
    return lines;
  }

  private state(file: string): FileState {
    let state = this.files.get(file);
    if (!state) {
      state = {
        file,
        passed: 0,
        failed: 0,
        cancelled: 0,
        skipped: 0,
        todo: 0,
        failures: [],
        done: false,
        awaitingFileFailure: false,
        output: [],
        skipReasons: new Set(),
        running: [],
        startedAny: false,
      };
      this.files.set(file, state);
    }
    return state;
  }

  private finish(state: FileState): string[] {
    if (state.done) return []; // e.g. a runner that also reports a file whose tests it reported
    state.done = true;
    if (state.overTime) {
      state.failed++;
      state.failures.push(overTimeFailure(state, state.overTime));
    }
    state.output = [];
    this.finishedCount++;
    const total = this.options.totalFiles;
    const counter = total ? `[${String(this.finishedCount).padStart(String(total).length)}/${total}] ` : '';
    const skipped = [...state.skipReasons].map((reason) => `${' '.repeat(counter.length)}     skipped: ${reason}`);
    return [counter + formatFileLine(state, this.name(state.file)), ...skipped];
  }

  private name(file: string): string {
    return this.options.displayName ? this.options.displayName(file) : file;
  }
}

/** Why a file killed for its time failed: the test that was running (the innermost one started and not ended), or where it was stuck. */
function overTimeFailure(state: FileState, over: OverTime): Failure {
  // The process's own word, else (between tests: in a suite's hook, say) node's events.
  const path: string[] = over.test === undefined ? [] : [over.test];
  if (over.test === undefined)
    for (const r of state.running) {
      path.length = r.nesting;
      path[r.nesting] = r.name;
    }
  const limit = `the file's time limit of ${formatSeconds(over.limitMs)} (FLORA_TEST_FILE_TIMEOUT, in seconds)`;
  const where =
    path.length > 0
      ? `still running after ${limit}`
      : state.startedAny
        ? `its tests were over, but its process had not exited after ${limit}: a child process, server, socket or timer left open, or a top-level after hook`
        : `no test had started after ${limit}: stuck at its top level, or kept alive by what it opened there`;
  const others = over.killed - 1;
  const lines = [`${where}; killed${others > 0 ? `, and the ${others === 1 ? 'process' : `${others} processes`} it had started` : ''}`];
  if (over.busy)
    lines.push(`Its process was busy running code (a synchronous loop?)${over.test === undefined ? ', which can keep node from reporting what it started last' : ''}.`);
  return { file: state.file, path, error: lines.join('\n'), output: state.output.join('\n') };
}

/** "1 file", "3 files" */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** e.g. "FAIL integration/hostile.test.js   45 passed, 1 failed   12.3 s" */
export function formatFileLine(r: FileResult, name: string): string {
  const counts = [`${r.passed} passed`];
  if (r.failed > 0) counts.push(`${r.failed} failed`);
  if (r.cancelled > 0) counts.push(`${r.cancelled} cancelled`);
  if (r.skipped > 0) counts.push(`${r.skipped} skipped`);
  if (r.todo > 0) counts.push(`${r.todo} todo`);
  const bad = r.failed > 0 || r.cancelled > 0;
  const time = r.durationMs === undefined ? '' : formatSeconds(r.durationMs).padStart(8);
  return `${r.stopped ? 'stop' : bad ? 'FAIL' : 'ok  '} ${name.padEnd(40)} ${counts.join(', ').padEnd(24)}${time}`.trimEnd();
}

/** A failure as a numbered block: where, which test, and the error (assertion diff and stack). */
export function formatFailure(f: Failure, n: number, fileName: string): string[] {
  const lines = [`${n}) ${fileName}`];
  lines.push(`   ${f.path.length > 0 ? f.path.join(' > ') : '(the file itself, outside any test)'}`);
  lines.push(...indent(describeError(f.error), '   '));
  if (f.output) lines.push('   its last output:', ...indent(f.output, '   | '));
  return lines;
}

function describeError(error: unknown): string {
  if (error === undefined) return 'failed';
  if (typeof error === 'string') return error;
  // node wraps what a test threw in ERR_TEST_FAILURE; the cause is what the test's author wrote.
  const e = error as { code?: unknown; cause?: unknown; exitCode?: unknown; signal?: unknown; message?: unknown };
  if (e.code !== 'ERR_TEST_FAILURE') return withoutNodeFrames(inspect(error, { depth: 4 }));
  const cause = e.cause === undefined ? String(e.message) : typeof e.cause === 'string' ? e.cause : withoutNodeFrames(inspect(e.cause, { depth: 4 }));
  // A file that failed outside its tests: how its process ended.
  const how = e.signal ? `killed by ${String(e.signal)}` : typeof e.exitCode === 'number' ? `exited with code ${e.exitCode}` : '';
  return how ? `${cause} (the file's process ${how})` : cause;
}

/** Stack frames inside node itself say nothing about the test. */
function withoutNodeFrames(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\s*at .*(node:internal\/|node:async_hooks|\(<anonymous>\)$|Promise\.all \(index \d+\)$)/.test(l))
    .join('\n');
}

function indent(text: string, prefix: string): string[] {
  const lines = text.split('\n');
  const shown = lines.length > ERROR_LINES_SHOWN ? [...lines.slice(0, ERROR_LINES_SHOWN), `… ${lines.length - ERROR_LINES_SHOWN} more lines in the full output`] : lines;
  return shown.map((l) => prefix + l);
}
