// The log-export API on the main port (DECISIONS #7; service.md "Log-export API"; log-export.md §B.2):
//
//   POST /api/v1/logs?type=query          request an export
//   GET  /api/v1/logs/<request_id>        poll it (presigned_url once Complete)
//   POST /api/v1/logs/_list?type=query    list requests (states, max_results, next_token)
//   GET  /api/v1/logs/<id>/<id>.jsonl.gz  the presigned download (served by logsDownload.ts)
//   GET  /api/v1/logs/_recent?type=query  Flora's own: the newest records, for a live view (the
//                                         dashboard's query log; docs/query-log-api.md)
//
// Bearer: the root secret or an admin key (which sees its database and the ones below it). Errors
// are `{"message": …}`: 400 bad input, 401 missing/invalid credentials, 403 not an admin, 404
// unknown database or request (the latter also with `"state": "DoesNotExist"`), 405 another method
// (with Allow), 413 body too large, 503 the store unreachable (PostgreSQL down: try again).
//
// Requests live in the store (logs/jobs.ts): any process of a tier answers about any request.

import { randomUUID } from 'node:crypto';
import type { QueryService } from '../fql/api';
import { asAdmin, LogApiError, resolvePath, storeUnavailable, subtreeOf, unauthorizedBearer, type Requester } from '../logs/access';
import { refuseUnauthenticated, type AuthFailure } from './authFirst';
import type { LogSystem } from '../logs/index';
import { decodeToken, isLogState, jobReads, listPage, LOG_STATES, type ExportJob, type LogState } from '../logs/jobs';
import { StorageUnavailable } from '../storage/engine';
import { ProtocolError } from '../values/errors';
import { TooBusy } from '../model/budget';
import type { LoggedDatabase } from '../logs/types';
import type { EvalContext } from '../fql/context';
import { BodyTooLarge, type RequestContext } from './context';
import type { Outcome } from './responses';
import type { Handler } from './router';

export const LOGS_PREFIX = '/api/v1/logs';
const RECENT = `${LOGS_PREFIX}/_recent`;
/** `_recent` reads at most this far back, and answers at most this many records. */
const MAX_RECENT_MINUTES = 24 * 60;
const DEFAULT_RECENT_MINUTES = 15;
const MAX_RECENT_LIMIT = 5000;
const DEFAULT_RECENT_LIMIT = 1000;
const BODY_LIMIT = 64 * 1024;
const MAX_RANGE_MS = 90 * 24 * 3_600_000;
const DEFAULT_MAX_RESULTS = 100;
const MAX_MAX_RESULTS = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([Zz]|[+-]\d{2}:?\d{2})$/;

export function isLogsPath(path: string): boolean {
  return path === LOGS_PREFIX || path.startsWith(`${LOGS_PREFIX}/`);
}

/**
 * Handlers by method for every path under /api/v1/logs: GET and POST, and any other method (`*`), so
 * that a wrong one gets this API's `{"message"}` 405 rather than the router's FQL-style error.
 */
export function logsApi(service: QueryService, logs: LogSystem | undefined): Record<string, Handler> {
  if (!logs) {
    const off: Handler = async () => message(404, 'The log-export API is not enabled on this server.');
    return { '*': off };
  }
  const api = new LogsApi(service, logs);
  const guard = (fn: (ctx: RequestContext) => Promise<Outcome>): Handler => async (ctx) => {
    try {
      return await fn(ctx);
    } catch (err) {
      if (err instanceof LogApiError) return fromError(err);
      if (err instanceof BodyTooLarge) return message(413, `The request body is larger than ${BODY_LIMIT} bytes.`);
      if (err instanceof TooBusy) return message(429, 'Too many pending requests.', undefined, err.headers);
      if (err instanceof StorageUnavailable) return fromError(storeUnavailable());
      // Changes to one request that kept colliding with other processes' (re-run several times).
      if (err instanceof ProtocolError && err.status === 409) return message(503, 'The log store is busy; try again.', undefined, { 'retry-after': '1' });
      throw err;
    }
  };
  const other: Handler = async (ctx) => pathOutcome(ctx.path, ctx.method);
  return {
    // Any method, also one Node does not know (HTTP/2 passes every token through).
    '*': other,
    POST: guard((ctx) => {
      if (ctx.path === LOGS_PREFIX) return api.create(ctx);
      if (ctx.path === `${LOGS_PREFIX}/_list`) return api.list(ctx);
      return Promise.resolve(pathOutcome(ctx.path, 'POST'));
    }),
    GET: guard((ctx) => {
      if (ctx.path === RECENT) return api.recent(ctx);
      const m = /^\/api\/v1\/logs\/([^/]+)$/.exec(ctx.path);
      // Not percent-decoded: a request id is a UUID, which needs no escapes.
      if (m && m[1] !== '_list') return api.get(ctx, m[1]);
      return Promise.resolve(pathOutcome(ctx.path, 'GET'));
    }),
  };
}

