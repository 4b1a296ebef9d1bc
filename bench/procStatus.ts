// CPU time of one process and a data directory's size on disk, for the benchmarks that watch a
// server over time (the machine's CPU and process trees: procCpu.ts; memory: torture/memory.ts).

import { TICKS } from './procCpu';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** User + system CPU seconds `pid` has used so far. */
export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/** Bytes allocated on disk for a file, or for everything under a directory (a sparse file such as
 * LMDB's map counts what it uses); 0 for what vanished while we looked (a rotated log, an export). */
export function diskBytes(p: string): number {
  try {
    const st = statSync(p);
    if (!st.isDirectory()) return st.isFile() ? st.blocks * 512 : 0;
    return readdirSync(p).reduce((total, name) => total + diskBytes(path.join(p, name)), 0);
  } catch {
    return 0;
  }
}

/**
 * Resident bytes of `pid`'s mappings of files under `dir` (/proc/<pid>/smaps): the pages of an
 * embedded store's memory-mapped file that count in the process's RSS, though they are the
 * kernel's page cache, reclaimable at will, and follow the data rather than the process.
 */
export function mappedResidentBytes(pid: number, dir: string): number {
  let smaps: string;
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return 0;
  }
  const prefix = path.resolve(dir) + path.sep;
  let total = 0;
  let inDir = false;
  for (const line of smaps.split('\n')) {
    // A mapping's header: "start-end perms offset dev inode [path]"; its fields follow, "Rss: N kB".
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inDir = line.includes(prefix);
    else if (inDir && line.startsWith('Rss:')) total += Number(/(\d+) kB/.exec(line)?.[1] ?? 0) * 1024;
  }
  return total;
}
