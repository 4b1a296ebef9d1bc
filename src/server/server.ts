// Wires the listener, the router and the response headers together, and shuts down gracefully.

import type { FloraConfig, QueryService } from '../fql/api';
import { ProtocolError } from '../values/errors';
import { defaultConfig } from '../config';
import {
  BodyTimeout,
  BodyTooLarge,
  ClientClosed,
  createExchange,
  MalformedRequest,
  requestFailure,
  type HttpResponse,
  type RequestContext,
} from './context';
import { corsHeaders, isPreflight, preflightHeaders } from './cors';
import { browserAttachedCredentials, isBrowserNavigation } from './browsers';
import { responseTraceparent } from './headers';
import { listen, type AnyResponse } from './listener';
import { ledgerOf, type BodyLedger } from './bodyLedger';
import type { BodyRate } from './bodyRate';
import { TooBusy, type MemoryPool } from '../model/budget';
import type { LogSystem } from '../logs/index';
import { NO_LOGGER } from '../logs/types';
import { isDownloadPath, serveDownload } from './logsDownload';
import { isBackupPath, type BackupApi } from './backupApi';
import { isTransferPath, type TransferApi } from './transferApi';
import { logOutcome } from './logsHook';
import {
  BUILD,
  CONTENT_TYPE,
  hasMetrics,
  internalError,
  addMetricsHeaders,
  protocolError,
  type Outcome,
} from './responses';
import { buildRouter } from './routes';
import { isHealthPath, type Health } from './health';
import { NO_ROUTE, type Router } from './router';
import type { Scrape } from './metricsApi';
import { ServerMetrics, UNMATCHED } from './serverMetrics';
import { StreamHub } from '../streams/hub';
import { log } from '../diag/log';

export interface RunningServer {
  /** e.g. `http://127.0.0.1:8443` (the actual port when 0 was asked for). */
  address: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish, closes connections, then the service. */
  close(): Promise<void>;
  /** Drops all connections now (a second signal during shutdown). close() still finishes. */
  forceClose(): void;
  /** Reads the TLS certificate and key again (no-op in cleartext); throws TlsFilesError, keeping the old pair. */
  reloadTls(): void;
}

export interface ServerOptions {
  /** Routes to serve instead of the main port's (e.g. the GraphQL port's). */
  router?: Router;
  /**
   * False for an extra listener: closing it leaves the log system and the service open (whoever
   * started the listeners closes them once all have drained). Default true.
   */
  ownsService?: boolean;
  /**
   * The query log and the log-export API (src/logs). Without it nothing is logged and
   * /api/v1/logs answers 404. Closed by close() after the last request (so every request is logged).
   */
  logs?: LogSystem;
  /** The backup API (/api/v1/backup, /api/v1/backups…); 404 without it. */
  backups?: BackupApi;
  /** The export and import jobs (/api/v1/exports…, /api/v1/imports…); 404 without it. */
  transfers?: TransferApi;
  /** What /readyz answers from (draining); a fresh one when absent. */
  health?: Health;
  /** Serve the dashboard at /admin (config `admin`, `--no-admin`); 404 without it. */
  admin?: boolean;
  /** Where this process counts its requests (every listener of it the same); a fresh one when absent. */
  metrics?: ServerMetrics;
  /** Serve /metrics on the main port (to the top database's admin) from it; 404 without it. */
  scrape?: Scrape;
}

/**
 * Where to listen, and the HTTP limits (README "Limits"); a missing limit takes its default from
 * src/config.ts. (The body size limit is the query service's: QueryLimits.maxBodyBytes.)
 */
export type ServerConfig = Pick<FloraConfig, 'host' | 'port'> & Partial<Pick<FloraConfig, 'bodyTimeoutMs' | 'idleTimeoutMs' | 'maxHeaderKb' | 'tlsCert' | 'tlsKey'>> & BodyConfig;

/** How request bodies are held (bodyLedger.ts, bodyRate.ts); a missing setting takes its default. */
type BodyConfig = Partial<Pick<FloraConfig, 'bodyMemoryConnectionMb' | 'bodyMemorySecretMb' | 'bodyMemoryAddressMb' | 'bodyMinRate' | 'bodyRateGraceMs'>>;

