// The route table of the main port. New endpoints (/stream, /tokens/self, /graphql, /import,
// /api/v1/logs…) are one `add` each.

import type { QueryService } from '../fql/api';
import { graphqlHandlers } from './graphql';
import type { LogSystem } from '../logs/index';
import { isLogsPath, logsApi, LOGS_PREFIX } from './logsApi';
import { INDEX_BUILDS_PATH, indexBuildsApi } from './indexBuildsApi';
import { ping } from './ping';
import { Health, healthz, readyz } from './health';
import { fqlV10Handler } from './fqlV10';
import { queryHandlers } from './query';
import { Router } from './router';
import { tokensSelf } from './tokensSelf';
import { adminHandler, isAdminPath } from './admin';
import { dashboardForBrowsers } from './browsers';
import type { StreamHub } from '../streams/hub';
import { streamRoute } from './stream';
import { V10Streams } from '../streams/v10/stream';
import { feedRoute, streamV10Route } from './eventsV10';
import { isSchemaPath, schemaApi, SCHEMA_PREFIX } from './schemaApi';
import { METRICS_PATH, metricsHandler, type Scrape } from './metricsApi';
import type { ServerMetrics } from './serverMetrics';

export interface MainRoutes {
  logs?: LogSystem;
  /** Serve the dashboard at /admin (otherwise /admin is 404 like any unknown path). */
  admin?: boolean;
  health?: Health;
  /** Where open v10 streams are counted. */
  requests: ServerMetrics;
  /** Serve /metrics (to the top database's admin) from it; 404 without it. */
  scrape?: Scrape;
}

export function buildRouter(service: QueryService, streams: StreamHub, { logs, admin = false, health = new Health(), requests, scrape }: MainRoutes): Router {
  const query = queryHandlers(service);
  const self = tokensSelf(service);
  const v10Streams = new V10Streams(service, streams.limits);
  streams.alsoCloseAll(() => v10Streams.closeAll());
  requests.watchStreams('v10', () => v10Streams.size);
  const router = new Router()
    .add('/', { GET: admin ? dashboardForBrowsers(query.get) : query.get, POST: query.post })
    // Forces a linearized read in Fauna; every Flora read-write transaction already is one.
    .add('/linearized', { POST: query.post })
    .add('/ping', { GET: ping, HEAD: ping })
    .add('/healthz', { GET: healthz, HEAD: healthz })
    .add('/readyz', { GET: readyz(service, health), HEAD: readyz(service, health) })
    .add('/tokens/self', { GET: self, HEAD: self, POST: self })
    .add('/stream', { POST: streamRoute(streams) })
    // FQL v10 (issue 32): every method, as the core routes it.
    .add('/query/1', { '*': fqlV10Handler(service) })
    // FQL v10 event streams and feeds (issue 33).
    .add('/stream/1', { POST: streamV10Route(service, v10Streams) })
    .add('/feed/1', { POST: feedRoute(service) })
    // FQL v10 schema files, applied at once (issue 33); the core authenticates before it routes.
    .add(isSchemaPath, { '*': schemaApi(service) }, `${SCHEMA_PREFIX}/*`)
    // --- GraphQL (issue 7) ---
    .add('/graphql', { POST: graphql(service).post, GET: graphql(service).get })
    .add('/import', { POST: graphql(service).importSchema })
    .add(isLogsPath, logsApi(service, logs), `${LOGS_PREFIX}/*`) // log-export API; 404 when the server runs without logs
    .add(INDEX_BUILDS_PATH, { GET: indexBuildsApi(service) }); // background builds' progress (the dashboard's)
  if (admin) {
    const dashboard = adminHandler();
    router.add(isAdminPath, { GET: dashboard, HEAD: dashboard }, '/admin/*');
  }
  if (scrape) {
    const metrics = metricsHandler(scrape, service);
    router.add(METRICS_PATH, { GET: metrics, HEAD: metrics });
  }
  return router;
}

// --- GraphQL (issue 7): the routes of the optional second port (FLORA_GRAPHQL_PORT, DECISIONS #6) ---
const graphqlByService = new WeakMap<QueryService, ReturnType<typeof graphqlHandlers>>();

function graphql(service: QueryService): ReturnType<typeof graphqlHandlers> {
  let h = graphqlByService.get(service);
  if (!h) graphqlByService.set(service, (h = graphqlHandlers(service)));
  return h;
}

export function buildGraphqlRouter(service: QueryService, health = new Health()): Router {
  return new Router()
    .add('/graphql', { POST: graphql(service).post, GET: graphql(service).get })
    .add('/import', { POST: graphql(service).importSchema })
    .add('/ping', { GET: ping, HEAD: ping })
    .add('/healthz', { GET: healthz, HEAD: healthz })
    .add('/readyz', { GET: readyz(service, health), HEAD: readyz(service, health) });
}
// --- end GraphQL ---
