// Request bodies as text. What a body holds of the memory every request shares is counted as its
// bytes arrive, against the pool and the shares of its connection, secret and client address
// (context.ts readBody, bodyLedger.ts): a body that does not fit is refused with TooBusy (429). The
// body stays charged until the request lets go of it (ctx.releaseBody(): a query's turn) or ends.

import type { RequestContext } from './context';

/** The whole body as UTF-8 text, read within `limit` bytes (BodyTooLarge beyond) and the shares (TooBusy). */
export async function readBodyText(ctx: RequestContext, limit: number): Promise<string> {
  return (await readBodyUtf8(ctx, limit)).text;
}

/** readBodyText, with the body's size in bytes (x-query-bytes-in) as it arrived. */
export async function readBodyUtf8(ctx: RequestContext, limit: number): Promise<{ text: string; bytes: number }> {
  const body = await ctx.readBody(limit);
  return { text: body.toString('utf8'), bytes: body.length };
}
