// Export and import jobs on the main port (issue 18, part 4), in the log-export API's
// request-then-poll shape, for the dashboard and remote use (src/transfer/jobs.ts runs them):
//
//   POST /api/v1/exports                 {"database"?, "format"?, "history"?, "keys"?} → 202 the job
//   GET  /api/v1/exports                 the secret's database's export jobs, newest first → {jobs} (≤ 100)
//   GET  /api/v1/exports/<id>            its state and progress; once Complete, its files, each with
//                                        a `download` path
//   GET  /api/v1/exports/<id>/files/<p>  one file of a Complete export (p: as the job lists it)
//   POST /api/v1/imports?database=a/b    the body is one file (a driver dump: NDJSON or a JSON array,
//                                        gzipped or not, up to 64 MiB) → 202 the job
//   POST /api/v1/imports?path=/srv/x     a path on the server instead (root secret only)
//   GET  /api/v1/imports/<id>            its state and progress; once Complete, its report
//   GET  /api/v1/imports                 the secret's database's import jobs, newest first → {jobs} (≤ 100)
//
// Bearer: an admin secret (the root secret, or an admin key of any database); the job runs with
// it, in its database, and only a secret of that database sees the job. Errors are `{"message"}`
// as in the log-export API: 400 a bad parameter, 401, 403, 404, 405 (with Allow), 409 an export
// not Complete yet, 413 an upload too large.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import type { QueryService } from '../fql/api';
import { TooBusy } from '../fql/budget';
import { asAdmin, LogApiError } from '../logs/access';
import type { RequestLogger } from '../logs/types';
import { secretFromHeader } from '../model/auth';
import { TransferJobs, type ExportRequest, type TransferJob } from '../transfer/jobs';
import type { Transport } from '../transfer/queryClient';
import { BodyTooLarge, type RequestContext } from './context';
import { responseTraceparent } from './headers';
import type { AnyResponse } from './listener';
import { pipeFile, sendJson, sendJsonBody } from './logsDownload';

const EXPORTS = '/api/v1/exports';
const IMPORTS = '/api/v1/imports';
const JOB = /^\/api\/v1\/(exports|imports)\/([^/]+)$/;
const EXPORT_FILE = /^\/api\/v1\/exports\/([^/]+)\/files\/(.+)$/;
const UPLOAD_LIMIT = 64 * 1024 * 1024;
/** Jobs a list answers at most (newest first). */
const LIST_LIMIT = 100;
const FORMATS = ['flora', 'fauna-simple', 'fauna-tagged'];
const DENIED = 'Permission denied: exports and imports need the root secret or an admin key.';

export function isTransferPath(path: string): boolean {
  return path === EXPORTS || path === IMPORTS || path.startsWith(`${EXPORTS}/`) || path.startsWith(`${IMPORTS}/`);
}

/** The server's own queries: in process, as the request's secret. */
export function serviceTransport(service: QueryService): Transport {
  return async (body, authorization) => {
    const r = await service.query({ body, authorization, timeoutMs: 120_000 });
    return { status: r.status, text: typeof r.body === 'string' ? r.body : r.body.toString('utf8'), txnTs: r.txnTime };
  };
}

type Answer = { status: number; bytesOut: number };

export class TransferApi {
  private readonly jobs: TransferJobs;

  constructor(
    private readonly service: QueryService,
    dataDir: string,
  ) {
    this.jobs = new TransferJobs(dataDir, serviceTransport(service));
  }

  /** Answers a request for a transfer path on `res` and logs it. Never throws. */
  async serve(ctx: RequestContext, res: AnyResponse, logger: RequestLogger, startedMs: number): Promise<void> {
    const traceparent = responseTraceparent(ctx.headers.traceparent);
    let answer: Answer;
    let bytesIn = 0;
    try {
      answer = await this.route(ctx, res, traceparent, (n) => (bytesIn = n));
    } catch (caught) {
      // An upload past the memory left or its client's share (context.ts readBody): 429, as elsewhere.
      const err = caught instanceof TooBusy ? new LogApiError(429, 'Too many pending requests.', caught.headers) : caught;
      const e = err instanceof LogApiError ? err : err instanceof BodyTooLarge ? new LogApiError(413, `An upload is at most ${UPLOAD_LIMIT} bytes: import larger files with 'flora import'.`) : undefined;
      if (!e) console.error(`flora: ${ctx.method} ${ctx.path} failed:`, err);
      answer = { status: e?.status ?? 500, bytesOut: sendJson(res, e?.status ?? 500, e?.message ?? 'Internal error.', { ...e?.headers, traceparent }) };
    }
    logger.log({ method: ctx.method, headers: ctx.headers, ...answer, bytesIn, queryTimeMs: Date.now() - startedMs, traceparent });
  }

