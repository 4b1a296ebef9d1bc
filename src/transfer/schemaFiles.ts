// Schema as code: fauna-schema-migrate's resource files (`fauna/resources/**/*.fql|.js`), one
// CreateCollection, CreateIndex, CreateFunction, CreateRole or CreateAccessProvider each, in the
// driver's JavaScript syntax (src/fqljs parses them; nothing is evaluated). Read in an order that can
// be created in sequence: what a resource refers to comes before it.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { FqlJsError, parseFqlJs } from '../fqljs';
import type { JsonObject, JsonValue } from '../wire/expr';

export type SchemaKind = 'collection' | 'index' | 'function' | 'role' | 'access_provider';

/** Creation order: indexes name collections, roles name all three, access providers name roles. */
export const SCHEMA_ORDER: readonly SchemaKind[] = ['collection', 'index', 'function', 'role', 'access_provider'];

export interface SchemaResource {
  file: string;
  kind: SchemaKind;
  name: string;
  /** The Create call's parameter object as an expression (`{"object": …}`, or any expression). */
  params: JsonValue;
}

export interface SchemaFileProblem {
  file: string;
  line: number;
  reason: string;
}

const CREATES = new Map<string, SchemaKind>([
  ['create_collection', 'collection'],
  ['create_class', 'collection'],
  ['create_index', 'index'],
  ['create_function', 'function'],
  ['create_role', 'role'],
  ['create_access_provider', 'access_provider'],
]);

/** Every resource file under `dir` (or the one file `dir` names), sorted by kind, then by path. */
export async function readSchemaFiles(dir: string): Promise<{ resources: SchemaResource[]; problems: SchemaFileProblem[] }> {
  const files = (await listFiles(dir)).filter((f) => /\.(fql|js)$/.test(f)).sort();
  const resources: SchemaResource[] = [];
  const problems: SchemaFileProblem[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    let expr: JsonValue;
    try {
      expr = parseFqlJs(text);
    } catch (e) {
      if (!(e instanceof FqlJsError)) throw e;
      problems.push({ file, line: e.line, reason: e.reason });
      continue;
    }
    const resource = resourceOf(file, expr);
    if (typeof resource === 'string') problems.push({ file, line: 1, reason: resource });
    else resources.push(resource);
  }
  resources.sort((a, b) => SCHEMA_ORDER.indexOf(a.kind) - SCHEMA_ORDER.indexOf(b.kind) || (a.file < b.file ? -1 : 1));
  return { resources, problems };
}

/** The resource one file creates, or why it is not one. */
function resourceOf(file: string, expr: JsonValue): SchemaResource | string {
  if (!(expr instanceof Map) || expr.size !== 1) return 'not a single Create call (CreateCollection, CreateIndex, CreateFunction, CreateRole or CreateAccessProvider)';
  const [[head, params]] = [...expr];
  const kind = CREATES.get(head);
  if (!kind) return `${head} is not a resource this import creates (CreateCollection, CreateIndex, CreateFunction, CreateRole or CreateAccessProvider)`;
  const name = literalField(params, 'name');
  if (typeof name !== 'string') return `the ${kind}'s name must be a literal string`;
  return { file, kind, name, params };
}

/** A field of an object expression (`{"object": {…}}`), when it is there literally. */
export function literalField(params: JsonValue, field: string): JsonValue | undefined {
  const inner = params instanceof Map ? params.get('object') : undefined;
  return inner instanceof Map ? (inner as JsonObject).get(field) : undefined;
}

/** The object expression without `field` (a function's role, given once the roles exist). */
export function withoutField(params: JsonValue, field: string): JsonValue {
  const inner = params instanceof Map ? params.get('object') : undefined;
  if (!(inner instanceof Map) || !inner.has(field)) return params;
  const copy = new Map(inner);
  copy.delete(field);
  return new Map([['object', copy]]);
}

async function listFiles(p: string): Promise<string[]> {
  const entries = await readdir(p, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOTDIR') return undefined;
    throw e;
  });
  if (!entries) return [p];
  const out: string[] = [];
  for (const e of entries) {
    const full = path.join(p, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(full)));
    else if (e.isFile()) out.push(full);
  }
  return out;
}
