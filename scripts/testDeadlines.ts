// The time limit of a test file under `npm test`: a file whose process is still running past it
// (stuck in a test or a hook, at its top level, or kept alive by a child process, server or timer
// left open) is killed, with every process it started, so that node --test reports it failed and
// goes on with the other files. It runs in node --test's own process (testReporter.ts starts it),
// from the runner's events: a file starts at its dequeue and ends at its completion (nesting 0,
// named by its path), which node sends as they happen whichever file is being reported.
//
// The limit is 5 minutes a file, more than twice the slowest files' time on a busy 2-core machine
// (~2 minutes); FLORA_TEST_FILE_TIMEOUT=<seconds> changes it. A few files known to take longer have
// a multiple of it (SLOWER).

import { readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { childrenOf, commandLine, killTree, runnable } from '../test/helpers/procs';
import { marksDir, marksFile } from './testMarks';

const DEFAULT_LIMIT_S = 300;

/** Files (compiled paths, from dist/test/) whose limit is a multiple of the others'. */
const SLOWER: Record<string, number> = {
  // Every test starts its tier afresh (three processes on PostgreSQL, two workers on LMDB), for three
  // tiers: ~2.5 minutes on a loaded machine.
  'integration/tier.test.js': 2,
  // npm pack, then two installs of the tarball (each ~40 s on a loaded machine).
  'integration/package.test.js': 2,
};

/** The limit of `file`, in ms: FLORA_TEST_FILE_TIMEOUT seconds (else 5 minutes), times its SLOWER factor. */
export function fileLimitMs(file: string, env: NodeJS.ProcessEnv): number {
  const s = Number(env.FLORA_TEST_FILE_TIMEOUT);
  const factor = Object.entries(SLOWER).find(([name]) => file.endsWith(`/test/${name}`))?.[1] ?? 1;
  return (Number.isFinite(s) && s > 0 ? s : DEFAULT_LIMIT_S) * 1000 * factor;
}

export interface OverTime {
  limitMs: number;
  /** The test its process said was running (testMarks.ts), the last one started if several; undefined between tests. */
  test?: string;
  /** Processes killed: the file's own and those it started. */
  killed: number;
  /** Its process was running code when stopped (a synchronous loop): node may not have sent its last events. */
  busy: boolean;
}

export class FileDeadlines {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** `onOverTime` hears of each file killed for its time, before node reports the file. */
  constructor(
    private readonly limitMs: (file: string) => number,
    private readonly onOverTime: (file: string, over: OverTime) => void,
  ) {}

  /** Takes a runner event: a file's start and end (the others are ignored). */
  observe(type: string, data: { file?: string; name?: string; nesting?: number }): void {
    const { file } = data;
    if (file === undefined || data.nesting !== 0 || data.name !== file) return;
    if (type === 'test:dequeue' && !this.timers.has(file)) {
      // unref: an end that never came must not keep node --test from exiting.
      const limitMs = this.limitMs(file);
      this.timers.set(file, setTimeout(() => void this.expire(file, limitMs), limitMs).unref());
    } else if (type === 'test:complete') {
      clearTimeout(this.timers.get(file));
      this.timers.delete(file);
    }
  }

  private async expire(file: string, limitMs: number): Promise<void> {
    this.timers.delete(file);
    // node --test runs a file as `node [its own options] <file>`, as a child of this process.
    const pid = childrenOf(process.pid).find((p) => commandLine(p).at(-1) === file);
    if (pid === undefined) return; // it ended meanwhile
    // Busy: running code at each of a few looks (a process that waits for a promise, a child or I/O sleeps).
    let busy = true;
    for (let look = 0; look < 3; look++) {
      busy &&= runnable(pid);
      await sleep(100);
    }
    const killed = killTree(pid).length;
    if (killed > 0) this.onOverTime(file, { limitMs, test: runningTest(pid), killed, busy });
  }

  /** At the end of the run: no more time limits, and the files' marks go. */
  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    rmSync(marksDir(process.pid), { recursive: true, force: true });
  }
}

/** The test the killed file process `pid` last said it started and had not ended. */
function runningTest(pid: number): string | undefined {
  const file = marksFile(process.pid, pid);
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).at(-1);
  } catch {
    return undefined; // between tests, or not loaded (node --test run without npm test's --require)
  } finally {
    rmSync(file, { force: true });
  }
}
