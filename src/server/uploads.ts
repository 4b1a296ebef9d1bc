// An upload (POST /api/v1/imports) written to a file as it arrives, never whole in memory: each
// chunk is reserved from the memory pool every request in flight shares while it is being written
// (TooBusy when it does not fit), so many uploads at once cost the pool what they buffer, not what
// they declare.

import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TooBusy, type MemoryPool } from '../fql/budget';
import type { RequestContext } from './context';

/** Bytes kept from the start of an upload to tell what it holds. */
const SNIFF = 64;

/**
 * The request's body saved into `dir` (created), named by what it holds (gzip, a JSON array, or
 * lines) so the import's readers take it: its path and size. Rejects as ctx.pipeBody does
 * (BodyTooLarge beyond `limit`, BodyTimeout, ClientClosed…) or with TooBusy, the file removed.
 */
export async function saveUpload(ctx: RequestContext, pool: MemoryPool, limit: number, dir: string): Promise<{ path: string; bytes: number }> {
  await mkdir(dir, { recursive: true });
  const part = join(dir, 'upload.part');
  const out = createWriteStream(part);
  let head = Buffer.alloc(0);
  /** The write in progress (at most one: the request waits for it). */
  let pending: Promise<void> = Promise.resolve();
  const write = (chunk: Buffer): Promise<void> => {
    if (!pool.tryReserve(chunk.length)) return Promise.reject(new TooBusy());
    if (head.length < SNIFF) head = Buffer.concat([head, chunk.subarray(0, SNIFF - head.length)]);
    pending = new Promise<void>((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve()))).finally(() => pool.release(chunk.length));
    return pending;
  };
  try {
    const bytes = await ctx.pipeBody(limit, write);
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const gzip = head[0] === 0x1f && head[1] === 0x8b;
    const array = !gzip && head.toString('utf8').trimStart().startsWith('[');
    const named = join(dir, gzip ? 'upload.ndjson.gz' : array ? 'upload.json' : 'upload.ndjson');
    await rename(part, named);
    return { path: named, bytes };
  } catch (e) {
    await pending.catch(() => undefined);
    out.destroy();
    await rm(part, { force: true });
    throw e;
  }
}
