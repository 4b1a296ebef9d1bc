// The schema API (api/schema/SchemaEndpoint.scala): GET /schema/1/files and /files/{name} (the
// staged files with staged=true), POST /schema/1/update (applied at once, in one transaction, or
// staged with staged=true), POST /schema/1/validate and /diff (the `semantic`, `summary` or
// `textual` format, `color=ansi`; against the staged schema with staged=true), GET
// /schema/1/staged/status (with a diff when a format is asked), POST /schema/1/staged/commit and
// /staged/abandon (also without `staged/`); one item at a time, GET, POST and DELETE
// /schema/1/items/{resource}/{name} and POST /schema/1/items/{resource} (the paths the core routes;
// its OpenAPI document has them without `items/`, and both are served), with `validate=true` for
// the diff instead of the write. Every answer carries the schema `version` (µs);
// failures are `{"error": {"message"}}` with the core's statuses and words
// (SchemaResponse.ErrorResponse). Files arrive as multipart/form-data, one part per file, named by
// its path.

import type { QueryService } from '../fql/api';
import type { TxnContext } from '../model/context';
import { schemaOf } from '../model/resolve';
import type { SourceText } from '../model/schemaSources';
import { QueryCancelled, QueryTimeout } from '../model/budget';
import { ProtocolError } from '../values/errors';
import { activeSchema } from '../fql10/schemaFiles/files';
import type { DiffFormat } from '../fql10/schemaFiles/diffRender';
import type { Renames } from '../fql10/schemaFiles/itemChanges';
import { pushSchema, type ItemDiff } from '../fql10/schemaFiles/push';
import { SchemaRefused } from '../fql10/schemaFiles/refused';
import { diffProposed, diffStagedSchema, type DiffStyle } from '../fql10/schemaFiles/schemaDiff';
import { appendToMain, itemDefinition, itemText, ITEM_RESOURCES, latestFiles, locateItem, parseSnippet, patchItem, withFile, type LocatedItem } from '../fql10/schemaFiles/singleItem';
import { abandonStaged, commitStaged, stagedFiles, stagedRenames, stagedStatus, stageSchema } from '../fql10/schemaFiles/staged';
import type { MValue } from '../wire/v10/model';
import { encodeData } from '../wire/v10/envelope';
import { refuseUnauthenticated } from './authFirst';
import type { RequestContext } from './context';
import { clientClosed, type Outcome } from './responses';
import type { Handler } from './router';

export const SCHEMA_PREFIX = '/schema/1';
export const isSchemaPath = (p: string): boolean => p === SCHEMA_PREFIX || p.startsWith(SCHEMA_PREFIX + '/');

/** SchemaRequest.MaxFiles: main.fsl and 1023 others. */
const MAX_FILES = 1024;

/** A refusal with the core's status and message; thrown out of the transaction so that its writes are dropped. */
class SchemaHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const NOT_FOUND = () => new SchemaHttpError(404, 'Not found');
const FORBIDDEN = () => new SchemaHttpError(403, 'Access denied');
const LOG = { apiVersion: '10' } as const;

function errorOutcome(status: number, message: string, headers?: Record<string, string>): Outcome {
  return { status, body: JSON.stringify({ error: { message } }), headers, log: LOG, v10: true };
}

/** `{"version": …, …rest}`, the version as an exact integer; `definition` (JSON) last. */
function answer(version: bigint, rest: Record<string, unknown> = {}, definition?: string): Outcome {
  const more = JSON.stringify(rest).slice(1, -1);
  const body = `{"version":${version}${more === '' ? '' : ',' + more}${definition === undefined ? '' : ',"definition":' + definition}}`;
  return { status: 200, body, log: LOG, v10: true };
}

type ItemResource = (typeof ITEM_RESOURCES)[string];

/** A single-item route: `name` null for POST /items/{resource} (a new item); `validate` answers the diff instead. */
interface ItemRoute {
  readonly kind: 'item';
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly resource: ItemResource;
  readonly name: string | null;
  readonly validate: boolean;
}

type Route = { kind: 'files' } | { kind: 'file'; name: string } | { kind: 'update' } | { kind: 'diff' } | { kind: 'status' } | { kind: 'commit' } | { kind: 'abandon' } | ItemRoute;

const writes = (r: Route): boolean => r.kind === 'update' || r.kind === 'commit' || r.kind === 'abandon' || (r.kind === 'item' && r.method !== 'GET' && !r.validate);

/** Runs a write first as a check that is dropped (Checked): a diff, and an item's validate. */
const checksFirst = (r: Route): boolean => r.kind === 'diff' || (r.kind === 'item' && r.validate);

