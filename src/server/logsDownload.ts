// Presigned downloads of export files: `GET /api/v1/logs/<id>/<id>.jsonl.gz?version&expires&signature`.
// No Authorization: the HMAC signature is the permission (logs/signing.ts). A wrong or missing
// signature and an expired URL are 403 (as an object store answers), a request or file that is gone
// 404, the store or the database holding the file unreachable 503. The file (in the log directory, or
// in PostgreSQL: any process of a tier serves any download) is streamed straight to the response,
// so it is written outside the JSON Outcome path.

import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import type { ExportFile } from '../logs/backend';
import { StorageUnavailable } from '../storage/engine';
import type { LogSystem } from '../logs/index';
import type { RequestLogger } from '../logs/types';
import type { RequestContext } from './context';
import { responseTraceparent } from './headers';
import type { AnyResponse } from './listener';

const DOWNLOAD = /^\/api\/v1\/logs\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/\1\.jsonl\.gz$/;

export function isDownloadPath(path: string): boolean {
  return DOWNLOAD.test(path);
}

/** Answers a download request on `res` and logs it. Never throws. */
export async function serveDownload(logs: LogSystem, ctx: RequestContext, res: AnyResponse, logger: RequestLogger, startedMs: number): Promise<void> {
  let status = 500;
  let bytesOut = 0;
  let ts: number;
  // Like every other response, this one carries the traceparent its record has.
  const traceparent = responseTraceparent(ctx.headers.traceparent);
  try {
    ({ status, bytesOut, ts } = await answer(logs, ctx, res, traceparent));
  } catch {
    ts = Date.now();
    if (!res.headersSent) {
      status = 500;
      sendJson(res, 500, 'Internal error.', { traceparent });
    } else {
      res.destroy();
    }
  }
  logger.log({
    ts,
    method: ctx.method,
    path: ctx.path,
    headers: ctx.headers,
    status,
    bytesIn: 0,
    bytesOut,
    queryTimeMs: ts - startedMs,
    traceparent,
  });
}

/**
 * Status, bytes sent, and the record's TS: for an error, when it was decided (before it was sent);
 * for a file, when the transfer ended (the record is written then, and an export may already have
 * covered any earlier time), as for a stream.
 */
async function answer(
  logs: LogSystem,
  ctx: RequestContext,
  res: AnyResponse,
  traceparent: string,
): Promise<{ status: number; bytesOut: number; ts: number }> {
  const fail = (status: number, message: string, headers?: Record<string, string>) => {
    const ts = Date.now();
    const bytesOut = sendJson(res, status, message, { ...headers, traceparent });
    return { status, bytesOut, ts };
  };
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return fail(405, 'Only GET is allowed here.', { allow: 'GET' });
  const id = DOWNLOAD.exec(ctx.path)![1];
  const verdict = logs.signer.verify(ctx.path, ctx.query, Date.now());
  if (verdict === 'invalid') return fail(403, 'The URL signature is invalid.');
  if (verdict === 'expired') return fail(403, 'The URL has expired; poll the request again for a new one.');
  let file: ExportFile | undefined;
  try {
    // Fresh: the URL may have been minted by another process a moment ago.
    const job = await logs.jobs.get(id, true);
    if (job && (job.state === 'Complete' || job.state === 'CreatingNewUrl')) file = await logs.files.open(id, job.attempts);
  } catch (err) {
    if (err instanceof StorageUnavailable) return fail(503, 'The log store is unavailable right now; try again shortly.', { 'retry-after': '1' });
    throw err;
  }
  if (!file) return fail(404, 'The export file does not exist (any more).');
  const { size, body: input } = file;
  res.writeHead(200, {
    'content-type': 'application/gzip',
    'content-length': String(size),
    'content-disposition': `attachment; filename="${id}.jsonl.gz"`,
    'cache-control': 'private, max-age=0',
    traceparent,
  });
  if (ctx.method === 'HEAD') {
    input.destroy();
    const ts = Date.now();
    res.end();
    return { status: 200, bytesOut: 0, ts };
  }
  const bytesOut = await pipeFile(input, res);
  return { status: 200, bytesOut, ts: Date.now() };
}

/** Sends a file's stream as the body of a response whose head is written; the bytes sent. */
export async function pipeFile(input: NodeJS.ReadableStream & { destroy(): void }, res: AnyResponse): Promise<number> {
  let bytesOut = 0;
  input.on('data', (c: Buffer) => (bytesOut += c.length));
  const piped = pipeline(input, res as NodeJS.WritableStream);
  piped.catch(() => undefined); // seen through the race below
  try {
    // Done when the response has ended (not when the file is closed, later): the record is written
    // before a next request on the connection is answered.
    await Promise.race([once(res, 'finish'), piped]);
  } catch {
    // The client went away, perhaps right after the last byte: it still got a 200.
    res.destroy();
  }
  input.destroy(); // a client gone early: stop reading
  return bytesOut;
}

/** Answers `{"message"}` with `status`, unless the response is already under way; the bytes sent. */
export function sendJson(res: AnyResponse, status: number, message: string, headers: Record<string, string> = {}): number {
  return sendJsonBody(res, status, { message }, headers);
}

/** `body` as the JSON answer (unless one was begun already); the bytes sent. */
export function sendJsonBody(res: AnyResponse, status: number, value: unknown, headers: Record<string, string> = {}): number {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  if (res.headersSent || res.writableEnded) return 0;
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', 'content-length': String(body.length), ...headers });
  res.end(body);
  return body.length;
}
