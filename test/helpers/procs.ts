// Processes as /proc tells them: whether one runs, its children and descendants, its command line,
// whether it is busy. A zombie (killed, left for a lazy init to reap once its parent died too) does not run.

import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from '../../src/storage/dirLock';

export function running(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (fields !== undefined && Number(fields[1]) === pid) out.push(Number(name));
  }
  return out;
}

/** The children of `pid`, theirs, and so on. */
export function descendantsOf(pid: number): number[] {
  const out: number[] = [];
  for (let i = -1; i < out.length; i++) out.push(...childrenOf(i < 0 ? pid : out[i]));
  return out;
}

/** Its arguments, the program first; empty once it is gone. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return [];
  }
}

/** Whether it is running code or waiting for a CPU to run it on (state R), rather than waiting for something. */
export function runnable(pid: number): boolean {
  return statFields(pid)?.[0] === 'R';
}

/**
 * SIGKILL to `pid` and all its descendants; returns them (none if `pid` had ended). They are stopped
 * first (SIGSTOP) until no new one appears, so that none forks a process the kill would miss.
 */
export function killTree(pid: number): number[] {
  if (!running(pid) || !signal(pid, 'SIGSTOP')) return [];
  const stopped = new Set([pid]);
  for (let round = 0; round < 100; round++) {
    const fresh = descendantsOf(pid).filter((p) => !stopped.has(p));
    if (fresh.length === 0) break;
    for (const p of fresh) if (signal(p, 'SIGSTOP')) stopped.add(p);
  }
  for (const p of stopped) signal(p, 'SIGKILL');
  return [...stopped];
}

/** Whether the signal was sent (not if the process is gone). */
function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
