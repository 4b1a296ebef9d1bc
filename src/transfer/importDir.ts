// Which server paths an import may read (POST /api/v1/imports?path=…, the root secret only): those
// inside the configured import directory (--import-dir), once `..` and symlinks are resolved. A path
// refused for any reason (outside, missing, unreadable, a symlink out) is refused alike, so that
// the answer never tells whether a file exists.

import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The real path `requested` names (absolute, or relative to `dir`) when it is `dir` or inside it;
 * undefined otherwise, for whatever reason. Nothing outside `dir` is looked at: a path outside it
 * as written is refused before the file system is asked.
 */
export async function insideImportDir(dir: string, requested: string): Promise<string | undefined> {
  if (dir === '' || requested === '' || requested.includes('\0')) return undefined;
  const base = await realpath(dir).catch(() => undefined);
  if (base === undefined) return undefined;
  // As written, with `..` resolved: inside the directory as configured, or as it really is.
  const named = resolve(resolve(dir), requested);
  if (!within(resolve(dir), named) && !within(base, named)) return undefined;
  const real = await realpath(named).catch(() => undefined);
  return real !== undefined && within(base, real) ? real : undefined;
}

function within(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
