// The FQL v10 query service (the core's FQL2Endpoint.exec): one request's query parsed (cached by
// text), its arguments and template values decoded, and the query evaluated in ONE store transaction
// (re-run on conflict) through the language-neutral transact() that FQL v4 runs on; then the
// response body: success, query failure or protocol error, with stats, txn_ts, summary and
// schema_version.
//
// A query failure aborts the transaction (the core throws its response out of the Query): its writes
// are dropped, what it spent is still reported. Failures of the request rather than the query come
// out as protocol errors: the compute limit and a value or memory limit as `invalid_request` (the
// core's TxnTooManyComputeOpsException), an overloaded process as `limit_exceeded`, the timeout as
// `time_out` (440 within the first second, the core's AggressiveTimeoutException; 503 after it),
// contention as `contended_transaction`.

import type { Budget, ClientLink } from '../../model/budget';
import { CLIENT_CLOSED_STATUS, LimitExceeded, QueryCancelled, QueryTimeout, TooBusy, UNITS_PER_COMPUTE_OP } from '../../model/budget';
import type { TxnContext } from '../../model/context';
import { StorageUnavailable } from '../../storage/engine';
import type { TxnMetrics } from '../../storage/types';
import { ProtocolError } from '../../values/errors';
import { TxnTime } from '../../values/types';
import { decodeArguments, decodeTemplateValues, TemplateValueError, type ArgResolver } from '../../wire/v10/args';
import { protocolErrorBody, queryFailureBody, successBody, type QueryInfo, type QueryStats } from '../../wire/v10/envelope';
import { aggressiveTimeout, PROTOCOL_MESSAGES, ProtocolFailure, QUERY_FAILURE_STATUS, type ProtocolErrorKind } from '../../wire/v10/errors';
import type { QueryHeaders } from '../../wire/v10/headers';
import type { FqlQuery, QueryRequest } from '../../wire/v10/request';
import type { Expr } from '../ast';
import { error, type Diagnostic } from '../diagnostic';
import { evaluate, summary, type EvalOutcome } from '../eval/evaluate';
import { Interp, QueryRun } from '../eval/interpreter';
import type { CursorCodec, EvalHooks } from '../runtime/hooks';
import { QueryCheckFailure } from '../runtime/failure';
import type { RtValue } from '../runtime/values';
import type { CallCtx } from '../runtime/table';
import { querySrc } from '../span';
import { STDLIB_GLOBALS } from '../stdlib/globals';
import { TxnHooks, type GlobalResolver } from './hooks';
import { toRuntime, STDLIB_ARG_RESOLVER, type DocumentResolver } from './inputs';
import { ParseCache } from './parseCache';
import { log } from '../../diag/log';

/** What a store transaction reports of its cost (the fields of fql/api.ts QueryMetrics this needs). */
export interface TxnCost {
  readonly computeOps: number;
  readonly byteReadOps: number;
  readonly byteWriteOps: number;
  readonly storageBytesRead: number;
  readonly storageBytesWrite: number;
}

export interface TransactOptions {
  timeoutMs?: number;
  lastSeenTxn?: bigint;
  maxRetries?: number;
  /** x-linearized: the snapshot learns the store's head even under a maxStalenessMs. */
  linearized?: boolean;
  budget?: Budget;
  authenticated?: (timeoutMs: number) => void;
  clientAddressKey?: string;
}

/**
 * The language-neutral transaction runner (fql/executor.ts Executor satisfies it): authenticates,
 * runs `fn` in one transaction re-run on conflict, and throws ProtocolError (401, 409…),
 * QueryTimeout or StorageUnavailable.
 */
export interface Transactor {
  transact<T>(
    authorization: string | undefined,
    fn: (tx: TxnContext) => Promise<T>,
    opts?: TransactOptions,
  ): Promise<{ result: T; ctx: TxnContext; ts: bigint; retries: number; metrics: TxnCost }>;
  budget(timeoutMs?: number, client?: ClientLink): Budget;
  now(): bigint;
}

