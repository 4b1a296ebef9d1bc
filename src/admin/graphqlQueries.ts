// The GraphQL screen's requests, each with the signed-in secret scoped to the selected database: a
// schema to POST /import (graphql.md A.1.2), GraphiQL's operations to POST /graphql, and the FQL
// query naming what an override would delete (what an earlier import made carries `data.gql`).

import type { JsonValue } from '../wire/expr';
import { FloraError, type FloraClient } from './client';
import type { GraphqlFetcher } from './graphiqlLoader';
import { fql } from './queries';
import { pageItems, refId } from './values';

export type ImportMode = 'merge' | 'replace' | 'override';

/** The modes as the form offers them, each explained in one line. */
export const IMPORT_MODES: readonly { mode: ImportMode; explains: string }[] = [
  { mode: 'merge', explains: 'Adds the collections, indexes and functions the schema needs; removes nothing, and types from earlier imports stay in the API.' },
  { mode: 'replace', explains: 'Makes this schema the whole API (types left out disappear from it) and adds what is missing; deletes nothing, documents stay as they are.' },
  { mode: 'override', explains: 'DELETES every collection (with all its documents), index and function an earlier GraphQL import made, then imports this schema.' },
];

const post = (client: FloraClient, path: string, body: string, contentType: string): Promise<Response> =>
  client.fetch(path, { method: 'POST', headers: { 'content-type': contentType }, body });

/**
 * Imports `sdl` into the client's database and returns the server's first line ("Schema imported
 * successfully."); a refusal is a FloraError whose description is the server's text exactly.
 */
export async function importSchema(client: FloraClient, sdl: string, mode: ImportMode): Promise<string> {
  const res = await post(client, `/import?mode=${mode}`, sdl, 'text/plain; charset=utf-8');
  const text = await res.text();
  if (!res.ok) throw new FloraError(res.status, '', text.trim() || `HTTP ${res.status}`);
  // The lines after the first show an Authorization header that carries the secret: not for the screen.
  return text.split('\n')[0];
}

/** GraphiQL's fetcher: one operation to /graphql, the answer's JSON (GraphQL errors come as `errors`). */
export function graphqlFetcher(client: FloraClient): GraphqlFetcher {
  return async (params) => {
    const res = await post(client, '/graphql', JSON.stringify(params), 'application/json');
    const text = await res.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return { errors: [{ message: `The server answered ${res.status} with a body that is not JSON: ${text}` }] };
    }
  };
}

/** What an earlier GraphQL import made in a database, by name: what an override deletes. */
export interface ImportMade {
  collections: string[];
  indexes: string[];
  functions: string[];
}

const withGql = (set: string) => `Filter(Paginate(${set}, {size: 1000}), Lambda("r", ContainsPath(["data", "gql"], Get(Var("r")))))`;

/** [collections, indexes, functions] pages of the schema documents an import made. */
export const importMadeQuery = (): JsonValue => fql(`[${['Collections()', 'Indexes()', 'Functions()'].map(withGql).join(', ')}]`);

export function readImportMade(value: JsonValue): ImportMade {
  const [collections, indexes, functions] = (Array.isArray(value) ? value : []).map((page) => pageItems(page).map(refId));
  return { collections: collections ?? [], indexes: indexes ?? [], functions: functions ?? [] };
}

/** "the collections A, B" / "the index X": `kind` is the singular. */
function named(kind: string, names: readonly string[]): string {
  return `the ${kind}${names.length === 1 ? '' : kind.endsWith('x') ? 'es' : 's'} ${names.join(', ')}`;
}

/** The confirmation an override asks for, naming what it deletes in database `db`. */
export function overrideWarning(db: string, made: ImportMade): string {
  const parts = [
    made.collections.length > 0 && `${named('collection', made.collections)} with every document in ${made.collections.length === 1 ? 'it' : 'them'}`,
    made.indexes.length > 0 && named('index', made.indexes),
    made.functions.length > 0 && named('function', made.functions),
  ].filter((p): p is string => typeof p === 'string');
  if (parts.length === 0)
    return `Override the GraphQL schema of database ${db}? Nothing there was made by a GraphQL import, so nothing is deleted; the schema is imported as with merge.`;
  const lost = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `Override the GraphQL schema of database ${db}? This DELETES ${lost} (made by an earlier GraphQL import), then imports this schema. It cannot be undone.`;
}
