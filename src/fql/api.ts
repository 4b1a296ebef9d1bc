// The boundary between the HTTP layer (server/) and query execution (fql/).
// Nothing here knows about HTTP framing; the server turns a QueryResult into a response.

import type { EvalContext } from './context';
import type { LogFormat } from '../diag/logLine';
import type { CommitListener, Store } from '../storage/types';
import type { Leases } from '../tier/leases';
import type { Admission } from '../model/admission';
import type { Budget, ClientLink, MemoryPool, QueryLimits } from '../model/budget';

export interface QueryRequest {
  /** Raw request body text (UTF-8). */
  body: string;
  /** Raw `Authorization` header value (Bearer or Basic), if any. */
  authorization: string | undefined;
  /** X-Last-Seen-Txn (µs), already validated. */
  lastSeenTxn?: bigint;
  /** X-Query-Timeout in ms, already validated (default 120000). */
  timeoutMs: number;
  /** True for GET /?q= (writes are refused). */
  readOnly?: boolean;
  /** X-FaunaDB-API-Version, already validated: versions before 2.7 render as drivers 2.x expect. */
  apiVersion?: string;
  /** X-Max-Retries-On-Contention (0..7), already validated: re-runs after a conflict before a 409. */
  maxRetriesOnContention?: number;
  /** The request's client: the query is cancelled once it is gone (status CLIENT_CLOSED_STATUS). */
  client?: ClientLink;
  /** Called once the secret is accepted, with the timeout the query runs under (TransactOptions). */
  authenticated?: (timeoutMs: number) => void;
  /** The client's address as the failed-login throttle counts it (net/addresses clientAddressKey; none from this machine). */
  clientAddressKey?: string;
}

export interface QueryMetrics {
  computeOps: number;
  byteReadOps: number;
  byteWriteOps: number;
  storageBytesRead: number;
  storageBytesWrite: number;
  txnRetries: number;
}

export interface QueryResult {
  status: number;
  /** The complete JSON response body: {"resource": …} or {"errors": […]} (UTF-8 bytes or text). */
  body: string | Buffer;
  /** Transaction time for X-Txn-Time (µs). */
  txnTime: bigint;
  /** Absent for 401 and 500 responses (no metrics headers then). */
  metrics?: QueryMetrics;
  /** Extra response headers (e.g. WWW-Authenticate on 401). */
  headers?: Record<string, string>;
  /** The database the request authenticated into (absent when it did not): for the query log. */
  database?: { id: bigint; path: string[] };
}

export interface QueryService {
  /** What one request may spend, and the memory every request in flight shares. */
  readonly limits: QueryLimits;
  readonly pool: MemoryPool;
  /** The turns queries take to evaluate, and the line they wait in (429 beyond it). */
  readonly admission: Admission;
  query(req: QueryRequest): Promise<QueryResult>;
  /**
   * True when the Authorization header's secret authenticates: checked before a request's body is
   * read or parsed, so that a request without a valid secret costs the same whatever it carries.
   */
  /** Whether `authorization` names a secret that authenticates (at `lastSeenTxn` or later). */
  authorize(authorization: string | undefined, lastSeenTxn?: bigint): boolean | Promise<boolean>;
  /**
   * Authenticates and runs `fn` in one transaction (re-run on conflict): the way in for front ends
   * other than FQL text (GraphQL, streams). Throws ProtocolError, QueryError or QueryTimeout.
   */
  transact<T>(
    authorization: string | undefined,
    fn: (ctx: EvalContext) => Promise<T>,
    opts?: TransactOptions,
  ): Promise<TransactResult<T>>;
  /**
   * A fresh budget for one request (its timeout, its client), for a caller that outlives the
   * transaction with it (TransactOptions.budget): it releases it.
   */
  budget(timeoutMs?: number, client?: ClientLink): Budget;
  /** Current server time in µs (X-Txn-Time for requests that run no transaction). */
  now(): bigint;
  /** The store's commit feed (streams): see Store.onCommit. */
  onCommit(listener: CommitListener): () => void;
  /** Waits for in-flight work, then closes storage. */
  close(): Promise<void>;
  /**
   * The store and the tier's leases, for background work outside the evaluator (the log-export
   * service keeps its requests in the store, and runs each one under a lease).
   */
  readonly tier?: ServiceTier;
}

export interface ServiceTier {
  readonly store: Store;
  readonly leases: Leases;
}

