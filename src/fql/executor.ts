// The query service: authenticate, decode, evaluate in one transaction, render.

import { StorageUnavailable } from '../storage/engine';
import { legacyStyle } from '../wire/encode';
import type { QueryMetrics, QueryRequest, QueryResult, QueryService, ServiceTier, TransactOptions, TransactResult } from './api';
import type { CommitListener, Store, TxnMetrics } from '../storage/types';
import { Catalog, NAMED_NATIVES, NATIVE_IDS } from '../model/catalog';
import { Authenticator, secretFromHeader, type Scope } from '../model/auth';
import { JwksCache, type JwksOptions } from '../model/jwks/cache';
import { LoginThrottle, type LoginThrottleLimits } from '../model/loginThrottle';
import { decodeSecretLocation, encodeSecretLocation, secretLocationKey, type LearnedCheck } from '../model/secretLocation';
import { runPurges } from '../model/purge';
import { decodeRequest } from '../wire/decode';
import { failpoint } from '../failpoints';
import type { Expr } from '../wire/expr';
import { errors, ProtocolError, QueryError } from '../values/errors';
import type { Obj, Value } from '../values/types';
import { EvalContext } from './context';
import {
  Budget,
  CLIENT_CLOSED_STATUS,
  DEFAULT_LIMITS,
  DEFAULT_QUERY_TIMEOUT_MS,
  QueryCancelled,
  QueryTimeout,
  UNBOUNDED_POOL,
  UNITS_PER_COMPUTE_OP,
  type ClientLink,
  type MemoryPool,
  type QueryLimits,
} from '../model/budget';
import { UNBOUNDED_ADMISSION, type Admission } from '../model/admission';
import { Env } from './env';
import { applyLambda, evalExpr } from './evaluator';
import { protocolErrorBody, queryErrorBody, resourceBytes } from './render';
import './functions';
import { bindingEvaluator } from './bindings';
import { IndexBuilder } from './indexBuilder';
import { MigrationRunner } from './migrationRunner';
import { installSchemaLanguage } from '../fql10/store/schemaLanguage';
import { HistoryCollector } from './historyCollector';
import { Leases, type Role } from '../tier/leases';
import { takeIdWorker } from '../tier/idWorker';
import { log } from '../diag/log';

/** Collections whose documents make up a database's schema (catalog.ts). */
const SCHEMA_COLLECTIONS = new Set<number>(NAMED_NATIVES.map((n) => NATIVE_IDS[n]));

export interface ExecutorOptions {
  /** Milliseconds between passes of the history/expiry collector. */
  collectIntervalMs?: number;
  limits?: QueryLimits;
  /** Memory shared by every request in flight (model/budget.ts). */
  pool?: MemoryPool;
  /** Turns to evaluate queries in, shared by every request (model/admission.ts). */
  admission?: Admission;
  /** How access providers' key sets are fetched (model/jwks/cache.ts). */
  jwks?: Partial<JwksOptions>;
  /** Failed logins allowed per identity and per client address (model/loginThrottle.ts); none when absent. */
  loginThrottle?: LoginThrottleLimits;
}

export class Executor implements QueryService {
  readonly limits: QueryLimits;
  readonly pool: MemoryPool;
  readonly admission: Admission;
  private readonly catalog = new Catalog();
  private readonly auth: Authenticator;
  private readonly loginThrottle: LoginThrottle | undefined;
  /** Secret checks being written (one transaction per key or token at a time). */
  private readonly learning = new Set<string>();
  private readonly builder: IndexBuilder;
  private readonly migrator: MigrationRunner;
  private inFlight = 0;
  private drained: (() => void) | undefined;

  private readonly collector: HistoryCollector;
  /** Who does which background work in a tier of processes (tier/leases.ts). */
  readonly leases: Leases;
  private heartbeat: Role | undefined;
  private idWorker: Role | undefined;

