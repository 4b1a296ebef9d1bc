// GET /metrics (issue 34): Prometheus' text format. On the main port the bearer must be the root
// secret or an admin key of the top database (the numbers are the whole server's); on the
// --metrics-listen address no secret is asked (that address is for a scraper on the machine or a
// private network).

import { Registry } from 'prom-client';
import type { QueryService } from '../fql/api';
import { asAdmin, LogApiError } from '../logs/access';
import { healthz } from './health';
import { protocolError, type Outcome } from './responses';
import { Router, type Handler } from './router';

/** The text of a scrape: this process's, or a tier's added up (tier/metricsTier.ts). */
export type Scrape = () => Promise<string>;

export const METRICS_PATH = '/metrics';

const DENIED = 'Permission denied: /metrics needs the root secret or an admin key of the top database.';

/** The handler of /metrics; with `service`, only for the top database's admin. */
export function metricsHandler(scrape: Scrape, service?: QueryService): Handler {
  return async (ctx): Promise<Outcome> => {
    ctx.discardBody();
    if (service) {
      try {
        await asAdmin(service, ctx.headers.authorization, async (_ctx, who) => {
          if (who.db !== 0n) throw new LogApiError(403, DENIED);
        }, DENIED);
      } catch (err) {
        if (!(err instanceof LogApiError)) throw err;
        const code = err.status === 401 ? 'unauthorized' : err.status === 403 ? 'permission denied' : 'unavailable';
        return protocolError(err.status, code, err.message, err.headers);
      }
    }
    let text;
    try {
      text = await scrape();
    } catch (err) {
      return protocolError(503, 'unavailable', `The metrics could not be gathered: ${(err as Error).message}`, { 'retry-after': '1' });
    }
    return { status: 200, body: text, headers: { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' } };
  };
}

/** The routes of the --metrics-listen address: /metrics without a secret, and the health checks. */
export function metricsOnlyRouter(scrape: Scrape): Router {
  const metrics = metricsHandler(scrape);
  return new Router().add(METRICS_PATH, { GET: metrics, HEAD: metrics }).add('/healthz', { GET: healthz, HEAD: healthz });
}
