// The backup API on the main port (issue 18, part 3; the file format: src/backup/format.ts):
//
//   GET  /api/v1/backup                 the whole store as a backup stream, consistent at one point
//                                       (x-flora-backup-ts: its transaction time)
//   POST /api/v1/backups                start a backup into a file in the data directory → {id, state}
//   GET  /api/v1/backups                the backup jobs, newest first → {jobs: […]} (at most 100)
//   GET  /api/v1/backups/<id>           its state and progress (records, bytes); `download` once Complete
//   GET  /api/v1/backups/<id>/file      the file of a Complete job
//
// Bearer: the root secret or an admin key of the top database only (a backup holds every
// database). Errors are `{"message": …}` as in the log-export API: 401 missing or invalid
// credentials, 403 another secret, 404 an unknown job or path, 405 another method (with Allow),
// 409 a job not Complete yet, 429 (with Retry-After) as many backups running as --jobs-running,
// 503 the store unreachable. The bodies stream straight to the response (no JSON Outcome), as the
// log-export downloads do. Finished backups go after --job-retention-days (server/jobHousekeeping.ts;
// unlisted from then on) and beyond --jobs-kept.

import type { Readable, Writable } from 'node:stream';
import type { QueryService } from '../fql/api';
import { BackupJobs, type BackupJob } from '../backup/jobs';
import { TooManyJobs, type JobLimits } from '../jobs/jobFiles';
import { BACKUP_SUFFIX, type EngineKind } from '../backup/format';
import { backupHeader, writeBackup } from '../backup/writeBackup';
import { asAdmin, LogApiError, storeUnavailable } from '../logs/access';
import type { RequestLogger } from '../logs/types';
import { StorageUnavailable } from '../storage/engine';
import type { Store } from '../storage/types';
import type { RequestContext } from './context';
import { responseTraceparent } from './headers';
import type { AnyResponse } from './listener';
import { pipeFile, sendJson, sendJsonBody } from './logsDownload';

const STREAM = '/api/v1/backup';
const JOBS = '/api/v1/backups';
const JOB = /^\/api\/v1\/backups\/([^/]+)$/;
const JOB_FILE = /^\/api\/v1\/backups\/([^/]+)\/file$/;
/** Jobs a list answers at most (newest first). */
const LIST_LIMIT = 100;
const DENIED = 'Permission denied: a backup needs the root secret or an admin key of the top database.';

export function isBackupPath(path: string): boolean {
  return path === STREAM || path === JOBS || path.startsWith(`${JOBS}/`);
}

type Answer = { status: number; bytesOut: number };

function tooManyBackups(err: TooManyJobs): LogApiError {
  return new LogApiError(429, `Too many backups running: at most ${err.running} at once; try again once one is done.`, { 'retry-after': '5' });
}

export class BackupApi {
  /** Its jobs (kept by server/jobHousekeeping.ts). */
  readonly jobs: BackupJobs;

  constructor(
    private readonly service: QueryService,
    private readonly store: Store,
    dataDir: string,
    private readonly engine: EngineKind,
    limits: JobLimits,
  ) {
    this.jobs = new BackupJobs(dataDir, store, engine, limits);
  }

  /** Answers a request for a backup path on `res` and logs it. Never throws. */
  async serve(ctx: RequestContext, res: AnyResponse, logger: RequestLogger, startedMs: number): Promise<void> {
    const traceparent = responseTraceparent(ctx.headers.traceparent);
    let answer: Answer;
    try {
      answer = await this.route(ctx, res, traceparent);
    } catch (err) {
      const e = err instanceof LogApiError ? err : err instanceof StorageUnavailable ? storeUnavailable() : err instanceof TooManyJobs ? tooManyBackups(err) : undefined;
      if (!e) console.error(`flora: ${ctx.method} ${ctx.path} failed:`, err);
      if (res.headersSent) {
        res.destroy(); // a stream cut short: the client sees no valid trailer
        answer = { status: 200, bytesOut: 0 };
      } else {
        const status = e?.status ?? 500;
        answer = { status, bytesOut: sendJson(res, status, e?.message ?? 'Internal error.', { ...e?.headers, traceparent }) };
      }
    }
    logger.log({ method: ctx.method, headers: ctx.headers, ...answer, bytesIn: 0, queryTimeMs: Date.now() - startedMs, traceparent });
  }