  constructor(
    private readonly store: Store,
    rootSecret: string,
    opts: ExecutorOptions = {},
  ) {
    this.limits = opts.limits ?? DEFAULT_LIMITS;
    this.pool = opts.pool ?? UNBOUNDED_POOL;
    this.admission = opts.admission ?? UNBOUNDED_ADMISSION;
    this.leases = new Leases(store);
    this.collector = new HistoryCollector(store, this.catalog, this.leases, opts.collectIntervalMs ?? 300_000);
    this.auth = new Authenticator(rootSecret, this.catalog, this.storeCheck, new JwksCache(opts.jwks));
    this.loginThrottle = opts.loginThrottle && new LoginThrottle(opts.loginThrottle);
    this.builder = new IndexBuilder(store, this.catalog, this.leases, (db, ts) => {
      this.catalog.changed([db], ts);
      this.auth.invalidate(ts);
    });
    this.migrator = new MigrationRunner(store, this.catalog, this.leases, (db, ts) => this.catalog.changed([db], ts));
    // Commits of every process (this one's too) that change schema or secrets drop what is cached
    // of them, in commit order, before a snapshot that sees them is taken.
    store.onNativeWrites((ts, docs) => {
      if (docs === 'all') this.catalog.changedAll(ts);
      else {
        const dbs = new Set<bigint>();
        for (const d of docs) if (SCHEMA_COLLECTIONS.has(d.coll)) dbs.add(d.db);
        if (dbs.size > 0) this.catalog.changed(dbs, ts);
      }
      this.auth.invalidate(ts);
    });
  }

  /** Resumes background work a previous run left unfinished (index builds, migrations). */
  async start(): Promise<void> {
    this.heartbeat = this.leases.heartbeat();
    this.idWorker = await takeIdWorker(this.leases);
    await this.builder.resume();
    await this.migrator.resume();
    this.collector.start();
  }

  now(): bigint {
    return this.store.now();
  }

  /** Read-only access to the store and the leases, for the log-export service (src/logs). */
  get tier(): ServiceTier {
    return { store: this.store, leases: this.leases };
  }

  onCommit(listener: CommitListener): () => void {
    return this.store.onCommit(listener);
  }

  async query(req: QueryRequest): Promise<QueryResult> {
    this.inFlight++;
    try {
      return await this.run(req);
    } finally {
      if (--this.inFlight === 0) this.drained?.();
    }
  }

  /**
   * Authenticates `authorization` and runs `fn` in one transaction (re-run on conflict), then does
   * what a commit implies (schema cache, secret cache, purges, index builds). This is the one way
   * into the evaluator for every front end: FQL queries, GraphQL requests and streams.
   * Throws ProtocolError (401 and others), QueryError, or QueryTimeout.
   */
  async transact<T>(
    authorization: string | undefined,
    fn: (ctx: EvalContext) => Promise<T>,
    opts: TransactOptions = {},
  ): Promise<TransactResult<T>> {
    const secret = secretFromHeader(authorization);
    if (!secret) throw errors.unauthorized();
    const timeoutMs = opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const budget = opts.budget ?? this.budget(timeoutMs, opts.client);
    // The deadline asked for, read once: every attempt (a re-run after a conflict) caps from it.
    const askedDeadline = budget.deadline;
    try {
      const run = await this.store.run<{ value: T; ctx: EvalContext }>(
        async (txn) => {
          const scope = await this.auth.authenticate(secret, txn);
          if (!scope) throw errors.unauthorized();
          // Known only now: a secret that does not act as admin gets a shorter timeout, counted
          // from the request's start like the one it asked for.
          const allowedMs = actsAsAdmin(scope) ? timeoutMs : Math.min(timeoutMs, this.limits.maxNonAdminTimeoutMs);
          if (allowedMs < timeoutMs) budget.capDeadline(askedDeadline - (timeoutMs - allowedMs));
          opts.authenticated?.(allowedMs);
          budget.startAttempt();
          txn.metrics.reader = budget;
          const ctx = new EvalContext(txn, scope, this.catalog, budget, !!opts.readOnly);
          if (opts.refuseWritesIn) ctx.writesRefusedIn = opts.refuseWritesIn;
          ctx.clientAddressKey = opts.clientAddressKey;
          ctx.loginThrottle = this.loginThrottle;
          ctx.evalBinding = bindingEvaluator(ctx);
          ctx.applyLambda = (lambda, args) => applyLambda(lambda, args, ctx, []);
          installSchemaLanguage(ctx); // v10 check constraints, computed fields and defaults hold for v4 writes too
          ctx.authenticate = (s) => this.auth.authenticate(s, txn);
          ctx.learnCheck = this.storeCheck;
          return { value: await fn(ctx), ctx };
        },
        // A client can only have seen times this server issued; a later value is bogus and must not
        // push the clock forward.
        { minSnapshotTs: opts.lastSeenTxn === undefined ? undefined : min(opts.lastSeenTxn, this.store.now()), maxRetries: opts.maxRetries, linearized: opts.linearized },
      );
      const { value, ctx } = run.result;
      if (ctx.purges.length) this.background(runPurges(this.store, ctx.purges, run.ts));
      for (const b of ctx.indexBuilds) this.builder.start(b.db, b.index);
      for (const m of ctx.migrations) this.migrator.start(m.db, m.coll);
      return { result: value, ctx, ts: run.ts, retries: run.retries, metrics: toMetrics(run.metrics, ctx.computeUnits, run.retries) };
    } finally {
      if (!opts.budget) budget.release();
    }
  }

