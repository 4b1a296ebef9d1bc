// One owner per LMDB data directory: a single Flora process, or the supervisor of a `--workers` tier
// (whose workers share the store through its shared mode, store.ts). A process started on its own
// would commit in local mode, which only holds while nobody else writes, so it is kept out. A lock
// file holding the owner's pid does it, and a tier's supervisor adds its workers' pids: a lock
// whose processes are all gone (kill -9, power cut) is taken over. A supervisor killed outright
// leaves workers that are still stopping (they stop once they see it gone); the lock is taken over
// only after they have.

import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoreInUse } from './engine';

/**
 * How long a new owner waits for the workers of a dead supervisor to stop. Generous: a process
 * killed in the middle of a disk flush exits only once the flush is done.
 */
const ORPHANS_WAIT_MS = Number(process.env.FLORA_TEST_ORPHANS_WAIT_MS ?? 60_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
  // A zombie (killed, not yet reaped: its parent died and init reaps when it gets to it) holds
  // nothing any more; where /proc is there to tell, it is gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self'); // no /proc here: kill(0) said it is there; else it just exited
  }
}

export interface DirLock {
  release(): void;
  /** Records the processes that work on the directory beside the owner (a tier's workers). */
  members(pids: readonly number[]): void;
}

/** `owner` on the first line, the members after it. */
function parse(text: string): { owner: number; members: number[] } {
  const [first = '', rest = ''] = text.split('\n', 2);
  return { owner: Number(first), members: rest.split(' ').filter(Boolean).map(Number).filter((n) => Number.isInteger(n) && n > 0) };
}

/** Takes `<dir>/flora.lock` or throws StoreInUse. */
export async function lockDirectory(dir: string): Promise<DirLock> {
  const file = join(dir, 'flora.lock');
  const mine = () => {
    try {
      return parse(readFileSync(file, 'utf8')).owner === process.pid;
    } catch {
      return false;
    }
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
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
          writeFileSync(next, `${process.pid}\n${pids.join(' ')}`);
          renameSync(next, file);
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const { owner, members } = parse(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner))
        throw new StoreInUse(`another Flora process (pid ${owner}) already serves the data directory ${dir} (to run several processes on it, start one with --workers N)`);
      const orphans = await stillRunning(members);
      if (orphans.length)
        throw new StoreInUse(`workers (pids ${orphans.join(', ')}) of a Flora tier whose supervisor died still use the data directory ${dir}; stop them first`);
      unlinkSync(file); // its processes are gone: a stale lock
    }
  }
  throw new StoreInUse(`could not take the lock of the data directory ${dir}`);
}

/** The pids among `pids` still alive after waiting (bounded) for them to exit. */
async function stillRunning(pids: number[]): Promise<number[]> {
  const deadline = Date.now() + ORPHANS_WAIT_MS;
  let left = pids.filter(alive);
  if (left.length) process.stderr.write(`flora: waiting for workers (pids ${left.join(', ')}) of a tier whose supervisor died to stop\n`);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(alive);
  }
  return left;
}
