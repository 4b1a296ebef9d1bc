// Keeping secrets out of the query log. REQUEST_HEADERS holds only an allow-list of headers that
// describe the client (never Authorization, Cookie, or anything unknown; not content-length either,
// which BYTES_IN already gives), and every value that goes into a record from a header or a tag is
// scrubbed of things that look like credentials.

/** Request headers copied into REQUEST_HEADERS (as `user_agent`, `x_forwarded_for`, …). */
export const LOGGED_HEADERS: readonly string[] = [
  'user-agent', 'x-forwarded-for', 'x-forwarded-proto', 'x-real-ip', 'host', 'origin',
  'content-type', 'accept', 'accept-encoding',
  'x-fauna-driver', 'x-fauna-source', 'x-faunadb-api-version', 'x-last-seen-txn', 'x-query-timeout',
  'x-max-retries-on-contention', 'x-runtime-environment', 'x-runtime-environment-os', 'x-nodejs-version',
  'x-driver-env', 'x-fauna-shell-builtin', 'x-faunadb-formatted-json', 'x-trace',
  // v10-era names a driver may send; logged like Fauna does, ignored otherwise.
  'x-query-timeout-ms', 'x-max-contention-retries', 'x-last-txn-ts', 'x-linearized', 'x-typecheck',
  'x-performance-hints',
];

const LOGGED: ReadonlySet<string> = new Set(LOGGED_HEADERS);
const HEADER_VALUE_MAX = 256;
/** A request path is kept to this many characters (a request line may be far longer). */
const PATH_MAX = 512;
const HIDDEN = '***';
/** The headers that carry the client's last transaction time, a new number with every request. */
const TXN_FIELDS: ReadonlyMap<string, string> = new Map([['x-last-seen-txn', 'x_last_seen_txn'], ['x-last-txn-ts', 'x_last_txn_ts']]);
const NUMERIC = /^\d{1,20}$/;

/**
 * Key and token secrets (DECISIONS #9), JWTs, and credentials after an auth scheme, in one pass.
 * Case-insensitive: over-scrubbing a harmless `fna…` word is the cheaper mistake.
 */
const SECRET_PATTERN = /fn[AE][A-Za-z0-9_-]{16,}|\bey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*|\b(?:bearer|basic|token|digest)\s+\S+/gi;

/** REQUEST_HEADERS strings are cached by header values (clients repeat theirs); at most this many. */
const CACHE_MAX = 512;

export class Redactor {
  private readonly secrets: readonly string[];
  /** Cache key → the record's literal, and that literal without its closing `}"` (to append the txn). */
  private readonly cache = new Map<string, { literal: string; open: string; empty: boolean }>();
  /** Request path → its literal: clients repeat a few paths (`/`, `/query/1`), and scrubbing costs a regex run. */
  private readonly paths = new Map<string, string>();

  /** `secrets`: literal values that must never be logged (the root secret). Ones under 4 characters are ignored. */
  constructor(secrets: readonly string[] = []) {
    this.secrets = secrets.filter((s) => s.length >= 4);
  }

  /** The value with credential-looking parts replaced by "***"; a value holding a known secret is hidden whole. */
  scrub(value: string): string {
    for (const s of this.secrets) if (value.includes(s)) return HIDDEN;
    return value.replace(SECRET_PATTERN, HIDDEN);
  }

  /** A request path as a JSON string literal: scrubbed, clipped to PATH_MAX characters. */
  pathLiteral(path: string): string {
    let literal = this.paths.get(path);
    if (literal === undefined) {
      const scrubbed = this.scrub(path);
      literal = JSON.stringify(scrubbed.length > PATH_MAX ? `${scrubbed.slice(0, PATH_MAX - 1)}…` : scrubbed);
      if (this.paths.size >= CACHE_MAX) this.paths.clear();
      this.paths.set(path, literal);
    }
    return literal;
  }

  /** REQUEST_HEADERS: a JSON object serialised as a string (log-export.md §B.3). */
  requestHeaders(headers: Readonly<Record<string, string>>): string {
    return JSON.parse(this.requestHeadersLiteral(headers)) as string;
  }

  /**
   * REQUEST_HEADERS as it appears in a record: the JSON string literal of requestHeaders(). Drivers
   * send a new transaction time with every request (v4's X-Last-Seen-Txn, v10's X-Last-Txn-Ts), so
   * a numeric one is kept out of the cache key and added last (digits need neither scrubbing nor
   * escaping).
   */
  requestHeadersLiteral(headers: Readonly<Record<string, string>>): string {
    // Left out of the key and of the cached literal alike: a numeric one and an absent one are the same to it.
    const cached = (name: string) => LOGGED.has(name) && !(TXN_FIELDS.has(name) && NUMERIC.test(headers[name]));
    let key = '';
    for (const name in headers) if (cached(name)) key += `${name}\u0000${headers[name]}\u0000`;
    let numeric = '';
    for (const [name, field] of TXN_FIELDS) {
      const value = headers[name];
      if (value !== undefined && NUMERIC.test(value)) numeric += `${numeric ? ',' : ''}\\"${field}\\":\\"${value}\\"`;
    }
    let stable = this.cache.get(key);
    if (stable === undefined) {
      const out: Record<string, string> = {};
      for (const name of LOGGED_HEADERS) {
        const value = headers[name];
        if (value === undefined || !cached(name)) continue;
        const clipped = value.length > HEADER_VALUE_MAX ? `${value.slice(0, HEADER_VALUE_MAX - 1)}…` : value;
        out[name.replace(/-/g, '_')] = this.scrub(clipped);
      }
      const json = JSON.stringify(out);
      const literal = JSON.stringify(json);
      // The escaped form of the object without its `}`: digits and these names need no escaping.
      stable = { literal, open: literal.slice(0, -2), empty: json.length <= 2 };
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(key, stable);
    }
    if (numeric === '') return stable.literal;
    return `${stable.open}${stable.empty ? '' : ','}${numeric}}"`;
  }
}