/** What storage plugs into v10 queries (the storage-backed standard library); absent: the pure language. */
export interface StoragePlugs {
  /** Set positions as `after` cursors and back. */
  readonly cursors: CursorCodec;
  /** Names beyond the standard library: collections, user functions, schema modules. */
  readonly resolveGlobal?: GlobalResolver;
  /** The fixed globals: the standard library's and the native collections' modules. */
  readonly globals?: ReadonlyMap<string, RtValue>;
  /** `Query.identity()` / `Query.token()` of the caller. */
  identity?(ctx: CallCtx): Promise<RtValue | undefined>;
  token?(ctx: CallCtx): Promise<RtValue | undefined>;
  /** `Query.isEnvTypechecked()` / `Query.isEnvProtected()`. */
  readonly isEnvTypechecked?: EvalHooks['isEnvTypechecked'];
  readonly isEnvProtected?: EvalHooks['isEnvProtected'];
  /** Sets as event sources (`eventSource()`). */
  readonly eventSource?: EvalHooks['eventSource'];
  /** A `@doc`/`@ref` argument as the document the query sees. */
  readonly resolveDocument?: DocumentResolver;
  /** What argument names mean in the transaction's database (loaded before decoding). */
  argResolver?(tx: TxnContext): ArgResolver | Promise<ArgResolver>;
}

export interface V10Request {
  readonly request: QueryRequest;
  readonly headers: QueryHeaders;
  /** The Authorization header. */
  readonly authorization: string | undefined;
  /** The request's client: the query is cancelled once it is gone. */
  readonly client?: ClientLink;
  readonly clientAddressKey?: string;
  /** Called once the secret is accepted, with the timeout the query runs under. */
  readonly authenticated?: (timeoutMs: number) => void;
}

export interface V10Result {
  readonly status: number;
  readonly body: string;
  /** The transaction's time (µs); the service clock when none ran. */
  readonly txnTs: bigint;
  /** Absent for 401 and internal errors. */
  readonly stats?: QueryStats;
  readonly headers?: Record<string, string>;
  /** The database the request authenticated into, for the query log. */
  readonly database?: { id: bigint; path: string[] };
}

/** A finished evaluation that failed: thrown out of the transaction so that its writes are dropped. */
class FailedQuery extends Error {
  constructor(
    readonly outcome: EvalOutcome & { ok: false },
    /** null: this transaction's own schema change. */
    readonly schemaVersion: bigint | null,
  ) {
    super('query failed');
  }
}

export class V10Executor {
  private readonly parsed = new ParseCache();

  constructor(
    private readonly service: Transactor,
    private readonly plugs: StoragePlugs,
  ) {}

  async query(req: V10Request): Promise<V10Result> {
    const started = performance.now();
    const elapsedMs = () => Math.round(performance.now() - started);
    const { headers } = req;
    const budget = this.service.budget(headers.timeoutMs, req.client);
    let last: TxnContext | undefined; // the latest attempt: its cost is reported with a failure
    try {
      const run = await this.service.transact(
        req.authorization,
        async (tx) => {
          last = tx;
          const out = await this.evaluate(req.request, headers, tx);
          const sv = await schemaVersion(tx);
          if (!out.ok) throw new FailedQuery(out, sv);
          return { out, sv };
        },
        {
          timeoutMs: headers.timeoutMs,
          lastSeenTxn: headers.lastTxnTs > 0n ? headers.lastTxnTs : undefined,
          maxRetries: headers.maxContentionRetries,
          linearized: headers.linearized,
          budget,
          authenticated: req.authenticated,
          clientAddressKey: req.clientAddressKey,
        },
      );
      const { out, sv } = run.result;
      const info: QueryInfo = {
        summary: summary(out),
        txnTs: run.ts,
        stats: statsOf(run.metrics, run.retries, elapsedMs()),
        schemaVersion: sv ?? run.ts,
        tags: headers.tags,
      };
      return { status: 200, body: successBody(out.value, headers.format, info), txnTs: run.ts, stats: info.stats, database: databaseOf(run.ctx) };
    } catch (e) {
      return this.failure(e, req, last, elapsedMs());
    } finally {
      budget.release();
    }
  }

