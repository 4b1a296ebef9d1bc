// A database's served GraphQL API: stored SDL → model → served schema with resolvers, cached by
// the stored schema's version, with a cache of parsed and validated operations.

import { GraphQLScalarType, buildASTSchema, parse, validateSchema, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Txn } from '../storage/types';
import { analyze, type GModel } from './model';
import { meterSchema } from './meter';
import { attachResolvers } from './resolvers';
import { installScalars } from './scalars';
import { SchemaImportError, checkDocument, parseSdl } from './sdl';
import { servedSdl } from './served';
import { readSchema, type SchemaIds } from './storage';

export interface PreparedOperation {
  document?: DocumentNode;
  /** Syntax or validation errors (the operation cannot run). */
  errors?: readonly GraphQLError[];
  syntax?: boolean;
}

export interface ServedApi {
  version: string;
  model: GModel;
  /** Internal ids of the collections, indexes and functions the model names (see storage.ts). */
  ids?: SchemaIds;
  schema: GraphQLSchema;
  /** Served SDL text (what introspection shows), for diagnostics. */
  served: string;
  /** Parsed and validated operations by query text. */
  operations: Map<string, PreparedOperation>;
  /** Characters of query text in `operations`. */
  cachedChars: number;
}

/** Builds the served API of a (checked) user SDL. Throws SchemaImportError. */
export function buildApi(sdl: string | DocumentNode, version = '', ids?: SchemaIds): ServedApi {
  const doc = typeof sdl === 'string' ? checkDocument(parseSdl(sdl)) : sdl;
  const model = analyze(doc);
  const served = servedSdl(model);
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(parse(served), { assumeValidSDL: false });
  } catch (e) {
    throw new SchemaImportError(`The schema is not valid: ${(e as Error).message}`);
  }
  const problems = validateSchema(schema);
  if (problems.length) throw new SchemaImportError(`The schema is not valid: ${problems.map((p) => p.message).join(' ')}`);
  installScalars({
    Date: schema.getType('Date') as GraphQLScalarType,
    Time: schema.getType('Time') as GraphQLScalarType,
    Long: schema.getType('Long') as GraphQLScalarType,
  });
  attachResolvers(schema, model);
  meterSchema(schema);
  return { version, model, ids, schema, served, operations: new Map(), cachedChars: 0 };
}

const MAX_CACHED_APIS = 16;
const cache = new Map<string, ServedApi>();

/** The API of database `db` as the transaction sees it; undefined when no schema was imported. */
export async function apiFor(txn: Txn, db: bigint): Promise<ServedApi | undefined> {
  const stored = await readSchema(txn, db);
  if (!stored) return undefined;
  const hit = cache.get(stored.version);
  if (hit) return hit;
  const api = buildApi(stored.sdl(), stored.version, stored.ids());
  if (cache.size >= MAX_CACHED_APIS) cache.delete(cache.keys().next().value!);
  cache.set(stored.version, api);
  return api;
}
