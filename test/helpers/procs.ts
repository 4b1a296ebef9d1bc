// Whether a process runs, as /proc tells it: a zombie (killed, left for a lazy init to reap once
// its parent died too) does not.

import { readFileSync } from 'node:fs';

export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
