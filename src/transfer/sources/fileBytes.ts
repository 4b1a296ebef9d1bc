// A data file as a stream of byte chunks, gunzipped when it holds gzip data. Whether to gunzip is
// decided by the magic bytes (what the file is), and a name that says `.gz` over bytes that are
// not gzip is a failure (one of the two is wrong, and guessing would misread the file).

import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Reading a file failed; `message` is the reason as a report shows it. */
export class ReadFailure extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b];

async function startsWithGzipMagic(file: string): Promise<{ gzip: boolean; empty: boolean }> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return { gzip: bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1], empty: bytesRead === 0 };
  } finally {
    await fh.close();
  }
}

/** Why a read or a gunzip failed, in words. */
export function failureReason(err: unknown): string {
  if (err instanceof ReadFailure) return err.message;
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(e?.message ?? '')) return 'gzip data ends early (truncated file)';
  if (e?.code === 'Z_DATA_ERROR') return `gzip data is corrupt (${e.message})`;
  if (e?.code === 'ENOENT') return 'file not found';
  return `read error: ${e?.message ?? String(err)}`;
}

/**
 * The file's (decompressed) bytes. Throws ReadFailure for an empty file or a `.gz` name over plain
 * bytes; errors while reading (a truncated or corrupt gzip stream, an I/O error) surface from the
 * iteration, after the chunks before them.
 */
export async function* fileChunks(file: string, onBytes?: (bytes: number) => void): AsyncGenerator<Buffer> {
  const { gzip, empty } = await startsWithGzipMagic(file);
  if (empty) throw new ReadFailure('empty file (0 bytes): not even the "[]" or newline that Fauna writes for no documents');
  if (file.endsWith('.gz') && !gzip) throw new ReadFailure('named .gz but does not hold gzip data');
  const raw = createReadStream(file, { highWaterMark: 256 * 1024 });
  if (onBytes) raw.on('data', (chunk) => onBytes(chunk.length));
  // pipeline destroys the gunzip stream with the source's error too, so one iteration sees both.
  const stream: Readable = gzip ? pipeline(raw, createGunzip(), () => {}) : raw;
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } finally {
    stream.destroy();
    raw.destroy();
  }
}