function itemRoute(method: string, rest: string, q: URLSearchParams): Route | SchemaHttpError | undefined {
  const m = /^(?:\/items)?\/([^/]+)(?:\/([^/]+))?$/.exec(rest);
  const resource = m && Object.hasOwn(ITEM_RESOURCES, m[1]) ? ITEM_RESOURCES[m[1]] : undefined;
  if (m === null || resource === undefined) return undefined;
  const name = m[2] === undefined ? null : decodeURIComponent(m[2]);
  const allowed = name === null ? ['POST'] : ['GET', 'POST', 'DELETE'];
  if (!allowed.includes(method)) return new SchemaHttpError(405, 'Method not allowed');
  return { kind: 'item', method: method as ItemRoute['method'], resource, name, validate: method !== 'GET' && q.get('validate') === 'true' };
}

function route(method: string, path: string, q: URLSearchParams): Route | SchemaHttpError {
  const rest = path.slice(SCHEMA_PREFIX.length).replace(/\/$/, '');
  const table: Record<string, { method: string; route: Route }> = {
    '/files': { method: 'GET', route: { kind: 'files' } },
    '/update': { method: 'POST', route: { kind: 'update' } },
    '/validate': { method: 'POST', route: { kind: 'diff' } },
    '/diff': { method: 'POST', route: { kind: 'diff' } },
    '/status': { method: 'GET', route: { kind: 'status' } },
    '/staged/status': { method: 'GET', route: { kind: 'status' } },
    '/commit': { method: 'POST', route: { kind: 'commit' } },
    '/staged/commit': { method: 'POST', route: { kind: 'commit' } },
    '/abandon': { method: 'POST', route: { kind: 'abandon' } },
    '/staged/abandon': { method: 'POST', route: { kind: 'abandon' } },
  };
  const file = /^\/files\/([^/]+)$/.exec(rest);
  const hit = file ? { method: 'GET', route: { kind: 'file', name: decodeURIComponent(file[1]) } as Route } : table[rest];
  if (hit === undefined) return itemRoute(method, rest, q) ?? NOT_FOUND();
  if (hit.method !== method) return new SchemaHttpError(405, 'Method not allowed');
  return hit.route;
}

/** The files of a multipart body (SchemaRequest.parse): each part's name and UTF-8 content. */
async function filesOf(ctx: RequestContext, body: Buffer): Promise<SourceText[] | SchemaHttpError> {
  const type = ctx.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('multipart/')) return [];
  let form: FormData;
  try {
    form = await new Request('http://schema/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) }).formData();
  } catch {
    return new SchemaHttpError(400, 'Request is not a valid multipart request');
  }
  const files: SourceText[] = [];
  for (const [name, value] of form) {
    if (name.startsWith('*') || !name.endsWith('.fsl')) return new SchemaHttpError(400, `Invalid filename \`${name}\``);
    files.push({ name, text: typeof value === 'string' ? value : await value.text() });
  }
  const maxFiles = files.some((f) => f.name === 'main.fsl') ? MAX_FILES : MAX_FILES - 1;
  return files.length > maxFiles ? new SchemaHttpError(400, 'Too many files') : files;
}

/** The last schema change of the transaction's database (Cache.getLastSeenSchema), µs. */
async function schemaVersion(tx: TxnContext): Promise<bigint> {
  const last = (await schemaOf(tx, tx.scope.db)).lastTs;
  return typeof last === 'bigint' ? last : 0n;
}

/** checkSchemaVersion: `version` must be the current one unless `force=true`. */
async function checkVersion(tx: TxnContext, q: URLSearchParams): Promise<bigint> {
  const current = await schemaVersion(tx);
  const known = q.get('version');
  if (q.get('force') !== 'true' && known !== null && /^-?\d+$/.test(known) && BigInt(known) !== current) {
    throw new SchemaHttpError(409, 'Stale schema version provided');
  }
  return current;
}

/**
 * Admin secrets read and write schema; server and server-readonly ones read it (the core's
 * ServerPermissions answers WriteSchema with false: SchemaABACSpec "requires admin keys to update
 * schema"); other secrets neither.
 */
function checkPermission(tx: TxnContext, write: boolean): void {
  const s = tx.scope;
  const roleOk = write ? s.role === 'admin' : s.role === 'admin' || s.role === 'server' || s.role === 'server-readonly';
  if (!roleOk || s.roles !== undefined || s.token !== undefined || s.jwt !== undefined || s.docScoped) throw FORBIDDEN();
}

const FORMATS: ReadonlySet<string> = new Set<DiffFormat>(['semantic', 'summary', 'textual']);

/** SchemaRequest.diffFormat: `format`, else `diff` (`true` the legacy name of `semantic`); null when neither names a format. */
function diffFormat(q: URLSearchParams): DiffFormat | null {
  const format = q.get('format');
  if (format !== null && FORMATS.has(format)) return format as DiffFormat;
  const diff = q.get('diff');
  if (diff === 'true') return 'semantic';
  return diff !== null && FORMATS.has(diff) ? (diff as DiffFormat) : null;
}

