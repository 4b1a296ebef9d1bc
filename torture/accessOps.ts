// How each cell of the access matrix is reached and what its answer is called: every FQL operation
// through the official driver (HTTP/2) and as raw HTTP/1.1 with Basic auth; GraphQL, /import,
// /stream, the log-export API and /tokens/self as raw HTTP. An answer becomes an Outcome of
// accessMatrix.ts; the raw exchange is kept for the leak checks.

import * as http from 'node:http';
import faunadb, { query as q } from 'faunadb';
import { httpRequest, type RawResponse } from '../test/helpers/server';
import { GQL_SCHEMA, type AccessSetup, type World } from './accessWorld';
import type { Operation, Outcome, Transport } from './accessMatrix';

type Ref = faunadb.values.Ref;

/** One request and its answer, as sent and received (for the leak checks). */
export interface Exchange {
  subject: string;
  op: string;
  transport: Transport;
  /** The secret sent (in a header), and what was asked: an FQL body, or a path and body. */
  secret: string | undefined;
  request: string;
  status: number;
  body: string;
}

export interface CellInput {
  op: Operation;
  subject: string;
  secret: string | undefined;
  world: World;
  setup: AccessSetup;
  /** A fresh name for schema documents this cell creates. */
  fresh: string;
  /** A document of M this cell may delete. */
  doomed: Ref;
}

const owner = (r: Ref) => ({ data: { owner: r } });

/** The FQL expression of an operation (acting in the subject's database). */
export function fqlOf(c: CellInput): faunadb.ExprArg {
  const { world: w, setup: s } = c;
  const siblingDoc = q.Ref(q.Collection('things', q.Database('sibling')), s.siblingDoc.id);
  switch (c.op.id) {
    case 'get-own': return q.Get(w.mine.ref);
    case 'get-other': return q.Get(w.theirs.ref);
    case 'create': return q.Create(q.Collection('things'), owner(w.M));
    case 'update-own': return q.Update(w.mine.ref, { data: { touched: c.subject } });
    case 'update-other': return q.Update(w.theirs.ref, { data: { touched: c.subject } });
    case 'delete': return q.Delete(c.doomed);
    case 'page-index': return q.Paginate(q.Match(q.Index('things_all')));
    case 'page-docs': return q.Paginate(q.Documents(q.Collection('things')));
    case 'page-collections': return q.Paginate(q.Collections());
    case 'get-collection': return q.Get(q.Collection('things'));
    case 'create-collection': return q.CreateCollection({ name: c.fresh });
    case 'create-index': return q.CreateIndex({ name: c.fresh, source: q.Collection('things') });
    case 'create-function': return q.CreateFunction({ name: c.fresh, body: q.Query(q.Lambda('x', q.Var('x'))) });
    case 'create-role': return q.CreateRole({ name: c.fresh, privileges: [{ resource: q.Collection('things'), actions: { read: true } }] });
    case 'create-database': return q.CreateDatabase({ name: c.fresh });
    case 'create-key': return q.CreateKey({ role: 'client' });
    case 'events': return q.Paginate(q.Events(w.mine.ref));
    case 'at': return q.At(w.mine.ts, q.Get(w.mine.ref));
    case 'insert': return q.Insert(w.historic.ref, w.historic.ts, 'create', owner(w.M));
    case 'call': return q.Call(q.Function('plain_fn'), 1);
    case 'call-server-fn': return q.Call(q.Function('server_fn'), w.theirs.ref);
    case 'call-public-fn': return q.Call(q.Function('public_fn'), 1);
    case 'login': return q.Login(q.Match(q.Index('members_by_email'), 'm@example.com'), { password: s.password });
    case 'login-ref': return q.Login(w.M, { password: s.password });
    case 'identify': return q.Identify(w.M, s.password);
    case 'current-identity': return q.CurrentIdentity();
    case 'has-current-identity': return q.HasCurrentIdentity();
    case 'current-token': return q.CurrentToken();
    case 'create-token': return q.Create(q.Tokens(), { instance: w.M });
    case 'page-tokens': return q.Paginate(q.Tokens());
    case 'get-own-token': return q.Get(q.Ref('tokens/self'));
    case 'get-own-credentials': return q.Get(q.Ref('credentials/self'));
    case 'logout': return q.Logout(false);
    case 'page-keys': return q.Paginate(q.Keys());
    case 'get-key': return q.Get(w.key.ref);
    case 'key-from-secret': return q.KeyFromSecret(w.key.secret);
    case 'get-parent-doc': return q.Get(q.Ref(q.Collection('things'), s.top.mine.ref.id));
    case 'get-sibling-doc': return q.Get(siblingDoc);
    case 'update-sibling-doc': return q.Update(siblingDoc, { data: { n: 2 } });
    case 'page-databases': return q.Paginate(q.Databases());
    default: throw new Error(`no FQL for ${c.op.id}`);
  }
}

