// CORS (fql-v4.md §1.14): any request with an Origin gets the allow headers; OPTIONS with an Origin is
// answered as a preflight on every path, before routing. Unlike Fauna, no Allow-Credentials (issue 30):
// with it and the origin reflected, any web page could read answers to requests its visitor's browser
// made with credentials it holds for this server (a Basic login the browser remembers). The drivers
// set Authorization themselves and never ask for credentials mode, so they need none.

const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = [
  'accept-encoding', 'authorization', 'content-type', 'x-driver-env', 'x-faunadb-api-version',
  'x-fauna-driver', 'x-fauna-source', 'x-fauna-tags', 'x-format', 'x-last-seen-txn', 'x-last-txn-ts',
  'x-linearized', 'x-max-contention-retries', 'x-max-retries-on-contention', 'x-query-tags',
  'x-query-timeout', 'x-query-timeout-ms', 'x-runtime-environment', 'x-runtime-environment-os',
  'x-nodejs-version', 'traceparent', 'x-typecheck', 'x-performance-hints',
].join(', ');

export function isPreflight(method: string, headers: Readonly<Record<string, string>>): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined;
}

export function preflightHeaders(): Record<string, string> {
  return {
    'access-control-max-age': '86400',
    'access-control-allow-methods': ALLOW_METHODS,
    'access-control-allow-headers': ALLOW_HEADERS,
  };
}

/** Added last, so that Expose-Headers can list every `x-` header of the final response. */
export function corsHeaders(origin: string, responseHeaders: Readonly<Record<string, string>>): Record<string, string> {
  const exposed = Object.keys(responseHeaders).filter((name) => name.startsWith('x-'));
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': exposed.join(', '),
  };
}