/** A whole-number query parameter from 1 to `max`, `fallback` when absent, else a 400. */
/**
 * The scope id of the database `names` (shown as `shown`) when it is the bearer's (`own`) or below
 * it; a 404 otherwise: a database outside the bearer's subtree is as unknown as one that does not exist.
 */
async function databaseWithin(ctx: EvalContext, own: bigint, names: readonly string[], shown: string): Promise<bigint> {
  const chain = await resolvePath(ctx, names);
  if (!chain || !chain.includes(own)) throw new LogApiError(404, `Database '${shown}' not found.`);
  return chain[chain.length - 1];
}

function intParam(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > max) throw new LogApiError(400, `${name} must be a whole number from 1 to ${max}.`);
  return n;
}

/** 405 for a known path with the other method, 404 otherwise. */
function pathOutcome(path: string, method: string): Outcome {
  const known = path === LOGS_PREFIX || path === `${LOGS_PREFIX}/_list` ? 'POST' : /^\/api\/v1\/logs\/[^/]+$/.test(path) ? 'GET' : undefined;
  if (known && known !== method) return message(405, `Method ${method} is not allowed here; use ${known}.`, undefined, { allow: known });
  return message(404, 'Not found.');
}

function fromError(e: LogApiError): Outcome {
  return message(e.status, e.message, undefined, e.headers);
}

function message(status: number, text: string, extra?: Record<string, unknown>, headers?: Record<string, string>): Outcome {
  return { status, body: JSON.stringify({ message: text, ...extra }), headers };
}

/** This API's 401, for a bearer refused before the body is read (as asAdmin words it). */
function bearerRefusal(why: AuthFailure): Outcome {
  const e = unauthorizedBearer(why === 'missing');
  return message(e.status, e.message, undefined, e.headers);
}

function ok(body: unknown, requester?: Requester): Outcome {
  return { status: 200, body: JSON.stringify(body), log: { database: requester && loggedDb(requester) } };
}

function loggedDb(r: Requester): LoggedDatabase {
  return { id: r.db, path: r.path };
}

/** What a create request comes to: the request a repeat names, or a new one to add. */
type Made = { existing: ExportJob; candidate?: undefined } | { existing?: undefined; candidate: ExportJob };

class LogsApi {
  constructor(
    private readonly service: QueryService,
    private readonly logs: LogSystem,
  ) {}

  private get regionGroup(): string {
    return this.logs.settings.regionGroup;
  }

