// The import's schema steps: the target database path (created level by level), collections by
// name, and schema-as-code resources in dependency order. Each creation is guarded, so a rerun
// skips what exists.

import { encodeAsExpr, encodeJson } from '../../wire/encode';
import { decodeLiteral } from '../../wire/decode';
import { jsonString, parseJson } from '../../wire/json';
import type { JsonValue } from '../../wire/expr';
import type { DatabasePath, FloraItem, SchemaNative } from '../sources';
import { QueryFailed, type QueryClient } from '../queryClient';
import { literalField, withoutField, type SchemaKind, type SchemaResource } from '../schemaFiles';
import type { ImportReport } from './report';
import { ensureNamed } from './statements';

/** The client of database `path` below `root`'s, creating the databases that are missing. */
export async function ensureDatabase(root: QueryClient, path: string, report: ImportReport): Promise<QueryClient> {
  const segments = path.split('/').filter((s) => s !== '');
  for (let i = 0; i < segments.length; i++) {
    const parent = root.scoped(segments.slice(0, i).join('/'));
    const created = (await parent.query(ensureNamed('database', segments[i]))).resource === true;
    (created ? report.schema.created : report.schema.existing).push(`database ${segments.slice(0, i + 1).join('/')}`);
  }
  return root.scoped(segments.join('/'));
}

/** Fields of a schema document as Get returns it that its Create does not take. */
const READ_ONLY_FIELDS = ['ref', 'ts', 'global_id', 'active'];

/** A schema document as Get returned it (wire JSON) → the parameter object of its Create, as an expression. */
function createParams(document: JsonValue): { name: string; params: JsonValue } {
  const fields = decodeLiteral(document);
  if (!(fields instanceof Map)) throw new Error('a schema document is not an object');
  const params = new Map(fields);
  for (const f of READ_ONLY_FIELDS) params.delete(f);
  return { name: String(fields.get('name')), params: parseJson(encodeAsExpr(params, { txnTs: 0n })) };
}

const KIND_OF: Record<SchemaNative, SchemaKind> = {
  collections: 'collection',
  indexes: 'index',
  functions: 'function',
  roles: 'role',
  access_providers: 'access_provider',
};

/** A flora export's schema document as a resource to create. */
export function schemaResourceOf(item: FloraItem & { kind: 'schema' }): SchemaResource {
  const { name, params } = createParams(item.document);
  const db = item.database.join('/');
  return { file: `(schema${db ? ` of ${db}` : ''})`, kind: KIND_OF[item.native], name, params };
}

/** A child database of a flora export (its data, priority… kept), created under `parent` unless there. */
export async function ensureChildDatabase(parent: QueryClient, path: DatabasePath, document: JsonValue, report: ImportReport): Promise<void> {
  const { name, params } = createParams(document);
  const created = (await parent.query(ensureNamed('database', name, encodeJson(params)))).resource === true;
  (created ? report.schema.created : report.schema.existing).push(`database ${path.join('/')}`);
}

/** Creates collections by name once each (a cache of those known to exist). */
export class Collections {
  private readonly known = new Set<string>();
  constructor(
    private readonly client: QueryClient,
    private readonly report: ImportReport,
  ) {}

  async ensure(names: Iterable<string>): Promise<void> {
    const missing = [...names].filter((n) => !this.known.has(n));
    if (missing.length === 0) return;
    const answer = (await this.client.query(`[${missing.map((n) => ensureNamed('collection', n)).join(',')}]`)).resource;
    missing.forEach((n, i) => {
      this.known.add(n);
      (Array.isArray(answer) && answer[i] === true ? this.report.schema.created : this.report.schema.existing).push(`collection ${n}`);
    });
  }
}

/**
 * Creates the resources in order (they come sorted: collections, indexes, functions, roles, access
 * providers). A function's role may name a role created after it: functions are created without
 * their role, which is set once the roles exist. A resource the server refuses is reported.
 */
export async function applySchema(client: QueryClient, resources: readonly SchemaResource[], report: ImportReport): Promise<void> {
  const roles: SchemaResource[] = [];
  for (const r of resources) {
    const role = r.kind === 'function' ? literalField(r.params, 'role') : undefined;
    const params = role === undefined ? r.params : withoutField(r.params, 'role');
    const created = await run(client, ensureNamed(r.kind, r.name, encodeJson(params)), r, report);
    if (created === undefined) continue;
    (created ? report.schema.created : report.schema.existing).push(`${r.kind} ${r.name}`);
    if (created && role !== undefined) roles.push({ ...r, params: role });
  }
  for (const r of roles)
    await run(client, `{"update":{"function":${jsonString(r.name)}},"params":{"object":{"role":${encodeJson(r.params)}}}}`, r, report);
}

async function run(client: QueryClient, stmt: string, r: SchemaResource, report: ImportReport): Promise<boolean | undefined> {
  try {
    return (await client.query(stmt)).resource === true;
  } catch (e) {
    if (!(e instanceof QueryFailed)) throw e;
    report.problem({ file: r.file, line: 1 }, `${r.kind} ${r.name}: ${e.message}`);
    return undefined;
  }
}