/** Ids of every ref in a wire-JSON value. */
function refIds(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) refIds(x, out);
  else if (v && typeof v === 'object') {
    const ref = (v as Record<string, unknown>)['@ref'];
    if (ref && typeof ref === 'object' && typeof (ref as { id?: unknown }).id === 'string') out.push((ref as { id: string }).id);
    else for (const x of Object.values(v)) refIds(x, out);
  }
  return out;
}

/** The Outcome of a successful FQL answer (wire JSON of `resource`). */
export function successOutcome(c: CellInput, resource: unknown): Outcome {
  if (typeof resource === 'boolean') return String(resource);
  if (c.op.id === 'page-index' || c.op.id === 'page-docs') {
    const ids = refIds((resource as { data?: unknown }).data);
    const other = c.world === c.setup.top ? c.setup.child : c.setup.top;
    if ([other.mine, other.theirs].some((d) => ids.includes(d.ref.id))) return 'LEAK: another database’s documents';
    const mine = ids.includes(c.world.mine.ref.id);
    const theirs = ids.includes(c.world.theirs.ref.id);
    return mine && theirs ? 'all' : mine ? 'own' : theirs ? 'theirs only' : 'none';
  }
  if (c.op.id === 'page-databases') {
    const names = refIds((resource as { data?: unknown }).data).filter((n) => ['child', 'sibling', 'grandchild'].includes(n));
    return `ok: ${names.sort().join(', ')}`;
  }
  return 'ok';
}

/** The Outcome of an FQL error answer. */
export function errorOutcome(status: number, code: string | undefined): Outcome {
  if (status === 401 || status === 403 || status === 404) return String(status);
  return `${status} ${code ?? '?'}`;
}

const wire = (expr: unknown): string => JSON.stringify(expr);

/** Runs an FQL cell through the driver. */
export async function viaDriver(c: CellInput, client: faunadb.Client): Promise<{ outcome: Outcome; exchange: Exchange }> {
  const expr = fqlOf(c);
  const exchange: Exchange = { subject: c.subject, op: c.op.id, transport: 'driver', secret: c.secret, request: wire(expr), status: 0, body: '' };
  try {
    const result = await client.query(expr);
    exchange.status = 200;
    exchange.body = wire(result);
    return { outcome: successOutcome(c, JSON.parse(exchange.body)), exchange };
  } catch (e) {
    const rr = (e as { requestResult?: { statusCode: number; responseRaw: string; responseContent?: { errors?: { code?: string }[] } } }).requestResult;
    if (!rr) return { outcome: `driver error: ${String(e).slice(0, 120)}`, exchange };
    exchange.status = rr.statusCode;
    exchange.body = rr.responseRaw;
    return { outcome: errorOutcome(rr.statusCode, rr.responseContent?.errors?.[0]?.code), exchange };
  }
}

function authHeaders(secret: string | undefined, basic: boolean): Record<string, string> {
  if (secret === undefined) return {};
  return { authorization: basic ? `Basic ${Buffer.from(`${secret}:`).toString('base64')}` : `Bearer ${secret}` };
}

/** Runs an FQL cell as a raw HTTP/1.1 POST with Basic auth. */
export async function viaHttp(c: CellInput, url: string): Promise<{ outcome: Outcome; exchange: Exchange }> {
  const body = wire(fqlOf(c));
  const res = await httpRequest(url, {
    method: 'POST',
    headers: { ...authHeaders(c.secret, true), 'x-faunadb-api-version': '4', 'content-type': 'application/json' },
    body,
  });
  const exchange: Exchange = { subject: c.subject, op: c.op.id, transport: 'http', secret: c.secret, request: body, status: res.status, body: res.body };
  let parsed: { resource?: unknown; errors?: { code?: string }[] };
  try {
    parsed = JSON.parse(res.body) as typeof parsed;
  } catch {
    return { outcome: `${res.status} not JSON`, exchange };
  }
  if (res.status < 300 && 'resource' in parsed) return { outcome: successOutcome(c, parsed.resource), exchange };
  return { outcome: errorOutcome(res.status, parsed.errors?.[0]?.code), exchange };
}