export interface FloraConfig {
  host: string;
  /** Listen beyond loopback even with the default root secret (config.ts refuses it otherwise). */
  allowDefaultSecret?: boolean;
  port: number;
  /** PEM certificate and key files: the ports serve TLS (both set) or cleartext (both ''). */
  tlsCert?: string;
  tlsKey?: string;
  /** On SIGTERM: ms during which /readyz answers 503 while requests are still served (0: close at once). */
  drainMs?: number;
  dataDir: string;
  /** '' = LMDB in dataDir; else a postgres:// URL (the query log and exports then live there too). */
  storage?: string;
  /** Processes serving the port: 1 = this process alone; more = a supervisor and that many workers (tier/). */
  workers: number;
  /** With several processes, how stale a read-only snapshot may be (ms); 0 = strictly serializable reads. */
  maxStalenessMs: number;
  rootSecret: string;
  // --- secrets and logins (issue 30; defaults in src/config.ts; model/loginThrottle.ts) ---
  /** Wrong passwords (Login, Identify) one identity may be tried with at once; then 429. */
  failedLoginBurst: number;
  /** Failed logins an identity gets back per minute. */
  failedLoginsPerMinute: number;
  /** Wrong passwords one client address may send at once, whatever the identities; then 429. */
  addressFailedLoginBurst: number;
  /** Failed logins an address gets back per minute. */
  addressFailedLoginsPerMinute: number;
  // --- end secrets and logins ---
  /** Milliseconds between passes of the history/expiry collector. */
  collectIntervalMs: number;
  /** Grace added below `history_days` before history may be collected and reads are refused (fql-v4.md §4.4). */
  historyGraceSeconds: number;
  // --- jobs: exports, imports, backups (issue 30) ---
  /** The folder server paths may be imported from by the root secret; '' = off. */
  importDir: string;
  /** Jobs one database runs at once. */
  jobsRunning: number;
  /** Jobs one database keeps. */
  jobsKept: number;
  /** Days a finished job is kept. */
  jobRetentionDays: number;
  // --- end jobs ---
  /** A second port serving only /graphql, /import and /ping (DECISIONS #6); off when undefined. */
  graphqlPort?: number;
  /** An address serving only /metrics (and /healthz) without a secret; off when undefined. */
  metricsListen?: { host: string; port: number };
  // --- JWKS fetches (issue 30) ---
  /** Access providers' `jwks_uri` may reach private, loopback and link-local addresses (default false). */
  jwksAllowPrivate?: boolean;
  // --- end JWKS fetches ---
  /** The dashboard at /admin on the main port (default true; `--no-admin` turns it off). */
  admin?: boolean;
  /** The server's own log on stderr: `flora: …` lines, or one JSON object per event (src/diag/log.ts). */
  logFormat?: LogFormat;
  // --- query log and log export (src/logs; defaults in src/config.ts) ---
  /** '' = `<dataDir>/logs`. */
  logDir?: string;
  regionGroup?: string;
  logRetentionDays?: number;
  logQueries?: boolean;
  logFlushMs?: number;
  logBufferMb?: number;
  logUrlTtlSeconds?: number;
  logExportTimeoutSeconds?: number;
  /** Base of presigned URLs; '' = from the request's Host header. */
  publicUrl?: string;
  // --- end query log ---
  // --- limits (defaults in src/config.ts; README "Limits") ---
  computeOpsLimit: number;
  maxValueMb: number;
  maxResponseMb: number;
  queryMemoryMb: number;
  /** Memory all requests in flight may take together (the MemoryPool). */
  memoryMb: number;
  /** Queries one process evaluates at once (the Admission). */
  maxConcurrentQueries: number;
  /** Queries waiting for a turn; beyond it 429. */
  maxQueuedQueries: number;
  /** Longest a query waits in line for its turn (ms); then 429. */
  maxQueueMs: number;
  /** Share (0–1] of the turns and of the line one secret or one client address may take. */
  clientQueryShare: number;
  sliceMs: number;
  // --- abandoned queries (issue 30) ---
  /** Longest X-Query-Timeout of a secret that does not act as admin; longer ones are lowered to it (ms). */
  maxNonAdminQueryTimeoutMs: number;
  // --- end abandoned queries ---
  maxBodyMb: number;
  /** Longest a request (head and body) may take to arrive. */
  bodyTimeoutMs: number;
  /** Idle keep-alive connections (HTTP/1.1) and sessions (HTTP/2) are closed after this long. */
  idleTimeoutMs: number;
  maxHeaderKb: number;
  // --- request bodies (issue 30; defaults in src/config.ts) ---
  /** Request bodies one connection, one secret, one client address may hold in memory at once (MiB; address 0 = no such share). */
  bodyMemoryConnectionMb: number;
  bodyMemorySecretMb: number;
  bodyMemoryAddressMb: number;
  /** A request body slower than this on average (bytes/s) once the grace has passed is cut off with 408; 0 = no minimum. */
  bodyMinRate: number;
  bodyRateGraceMs: number;
  // --- end request bodies ---
}

export interface TransactOptions {
  readOnly?: boolean;
  /** Overrides the reason writes are refused (e.g. "stream requests"). */
  refuseWritesIn?: string;
  timeoutMs?: number;
  lastSeenTxn?: bigint;
  /** Re-runs after a conflict before giving up with 409 contended transaction (default 7). */
  maxRetries?: number;
  /** A snapshot that learns the store's head even under a `maxStalenessMs` (RunOptions.linearized). */
  linearized?: boolean;
  /**
   * Called once the secret is accepted (before `fn` runs), with the timeout the request runs under:
   * `timeoutMs`, or less for a secret that does not act as admin (QueryLimits.maxNonAdminTimeoutMs).
   */
  authenticated?: (timeoutMs: number) => void;
  /** The request's client: the work is cancelled (QueryCancelled) once it is gone. */
  client?: ClientLink;
  /** The request's budget when the caller made one (it then releases it); else one per call. */
  budget?: Budget;
  /** The client's address as the failed-login throttle counts it (net/addresses clientAddressKey; none from this machine). */
  clientAddressKey?: string;
}

export interface TransactResult<T> {
  result: T;
  /** The context of the attempt that committed. */
  ctx: EvalContext;
  /** Commit time for a transaction that wrote, else its snapshot time. */
  ts: bigint;
  retries: number;
  metrics: QueryMetrics;
}
