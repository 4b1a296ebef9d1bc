// The route table of the main port. New endpoints (/stream, /tokens/self, /graphql, /import,
// /api/v1/logs…) are one `add` each.

import type { QueryService } from '../fql/api';
import { ping } from './ping';
import { queryHandlers } from './query';
import { Router } from './router';
import { tokensSelf } from './tokensSelf';
import type { StreamHub } from './stream';

export function buildRouter(service: QueryService, streams: StreamHub): Router {
  const query = queryHandlers(service);
  const self = tokensSelf(service);
  return new Router()
    .add('/', { GET: query.get, POST: query.post })
    // Forces a linearized read in Fauna; every Flora read-write transaction already is one.
    .add('/linearized', { POST: query.post })
    .add('/ping', { GET: ping, HEAD: ping })
    .add('/tokens/self', { GET: self, HEAD: self, POST: self })
    .add('/stream', { POST: streams.handler });
}
