// Path + method dispatch. Unknown paths are 404 and known paths with another method are 405 with an
// Allow header, both decided here so that every new endpoint gets them for free. Each route has a
// name (its path, or the name given with a predicate): /metrics counts requests by it, never by the
// path a client sent.

import type { RequestContext } from './context';
import { protocolError, type Outcome } from './responses';

export type Handler = (ctx: RequestContext) => Promise<Outcome>;
export type PathMatcher = string | ((path: string) => boolean);

interface Route {
  matches(path: string): boolean;
  methods: Map<string, Handler>;
}

/** What find() returns for a path no route takes. */
export const NO_ROUTE = -1;

export class Router {
  private readonly routes: Route[] = [];
  /** The routes' names, by route number (find's answer). */
  readonly names: string[] = [];

  /**
   * Registers handlers by method for a path (exact string, or a predicate and the route's name, e.g.
   * `/admin/*`); `'*'` takes any other method. First match wins.
   */
  add(path: string, methods: Partial<Record<string, Handler>>): this;
  add(path: (path: string) => boolean, methods: Partial<Record<string, Handler>>, name: string): this;
  add(path: PathMatcher, methods: Partial<Record<string, Handler>>, name?: string): this {
    const matches = typeof path === 'string' ? (p: string) => p === path : path;
    const table = new Map<string, Handler>();
    for (const [method, handler] of Object.entries(methods)) if (handler) table.set(method.toUpperCase(), handler);
    this.routes.push({ matches, methods: table });
    this.names.push(typeof path === 'string' ? path : name!);
    return this;
  }

  /** The number of the route that takes `path`, or NO_ROUTE. */
  find(path: string): number {
    for (let i = 0; i < this.routes.length; i++) if (this.routes[i].matches(path)) return i;
    return NO_ROUTE;
  }

  /** The handler of route number `route` (from find) for `method`: a 404 or 405 when there is none. */
  handler(route: number, method: string): Handler {
    if (route === NO_ROUTE) return notFound;
    const { methods } = this.routes[route];
    const handler = methods.get(method) ?? methods.get('*');
    if (handler) return handler;
    const allow = [...methods.keys()].filter((m) => m !== 'HEAD');
    return async () =>
      protocolError(405, 'method not allowed', `Allowed methods are ${allow.join(', ')}.`, { allow: allow.join(', ') });
  }
}

const notFound: Handler = async () => protocolError(404, 'not found', 'Not Found');
