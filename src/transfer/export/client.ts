// The export's view of the server: queries in the v4 wire JSON answering their resource, per
// database of the tree (src/transfer/queryClient.ts does the HTTP).

import type { JsonValue } from '../../wire/expr';
import { QueryClient as HttpClient, type Transport } from '../queryClient';

export { QueryFailed, ServerUnreachable } from '../queryClient';

export interface QueryClient {
  /** The secret's database, as a path (empty: the secret's own database). */
  readonly path: readonly string[];
  /** Runs one query (its wire JSON text); resolves with the `resource`. */
  query(expr: string): Promise<JsonValue>;
  /** A client for the child database `name`, through the scoped secret `<secret>:<path>:admin`. */
  child(name: string): QueryClient;
}

export function httpClient(url: string, secret: string, path: readonly string[] = [], transport?: Transport): QueryClient {
  return viewOf(new HttpClient(url.replace(/\/+$/, ''), secret, path, transport));
}

function viewOf(http: HttpClient): QueryClient {
  return { path: http.path, query: (expr) => http.resource(expr), child: (name) => viewOf(http.child(name)) };
}
