// Whether a process id names a live process, for the lock and job files that record their owner's pid.

/** True when a process with this pid exists (one owned by another user included: EPERM). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
