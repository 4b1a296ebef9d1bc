// A folder's names, where a folder not made yet (a data directory's folders are made on first use)
// is an empty one.

import { readdir } from 'node:fs/promises';

/** The names in folder `dir`; none when there is no such folder. */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
