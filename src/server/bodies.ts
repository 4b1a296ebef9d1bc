// Request bodies are read into memory the process shares with every other request in flight
// (fql/budget.ts MemoryPool): a body is reserved before it is read, so that many large uploads at
// once get 429 rather than growing the process without bound.

import { TooBusy, type MemoryPool } from '../fql/budget';
import type { RequestContext } from './context';

/** What a body of undeclared length (chunked) reserves; the limit still caps what is read. */
const UNDECLARED_RESERVE = 256 * 1024;

/** The whole body as UTF-8 text, read within `limit` bytes (BodyTooLarge beyond) and the pool (TooBusy). */
export async function readBodyText(ctx: RequestContext, pool: MemoryPool, limit: number): Promise<string> {
  return (await readBodyUtf8(ctx, pool, limit)).text;
}

/** readBodyText, with the body's size in bytes (x-query-bytes-in) as it arrived. */
export async function readBodyUtf8(ctx: RequestContext, pool: MemoryPool, limit: number): Promise<{ text: string; bytes: number }> {
  const declared = Number(ctx.headers['content-length']);
  const want = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limit) : Math.min(UNDECLARED_RESERVE, limit);
  if (!pool.tryReserve(want)) {
    ctx.discardBody();
    throw new TooBusy();
  }
  try {
    const body = await ctx.readBody(limit);
    return { text: body.toString('utf8'), bytes: body.length };
  } finally {
    pool.release(want);
  }
}
