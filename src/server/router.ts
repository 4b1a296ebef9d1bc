// Path + method dispatch. Unknown paths are 404 and known paths with another method are 405 with an
// Allow header, both decided here so that every new endpoint gets them for free.

import type { RequestContext } from './context';
import { protocolError, type Outcome } from './responses';

export type Handler = (ctx: RequestContext) => Promise<Outcome>;
export type PathMatcher = string | ((path: string) => boolean);

interface Route {
  matches(path: string): boolean;
  methods: Map<string, Handler>;
}

export class Router {
  private readonly routes: Route[] = [];

  /** Registers handlers by method for a path (exact string or predicate); `'*'` takes any other method. First match wins. */
  add(path: PathMatcher, methods: Partial<Record<string, Handler>>): this {
    const matches = typeof path === 'string' ? (p: string) => p === path : path;
    const table = new Map<string, Handler>();
    for (const [method, handler] of Object.entries(methods)) if (handler) table.set(method.toUpperCase(), handler);
    this.routes.push({ matches, methods: table });
    return this;
  }

  resolve(method: string, path: string): Handler {
    const route = this.routes.find((r) => r.matches(path));
    if (!route) return notFound;
    const handler = route.methods.get(method) ?? route.methods.get('*');
    if (handler) return handler;
    const allow = [...route.methods.keys()].filter((m) => m !== 'HEAD');
    return async () =>
      protocolError(405, 'method not allowed', `Allowed methods are ${allow.join(', ')}.`, { allow: allow.join(', ') });
  }
}

const notFound: Handler = async () => protocolError(404, 'not found', 'Not Found');