/** SchemaRequest.colorKind: `color=ansi` colours the diff. */
const colorKind = (q: URLSearchParams): DiffStyle['color'] => (q.get('color') === 'ansi' ? 'ansi' : 'none');

/** disallowRoot: schema is staged only in child databases (the root's is pushed active). */
function refuseRoot(tx: TxnContext): void {
  if (tx.scope.db === 0n) throw new SchemaHttpError(400, 'Schema cannot be staged in the root database');
}

/**
 * A staged push (and a diff) runs twice: first its files are applied in a transaction that is then
 * dropped (every check an active push makes holds for them), then they are staged (or compared).
 * This ends the first run.
 */
class Checked extends Error {}

/** How `update` runs: `push` applies at once, or for a staged push checks the files; then `stage` stages them. */
type UpdatePhase = 'push' | 'stage';

interface Served {
  version: bigint;
  rest?: Record<string, unknown>;
  /** The answer's version is the transaction's time (SchemaUpdated). */
  updated?: boolean;
  /** An item's definition (SourceItem), encoded once the transaction's time is known. */
  definition?: MValue;
}

const wrote = (tx: TxnContext) => tx.schemaWrites.has(tx.scope.db);

/**
 * update's writes: the files applied at once, or (with staged=true, or a schema staged already)
 * checked, then staged. The items changed when applied at once.
 */
async function applyFiles(tx: TxnContext, files: SourceText[], phase: UpdatePhase, staged: boolean, renames?: Renames): Promise<{ updated: boolean; diffs?: ItemDiff[] }> {
  // With a schema staged, a push without staged=true replaces it too: the core's active schema
  // stays pinned until commit or abandon, whatever is pushed meanwhile.
  if (staged || (await stagedFiles(tx)) !== undefined) {
    refuseRoot(tx);
    const all = await stagedRenames(tx, renames);
    if (phase === 'push') {
      await pushSchema(tx, files, all);
      throw new Checked();
    }
    await stageSchema(tx, files, all);
    return { updated: wrote(tx) };
  }
  return { updated: true, diffs: await pushSchema(tx, files, renames) };
}

/** The single-item routes (SchemaEndpoint.singleItemEndpoints). */
async function serveItem(r: ItemRoute, tx: TxnContext, q: URLSearchParams, body: string, phase: UpdatePhase, version: bigint): Promise<Served> {
  const { kind, module, desc } = r.resource;
  const files = await latestFiles(tx);
  const located = (name: string): LocatedItem => {
    const at = locateItem(files, kind, name);
    if (at === undefined) throw NOT_FOUND();
    return at;
  };
  const shown = (at: LocatedItem, content: string) => ({ filename: at.file.name, span: { start: at.item.span.start, end: at.item.span.end }, content });
  if (r.method === 'GET') {
    const at = located(r.name!);
    return { version, rest: shown(at, itemText(at)), definition: await itemDefinition(tx, module, r.name!) };
  }
  // The item as it stands (none for a new one), the file as it will be, and the item's final name.
  let old: LocatedItem | undefined;
  let next: SourceText;
  let name: string;
  const renames = new Map<string, string>();
  let before: MValue | undefined;
  if (r.method === 'POST') {
    name = parseSnippet(body, kind, desc).name.str;
    if (r.name === null) next = appendToMain(files, body);
    else {
      old = located(r.name);
      next = patchItem(old, body);
      if (name !== r.name) renames.set(`${kind}:${name}`, r.name);
    }
  } else {
    old = located(r.name!);
    name = r.name!;
    next = patchItem(old, '');
    before = await itemDefinition(tx, module, name);
  }
  const all = withFile(files, next);
  if (r.validate) {
    // Checked as a push of the files would be, then compared (validateSingleFSLItem).
    if (phase === 'push' && tx.scope.role !== 'server-readonly') {
      await pushSchema(tx, all, await stagedRenames(tx, renames));
      throw new Checked();
    }
    return { version, rest: { diff: await diffProposed(tx, all, undefined, { format: diffFormat(q) ?? 'semantic', color: colorKind(q) }, renames) } };
  }
  const { updated, diffs } = await applyFiles(tx, all, phase, false, renames);
  const changed = diffs === undefined ? updated : diffs.some((d) => d.item.kind === kind && d.item.name.str === name);
  const definition = before ?? (await itemDefinition(tx, module, name));
  if (r.method === 'DELETE') return { version, updated: changed, rest: shown(old!, itemText(old!)), definition };
  // Changed: where the snippet now stands (ItemUpdated); unchanged: the snippet where the item stood (SourceItem).
  const at = changed || old === undefined ? locateItem([next], kind, name)! : old;
  return { version, updated: changed, rest: shown(at, body), definition };
}

