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
//   POST /api/v1/imports?path=/srv/x     a file or folder on the server instead: the root secret only,
//                                        inside --import-dir (off by default)
//   GET  /api/v1/imports/<id>            its state and progress; once Complete, its report (the first
//                                        100 records not taken, where and why, and a count of the rest)
//   GET  /api/v1/imports                 the secret's database's import jobs, newest first → {jobs} (≤ 100)
//
// Bearer: an admin secret (the root secret, or an admin key of any database); the job runs with
// it, in its database, and only a secret of that database sees the job (transfer/jobs.ts: by the
// database's id, so a database created again under a deleted one's name sees none of its jobs). A
// job shows as `owner` its database's path now. A database runs at most --jobs-running jobs at once
// and keeps --jobs-kept (the oldest finished go first); finished jobs go after --job-retention-days.
// Errors are `{"message"}` as in the log-export API: 400 a bad parameter, 401, 403, 404, 405 (with
// Allow), 408 an upload that did not arrive in time, 409 an export not Complete yet, 413 an upload
// too large, 429 (with Retry-After) too many jobs running in the database, or no memory for the
// upload now, 503 the store unreachable (server/jobRequest.ts; a download that fails once under way
// is cut short).

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import type { QueryService } from '../fql/api';
import { DEFAULT_QUERY_TIMEOUT_MS, TooBusy } from '../model/budget';
import type { JobLimits } from '../jobs/jobFiles';
import { asAdmin, LogApiError, type Requester } from '../logs/access';
import type { RequestLogger } from '../logs/types';
import { secretFromHeader } from '../model/auth';
import { insideImportDir } from '../transfer/importDir';
import { TransferJobs, type ExportRequest, type TransferJob } from '../transfer/jobs';
import type { Transport } from '../transfer/queryClient';
import { BodyTimeout, BodyTooLarge, ClientClosed, MalformedRequest, type RequestContext } from './context';
import { serveJobRequest, type Answer, type JobApiErrors, type Reply } from './jobRequest';
import type { AnyResponse } from './listener';
import { pipeFile } from './logsDownload';
import { saveUpload } from './uploads';

const EXPORTS = '/api/v1/exports';
const IMPORTS = '/api/v1/imports';
const JOB = /^\/api\/v1\/(exports|imports)\/([^/]+)$/;
const EXPORT_FILE = /^\/api\/v1\/exports\/([^/]+)\/files\/(.+)$/;
const UPLOAD_LIMIT = 64 * 1024 * 1024;
/** Jobs a list answers at most (newest first). */
const LIST_LIMIT = 100;
const FORMATS = ['flora', 'fauna-simple', 'fauna-tagged'];
const DENIED = 'Permission denied: exports and imports need the root secret or an admin key.';
/** Every refused server path gets this answer, whatever the reason (outside, missing, a symlink out). */
const PATH_REFUSED = "Permission denied: 'path' must name a file or folder inside the server's import directory.";

export interface TransferSettings {
  dataDir: string;
  /** The folder server paths may be imported from; '' = none. */
  importDir: string;
  limits: JobLimits;
}

export function isTransferPath(path: string): boolean {
  return path === EXPORTS || path === IMPORTS || path.startsWith(`${EXPORTS}/`) || path.startsWith(`${IMPORTS}/`);
}

/** The server's own queries: in process, as the request's secret. */
export function serviceTransport(service: QueryService): Transport {
  return async (body, authorization) => {
    const r = await service.query({ body, authorization, timeoutMs: DEFAULT_QUERY_TIMEOUT_MS });
    return { status: r.status, text: typeof r.body === 'string' ? r.body : r.body.toString('utf8'), txnTs: r.txnTime };
  };
}

export class TransferApi {
  /** Its jobs (kept by server/jobHousekeeping.ts). */
  readonly jobs: TransferJobs;

  constructor(
    private readonly service: QueryService,
    private readonly settings: TransferSettings,
  ) {
    this.jobs = new TransferJobs(settings.dataDir, serviceTransport(service), settings.limits);
  }