  /**
   * A fresh budget for one request: this server's limits, its memory pool, the request's timeout,
   * and its client (the query is cancelled once the client is gone).
   */
  budget(timeoutMs = DEFAULT_QUERY_TIMEOUT_MS, client?: ClientLink): Budget {
    return new Budget(this.limits, Date.now() + timeoutMs, this.pool, client);
  }

  /** True when the Authorization header names a secret that authenticates (read-only, no body needed). */
  authorize(authorization: string | undefined, lastSeenTxn?: bigint): boolean | Promise<boolean> {
    const secret = secretFromHeader(authorization);
    if (!secret) return false;
    // The common case, answered without a promise: a key resolved before. The query's own
    // transaction authenticates it again.
    if (this.auth.knownGood(secret, this.store.now())) return true;
    return this.authorizeInStore(secret, lastSeenTxn);
  }

  private async authorizeInStore(secret: string, lastSeenTxn: bigint | undefined): Promise<boolean> {
    // A key made elsewhere in the tier is known here from the time the client says it has seen; a
    // refusal is an error so that the store re-checks it against commits the snapshot had not seen.
    const minSnapshotTs = lastSeenTxn === undefined ? undefined : min(lastSeenTxn, this.store.now());
    try {
      await this.store.run(
        async (txn) => {
          if (!(await this.auth.authenticate(secret, txn))) throw errors.unauthorized();
        },
        { minSnapshotTs },
      );
      return true;
    } catch (e) {
      if (e instanceof ProtocolError && e.status === 401) return false;
      throw e;
    }
  }

  private async run(req: QueryRequest): Promise<QueryResult> {
    const budget = this.budget(req.timeoutMs, req.client);
    let parsed: Expr | undefined;
    let last: EvalContext | undefined; // the latest attempt, for the metrics of an error response
    let run: TransactResult<Value> | undefined; // set once committed (the answer is rendered after)
    try {
      run = await this.transact(
        req.authorization,
        async (ctx) => {
          last = ctx;
          // Parsed once the secret is known to be good (fql-v4.md §1.3), once for all attempts.
          if (!parsed) {
            const decoded = decodeRequest(req.body, budget);
            parsed = decoded instanceof Promise ? await decoded : decoded;
          }
          failpoint('query.evaluate');
          return evalExpr(parsed, Env.empty, ctx);
        },
        {
          readOnly: req.readOnly,
          timeoutMs: req.timeoutMs,
          lastSeenTxn: req.lastSeenTxn,
          maxRetries: req.maxRetriesOnContention,
          budget,
          authenticated: req.authenticated,
          clientAddressKey: req.clientAddressKey,
        },
      );
      const fresh = run.result instanceof Map && run.ctx.isFresh(run.result as Obj);
      const body = resourceBytes(run.result, run.ts, this.limits.maxResponseBytes, budget, legacyStyle(req.apiVersion));
      return {
        status: fresh ? 201 : 200,
        body: typeof body === 'string' ? body : await body,
        txnTime: run.ts,
        metrics: run.metrics,
        database: databaseOf(run.ctx),
      };
    } catch (e) {
      if (e instanceof QueryCancelled) return this.cancelled(run, last);
      if (e instanceof QueryError) {
        // fql-v4.md §1.5: an error resets the metrics (~0 ops, compute 1), except Abort, which keeps what it read.
        const m = last?.txn.metrics;
        const aborted = e.code === 'transaction aborted' && m;
        const metrics = aborted
          ? toMetrics({ bytesRead: m.bytesRead, reads: m.reads, bytesWritten: 0, writes: 0 }, last?.computeUnits ?? 0, 0)
          : toMetrics(undefined, 0, 0);
        return { status: e.status, body: queryErrorBody(e), txnTime: this.store.now(), metrics, database: databaseOf(last) };
      }
      if (e instanceof ProtocolError) return { ...this.protocolError(e), database: databaseOf(last) };
      if (e instanceof QueryTimeout)
        return { ...this.protocolError(new ProtocolError(503, 'time out', 'Read timed out')), database: databaseOf(last) };
      if (e instanceof StorageUnavailable) {
        // The reason (a host, a connection string) goes to the server's log, not to the client.
        log.error(e.message);
        return { ...this.protocolError(new ProtocolError(503, 'unavailable', 'The storage is unavailable.')), database: databaseOf(last) };
      }
      throw e; // a fault of the server's own: the HTTP layer answers 500 with a request id
    } finally {
      budget.release();
    }
  }