/** Runs one of the HTTP-only cells. */
export async function viaEndpoint(c: CellInput, url: string): Promise<{ outcome: Outcome; exchange: Exchange }> {
  const auth = authHeaders(c.secret, false);
  const json = { ...auth, 'content-type': 'application/json' };
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const halfHourAgo = new Date(Date.now() - 1_800_000).toISOString();
  let req: { method: string; path: string; headers: Record<string, string>; body?: string; http2?: boolean };
  switch (c.op.id) {
    case 'gql-query':
      req = { method: 'POST', path: '/graphql', headers: json, body: JSON.stringify({ query: '{ allGnotes { data { text } } }' }) };
      break;
    case 'gql-mutation':
      req = { method: 'POST', path: '/graphql', headers: json, body: JSON.stringify({ query: 'mutation { createGnote(data: {text: "x"}) { _id } }' }), http2: true };
      break;
    case 'gql-import':
      req = { method: 'POST', path: '/import?mode=merge', headers: auth, body: GQL_SCHEMA };
      break;
    case 'stream':
      return openStream(c, url, wire(c.world.mine.ref));
    case 'stream-set':
      return openStream(c, url, wire(q.Documents(q.Collection('things'))));
    case 'logs-request':
      req = { method: 'POST', path: '/api/v1/logs?type=query', headers: json, body: JSON.stringify({ region_group: 'us-std', time_start: hourAgo, time_end: halfHourAgo }) };
      break;
    case 'logs-list':
      req = { method: 'POST', path: '/api/v1/logs/_list?type=query&regionGroup=us-std', headers: json, body: '{}' };
      break;
    case 'logs-recent':
      req = { method: 'GET', path: '/api/v1/logs/_recent?type=query&minutes=5&limit=10', headers: auth };
      break;
    case 'index-builds':
      req = { method: 'GET', path: '/api/v1/index-builds', headers: auth };
      break;
    case 'logs-poll-root':
      req = { method: 'GET', path: `/api/v1/logs/${c.setup.rootExportId}?type=query&regionGroup=us-std`, headers: auth };
      break;
    case 'tokens-self':
      req = { method: 'GET', path: '/tokens/self', headers: auth, http2: true };
      break;
    default:
      throw new Error(`no endpoint for ${c.op.id}`);
  }
  const res = await httpRequest(url, req);
  const exchange: Exchange = { subject: c.subject, op: c.op.id, transport: 'http', secret: c.secret, request: `${req.method} ${req.path} ${req.body ?? ''}`, status: res.status, body: res.body };
  return { outcome: c.op.id.startsWith('gql-') ? graphqlOutcome(c.op.id, res) : httpOutcome(res), exchange };
}

/** GraphQL: 401 or "Invalid database secret." (HTTP 200) is 401; a `permission denied` error is 403. */
function graphqlOutcome(op: string, res: RawResponse): Outcome {
  if (op === 'gql-import') return res.status === 200 ? 'ok' : res.status === 401 || res.status === 403 ? String(res.status) : `${res.status} ${res.body.split('\n')[0].slice(0, 100)}`;
  if (res.status === 401) return '401';
  let parsed: { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
  try {
    parsed = JSON.parse(res.body) as typeof parsed;
  } catch {
    return `${res.status} not JSON`;
  }
  const err = parsed.errors?.[0];
  if (!err) return res.status === 200 ? 'ok' : String(res.status);
  if (err.message === 'Invalid database secret.') return '401';
  if (err.extensions?.code === 'permission denied') return '403';
  return `${res.status} graphql: ${err.extensions?.code ?? err.message.slice(0, 80)}`;
}

/** The log-export API and /tokens/self: the status says it (2xx is ok). */
function httpOutcome(res: RawResponse): Outcome {
  if (res.status >= 200 && res.status < 300) return 'ok';
  if (res.status === 401 || res.status === 403 || res.status === 404) return String(res.status);
  return `${res.status} ${res.body.slice(0, 100)}`;
}

/** POST /stream: ok once the start event arrives; an error answer before the stream says why not. */
function openStream(c: CellInput, url: string, body: string): Promise<{ outcome: Outcome; exchange: Exchange }> {
  const exchange: Exchange = { subject: c.subject, op: c.op.id, transport: 'http', secret: c.secret, request: `POST /stream ${body}`, status: 0, body: '' };
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/stream', url), { method: 'POST', agent: false, headers: { ...authHeaders(c.secret, false), 'content-type': 'application/json' } }, (res) => {
      exchange.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        exchange.body += chunk;
        if (exchange.status === 200 && exchange.body.includes('\n')) {
          const first = JSON.parse(exchange.body.split('\n')[0]) as { type?: string };
          res.destroy();
          resolve({ outcome: first.type === 'start' ? 'ok' : `200 ${first.type}`, exchange });
        }
      });
      res.on('end', () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(exchange.body) as { errors?: { code?: string }[] }).errors?.[0]?.code;
        } catch {
          code = 'not JSON';
        }
        resolve({ outcome: errorOutcome(exchange.status, code), exchange });
      });
      res.on('error', () => undefined);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('stream did not answer in 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}