  private async route(ctx: RequestContext, res: AnyResponse, traceparent: string): Promise<Answer> {
    ctx.discardBody(); // no endpoint takes a body
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const allowed = ctx.path === STREAM ? ['GET'] : ctx.path === JOBS ? ['GET', 'POST'] : JOB.test(ctx.path) || JOB_FILE.test(ctx.path) ? ['GET'] : undefined;
    if (!allowed) return this.fail(res, 404, 'Not found.', traceparent);
    if (!allowed.includes(method)) return this.fail(res, 405, `Method ${ctx.method} is not allowed here; use ${allowed.join(' or ')}.`, traceparent, { allow: allowed.join(', ') });
    await asAdmin(
      this.service,
      ctx.headers.authorization,
      async (_ctx, who) => {
        if (who.db !== 0n) throw new LogApiError(403, DENIED);
      },
      DENIED,
    );
    if (ctx.path === STREAM) return this.stream(ctx, res, traceparent);
    if (ctx.path === JOBS && method === 'GET') return this.json(res, 200, { jobs: (await this.jobs.list(LIST_LIMIT)).map((j) => this.view(j)) }, traceparent);
    if (ctx.path === JOBS) {
      const job = await this.jobs.start();
      return this.json(res, 202, this.view(job), traceparent);
    }
    const file = JOB_FILE.exec(ctx.path);
    const id = file?.[1] ?? JOB.exec(ctx.path)![1];
    const job = await this.jobs.get(id);
    if (!job) return this.fail(res, 404, `Backup '${id}' does not exist.`, traceparent);
    if (!file) return this.json(res, 200, this.view(job), traceparent);
    if (job.state !== 'Complete') return this.fail(res, 409, `Backup '${id}' is ${job.state}, not Complete: it has no file to download.`, traceparent);
    const { size, body } = await this.jobs.open(job);
    res.writeHead(200, {
      'content-type': 'application/gzip',
      'content-length': String(size),
      'content-disposition': `attachment; filename="${id}${BACKUP_SUFFIX}"`,
      'x-flora-backup-ts': job.issued_ts ?? '',
      traceparent,
    });
    return this.send(ctx, res, body);
  }

  /** GET /api/v1/backup: a snapshot now, streamed as it is read. */
  private async stream(ctx: RequestContext, res: AnyResponse, traceparent: string): Promise<Answer> {
    const snapshot = await this.store.openSnapshot();
    try {
      const header = await backupHeader(snapshot, this.engine);
      res.writeHead(200, {
        'content-type': 'application/gzip',
        'content-disposition': `attachment; filename="flora-${header.issued_ts}${BACKUP_SUFFIX}"`,
        'cache-control': 'no-store',
        'x-flora-backup-ts': header.issued_ts,
        traceparent,
      });
      if (ctx.method === 'HEAD') {
        res.end();
        return { status: 200, bytesOut: 0 };
      }
      const done = await writeBackup(snapshot, header, res as unknown as Writable);
      return { status: 200, bytesOut: done.bytes };
    } finally {
      await snapshot.close();
    }
  }

  private async send(ctx: RequestContext, res: AnyResponse, body: Readable): Promise<Answer> {
    if (ctx.method === 'HEAD') {
      body.destroy();
      res.end();
      return { status: 200, bytesOut: 0 };
    }
    return { status: 200, bytesOut: await pipeFile(body, res) };
  }

  private view(job: BackupJob): Record<string, unknown> {
    const { pid: _pid, ...out } = job;
    return job.state === 'Complete' ? { ...out, download: `${JOBS}/${job.id}/file` } : out;
  }

  private json(res: AnyResponse, status: number, body: unknown, traceparent: string): Answer {
    return { status, bytesOut: sendJsonBody(res, status, body, { traceparent }) };
  }

  private fail(res: AnyResponse, status: number, message: string, traceparent: string, headers?: Record<string, string>): Answer {
    return { status, bytesOut: sendJson(res, status, message, { ...headers, traceparent }) };
  }
}
