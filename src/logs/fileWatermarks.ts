// Watermarks (backend.ts) of processes sharing a log directory on one machine: each keeps
// `<logDir>/writers/<tag>.json` ({"through": ms}) up to date; a file not touched for WRITER_STALE_MS
// belongs to a process that died, and is not waited for (housekeeping removes it once it is a day old).

import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { WRITER_STALE_MS, type Watermarks } from './backend';

const FORGET_MS = 24 * 3_600_000;

export class FileWatermarks implements Watermarks {
  private ready: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly tag: string,
  ) {}

  private get file(): string {
    return path.join(this.dir, `${this.tag}.json`);
  }

  async publish(throughMs: number): Promise<void> {
    if (this.closed) return;
    this.ready ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    await this.ready;
    const tmp = `${this.file}.tmp`;
    await writeFile(tmp, JSON.stringify({ through: throughMs }));
    await rename(tmp, this.file);
  }

  async caughtUp(endMs: number): Promise<boolean> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return true;
    }
    const now = Date.now();
    for (const name of names) {
      if (!name.endsWith('.json') || name === `${this.tag}.json`) continue;
      const file = path.join(this.dir, name);
      try {
        if (now - (await stat(file)).mtimeMs > WRITER_STALE_MS) continue;
        const { through } = JSON.parse(await readFile(file, 'utf8')) as { through?: unknown };
        if (typeof through === 'number' && through < endMs) return false;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // that process just stopped
        return false; // unreadable for now: looked at again next time
      }
    }
    return true;
  }

  async prune(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    const now = Date.now();
    for (const name of names) {
      const file = path.join(this.dir, name);
      try {
        if (now - (await stat(file)).mtimeMs > FORGET_MS) await unlink(file);
      } catch {
        // gone meanwhile
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await unlink(this.file).catch(() => undefined);
  }
}
