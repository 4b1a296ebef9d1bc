/// <reference lib="dom" />
// GraphiQL (React and CodeMirror: several hundred KB) is a bundle of its own, dist/admin/graphiql.js
// with graphiql.css, fetched the first time the GraphQL tab is shown, so the first screen stays
// small. The bundle (graphiqlBundle.ts) announces itself as window.floraGraphiql.

import { h } from './dom';

/** Runs one GraphQL operation (`{query, variables, operationName}`) and resolves to the answer's JSON. */
export type GraphqlFetcher = (params: unknown) => Promise<unknown>;

export interface GraphiqlHost {
  /**
   * Shows GraphiQL in `element`, or shows it again with another fetcher: it then re-reads the
   * schema. A new `session` starts a fresh GraphiQL (its query kept, its answers and errors gone).
   */
  render(element: HTMLElement, fetcher: GraphqlFetcher, session: string): void;
  /** The types of the schema `fetcher`'s database serves, as SDL (read by introspection); an Error with the server's message when it has none. */
  schemaText(fetcher: GraphqlFetcher): Promise<string>;
}

declare global {
  interface Window {
    floraGraphiql?: GraphiqlHost;
  }
}

export const GRAPHIQL_SCRIPT = '/admin/graphiql.js';
export const GRAPHIQL_STYLES = '/admin/graphiql.css';

/** Resolves once `el` (a script or stylesheet just added) has loaded. */
function loaded(el: HTMLScriptElement | HTMLLinkElement, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    el.addEventListener('load', () => resolve());
    el.addEventListener('error', () => reject(new Error(`${what} could not be loaded (is the dashboard built? node scripts/build.js)`)));
    document.head.append(el);
  });
}

let loading: Promise<GraphiqlHost> | undefined;

/** GraphiQL, its files added to the page on the first call; a failed load is tried again on the next. */
export function loadGraphiql(): Promise<GraphiqlHost> {
  loading ??= Promise.all([
    loaded(h('link', { rel: 'stylesheet', href: GRAPHIQL_STYLES }), GRAPHIQL_STYLES),
    loaded(h('script', { src: GRAPHIQL_SCRIPT }), GRAPHIQL_SCRIPT),
  ]).then(() => {
    if (!window.floraGraphiql) throw new Error(`${GRAPHIQL_SCRIPT} loaded but did not start GraphiQL`);
    return window.floraGraphiql;
  });
  loading.catch(() => (loading = undefined));
  return loading;
}
