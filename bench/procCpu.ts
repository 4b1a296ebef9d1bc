// CPU accounting of benchmark runs from /proc: the CPU seconds of a process tree (reaped children
// included), of the whole machine, and of this process over a window, so that a figure can say
// whether the server, the load generator or the machine bounded it.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
export const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds of every process under `root` (itself included) by pid; the children a process
 * reaped count in it (cutime), so backends that exit during a slice are not lost. */
export function treeCpu(root: number): Map<number, number> {
  const procs = new Map<number, { ppid: number; cpu: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(name), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICKS });
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map<number, number>();
  const visit = (pid: number) => {
    const p = procs.get(pid);
    if (!p) return;
    out.set(pid, p.cpu);
    for (const [child, c] of procs) if (c.ppid === pid) visit(child);
  };
  visit(root);
  return out;
}

export const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Busy CPU seconds of the whole machine (every core) so far. */
export function machineBusy(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) / TICKS;
}

/** CPU seconds used meanwhile by each named process tree, by this process and by the machine. */
export function cpuWindow(roots: Record<string, number>): () => { trees: Record<string, number>; perPid: Record<string, Map<number, number>>; self: number; machine: number; wall: number } {
  const before = Object.fromEntries(Object.entries(roots).map(([k, pid]) => [k, treeCpu(pid)]));
  const self0 = process.cpuUsage();
  const machine0 = machineBusy();
  const t0 = process.hrtime.bigint();
  return () => {
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const machine = machineBusy() - machine0;
    const self = process.cpuUsage(self0);
    const perPid: Record<string, Map<number, number>> = {};
    const trees: Record<string, number> = {};
    for (const [k, pid] of Object.entries(roots)) {
      const after = treeCpu(pid);
      trees[k] = sum(after) - sum(before[k]);
      perPid[k] = new Map([...after].map(([p, c]) => [p, c - (before[k].get(p) ?? 0)]));
    }
    return { trees, perPid, self: (self.user + self.system) / 1e6, machine, wall };
  };
}