  /** Parses, decodes the inputs and evaluates: the work of one transaction attempt. */
  private async evaluate(request: QueryRequest, headers: QueryHeaders, tx: TxnContext): Promise<EvalOutcome> {
    const { query } = request;
    const template = query.values.length > 0;
    const parsed = this.parsed.parse(query.text, template);
    const hooks = new TxnHooks(tx, this.plugs, headers.performanceHints);
    const resolver = this.plugs.argResolver === undefined ? STDLIB_ARG_RESOLVER : await this.plugs.argResolver(tx);
    // Arguments first: a bad one is a protocol error (invalid_request), whatever the query's text.
    const args = request.arguments === undefined ? undefined : decodeArguments(request.arguments, headers.format, resolver);
    const checks: Diagnostic[] = parsed.ok ? [] : [...parsed.errors];
    let values: RtValue[] = [];
    if (template) {
      try {
        const inputs = decodeTemplateValues(query, resolver);
        const ctx = inputContext(hooks);
        values = [];
        for (const v of inputs) values.push(await toRuntime(v, ctx, this.plugs));
      } catch (e) {
        if (!(e instanceof TemplateValueError)) throw e;
        checks.push(valueError(query, e));
      }
    }
    if (checks.length > 0 || !parsed.ok) return { ok: false, failure: new QueryCheckFailure(checks), logs: [] };
    const vars = new Map<string, RtValue>();
    if (args !== undefined) {
      const ctx = inputContext(hooks);
      for (const [k, v] of args) vars.set(k, await toRuntime(v, ctx, this.plugs));
    }
    values.forEach((v, i) => vars.set(`$${i}`, v));
    return evaluate(parsed.value as Expr, vars, hooks);
  }

  private failure(e: unknown, req: V10Request, last: TxnContext | undefined, elapsedMs: number): V10Result {
    const database = databaseOf(last);
    const { headers } = req;
    if (e instanceof FailedQuery) {
      const out = e.outcome;
      const f = out.failure;
      const txnTs = last?.snapshotTs ?? this.service.now();
      const info: QueryInfo = {
        summary: summary(out),
        txnTs,
        stats: statsOf(undefined, 0, elapsedMs, last),
        // Its own schema writes were dropped with the transaction: the version before them.
        schemaVersion: e.schemaVersion ?? 0n,
        tags: headers.tags,
      };
      const abort = 'abortValue' in f ? f.abortValue : undefined;
      const constraintFailures = 'constraintFailures' in f ? f.constraintFailures : undefined;
      const body = queryFailureBody({ code: f.code, message: f.message, abort, constraintFailures }, headers.format, info);
      return { status: QUERY_FAILURE_STATUS, body, txnTs, stats: info.stats, database };
    }
    // Nobody is left to answer: the query log records what it spent.
    if (e instanceof QueryCancelled) return { status: CLIENT_CLOSED_STATUS, body: '', txnTs: this.service.now(), stats: statsOf(undefined, 0, elapsedMs, last), database };
    const failure = protocolFailure(e, elapsedMs);
    const status = failure.status;
    // The core leaves stats out of its protocol errors, and Flora's headers out of 401s and 500s.
    const stats = status === 401 ? undefined : statsOf(undefined, 0, elapsedMs);
    return {
      status,
      body: protocolErrorBody(failure, { tags: headers.tags }),
      txnTs: this.service.now(),
      stats,
      headers: status === 401 ? { 'www-authenticate': 'Bearer' } : e instanceof ProtocolError ? e.headers : undefined,
      database,
    };
  }
}

/** The last schema change the transaction's database saw (Cache.getLastSeenSchema), µs; null: its own. */
async function schemaVersion(tx: TxnContext): Promise<bigint | null> {
  const db = tx.scope.db;
  const schema = await tx.catalog.schema(tx.txn, db, tx.schemaWrites.has(db));
  return schema.lastTs instanceof TxnTime ? null : schema.lastTs;
}

/** A context for decoding inputs before evaluation (a module argument may need storage's resolver). */
function inputContext(hooks: TxnHooks): Interp {
  return new Interp(new QueryRun(hooks, STDLIB_GLOBALS));
}