async function serve(r: Route, tx: TxnContext, q: URLSearchParams, files: SourceText[], body: Buffer, phase: UpdatePhase): Promise<Served> {
  checkPermission(tx, writes(r));
  // An item's validate answers the version as it is (Cache.getLastSeenSchema), whatever is asked.
  const version = r.kind === 'item' && r.validate ? await schemaVersion(tx) : await checkVersion(tx, q);
  const staged = q.get('staged') === 'true';
  switch (r.kind) {
    case 'files': {
      const shown = (staged ? await stagedFiles(tx) : undefined) ?? (await activeSchema(tx)).files;
      return { version, rest: { files: shown.map((f) => ({ filename: f.name })) } };
    }
    case 'file': {
      const f = ((staged ? await stagedFiles(tx) : undefined) ?? (await activeSchema(tx)).files).find((x) => x.name === r.name);
      if (f === undefined) throw NOT_FOUND();
      return { version, rest: { content: f.text } };
    }
    case 'status': {
      // The root never has a staged schema: its status is `none` (the core refuses the question
      // there, which would break `fauna schema pull` of the root, Flora's usual database).
      if (tx.scope.db === 0n) return { version, rest: { status: 'none' } };
      const format = diffFormat(q);
      const { status, pendingSummary } = await stagedStatus(tx);
      if (format === null) return { version, rest: { status } };
      const files = await stagedFiles(tx);
      const diff = files === undefined ? '' : await diffStagedSchema(tx, files, { format, color: colorKind(q) });
      return { version, rest: { status, pending_summary: pendingSummary, diff } };
    }
    case 'diff': {
      // The core validates a diff's files as it would push them (SchemaManager.validate): types,
      // names, migrations against the live data. The first run applies them and is dropped (with a
      // secret that may push; a read-only one gets the comparison alone).
      if (phase === 'push' && !staged && tx.scope.role !== 'server-readonly') {
        await pushSchema(tx, files);
        throw new Checked();
      }
      const style: DiffStyle = { format: diffFormat(q) ?? 'semantic', color: colorKind(q) };
      const against = staged ? await stagedFiles(tx) : undefined;
      return { version, rest: { diff: await diffProposed(tx, files, against, style) } };
    }
    case 'update':
      return { version, updated: (await applyFiles(tx, files, phase, staged)).updated };
    case 'commit':
      refuseRoot(tx);
      await commitStaged(tx);
      return { version, updated: wrote(tx) };
    case 'abandon':
      refuseRoot(tx);
      await abandonStaged(tx);
      return { version, updated: wrote(tx) };
    case 'item':
      return serveItem(r, tx, q, body.toString('utf8'), phase, version);
  }
}

export function schemaApi(service: QueryService): Handler {
  return async (ctx) => {
    const refused = await refuseUnauthenticated(service, ctx, () => errorOutcome(401, 'Access token required', { 'www-authenticate': 'Bearer' }));
    if (refused) return refused;
    const r = route(ctx.method, ctx.path, ctx.query);
    if (r instanceof SchemaHttpError) {
      ctx.discardBody();
      return errorOutcome(r.status, r.message);
    }
    const body = await ctx.readBody(service.limits.maxBodyBytes);
    const files = r.kind === 'update' || r.kind === 'diff' ? await filesOf(ctx, body) : [];
    if (files instanceof SchemaHttpError) return errorOutcome(files.status, files.message);
    // A diff's first run applies its files to check them (then it is dropped): it may write.
    const readOnly = (phase: UpdatePhase) => !writes(r) && !(checksFirst(r) && phase === 'push');
    const runPhase = (phase: UpdatePhase) =>
      service.transact(ctx.headers.authorization, (tx) => serve(r, tx, ctx.query, files, body, phase), { readOnly: readOnly(phase), client: ctx });
    try {
      const run = await runPhase('push').catch((e: unknown) => {
        if (e instanceof Checked) return runPhase('stage');
        throw e;
      });
      const { version, rest, updated, definition } = run.result;
      // SchemaUpdated: the version is the push's own transaction time.
      const def = definition === undefined ? undefined : encodeData(definition, 'simple', run.ts);
      return { ...answer(updated ? run.ts : version, rest, def), txnTime: run.ts, bytesIn: body.length };
    } catch (e) {
      if (e instanceof SchemaHttpError) return errorOutcome(e.status, e.message);
      if (e instanceof SchemaRefused) return errorOutcome(400, e.message);
      if (e instanceof ProtocolError && e.status === 401) return errorOutcome(401, 'Access token required', { 'www-authenticate': 'Bearer' });
      if (e instanceof ProtocolError) return errorOutcome(e.status, e.description);
      if (e instanceof QueryTimeout) return errorOutcome(503, 'Read timed out');
      if (e instanceof QueryCancelled) return clientClosed();
      throw e; // a fault of the server's own: 500 with a request id
    }
  };
}
