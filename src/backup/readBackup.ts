// Reads a backup file (format.ts) as a stream: its header first, then its records in chunks, and
// at the end the trailer's count and SHA-256 checked against what was read. Every way a file can
// be wrong (not gzip, not a backup, cut short, a flipped byte) ends in a BackupError that says
// what and where, before or instead of a record that is not the one written.

import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { KV } from '../storage/engine';
import { BackupError, RecordDecoder, type BackupHeader, type BackupTrailer } from './format';

export interface BackupReading {
  header: BackupHeader;
  /** The records in key order, a chunk at a time; iterate once. Ends only once the trailer checked out. */
  records: AsyncIterable<KV[]>;
  /** The trailer, once `records` has ended. */
  trailer(): BackupTrailer;
}

/** Opens the backup that `input` (the compressed bytes) holds; resolves once its header is read. */
export async function openBackup(input: Readable): Promise<BackupReading> {
  let compressed = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (compressed === 0 && chunk.length >= 2 && (chunk[0] !== 0x1f || chunk[1] !== 0x8b)) {
        done(new BackupError('not a Flora backup (the file is not gzip data)'));
        return;
      }
      compressed += chunk.length;
      done(null, chunk);
    },
  });
  const gunzip = createGunzip();
  input.on('error', (e) => counter.destroy(e));
  counter.on('error', (e) => gunzip.destroy(e));
  input.pipe(counter).pipe(gunzip);
  const decoder = new RecordDecoder();
  const pieces = gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;

  /** The next decompressed piece, or undefined at the end; zlib's failures said the backup's way. */
  const next = async (): Promise<Buffer | undefined> => {
    try {
      const r = await pieces.next();
      return r.done ? undefined : r.value;
    } catch (e) {
      throw explain(e, compressed);
    }
  };

  let early: KV[] = [];
  while (!decoder.header) {
    const piece = await next();
    if (piece === undefined) {
      if (compressed === 0) throw new BackupError('the backup file is empty');
      decoder.end(); // throws: truncated inside the header
    } else {
      early = early.concat(decoder.push(piece));
    }
  }
  let trailer: BackupTrailer | undefined;
  async function* records(): AsyncGenerator<KV[]> {
    if (early.length > 0) yield early;
    early = [];
    for (;;) {
      const piece = await next();
      if (piece === undefined) break;
      const out = decoder.push(piece);
      if (out.length > 0) yield out;
    }
    trailer = decoder.end();
  }
  return {
    header: decoder.header,
    records: records(),
    trailer: () => {
      if (!trailer) throw new Error('the records have not all been read');
      return trailer;
    },
  };
}

function explain(e: unknown, compressed: number): Error {
  if (e instanceof BackupError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(err.message ?? ''))
    return new BackupError(`the backup is truncated: its compressed data ends early (after ${compressed} bytes)`);
  if (typeof err.code === 'string' && err.code.startsWith('Z_'))
    return new BackupError(`the backup is corrupt near byte ${compressed} of the file: ${err.message}`);
  return err instanceof Error ? err : new Error(String(e));
}
