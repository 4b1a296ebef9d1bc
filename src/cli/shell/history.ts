// The shell's history across sessions: one line per entry, oldest first, the newest MAX_ENTRIES
// kept, in ~/.flora_history (FLORA_HISTORY_FILE names another file; set empty, no history is kept).
// Written after every entry, so that a shell that is killed loses nothing.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const MAX_ENTRIES = 1000;

export function historyFilePath(env: NodeJS.ProcessEnv, home: string): string | undefined {
  if (env.FLORA_HISTORY_FILE !== undefined) return env.FLORA_HISTORY_FILE || undefined;
  return path.join(home, '.flora_history');
}

export class History {
  private constructor(
    private readonly file: string | undefined,
    private readonly entries: string[],
  ) {}

  /** The file's entries; a missing or unreadable file starts an empty history. */
  static load(file: string | undefined): History {
    let entries: string[] = [];
    if (file !== undefined) {
      try {
        entries = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
      } catch {
        // none yet (or unreadable: the shell works without)
      }
    }
    return new History(file, entries.slice(-MAX_ENTRIES));
  }

  /** Oldest first. */
  lines(): readonly string[] {
    return this.entries;
  }

  /** Adds a line (unless blank or the same as the last) and writes the file; a write failure is returned, not thrown. */
  add(line: string): Error | undefined {
    if (line.trim() === '' || line === this.entries[this.entries.length - 1]) return undefined;
    this.entries.push(line);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    if (this.file === undefined) return undefined;
    try {
      // A new file is 0600: queries may hold secrets and passwords.
      writeFileSync(this.file, this.entries.join('\n') + '\n', { mode: 0o600 });
      return undefined;
    } catch (e) {
      return e as Error;
    }
  }
}
