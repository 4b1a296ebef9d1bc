// The request shell of the job APIs (backups: backupApi.ts; exports and imports: transferApi.ts):
// the response's traceparent, the `{"message"}` answer to what a route throws, and the log line.
// Each API routes its paths and maps its own errors; this maps those every job API shares:
// LogApiError as it says, the store unreachable 503, too many jobs running 429 with Retry-After,
// anything else 500 (logged). An error after the head of a response was sent (a download cut short)
// destroys the response: the client sees the body end early, not a JSON answer inside it.

import { TooManyJobs } from '../jobs/jobFiles';
import { LogApiError, storeUnavailable } from '../logs/access';
import type { RequestLogger } from '../logs/types';
import { StorageUnavailable } from '../storage/engine';
import type { RequestContext } from './context';
import { responseTraceparent } from './headers';
import type { AnyResponse } from './listener';
import { sendJson, sendJsonBody } from './logsDownload';
import { log } from '../diag/log';

/** A database running its limit of jobs: when to try again. */
const JOBS_RETRY_AFTER_SECONDS = 5;

export interface Answer {
  status: number;
  bytesOut: number;
}

/** What a route answers with. */
export interface Reply {
  readonly res: AnyResponse;
  readonly traceparent: string;
  /** The request's body was read: its size, for the log line. */
  bodyRead(bytes: number): void;
  json(status: number, body: unknown): Answer;
  fail(status: number, message: string, headers?: Record<string, string>): Answer;
}

export interface JobApiErrors {
  /** The message of a 429 when the limit of `running` jobs runs. */
  tooManyJobs(running: number): string;
  /** The API's own errors; undefined: the shell's mapping. */
  own?(err: unknown, ctx: RequestContext): LogApiError | undefined;
}

/** Answers a request with `route` on `res` and logs it. Never throws. */
export async function serveJobRequest(
  ctx: RequestContext,
  res: AnyResponse,
  logger: RequestLogger,
  startedMs: number,
  errors: JobApiErrors,
  route: (reply: Reply) => Promise<Answer>,
): Promise<void> {
  const traceparent = responseTraceparent(ctx.headers.traceparent);
  let bytesIn = 0;
  const reply: Reply = {
    res,
    traceparent,
    bodyRead: (bytes) => void (bytesIn = bytes),
    json: (status, body) => ({ status, bytesOut: sendJsonBody(res, status, body, { traceparent }) }),
    fail: (status, message, headers) => ({ status, bytesOut: sendJson(res, status, message, { ...headers, traceparent }) }),
  };
  let answer: Answer;
  try {
    answer = await route(reply);
  } catch (err) {
    const e = apiError(err, ctx, errors);
    if (!e) log.error(`${ctx.method} ${ctx.path} failed`, { method: ctx.method, path: ctx.path, err });
    if (res.headersSent) {
      res.destroy();
      answer = { status: 200, bytesOut: 0 };
    } else {
      answer = reply.fail(e?.status ?? 500, e?.message ?? 'Internal error.', e?.headers);
    }
  }
  logger.log({ method: ctx.method, path: ctx.path, headers: ctx.headers, ...answer, bytesIn, queryTimeMs: Date.now() - startedMs, traceparent });
}

/** The answer to an error (undefined: an internal error, 500). */
function apiError(err: unknown, ctx: RequestContext, errors: JobApiErrors): LogApiError | undefined {
  if (err instanceof LogApiError) return err;
  if (err instanceof StorageUnavailable) return storeUnavailable();
  if (err instanceof TooManyJobs) return new LogApiError(429, errors.tooManyJobs(err.running), { 'retry-after': String(JOBS_RETRY_AFTER_SECONDS) });
  return errors.own?.(err, ctx);
}
