// An upload (POST /api/v1/imports) written to a file as it arrives, never whole in memory: each
// chunk is reserved from the memory pool every request in flight shares while it is being written
// (TooBusy when it does not fit), so many uploads at once cost the pool what they buffer, not what
// they declare.

import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { TooBusy, type MemoryPool } from '../model/budget';
import type { RequestContext } from './context';

/** Bytes kept from the start of an upload to tell what it holds. */
const SNIFF = 64;

/**
 * The request's body saved into `dir` (created), named by what it holds (gzip, a JSON array, or
 * lines) so the import's readers take it: its path and size. Rejects as ctx.pipeBody does
 * (BodyTooLarge beyond `limit`, BodyTimeout, ClientClosed…), with TooBusy, or with the file's own
 * error (ENOSPC, EIO…), the file removed.
 */
export async function saveUpload(ctx: RequestContext, pool: MemoryPool, limit: number, dir: string): Promise<{ path: string; bytes: number }> {
  await mkdir(dir, { recursive: true });
  const part = join(dir, 'upload.part');
  let head = Buffer.alloc(0);
  try {
    const file = await open(part, 'w');
    /** The write in progress (at most one: the request waits for it). */
    let writing: Promise<void> = Promise.resolve();
    const write = (chunk: Buffer): Promise<void> => {
      if (!pool.tryReserve(chunk.length)) return Promise.reject(new TooBusy());
      if (head.length < SNIFF) head = Buffer.concat([head, chunk.subarray(0, SNIFF - head.length)]);
      writing = writeAll(file, chunk).finally(() => pool.release(chunk.length));
      return writing;
    };
    let bytes: number;
    try {
      bytes = await ctx.pipeBody(limit, write);
    } finally {
      // The body may fail (a timeout, the client gone) while a chunk is being written.
      await writing.catch(() => undefined);
      await file.close();
    }
    const gzip = head[0] === 0x1f && head[1] === 0x8b;
    const array = !gzip && head.toString('utf8').trimStart().startsWith('[');
    const named = join(dir, gzip ? 'upload.ndjson.gz' : array ? 'upload.json' : 'upload.ndjson');
    await rename(part, named);
    return { path: named, bytes };
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
}

/** All of `chunk` written at the file's position (a write may take only part of it). */
async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  for (let at = 0; at < chunk.length; ) at += (await file.write(chunk, at)).bytesWritten;
}