  async create(ctx: RequestContext): Promise<Outcome> {
    const refused = await refuseUnauthenticated(this.service, ctx, bearerRefusal);
    if (refused) return refused;
    const text = (await ctx.readBody(BODY_LIMIT)).toString('utf8');
    const { result: made, requester } = await asAdmin(this.service, ctx.headers.authorization, async (ectx, who): Promise<Made> => {
      checkType(ctx.query, true);
      const req = this.parseCreate(text);
      const ownerDb = String(who.db);
      // A repeat is answered even if its database has gone since.
      const same = req.token ? await jobReads.idempotent(ectx.txn, ownerDb, req.token, Date.now()) : undefined;
      if (same) return { existing: same };
      const scopeDb = req.database ? await databaseWithin(ectx, who.db, req.database.names, req.database.path) : who.db;
      const now = Date.now();
      const job: ExportJob = {
        request_id: randomUUID(),
        state: 'Pending',
        time_start: new Date(req.startMs).toISOString(),
        time_end: new Date(req.endMs).toISOString(),
        start_ms: req.startMs,
        end_ms: req.endMs,
        ...(req.database ? { database: req.database.path } : { region_group: this.regionGroup }),
        scope_db: scopeDb === 0n ? null : String(scopeDb),
        owner_db: ownerDb,
        ...(req.token ? { idempotency_token: req.token } : {}),
        created_ms: now,
        updated_ms: now,
        version: 0,
        attempts: 0,
        creator: this.logs.holder,
      };
      return { candidate: job };
    });
    // Checked again atomically with the insert: two concurrent requests with one token (through any
    // processes) make one export.
    const { job, created } = made.existing ? { job: made.existing, created: false } : await this.logs.jobs.create(made.candidate);
    if (!created) return ok(this.view(await this.logs.runner.refreshUrl(job), ctx, 'get'), requester);
    const answer = ok(this.view(job, ctx, 'get'), requester); // Pending: the runner may move on at once
    this.logs.runner.submitted();
    return answer;
  }

  async get(ctx: RequestContext, id: string): Promise<Outcome> {
    const { result: found, requester } = await asAdmin(this.service, ctx.headers.authorization, async (ectx, who) => {
      checkType(ctx.query, false);
      const job = UUID.test(id) ? await jobReads.get(ectx.txn, id) : undefined;
      return job !== undefined && (await this.canSee(ectx, who, [job])).has(job.request_id) ? job : undefined;
    });
    if (!found) {
      return { ...message(404, `Log request '${id}' does not exist.`, { request_id: id, state: 'DoesNotExist' }), log: { database: loggedDb(requester) } };
    }
    const job = await this.logs.runner.refreshUrl(found);
    return ok(this.view(job, ctx, 'get'), requester);
  }

  /**
   * The newest records of the last `minutes` (default 15, at most a day), at most `limit` (default
   * 1000, at most 5000), newest first, of the bearer's database and the ones below it (`database`:
   * one of those and the ones below it). Records as in an export file, in `records`.
   */
  async recent(ctx: RequestContext): Promise<Outcome> {
    const { result: wanted, requester } = await asAdmin(this.service, ctx.headers.authorization, async (ectx, who) => {
      checkType(ctx.query, false);
      const minutes = intParam(ctx.query, 'minutes', DEFAULT_RECENT_MINUTES, MAX_RECENT_MINUTES);
      const limit = intParam(ctx.query, 'limit', DEFAULT_RECENT_LIMIT, MAX_RECENT_LIMIT);
      const database = ctx.query.get('database');
      const db = database !== null && database !== '' ? await databaseWithin(ectx, who.db, this.databaseNames(database), database) : who.db;
      // The root sees every record, also those of requests that named no database (refused secrets).
      const dbs = db === 0n ? null : new Set([...(await subtreeOf(ectx, db))].map(String));
      return { minutes, limit, dbs };
    });
    const lines = await this.logs.recent(Date.now() - wanted.minutes * 60_000, wanted.dbs, wanted.limit);
    const body = `{"region_group":${JSON.stringify(this.regionGroup)},"records":[${lines.join(',')}]}`;
    return { status: 200, body, log: { database: loggedDb(requester) } };
  }

  /** A `database` parameter's names below the region group (`us-std/a/b` → [a, b]), or a 400. */
  private databaseNames(path: string): string[] {
    const rg = this.regionGroup;
    const parts = path.replace(/^\/+|\/+$/g, '').split('/');
    if (parts.some((p) => p === '')) throw new LogApiError(400, `Invalid database path '${path}'.`);
    if (parts[0] !== rg) throw new LogApiError(400, `Unknown region group '${parts[0]}' in database path; this server's region group is '${rg}'.`);
    return parts.slice(1);
  }

