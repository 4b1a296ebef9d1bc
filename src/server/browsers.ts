// What a browser adds on its own. A browser that once answered Flora's Basic challenge remembers the
// secret and attaches it to every later request to this origin, including a form or an image that a
// page on another site makes it send: without this rule such a page could run a query as whoever
// signed in (cross-site request forgery). The drivers and the dashboard set Authorization themselves
// in CORS or same-origin mode, so a credential on a cross-site navigation or no-cors request can only
// be one the browser attached.

import type { Handler } from './router';

/** Fetch Metadata modes in which a page cannot set Authorization itself. */
const BROWSER_ONLY_MODES = new Set(['navigate', 'nested-navigate', 'no-cors']);

/** True when the request's Authorization (if any) was attached by a browser for another site's page. */
export function browserAttachedCredentials(headers: Readonly<Record<string, string>>): boolean {
  const site = headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none' && BROWSER_ONLY_MODES.has(headers['sec-fetch-mode'] ?? '');
}

/** A 401 to a browser's navigation carries no Basic challenge: the browser would prompt, and remember. */
export function isBrowserNavigation(headers: Readonly<Record<string, string>>): boolean {
  return headers['sec-fetch-mode'] === 'navigate';
}

/**
 * Whether an Accept header ranks text/html first, as a browser opening a page does
 * (`text/html,application/xhtml+xml,…,*\/*;q=0.8`). The drivers send JSON or no Accept, curl `*\/*`.
 */
function prefersHtml(accept: string | undefined): boolean {
  let html = 0;
  let other = 0;
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2)) || 0;
    const name = type.trim();
    if (name === 'text/html') html = Math.max(html, weight);
    else if (name !== '' && !name.endsWith('/*') && name !== 'application/xhtml+xml') other = Math.max(other, weight);
  }
  return html > 0 && html >= other;
}

/**
 * GET / for a browser that opens the server's address without a secret: it is sent to the dashboard
 * rather than answered 401. Every other GET / (the drivers', curl's, one with a secret) is `get`'s.
 */
export function dashboardForBrowsers(get: Handler): Handler {
  return async (ctx) =>
    ctx.headers.authorization === undefined && prefersHtml(ctx.headers.accept) ? { status: 302, body: '', headers: { location: '/admin' } } : get(ctx);
}