/** FQL2Query.valueFailure: the value's error at its placeholder. */
function valueError(query: FqlQuery, e: TemplateValueError): Diagnostic {
  const src = querySrc(query.text);
  return error(e.message, { start: e.offset, end: e.offset + VALUE_SIGIL_LENGTH, src });
}

/** TemplateSigil.Value's length ('\0value>'). */
const VALUE_SIGIL_LENGTH = 7;

/**
 * The response's stats. `cost` from a committed transaction; otherwise what `tx`, the attempt that
 * failed, read and computed (its writes were dropped): the core bills a failed query's work.
 */
function statsOf(cost: TxnCost | undefined, retries: number, queryTimeMs: number, tx?: TxnContext): QueryStats {
  if (cost === undefined) cost = costOf(tx?.txn.metrics, tx?.budget.units ?? 0);
  return {
    computeOps: cost.computeOps,
    readOps: cost.byteReadOps,
    writeOps: cost.byteWriteOps,
    queryTimeMs,
    contentionRetries: retries,
    storageBytesRead: cost.storageBytesRead,
    storageBytesWrite: cost.storageBytesWrite,
    rateLimitsHit: [],
  };
}

/** QueryMetrics: compute ops are ceil(units / 50), at least 1; read ops per 4 KiB, at least one per read. */
function costOf(m: TxnMetrics | undefined, units: number): TxnCost {
  const bytesRead = m?.bytesRead ?? 0;
  return {
    computeOps: Math.max(1, Math.ceil(units / UNITS_PER_COMPUTE_OP)),
    byteReadOps: Math.max(m?.reads ?? 0, Math.ceil(bytesRead / 4096)),
    byteWriteOps: 0,
    storageBytesRead: bytesRead,
    storageBytesWrite: 0,
  };
}

/** The AggressiveTimeout of CoreApplication: a timeout within it is the client's (440), after it the service's (503). */
const AGGRESSIVE_TIMEOUT_MS = 1000;

/** What a request that could not run answers (ExceptionResponseHelpers, FQL2Endpoint.recover). */
function protocolFailure(e: unknown, elapsedMs: number): ProtocolFailure {
  if (e instanceof ProtocolFailure) return e;
  if (e instanceof QueryTimeout) {
    return elapsedMs < AGGRESSIVE_TIMEOUT_MS ? aggressiveTimeout(AGGRESSIVE_TIMEOUT_MS, elapsedMs) : new ProtocolFailure('service_timeout', 'Read timed out');
  }
  if (e instanceof TooBusy) return new ProtocolFailure('too_many_requests', PROTOCOL_MESSAGES.overloaded);
  if (e instanceof LimitExceeded) return new ProtocolFailure('bad_request', e.description);
  if (e instanceof ProtocolError) return new ProtocolFailure(kindOf(e), messageOf(e));
  if (e instanceof StorageUnavailable) {
    // The reason (a host, a connection string) goes to the server's log, not to the client.
    log.error(e.message);
    return new ProtocolFailure('service_timeout', 'The storage is unavailable.');
  }
  throw e; // a fault of the server's own: the HTTP layer answers 500 with a request id
}

/** Flora's v4 protocol errors (values/errors.ts) as the v10 kinds. */
function kindOf(e: ProtocolError): ProtocolErrorKind {
  switch (e.status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 409:
      return 'contended_transaction';
    case 413:
      return 'request_too_large';
    case 429:
      return 'too_many_requests';
    case 503:
      return 'service_timeout';
    default:
      return e.status >= 500 ? 'internal_error' : 'bad_request';
  }
}

/** The core's words where they differ from v4's. */
function messageOf(e: ProtocolError): string {
  switch (e.status) {
    case 401:
      return PROTOCOL_MESSAGES.unauthorized;
    case 409:
      return PROTOCOL_MESSAGES.contended;
    default:
      return e.description;
  }
}

function databaseOf(tx: TxnContext | undefined): V10Result['database'] {
  return tx ? { id: tx.scope.db, path: tx.scope.path } : undefined;
}
