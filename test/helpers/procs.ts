// Processes as /proc tells them: whether one runs, its children and descendants, its command line,
// whether it is busy. A zombie (killed, left for a lazy init to reap once its parent died too) does not run.

import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): state, ppid, …; undefined once it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

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