  async list(ctx: RequestContext): Promise<Outcome> {
    const refused = await refuseUnauthenticated(this.service, ctx, bearerRefusal);
    if (refused) return refused;
    const text = (await ctx.readBody(BODY_LIMIT)).toString('utf8');
    const { result: wanted, requester } = await asAdmin(this.service, ctx.headers.authorization, async (ectx, who) => {
      checkType(ctx.query, true);
      const body = parseObject(text, true);
      let states: LogState[] | undefined;
      if (body.states !== undefined && body.states !== null) {
        if (!Array.isArray(body.states) || !body.states.every(isLogState)) {
          throw new LogApiError(400, `states must be an array of ${LOG_STATES.join(', ')}.`);
        }
        states = body.states as LogState[];
      }
      let max = DEFAULT_MAX_RESULTS;
      if (body.max_results !== undefined && body.max_results !== null) {
        const n = body.max_results;
        if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_MAX_RESULTS) {
          throw new LogApiError(400, `max_results must be an integer from 1 to ${MAX_MAX_RESULTS}.`);
        }
        max = n;
      }
      let token: string | undefined;
      if (body.next_token !== undefined && body.next_token !== null && body.next_token !== '') {
        if (typeof body.next_token !== 'string' || !decodeToken(body.next_token)) throw new LogApiError(400, 'next_token is not valid.');
        token = body.next_token;
      }
      const all = await jobReads.all(ectx.txn);
      const visible = await this.canSee(ectx, who, all);
      return { mine: all.filter((j) => visible.has(j.request_id)), states, max, token };
    });
    const { mine, states, max, token } = wanted;
    // Listing, like polling, re-mints the URLs of Complete requests that have expired; before the
    // states filter, so that every result is in a state it asked for.
    const current = await Promise.all(mine.map((j) => this.logs.runner.refreshUrl(j)));
    const page = listPage(current, () => true, states, max, token);
    return ok({ next_token: page.next_token, results: page.results.map((j) => this.view(j, ctx, 'list')) }, requester);
  }

  /** Requests made from `who`'s database or one below it. */
  private async canSee(ctx: EvalContext, who: Requester, jobs: readonly ExportJob[]): Promise<Set<string>> {
    const mine = String(who.db);
    const out = new Set<string>();
    let subtree: Set<bigint> | undefined;
    for (const job of jobs) {
      if (who.db === 0n || job.owner_db === mine) {
        out.add(job.request_id);
        continue;
      }
      subtree ??= await subtreeOf(ctx, who.db);
      if (subtree.has(BigInt(job.owner_db))) out.add(job.request_id);
    }
    return out;
  }

  /**
   * The log retrieval record of a request (service.md "Log retrieval record"): `version` only in list
   * entries, Flora's extra fields only in the answers about one request.
   */
  private view(job: ExportJob, ctx: RequestContext, mode: 'get' | 'list'): Record<string, unknown> {
    const out: Record<string, unknown> = { request_id: job.request_id };
    if (job.database !== undefined) out.database = job.database;
    else out.region_group = job.region_group;
    out.time_start = job.time_start;
    out.time_end = job.time_end;
    out.state = job.state;
    if (job.state === 'Complete' && job.url_expires_ms !== undefined) {
      out.presigned_url = `${this.baseUrl(ctx)}${this.logs.runner.presignedPath(job)}`;
      out.presigned_url_expiration_time = new Date(job.url_expires_ms).toISOString();
    }
    if (mode === 'list') {
      out.version = job.version;
      return out;
    }
    // Flora's additions: record count and file size, the reason of a failure, extraction progress.
    if (job.records !== undefined) out.records = job.records;
    if (job.bytes !== undefined) out.bytes = job.bytes;
    if (job.error !== undefined) out.error = job.error;
    // This process's own extraction, or what the process running it saved last.
    const progress = job.state === 'Requested' ? (this.logs.runner.progressOf(job.request_id) ?? job.progress) : undefined;
    if (progress) out.progress = progress;
    return out;
  }

  private baseUrl(ctx: RequestContext): string {
    if (this.logs.settings.publicUrl) return this.logs.settings.publicUrl;
    const host = ctx.headers.host ?? ctx.headers['x-forwarded-host'];
    if (host && /^[A-Za-z0-9.\-:[\]]+$/.test(host)) return `http://${host}`;
    return this.logs.serverAddress;
  }

  private parseCreate(text: string): {
    startMs: number;
    endMs: number;
    database?: { path: string; names: string[] };
    token?: string;
  } {
    const body = parseObject(text, false);
    const startMs = parseTime(body.time_start, 'time_start');
    const endMs = parseTime(body.time_end, 'time_end');
    if (startMs >= endMs) throw new LogApiError(400, 'time_start must be before time_end.');
    if (endMs - startMs > MAX_RANGE_MS) throw new LogApiError(400, 'The range from time_start to time_end must not exceed 90 days.');
    let token: string | undefined;
    if (body.idempotency_token !== undefined && body.idempotency_token !== null) {
      if (typeof body.idempotency_token !== 'string' || !UUID.test(body.idempotency_token)) {
        throw new LogApiError(400, 'idempotency_token must be a UUID.');
      }
      token = body.idempotency_token.toLowerCase();
    }
    const rg = this.regionGroup;
    if (body.database !== undefined && body.database !== null) {
      if (typeof body.database !== 'string' || body.database.trim() === '') {
        throw new LogApiError(400, `database must be a path starting with the region group, e.g. '${rg}/my-db'.`);
      }
      const names = this.databaseNames(body.database);
      return { startMs, endMs, database: { path: [rg, ...names].join('/'), names }, token };
    }
    const group = body.region_group ?? body.regionGroup;
    if (group === undefined || group === null) throw new LogApiError(400, 'One of database or region_group is required.');
    if (typeof group !== 'string') throw new LogApiError(400, `region_group must be a string; this server's region group is '${rg}'.`);
    if (group !== rg) throw new LogApiError(400, `Unknown region group '${String(group)}'; this server's region group is '${rg}'.`);
    return { startMs, endMs, token };
  }
}

