// What a browser adds on its own. A browser that once answered Flora's Basic challenge remembers the
// secret and attaches it to every later request to this origin, including a form or an image that a
// page on another site makes it send: without this rule such a page could run a query as whoever
// signed in (cross-site request forgery). The drivers and the dashboard set Authorization themselves
// in CORS or same-origin mode, so a credential on a cross-site navigation or no-cors request can only
// be one the browser attached.

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
