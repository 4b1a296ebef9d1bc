// One owner per LMDB data directory: a single Flora process, or the supervisor of a `--workers` tier
// (whose workers share the store through its shared mode, store.ts). A process started on its own
// would commit in local mode, which only holds while nobody else writes, so it is kept out. A lock
// file holding the owner's pid does it; a lock whose process is gone (kill -9, power cut) is taken
// over.

import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoreInUse } from './engine';


function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Takes `<dir>/flora.lock` or throws StoreInUse; returns the release. */
export function lockDirectory(dir: string): () => void {
  const file = join(dir, 'flora.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner))
        throw new StoreInUse(`another Flora process (pid ${owner}) already serves the data directory ${dir} (to run several processes on it, start one with --workers N)`);
      unlinkSync(file); // its owner is gone: a stale lock
    }
  }
  throw new StoreInUse(`could not take the lock of the data directory ${dir}`);
}
