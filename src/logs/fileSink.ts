// The query log's hour files as the writer's sink: appends go to the hour's file (this process's own
// file when the directory is shared, files.ts), which stays open while the hour lasts.

import { mkdir, open, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import type { LogSink } from './backend';
import { fileNameOfHour, TAG_RE } from './files';

export class FileSink implements LogSink {
  private file: { hour: string; fh: FileHandle } | undefined;
  private dirReady = false;

  /** `tag`: this process's part of the file names, when other processes write to `dir` too. */
  constructor(
    private readonly dir: string,
    private readonly tag?: string,
  ) {
    if (tag !== undefined && !TAG_RE.test(tag)) throw new Error(`invalid query log tag '${tag}'`);
  }

  where(hour: string): string {
    return path.join(this.dir, fileNameOfHour(hour, this.tag));
  }

  async write(hour: string, buffers: Buffer[]): Promise<void> {
    try {
      const fh = await this.fileFor(hour);
      let left = buffers;
      // writev may write less than asked; continue where it stopped.
      while (left.length) {
        const { bytesWritten } = await fh.writev(left);
        let n = bytesWritten;
        while (left.length && n >= left[0].length) {
          n -= left[0].length;
          left = left.slice(1);
        }
        if (left.length && n > 0) left = [left[0].subarray(n), ...left.slice(1)];
      }
    } catch (err) {
      await this.closeFile(false); // opened afresh next time
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.closeFile(true);
  }

  private async fileFor(hour: string): Promise<FileHandle> {
    if (this.file?.hour === hour) return this.file.fh;
    await this.closeFile(false);
    if (!this.dirReady) {
      await mkdir(this.dir, { recursive: true });
      this.dirReady = true;
    }
    const fh = await open(this.where(hour), 'a+');
    try {
      // A crash can leave a torn last line; start on a fresh line so that the next record stays whole.
      const { size } = await fh.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await fh.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await fh.appendFile('\n');
      }
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    this.file = { hour, fh };
    return fh;
  }

  private async closeFile(sync: boolean): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (!file) return;
    try {
      if (sync) await file.fh.datasync();
    } catch {
      // best effort
    }
    await file.fh.close().catch(() => undefined);
  }
}
