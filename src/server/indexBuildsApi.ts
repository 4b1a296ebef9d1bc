// GET /api/v1/index-builds (docs/index-builds-api.md): the background index builds of the secret's
// database and how far each has got. Fauna clients see only an index's `active` flag; this read
// lets the dashboard show a build's progress without changing anything those clients see.
//
// One read-only transaction with the request's secret (scoped secrets address child databases);
// only the indexes the secret's role may read are listed. Answers are the main port's FQL-style
// JSON: `{"resource": {"builds": […]}}`, or `{"errors": [{code, description}]}`.

import type { QueryService } from '../fql/api';
import { buildProgress, decodeBuildList, PENDING_BUILDS_KEY } from '../model/indexBuild';
import { indexDefOf } from '../model/indexSchema';
import { allowed } from '../model/permissions';
import { schemaOf } from '../model/resolve';
import { refuseUnauthenticated } from './authFirst';
import { parseQueryHeaders } from './headers';
import { unauthorized } from './query';
import { outcomeOfError, type Outcome } from './responses';
import type { Handler } from './router';

export const INDEX_BUILDS_PATH = '/api/v1/index-builds';

/** Documents still to scan are counted up to this many per build (a poll's cost stays bounded). */
const COUNT_LIMIT = 50_000;

export function indexBuildsApi(service: QueryService): Handler {
  return async (ctx): Promise<Outcome> => {
    const refused = await refuseUnauthenticated(service, ctx, unauthorized);
    if (refused) return refused;
    const headers = parseQueryHeaders(ctx.headers);
    try {
      const { result, ts, metrics } = await service.transact(
        ctx.headers.authorization,
        async (ectx) => {
          const db = ectx.scope.db;
          const schema = await schemaOf(ectx, db);
          const builds = [];
          // The pending builds are listed under one key: a poll reads those, not every index.
          for (const pending of decodeBuildList(await ectx.txn.getMeta(PENDING_BUILDS_KEY))) {
            const entry = pending.db === db ? schema.getById('indexes', BigInt(pending.index)) : undefined;
            if (!entry) continue;
            const target = { kind: 'schema', db, native: 'indexes', name: entry.name, entry, scoped: false } as const;
            if (!(await allowed(ectx, 'read', target))) continue;
            const progress = await buildProgress(ectx, indexDefOf(db, entry), COUNT_LIMIT);
            if (progress) builds.push({ index: entry.name, ...progress });
          }
          return builds.sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : 0));
        },
        { readOnly: true, timeoutMs: headers.timeoutMs, lastSeenTxn: headers.lastSeenTxn },
      );
      return { status: 200, body: JSON.stringify({ resource: { builds: result } }), txnTime: ts, metrics };
    } catch (e) {
      return outcomeOfError(e);
    }
  };
}