/** `type` must be `query`: required when creating and listing (service.md), optional (but checked) when polling. */
function checkType(query: URLSearchParams, required: boolean): void {
  const type = query.get('type');
  if (type === null) {
    if (required) throw new LogApiError(400, "The query parameter 'type' is required; the only type is 'query'.");
    return;
  }
  if (type !== 'query') throw new LogApiError(400, `Unknown log type '${type}'; the only type is 'query'.`);
}

function parseObject(text: string, emptyOk: boolean): Record<string, unknown> {
  if (text.trim() === '') {
    if (emptyOk) return {};
    throw new LogApiError(400, 'A JSON object body is required.');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new LogApiError(400, 'The request body is not valid JSON.');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new LogApiError(400, 'The request body must be a JSON object.');
  return v as Record<string, unknown>;
}

/** An ISO 8601 date-time with a time zone, as ms since the epoch. */
export function parseTime(v: unknown, name: string): number {
  if (v === undefined || v === null) throw new LogApiError(400, `${name} is required.`);
  const m = typeof v === 'string' ? ISO_DATE_TIME.exec(v.trim()) : null;
  let ms = NaN;
  if (m) {
    const zone = m[3].toUpperCase() === 'Z' ? 'Z' : m[3].length === 5 ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : m[3];
    // Digits past milliseconds are dropped (records carry milliseconds).
    const time = m[2].replace(/(\.\d{3})\d+$/, '$1');
    ms = Date.parse(`${m[1]}T${time}${zone}`);
    // Date.parse rolls impossible days over (2024-02-30 → 2024-03-01): they are refused instead.
    if (!Number.isNaN(ms) && !isCalendarDate(m[1])) ms = NaN;
  }
  if (Number.isNaN(ms)) {
    throw new LogApiError(400, `${name} must be an ISO 8601 date-time with a time zone, e.g. 2024-05-10T18:00:00Z.`);
  }
  return ms;
}

/** `YYYY-MM-DD` names a day that exists. */
function isCalendarDate(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return days !== undefined && d >= 1 && d <= days;
}