  /** Answers a request for a transfer path on `res` and logs it. Never throws. */
  serve(ctx: RequestContext, res: AnyResponse, logger: RequestLogger, startedMs: number): Promise<void> {
    return serveJobRequest(ctx, res, logger, startedMs, ERRORS, (reply) => this.route(ctx, reply));
  }

  private async route(ctx: RequestContext, reply: Reply): Promise<Answer> {
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const allowed = ctx.path === EXPORTS || ctx.path === IMPORTS ? ['GET', 'POST'] : JOB.test(ctx.path) || EXPORT_FILE.test(ctx.path) ? ['GET'] : undefined;
    if (!allowed || !allowed.includes(method)) {
      ctx.discardBody();
      if (!allowed) return reply.fail(404, 'Not found.');
      return reply.fail(405, `Method ${ctx.method} is not allowed here; use ${allowed.join(' or ')}.`, { allow: allowed.join(', ') });
    }
    const { requester } = await asAdmin(this.service, ctx.headers.authorization, async () => undefined, DENIED).catch((e: unknown) => {
      ctx.discardBody();
      throw e;
    });
    const secret = secretFromHeader(ctx.headers.authorization)!;
    if ((ctx.path === EXPORTS || ctx.path === IMPORTS) && method === 'GET') {
      const kind = ctx.path === EXPORTS ? 'export' : 'import';
      const jobs = await this.jobs.of(requester.db).list((j) => j.kind === kind, LIST_LIMIT);
      return reply.json(200, { jobs: jobs.map((j) => this.view(j, requester)) });
    }
    if (ctx.path === EXPORTS) {
      const req = exportRequest(await ctx.readBody(64 * 1024).then((b) => (reply.bodyRead(b.length), b)));
      return reply.json(202, this.view(await this.jobs.startExport(secret, requester.db, req), requester));
    }
    if (ctx.path === IMPORTS) return this.startImport(ctx, reply, requester, secret);
    const file = EXPORT_FILE.exec(ctx.path);
    const [, kind, id] = file ? ['', 'exports', file[1]] : JOB.exec(ctx.path)!;
    // Only the asking database's folder is read: another database's job is as good as absent.
    const job = await this.jobs.of(requester.db).get(id);
    if (!job || job.kind !== (kind === 'exports' ? 'export' : 'import')) return reply.fail(404, `No ${kind.slice(0, -1)} '${id}'.`);
    if (!file) {
      const report = job.kind === 'import' && job.state === 'Complete' ? await this.jobs.report(requester.db, job) : undefined;
      return reply.json(200, { ...this.view(job, requester), ...(report !== undefined ? { report } : {}) });
    }
    if (job.state !== 'Complete') return reply.fail(409, `Export '${id}' is ${job.state}, not Complete.`);
    const rel = decodedPath(file[2]);
    // Only the files the job lists (and its manifest), never a path out of its tree.
    const listed = rel !== undefined && (rel === 'manifest.json' || job.files?.some((f) => f.path === rel));
    const tree = this.jobs.treeOf(requester.db, job);
    const full = rel === undefined ? '' : normalize(join(tree, rel));
    const noFile = () => reply.fail(404, `Export '${id}' has no file '${rel ?? file[2]}'.`);
    if (!listed || !full.startsWith(tree + sep)) return noFile();
    // The job may have been removed since it was read (past its retention, its database deleted).
    const size = await stat(full).then(
      (s) => s.size,
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return undefined;
        throw e;
      },
    );
    if (size === undefined) return noFile();
    const { res } = reply;
    res.writeHead(200, {
      'content-type': rel.endsWith('.gz') ? 'application/gzip' : rel.endsWith('.json') ? 'application/json' : 'application/x-ndjson',
      'content-length': String(size),
      traceparent: reply.traceparent,
    });
    if (ctx.method === 'HEAD') {
      res.end();
      return { status: 200, bytesOut: 0 };
    }
    return { status: 200, bytesOut: await pipeFile(createReadStream(full), res) };
  }

  /**
   * POST /api/v1/imports: the body saved into the job's tree as it arrives, or a server path (the
   * root secret only, inside the import directory); then the import runs. The job is made before
   * the body is read, so a database at its limit is refused without reading it.
   */
  private async startImport(ctx: RequestContext, reply: Reply, requester: Requester, secret: string): Promise<Answer> {
    const database = ctx.query.get('database') ?? '';
    const path = ctx.query.get('path');
    if (path !== null) {
      ctx.discardBody();
      // Nothing about the path is looked at before the secret may read server files at all.
      if (!requester.root || requester.db !== 0n) throw new LogApiError(403, 'Permission denied: importing from a path on the server needs the root secret.');
      if (this.settings.importDir === '') throw new LogApiError(403, 'Permission denied: importing from a path on the server is off; start Flora with --import-dir <folder> (FLORA_IMPORT_DIR).');
      const source = await insideImportDir(this.settings.importDir, path);
      if (source === undefined) throw new LogApiError(403, PATH_REFUSED);
      const job = await this.jobs.createImport(requester.db, database);
      return reply.json(202, this.view(this.jobs.runImport(requester.db, job, secret, source), requester));
    }
    const declared = ctx.headers['content-length'];
    if (declared === '0') {
      ctx.discardBody();
      throw new LogApiError(400, 'The body is the file to import (or give ?path=… on the server).');
    }
    if (declared !== undefined && Number(declared) > UPLOAD_LIMIT) {
      ctx.discardBody();
      throw new BodyTooLarge(UPLOAD_LIMIT);
    }
    const job = await this.jobs.createImport(requester.db, database).catch((e: unknown) => {
      ctx.discardBody();
      throw e;
    });
    let saved;
    try {
      saved = await saveUpload(ctx, this.service.pool, UPLOAD_LIMIT, this.jobs.treeOf(requester.db, job));
      reply.bodyRead(saved.bytes);
      if (saved.bytes === 0) throw new LogApiError(400, 'The body is the file to import (or give ?path=… on the server).');
    } catch (e) {
      await this.jobs.discard(requester.db, job);
      throw e;
    }
    return reply.json(202, this.view(this.jobs.runImport(requester.db, job, secret, saved.path), requester));
  }

  /** A job as the API shows it: with its database's path now (`owner`), without its process. */
  private view(job: TransferJob, owner: Requester): Record<string, unknown> {
    const { pid: _pid, ...rest } = job;
    const out = { ...rest, owner: owner.path.join('/') };
    if (job.kind !== 'export' || job.state !== 'Complete') return out;
    return { ...out, files: [{ path: 'manifest.json' }, ...(job.files ?? [])].map((f) => ({ ...f, download: `${EXPORTS}/${job.id}/files/${f.path}` })) };
  }
}

const ERRORS: JobApiErrors = {
  tooManyJobs: (running) => `Too many jobs running: a database runs at most ${running} export and import job(s) at once; try again once one is done.`,
  own: uploadError,
};

/** The answer to an upload's own errors (undefined: the shell's). */
function uploadError(err: unknown, ctx: RequestContext): LogApiError | undefined {
  if (err instanceof BodyTooLarge) return new LogApiError(413, `An upload is at most ${UPLOAD_LIMIT} bytes: import larger files with 'flora import'.`);
  if (err instanceof TooBusy) return new LogApiError(429, 'Too busy to take this upload now; try again shortly.', err.headers);
  // The rest of a late or broken HTTP/1.1 request cannot be told from a next request: close after.
  const close: Record<string, string> = ctx.protocol === 'http/1.1' ? { connection: 'close' } : {};
  if (err instanceof BodyTimeout) return new LogApiError(408, `The upload did not arrive within ${err.timeoutMs} ms.`, close);
  if (err instanceof MalformedRequest) return new LogApiError(err.status, 'The request is malformed.', close);
  if (err instanceof ClientClosed) return new LogApiError(400, 'The upload was cut off before its end.');
  return undefined;
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
