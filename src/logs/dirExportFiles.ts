// Export files in the log directory (`<logDir>/exports/files/<request_id>.jsonl.gz`): what a lone
// process and LMDB workers sharing the directory use. An attempt writes `<id>.<attempt>.jsonl.gz.tmp`
// and renames it into place when it completes, so a reader never sees a partial file, and the
// partial output of an attempt that died is recognised (and removed) by the next attempt.

import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import type { ExportFile, ExportFiles, ExportUpload } from './backend';

export class DirExportFiles implements ExportFiles {
  private ready: Promise<void> | undefined;

  constructor(readonly dir: string) {}

  /** The file of a completed export (whether or not it exists). */
  fileOf(id: string): string {
    return path.join(this.dir, `${id}.jsonl.gz`);
  }

  async create(id: string, attempt: number): Promise<ExportUpload> {
    await this.mkdir();
    await this.removeMatching((name) => name.startsWith(`${id}.`) && name.endsWith('.tmp'));
    const tmp = path.join(this.dir, `${id}.${attempt}.jsonl.gz.tmp`);
    const stream = createWriteStream(tmp);
    return {
      stream,
      commit: async () => {
        await rename(tmp, this.fileOf(id));
        return (await stat(this.fileOf(id))).size;
      },
      discard: async () => {
        stream.destroy();
        await unlink(tmp).catch(() => undefined);
      },
    };
  }

  async open(id: string): Promise<ExportFile | undefined> {
    // Size and content from one open file, even if the name is replaced meanwhile.
    let fh;
    try {
      fh = await open(this.fileOf(id), 'r');
    } catch {
      return undefined;
    }
    try {
      const { size } = await fh.stat();
      return { size, body: fh.createReadStream() }; // closes the file when done or destroyed
    } catch {
      await fh.close().catch(() => undefined);
      return undefined;
    }
  }

  async exists(id: string): Promise<boolean> {
    try {
      await stat(this.fileOf(id));
      return true;
    } catch {
      return false;
    }
  }

  async remove(id: string): Promise<void> {
    await this.removeMatching((name) => name.startsWith(`${id}.`));
  }

  async discardPartials(): Promise<void> {
    await this.removeMatching((name) => name.endsWith('.tmp'));
  }

  private mkdir(): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    return this.ready;
  }

  private async removeMatching(match: (name: string) => boolean): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) if (match(name)) await unlink(path.join(this.dir, name)).catch(() => undefined);
  }
}
