// One owner per LMDB data directory: a single Flora process, or the supervisor of a `--workers` tier
// (whose workers share the store through its shared mode, store.ts). A process started on its own
// would commit in local mode, which only holds while nobody else writes, so it is kept out. A lock
// file names the owner, and a tier's supervisor adds its workers: a lock whose processes are all
// gone (kill -9, power cut) is taken over. A supervisor killed outright leaves workers that are
// still stopping (they stop once they see it gone); the lock is taken over only after they have.
//
// A process is named by its pid and, where /proc tells it, its start time: pids are reused (soon,
// where pid_max is small and processes come and go), and a stranger holding a dead worker's pid
// must not keep the directory locked.

import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoreInUse } from './engine';
import { log } from '../diag/log';

/**
 * How long a new owner waits for the workers of a dead supervisor to stop by themselves before it
 * stops them (kill -9: they are known to be those workers by their start time, and the store is
 * safe from a kill at any moment). A worker can be stuck for good in a wait inside the storage
 * library once its supervisor is gone (seen under the crash part; the wait's cause is not known).
 */
const ORPHANS_WAIT_MS = Number(process.env.FLORA_TEST_ORPHANS_WAIT_MS ?? 10_000);
/** How long killed orphans may take to be gone (a kill lands once a disk flush under way is done). */
const ORPHANS_KILL_MS = 60_000;

/** `pid` or `pid:start` (start: clock ticks after boot, field 22 of /proc/<pid>/stat). */
interface Proc {
  pid: number;
  start?: string;
}

/** The fields of /proc/<pid>/stat after the command name (state first), or undefined. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function identify(pid: number): Proc {
  const start = statFields(pid)?.[19];
  return start ? { pid, start } : { pid };
}

const text = (p: Proc): string => (p.start ? `${p.pid}:${p.start}` : String(p.pid));

function parseProc(s: string): Proc | undefined {
  const [pid, start] = s.split(':', 2);
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0) return undefined;
  return start ? { pid: n, start } : { pid: n };
}

function alive(p: Proc): boolean {
  try {
    process.kill(p.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
  const fields = statFields(p.pid);
  if (!fields) return !existsSync('/proc/self'); // no /proc here: kill(0) said it is there; else it just exited
  // A zombie (killed, not reaped yet: its parent died and init reaps when it gets to it) holds
  // nothing any more; another start time is another process under a reused pid.
  return fields[0] !== 'Z' && (p.start === undefined || fields[19] === p.start);
}

export interface DirLock {
  release(): void;
  /** Records the processes that work on the directory beside the owner (a tier's workers). */
  members(pids: readonly number[]): void;
}

/** The owner on the first line, the members after it. */
function parse(content: string): { owner: Proc | undefined; members: Proc[] } {
  const [first = '', rest = ''] = content.split('\n', 2);
  return { owner: parseProc(first.trim()), members: rest.split(' ').filter(Boolean).map(parseProc).filter((p): p is Proc => p !== undefined) };
}

/** Takes `<dir>/flora.lock` or throws StoreInUse. */
export async function lockDirectory(dir: string): Promise<DirLock> {
  const file = join(dir, 'flora.lock');
  const me = identify(process.pid);
  const mine = () => {
    try {
      return parse(readFileSync(file, 'utf8')).owner?.pid === process.pid;
    } catch {
      return false;
    }
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, text(me));
      closeSync(fd);
      return {
        release() {
          try {
            if (mine()) unlinkSync(file);
          } catch {
            // already gone
          }
        },
        members(pids) {
          if (!mine()) return;
          // Replaced whole, so a reader never sees half a list.
          const next = `${file}.${process.pid}`;
          writeFileSync(next, `${text(me)}\n${pids.map((pid) => text(identify(pid))).join(' ')}`);
          renameSync(next, file);
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const { owner, members } = parse(readFileSync(file, 'utf8'));
      if (owner && owner.pid !== process.pid && alive(owner))
        throw new StoreInUse(`another Flora process (pid ${owner.pid}) already serves the data directory ${dir} (to run several processes on it, start one with --workers N)`);
      let orphans = await stillRunning(members, ORPHANS_WAIT_MS);
      if (orphans.length) {
        log.warn(`stopping workers (pids ${orphans.map((p) => p.pid).join(', ')}) of a tier whose supervisor died (kill -9)`);
        for (const p of orphans) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        orphans = await stillRunning(orphans, ORPHANS_KILL_MS);
      }
      if (orphans.length)
        throw new StoreInUse(`workers (pids ${orphans.map((p) => p.pid).join(', ')}) of a Flora tier whose supervisor died still use the data directory ${dir}; stop them first`);
      unlinkSync(file); // its processes are gone: a stale lock
    }
  }
  throw new StoreInUse(`could not take the lock of the data directory ${dir}`);
}

/** Those of `procs` still running after waiting up to `ms` for them to exit. */
async function stillRunning(procs: Proc[], ms: number): Promise<Proc[]> {
  const deadline = Date.now() + ms;
  let left = procs.filter(alive);
  if (left.length) log.warn(`waiting for workers (pids ${left.map((p) => p.pid).join(', ')}) of a tier whose supervisor died to stop`);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(alive);
  }
  return left;
}
