// One output file of records, one JSON text per line, gzipped or not, streamed to disk with
// backpressure (a collection is never held), counting records and hashing the bytes as written.

import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

/** What the manifest says of a file: its path relative to the export's root, records, size and SHA-256. */
export interface WrittenFile {
  readonly path: string;
  readonly records: number;
  readonly bytes: number;
  readonly sha256: string;
}

export class LineFile {
  private readonly head: Transform;
  private readonly done: Promise<void>;
  private readonly hash = createHash('sha256');
  private bytesOut = 0;
  /** Bytes of JSON written so far (before compression). */
  textBytes = 0;
  records = 0;

  private constructor(
    readonly root: string,
    readonly rel: string,
    gzip: boolean,
  ) {
    this.head = gzip ? createGzip() : new PassThrough();
    const tap = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        this.hash.update(chunk);
        this.bytesOut += chunk.length;
        cb(null, chunk);
      },
    });
    this.done = pipeline(this.head, tap, createWriteStream(path.join(root, rel)));
    this.done.catch(() => undefined); // surfaced by write() or close()
  }

  /** Opens `<root>/<rel>` for writing (its directory made), replacing what is there. */
  static async open(root: string, rel: string, gzip: boolean): Promise<LineFile> {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    return new LineFile(root, rel, gzip);
  }

  /** Opens `<root>/<rel>`, has `fill` write it, and closes it; a failure in `fill` stops the file and is thrown. */
  static async fill(root: string, rel: string, gzip: boolean, fill: (file: LineFile) => Promise<void>): Promise<WrittenFile> {
    const file = await LineFile.open(root, rel, gzip);
    try {
      await fill(file);
    } catch (err) {
      file.abort();
      throw err;
    }
    return file.close();
  }

  async write(text: string): Promise<void> {
    const line = text + '\n';
    this.records++;
    this.textBytes += Buffer.byteLength(line);
    if (!this.head.write(line)) await Promise.race([once(this.head, 'drain'), this.done]);
  }

  /** Stops writing after a failure elsewhere: the file is left as it is, incomplete (no manifest names it). */
  abort(): void {
    this.head.destroy();
  }

  async close(): Promise<WrittenFile> {
    this.head.end();
    await this.done;
    return { path: this.rel, records: this.records, bytes: this.bytesOut, sha256: this.hash.digest('hex') };
  }
}
