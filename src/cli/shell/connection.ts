// Where `flora eval` and `flora shell` connect: a URL, a secret and a start database, from flags,
// the environment (FLORA_URL, FLORA_SECRET) or the endpoints file that fauna-shell keeps
// (~/.fauna-shell), so that its users' saved endpoints work unchanged. Both of its layouts:
//   0.x:  default=local / [local] domain=… port=… scheme=… secret=…
//   1.x:  default=local / [endpoint.local] secret=… url=…

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { QueryClient } from '../../transfer/queryClient';
import { ShellError } from './errors';
import { parseIni } from './ini';

export const DEFAULT_URL = 'http://127.0.0.1:8443';
/** fauna-shell's default when an endpoint names no address. */
const FAUNA_URL = 'https://db.fauna.com';

/** The connection options of `flora eval` and `flora shell`, for their usage texts. */
export const CONNECTION_HELP = `Connection (flags win over the environment, which wins over the endpoints file):
  --url <url>          The server's address (env FLORA_URL; default ${DEFAULT_URL})
  --secret <secret>    The secret to query with (env FLORA_SECRET)
  --endpoint <alias>   An endpoint that fauna-shell saved in ~/.fauna-shell; without --secret,
                       FLORA_SECRET or FLORA_URL, the file's default endpoint is used
  --database <path>    Work in this database below the secret's, e.g. app/staging (an admin secret)`;

/** node:util parseArgs options for ConnectionFlags. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  endpoint: { type: 'string' },
  database: { type: 'string' },
} as const;

export interface ConnectionFlags {
  url?: string;
  secret?: string;
  endpoint?: string;
  database?: string;
}

export interface Connection {
  url: string;
  secret: string;
  /** The start database below the secret's, as `a/b` ('' = the secret's own). */
  database: string;
  /** The endpoint of the file used, if any (for the banner). */
  endpoint?: string;
}

/** A connection that cannot be made from what was given: bad usage (exit code 2). */
export class ConnectionError extends ShellError {}

/** The database to work in is not there. */
export class NoSuchDatabase extends ShellError {}

export interface Endpoint {
  url: string;
  secret?: string;
}

export interface EndpointsFile {
  path: string;
  default?: string;
  endpoints: Map<string, Endpoint>;
}

export function endpointsFilePath(home: string): string {
  return path.join(home, '.fauna-shell');
}

/** The endpoints of fauna-shell's file; an absent file has none. */
export function readEndpointsFile(file: string): EndpointsFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path: file, endpoints: new Map() };
    throw new ConnectionError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const sections = parseIni(text);
  const top = sections.get('')!;
  // 1.x nests every endpoint under `endpoint.`; a file it wrote has no top-level endpoints left.
  const nested = [...sections.keys()].some((name) => name.startsWith('endpoint.'));
  const endpoints = new Map<string, Endpoint>();
  for (const [name, fields] of sections) {
    if (name === '') continue;
    if (nested && !name.startsWith('endpoint.')) continue;
    const alias = nested ? name.slice('endpoint.'.length) : name;
    endpoints.set(alias, { url: endpointUrl(fields), secret: fields.get('secret') || undefined });
  }
  return { path: file, default: top.get('default') || undefined, endpoints };
}

/** `url`, else `scheme://domain:port` with fauna-shell's defaults (https, db.fauna.com). */
function endpointUrl(fields: Map<string, string>): string {
  const url = fields.get('url');
  if (url) return url;
  const [scheme, domain, port] = [fields.get('scheme'), fields.get('domain'), fields.get('port')];
  if (!scheme && !domain && !port) return FAUNA_URL;
  return `${scheme || 'https'}://${domain || 'db.fauna.com'}${port ? `:${port}` : ''}`;
}

/**
 * Flags win over the environment, which wins over the file: each of the URL and the secret is
 * --url/--secret, else the entry `--endpoint` names, else FLORA_URL/FLORA_SECRET, else the file's
 * default endpoint, else (the URL) http://127.0.0.1:8443. The default endpoint is left out whenever
 * --secret, FLORA_SECRET or FLORA_URL is given, so that its secret never goes to a server it was
 * not saved for.
 */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, home: string): Connection {
  const envUrl = env.FLORA_URL || undefined;
  const envSecret = env.FLORA_SECRET || undefined;
  let alias = flags.endpoint;
  let entry: Endpoint | undefined;
  if (alias !== undefined || (flags.secret === undefined && envSecret === undefined && envUrl === undefined)) {
    const file = readEndpointsFile(endpointsFilePath(home));
    alias ??= file.default;
    if (alias !== undefined) {
      entry = file.endpoints.get(alias);
      if (!entry) {
        const known = [...file.endpoints.keys()];
        throw new ConnectionError(`no endpoint '${alias}' in ${file.path}${known.length ? ` (it has ${known.map((k) => `'${k}'`).join(', ')})` : ''}`);
      }
      if (!entry.secret && flags.secret === undefined) throw new ConnectionError(`endpoint '${alias}' in ${file.path} has no secret`);
    }
  }
  const url = (flags.url ?? entry?.url ?? envUrl ?? DEFAULT_URL).replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    throw new ConnectionError(`'${url}' is not a URL`);
  }
  const secret = flags.secret ?? entry?.secret ?? envSecret;
  if (!secret) throw new ConnectionError(`a secret is required: --secret, FLORA_SECRET, or an endpoint in ${endpointsFilePath(home)} (--endpoint)`);
  return { url, secret, database: normaliseDatabase(flags.database ?? ''), endpoint: entry ? alias : undefined };
}

/** The client of database `relative` (`a/b`; '' or '/' for the start database itself) below the start database. */
export function clientFor(conn: Connection, relative = ''): QueryClient {
  const database = [conn.database, normaliseDatabase(relative)].filter((p) => p !== '').join('/');
  // A scoped secret (`s:db:role`) cannot be scoped again.
  if (database !== '' && conn.secret.includes(':')) throw new ConnectionError("a database needs an unscoped secret: this one (with a ':') is scoped already");
  return new QueryClient(conn.url, conn.secret).scoped(database);
}

/** `a/b`, `/a/b/` → `a/b`; '' or '/' → ''. Empty segments (`a//b`) are refused. */
export function normaliseDatabase(p: string): string {
  const trimmed = p.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  if (trimmed.split('/').some((s) => s === '' || s.includes(':'))) throw new ConnectionError(`'${p}' is not a database path (names separated by '/')`);
  return trimmed;
}

/**
 * clientFor, once the server has answered one query: `Exists(Database(…))` from the secret's own
 * database for a child (so that a missing one is named as such, not a bare 401), `Now()` otherwise.
 * Query failures are thrown as QueryFailed or ServerUnreachable.
 */
export async function openDatabase(conn: Connection, relative = ''): Promise<QueryClient> {
  const client = clientFor(conn, relative);
  if (client.path.length === 0) {
    await client.query('{"now":null}');
    return client;
  }
  const ref = client.path.reduce<object | undefined>((scope, name) => (scope ? { database: name, scope } : { database: name }), undefined);
  if ((await new QueryClient(conn.url, conn.secret).resource(JSON.stringify({ exists: ref }))) !== true)
    throw new NoSuchDatabase(`no database '${client.path.join('/')}'`);
  return client;
}
