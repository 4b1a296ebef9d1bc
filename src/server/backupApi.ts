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
import type { JobLimits } from '../jobs/jobFiles';
import { BACKUP_SUFFIX, type EngineKind } from '../backup/format';
import { backupHeader, writeBackup } from '../backup/writeBackup';
import { asAdmin, LogApiError } from '../logs/access';
import type { RequestLogger } from '../logs/types';
import type { Store } from '../storage/types';
import type { RequestContext } from './context';
import { serveJobRequest, type Answer, type JobApiErrors, type Reply } from './jobRequest';
import type { AnyResponse } from './listener';
import { pipeFile } from './logsDownload';

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

const ERRORS: JobApiErrors = {
  tooManyJobs: (running) => `Too many backups running: at most ${running} at once; try again once one is done.`,
};

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

  /**
   * Answers a request for a backup path on `res` and logs it. Never throws. A stream cut short
   * (jobRequest.ts: the response destroyed) gives the client no valid trailer.
   */
  serve(ctx: RequestContext, res: AnyResponse, logger: RequestLogger, startedMs: number): Promise<void> {
    return serveJobRequest(ctx, res, logger, startedMs, ERRORS, (reply) => this.route(ctx, reply));
  }

  private async route(ctx: RequestContext, reply: Reply): Promise<Answer> {
    ctx.discardBody(); // no endpoint takes a body
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const allowed = ctx.path === STREAM ? ['GET'] : ctx.path === JOBS ? ['GET', 'POST'] : JOB.test(ctx.path) || JOB_FILE.test(ctx.path) ? ['GET'] : undefined;
    if (!allowed) return reply.fail(404, 'Not found.');
    if (!allowed.includes(method)) return reply.fail(405, `Method ${ctx.method} is not allowed here; use ${allowed.join(' or ')}.`, { allow: allowed.join(', ') });
    await asAdmin(
      this.service,
      ctx.headers.authorization,
      async (_ctx, who) => {
        if (who.db !== 0n) throw new LogApiError(403, DENIED);
      },
      DENIED,
    );
    if (ctx.path === STREAM) return this.stream(ctx, reply);
    if (ctx.path === JOBS && method === 'GET') return reply.json(200, { jobs: (await this.jobs.list(LIST_LIMIT)).map((j) => this.view(j)) });
    if (ctx.path === JOBS) return reply.json(202, this.view(await this.jobs.start()));
    const file = JOB_FILE.exec(ctx.path);
    const id = file?.[1] ?? JOB.exec(ctx.path)![1];
    const job = await this.jobs.get(id);
    if (!job) return reply.fail(404, `Backup '${id}' does not exist.`);
    if (!file) return reply.json(200, this.view(job));
    if (job.state !== 'Complete') return reply.fail(409, `Backup '${id}' is ${job.state}, not Complete: it has no file to download.`);
    const { size, body } = await this.jobs.open(job);
    reply.res.writeHead(200, {
      'content-type': 'application/gzip',
      'content-length': String(size),
      'content-disposition': `attachment; filename="${id}${BACKUP_SUFFIX}"`,
      'x-flora-backup-ts': job.issued_ts ?? '',
      traceparent: reply.traceparent,
    });
    return this.send(ctx, reply.res, body);
  }

  /** GET /api/v1/backup: a snapshot now, streamed as it is read. */
  private async stream(ctx: RequestContext, { res, traceparent }: Reply): Promise<Answer> {
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
}