  /**
   * The record of a query whose client left (nothing is sent): what it spent, its writes only if
   * it had committed before it was cancelled (while its answer was rendered).
   */
  private cancelled(run: TransactResult<Value> | undefined, last: EvalContext | undefined): QueryResult {
    const m = last?.txn.metrics;
    const metrics = run
      ? run.metrics
      : toMetrics(m && { bytesRead: m.bytesRead, reads: m.reads, bytesWritten: 0, writes: 0 }, last?.computeUnits ?? 0, 0);
    return { status: CLIENT_CLOSED_STATUS, body: '', txnTime: run?.ts ?? this.store.now(), metrics, database: databaseOf(last) };
  }

  /** Background work (purges, secret checks) is awaited on close so storage is not closed under it. */
  private readonly backgroundWork = new Set<Promise<void>>();

  private background(work: Promise<void>, what = 'purge'): void {
    const tracked = work.catch((e: unknown) => log.error(`background ${what} failed`, { err: e })).finally(() => this.backgroundWork.delete(tracked));
    this.backgroundWork.add(tracked);
  }

  /**
   * Writes a check learned from a BCrypt verification into the secret's location record, in a
   * transaction of its own (the request's may be read-only or fail), if the record is still there
   * without a check. Its database needs no re-check: key and token ids are never given twice, and a
   * record's database never changes (moving a database keeps its id).
   */
  private readonly storeCheck = (learned: LearnedCheck): void => {
    const name = `${learned.kind}:${learned.id}`;
    if (this.learning.has(name)) return;
    this.learning.add(name);
    const locKey = secretLocationKey(learned.kind, learned.id);
    const work = this.store.run(async (txn) => {
      const raw = await txn.getMeta(locKey);
      if (!raw) return;
      const loc = decodeSecretLocation(raw);
      if (loc.check) return;
      // Equivalent: a request that read the record without the check, and is still running, stands.
      txn.putMeta(locKey, encodeSecretLocation(loc.db, learned.check), { equivalent: true });
    });
    this.background(
      work.then(() => undefined).finally(() => this.learning.delete(name)),
      'secret check',
    );
  };

  private protocolError(e: ProtocolError): QueryResult {
    const withMetrics = e.status !== 401 && e.status !== 500;
    return {
      status: e.status,
      body: protocolErrorBody(e),
      txnTime: this.store.now(),
      metrics: withMetrics ? toMetrics(undefined, 0, 0) : undefined,
      headers: e.headers,
    };
  }

  async close(): Promise<void> {
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.builder.stop();
    await this.migrator.stop();
    await this.collector.stop();
    await this.heartbeat?.stop();
    await this.idWorker?.stop();
    this.store.stopPurges();
    await Promise.all(this.backgroundWork);
    this.pool.stop();
    await this.store.close();
  }
}

/**
 * The root secret, and secrets acting with the built-in admin role, keep the longest X-Query-Timeout;
 * every other secret (client and server keys, tokens, user-role keys, JWTs) gets maxNonAdminTimeoutMs.
 */
function actsAsAdmin(scope: Scope): boolean {
  return scope.root || (scope.role === 'admin' && !scope.roles && !scope.identity && !scope.jwt);
}

/** The authenticated scope's database, for the query log (QueryResult.database). */
function databaseOf(ctx: EvalContext | undefined): QueryResult['database'] {
  return ctx ? { id: ctx.scope.db, path: ctx.scope.path } : undefined;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** The counts of TxnMetrics (not its reader) that the metrics headers report. */
type TxnCounts = Pick<TxnMetrics, 'bytesRead' | 'bytesWritten' | 'reads' | 'writes'>;

function toMetrics(m: TxnCounts | undefined, units: number, retries: number): QueryMetrics {
  const bytesRead = m?.bytesRead ?? 0;
  const bytesWritten = m?.bytesWritten ?? 0;
  return {
    computeOps: Math.max(1, Math.ceil(units / UNITS_PER_COMPUTE_OP)),
    byteReadOps: Math.max(m?.reads ?? 0, Math.ceil(bytesRead / 4096)),
    byteWriteOps: Math.max(m?.writes ?? 0, Math.ceil(bytesWritten / 1024)),
    storageBytesRead: bytesRead,
    storageBytesWrite: bytesWritten,
    txnRetries: retries,
  };
}