  private async route(ctx: RequestContext, res: AnyResponse, traceparent: string, bodyRead: (n: number) => void): Promise<Answer> {
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const allowed = ctx.path === EXPORTS || ctx.path === IMPORTS ? ['GET', 'POST'] : JOB.test(ctx.path) || EXPORT_FILE.test(ctx.path) ? ['GET'] : undefined;
    if (!allowed || !allowed.includes(method)) {
      ctx.discardBody();
      if (!allowed) return this.fail(res, 404, 'Not found.', traceparent);
      return this.fail(res, 405, `Method ${ctx.method} is not allowed here; use ${allowed.join(' or ')}.`, traceparent, { allow: allowed.join(', ') });
    }
    const { requester } = await asAdmin(this.service, ctx.headers.authorization, async () => undefined, DENIED).catch((e: unknown) => {
      ctx.discardBody();
      throw e;
    });
    const owner = requester.path.join('/');
    const secret = secretFromHeader(ctx.headers.authorization)!;
    if ((ctx.path === EXPORTS || ctx.path === IMPORTS) && method === 'GET') {
      const kind = ctx.path === EXPORTS ? 'export' : 'import';
      const jobs = await this.jobs.files.list((j) => j.kind === kind && j.owner === owner, LIST_LIMIT);
      return this.json(res, 200, { jobs: jobs.map((j) => this.view(j)) }, traceparent);
    }
    if (ctx.path === EXPORTS) {
      const req = exportRequest(await ctx.readBody(64 * 1024).then((b) => (bodyRead(b.length), b)));
      return this.json(res, 202, this.view(await this.jobs.startExport(secret, owner, req)), traceparent);
    }
    if (ctx.path === IMPORTS) {
      const database = ctx.query.get('database') ?? '';
      const path = ctx.query.get('path');
      if (path !== null) {
        ctx.discardBody();
        if (requester.path.length > 0) throw new LogApiError(403, 'Permission denied: importing from a path on the server needs the root secret.');
        return this.json(res, 202, this.view(await this.jobs.startImport(secret, owner, database, { path })), traceparent);
      }
      const body = await ctx.readBody(UPLOAD_LIMIT);
      bodyRead(body.length);
      if (body.length === 0) throw new LogApiError(400, 'The body is the file to import (or give ?path=… on the server).');
      return this.json(res, 202, this.view(await this.jobs.startImport(secret, owner, database, { body })), traceparent);
    }
    const file = EXPORT_FILE.exec(ctx.path);
    const [, kind, id] = file ? ['', 'exports', file[1]] : JOB.exec(ctx.path)!;
    const job = await this.jobs.files.get(id);
    // Another database's job is as good as absent.
    if (!job || job.kind !== (kind === 'exports' ? 'export' : 'import') || job.owner !== owner) return this.fail(res, 404, `No ${kind.slice(0, -1)} '${id}'.`, traceparent);
    if (!file) return this.json(res, 200, this.view(job), traceparent);
    if (job.state !== 'Complete') return this.fail(res, 409, `Export '${id}' is ${job.state}, not Complete.`, traceparent);
    const rel = decodedPath(file[2]);
    // Only the files the job lists (and its manifest), never a path out of its tree.
    const listed = rel !== undefined && (rel === 'manifest.json' || job.files?.some((f) => f.path === rel));
    const full = rel === undefined ? '' : normalize(join(this.jobs.treeOf(job), rel));
    if (!listed || !full.startsWith(this.jobs.treeOf(job) + sep)) return this.fail(res, 404, `Export '${id}' has no file '${rel ?? file[2]}'.`, traceparent);
    const { size } = await stat(full);
    res.writeHead(200, {
      'content-type': rel.endsWith('.gz') ? 'application/gzip' : rel.endsWith('.json') ? 'application/json' : 'application/x-ndjson',
      'content-length': String(size),
      traceparent,
    });
    if (ctx.method === 'HEAD') {
      res.end();
      return { status: 200, bytesOut: 0 };
    }
    return { status: 200, bytesOut: await pipeFile(createReadStream(full), res) };
  }

  private view(job: TransferJob): Record<string, unknown> {
    const { pid: _pid, owner: _owner, ...out } = job;
    if (job.kind !== 'export' || job.state !== 'Complete') return out;
    return { ...out, files: [{ path: 'manifest.json' }, ...(job.files ?? [])].map((f) => ({ ...f, download: `${EXPORTS}/${job.id}/files/${f.path}` })) };
  }

  private json(res: AnyResponse, status: number, body: unknown, traceparent: string): Answer {
    return { status, bytesOut: sendJsonBody(res, status, body, { traceparent }) };
  }

  private fail(res: AnyResponse, status: number, message: string, traceparent: string, headers?: Record<string, string>): Answer {
    return { status, bytesOut: sendJson(res, status, message, { ...headers, traceparent }) };
  }
}

/** A path segment's %-escapes decoded; undefined when one is malformed (`%E0`: no such file). */
function decodedPath(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The export request's JSON body (empty: the defaults), or a 400 saying what is wrong. */
function exportRequest(body: Buffer): ExportRequest {
  let json: Record<string, unknown> = {};
  if (body.length > 0) {
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new LogApiError(400, 'The body must be a JSON object: {"database"?, "format"?, "history"?, "keys"?}.');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new LogApiError(400, 'The body must be a JSON object.');
  }
  for (const k of Object.keys(json)) if (!['database', 'format', 'history', 'keys'].includes(k)) throw new LogApiError(400, `Unknown field '${k}'.`);
  const { database = '', format = 'flora', history = false, keys = false } = json;
  if (typeof database !== 'string') throw new LogApiError(400, "'database' must be a path string such as \"app/tenant\".");
  if (typeof format !== 'string' || !FORMATS.includes(format)) throw new LogApiError(400, `'format' must be one of ${FORMATS.join(', ')}.`);
  if (typeof history !== 'boolean' || typeof keys !== 'boolean') throw new LogApiError(400, "'history' and 'keys' must be true or false.");
  if (format !== 'flora' && (history || keys)) throw new LogApiError(400, "'history' and 'keys' go with the flora format only.");
  return { database, format: format as ExportRequest['format'], history, keys };
}