export async function startServer(service: QueryService, config: ServerConfig, opts: ServerOptions = {}): Promise<RunningServer> {
  const { logs } = opts;
  const defaults = defaultConfig();
  const limits = {
    bodyTimeoutMs: config.bodyTimeoutMs ?? defaults.bodyTimeoutMs,
    idleTimeoutMs: config.idleTimeoutMs ?? defaults.idleTimeoutMs,
    maxHeaderKb: config.maxHeaderKb ?? defaults.maxHeaderKb,
  };
  // Built once: every request's exchange shares them.
  const exchangeOptions = { bodyTimeoutMs: limits.bodyTimeoutMs, ...bodyAccounting(service.pool, config) };
  const logger = logs?.logger ?? NO_LOGGER;
  const streams = new StreamHub(service);
  const requests = opts.metrics ?? new ServerMetrics();
  let router = opts.router;
  if (!router) {
    router = buildRouter(service, streams, { logs, admin: opts.admin, health: opts.health, requests, scrape: opts.scrape });
    requests.watchStreams('v4', () => streams.size);
  }
  const routes = router;
  // Each route's counters, by route number (Router.find), so a request's record is array increments.
  const slots = routes.names.map((name) => requests.slot(name));
  const unmatched = requests.slot(UNMATCHED);

  const handle = async (ctx: RequestContext, route: number): Promise<Outcome> => {
    try {
      if (isPreflight(ctx.method, ctx.headers)) return { status: 200, body: '', headers: preflightHeaders() };
      return await routes.handler(route, ctx.method)(ctx);
    } catch (err) {
      if (err instanceof BodyTooLarge) return protocolError(413, 'request too large', 'Request entity is too large');
      // Fauna's Netty-level answers (fql-v4.md §1.7): `{"error":…}`, and the connection is closed.
      if (err instanceof BodyTimeout || err instanceof MalformedRequest) return requestFailure(err);
      if (err instanceof ProtocolError) return protocolError(err.status, err.code, err.description, err.headers);
      // Nobody is listening any more; send() will find the response closed and do nothing.
      if (err instanceof ClientClosed) return protocolError(400, 'bad request', err.message);
      return internalError(err, ctx);
    }
  };

  const finalize = (ctx: RequestContext, outcome: Outcome): HttpResponse => {
    // The body as bytes once: its length is x-query-bytes-out, content-length and the log's.
    const body = typeof outcome.body === 'string' ? Buffer.from(outcome.body, 'utf8') : outcome.body;
    const headers: Record<string, string> = outcome.v10
      ? { 'content-type': CONTENT_TYPE, 'x-faunadb-build': BUILD }
      : { 'content-type': CONTENT_TYPE, 'x-txn-time': String(outcome.txnTime ?? safeNow(service)), 'x-faunadb-build': BUILD };
    if (!outcome.v10 && hasMetrics(outcome.status)) addMetricsHeaders(headers, outcome, body.length);
    headers.traceparent = responseTraceparent(ctx.headers.traceparent);
    // Service and error headers may come in any case (e.g. `WWW-Authenticate`); HTTP/2 needs lower case.
    if (outcome.headers) for (const name in outcome.headers) headers[name.toLowerCase()] = outcome.headers[name];
    if (headers['www-authenticate'] !== undefined && isBrowserNavigation(ctx.headers)) delete headers['www-authenticate'];
    const origin = ctx.headers.origin;
    if (origin !== undefined) Object.assign(headers, corsHeaders(origin, headers));
    return { status: outcome.status, headers, body };
  };

  const listener = await listen(config.host, config.port, (req, res, protocol) => {
    let exchange;
    try {
      exchange = createExchange(req, res, protocol, exchangeOptions);
    } catch (err) {
      // Nothing sane to answer with (should not happen): drop the request rather than the process.
      log.error('cannot read request', { err });
      res.destroy();
      return;
    }
    const { ctx, send } = exchange;
    // A secret a browser attached to another site's form or image is not taken (browsers.ts).
    if (browserAttachedCredentials(ctx.headers)) delete (ctx.headers as Record<string, string>).authorization;
    const startedMs = Date.now();
    // Presigned log-export downloads stream a file: they bypass the JSON Outcome path.
    if (logs && isDownloadPath(ctx.path)) {
      void serveDownload(logs, ctx, res, logger, startedMs);
      return;
    }
    // So do backups, which stream a snapshot of the store or a file.
    if (opts.backups && isBackupPath(ctx.path)) {
      void opts.backups.serve(ctx, res, logger, startedMs);
      return;
    }
    // And export and import jobs (an upload, the files of an export).
    if (opts.transfers && isTransferPath(ctx.path)) {
      void opts.transfers.serve(ctx, res, logger, startedMs);
      return;
    }
    const route = routes.find(ctx.path);
    const slot = route === NO_ROUTE ? unmatched : slots[route];
    const started = performance.now();
    handle(ctx, route)
      .then((answered) => {
        // A large body waits in memory until the client has read it: it is held in the shared pool.
        const outcome = holdResponse(service.pool, res, answered);
        const response = finalize(ctx, outcome);
        if (outcome.stream) {
          // A stream is logged once, when it ends, with everything it sent.
          exchange.stream(response, (sink) => {
            sink.onClose(() => logOutcome(logger, ctx, outcome, { ...response, body: '' }, startedMs, Date.now(), sink.written));
            outcome.stream!(sink);
          });
          requests.record(slot, response.status, (performance.now() - started) / 1000, outcome.metrics);
          return;
        }
        const doneMs = Date.now(); // the record's TS: before the client can have the answer
        send(response);
        requests.record(slot, response.status, (performance.now() - started) / 1000, outcome.metrics);
        if (!isHealthPath(ctx.path)) logOutcome(logger, ctx, outcome, response, startedMs, doneMs); // query log: after the response is out
      })
      .catch((err: unknown) => {
        try {
          const outcome = internalError(err, ctx, 'writing the response to');
          const response = finalize(ctx, outcome);
          const doneMs = Date.now();
          send(response);
          requests.record(slot, response.status, (performance.now() - started) / 1000, undefined);
          logOutcome(logger, ctx, outcome, response, startedMs, doneMs);
        } catch {
          res.destroy();
        }
      });
  }, limits, config.tlsCert && config.tlsKey ? { cert: config.tlsCert, key: config.tlsKey } : undefined);

  const { address: host, port } = listener.address;
  const address = `${listener.secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // Presigned download URLs point at the listener that serves the log-export API.
  if (logs && !opts.router) logs.serverAddress = address;
  let closed: Promise<void> | undefined;
  return {
    address,
    port,
    close: () => {
      if (!closed) streams.closeAll(); // open streams would keep their connections forever
      closed ??= listener.close().then(async () => {
        await streams.idle();
        if (opts.ownsService === false) return;
        await logs?.close();
        await service.close();
      });
      return closed;
    },
    forceClose: () => listener.destroyAll(),
    reloadTls: () => listener.reloadTls(),
  };
}

/**
 * The ledger bodies are charged to, one per pool: every listener of the process shares it (the shares
 * the first one names), and its minimum rate.
 */
function bodyAccounting(pool: MemoryPool, config: BodyConfig): { ledger: BodyLedger; bodyRate: BodyRate } {
  const d = defaultConfig();
  const mib = (n: number) => Math.floor(n * 1024 * 1024);
  const shares = {
    perConnection: mib(config.bodyMemoryConnectionMb ?? d.bodyMemoryConnectionMb),
    perSecret: mib(config.bodyMemorySecretMb ?? d.bodyMemorySecretMb),
    perAddress: mib(config.bodyMemoryAddressMb ?? d.bodyMemoryAddressMb),
  };
  const bodyRate = { minBytesPerSecond: config.bodyMinRate ?? d.bodyMinRate, graceMs: config.bodyRateGraceMs ?? d.bodyRateGraceMs };
  return { ledger: ledgerOf(pool, shares), bodyRate };
}

/** Bodies up to this size are not counted against the pool (the hot path stays free of it). */
const UNCOUNTED_RESPONSE = 64 * 1024;

/**
 * Reserves a large response's size in the pool until its connection is done with it, so that slow
 * readers of large answers cannot pile them up; one that does not fit becomes a 429.
 */
function holdResponse(pool: MemoryPool, res: AnyResponse, outcome: Outcome): Outcome {
  const size = outcome.body.length;
  // Nobody left to read it (the connection closed): nothing will be held.
  if (size <= UNCOUNTED_RESPONSE || outcome.stream || res.destroyed || res.closed) return outcome;
  if (!pool.tryReserve(size)) {
    const busy = new TooBusy();
    return { ...protocolError(busy.status, busy.code, busy.description, busy.headers), log: outcome.log };
  }
  res.once('close', () => pool.release(size));
  return outcome;
}

function safeNow(service: QueryService): bigint {
  try {
    return service.now();
  } catch {
    return BigInt(Date.now()) * 1000n;
  }
}
