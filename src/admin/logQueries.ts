// The Query log tab's calls of the log API (src/server/logsApi.ts; docs/query-log-api.md;
// log-export.md §B.2): the newest records, and the export requests (list, request, poll).

import type { FloraClient } from './client';
import { apiJson } from './httpApi';
import { OWN_SOURCE } from './logRecords';

export interface RecentAnswer {
  region_group: string;
  records: Record<string, unknown>[];
}

export interface LogExport {
  request_id: string;
  database?: string;
  region_group?: string;
  time_start: string;
  time_end: string;
  state: string;
  presigned_url?: string;
  records?: number;
  error?: string;
}

/** States after which a request does not change (but a Complete one's URL may be re-minted). */
export const FINAL_STATES = ['Complete', 'DoesNotExist', 'Failed', 'TimedOut'];

/**
 * The newest records of the last `minutes`. Read with GET /api/v1/logs/_recent rather than by
 * requesting an export: polled every few seconds, exports would pile up (each is kept a week and
 * listed below) and each waits until its end time has passed and behind other exports.
 */
export const recentRecords = (client: FloraClient, minutes: number, limit = RECENT_LIMIT): Promise<RecentAnswer> =>
  apiJson<RecentAnswer>(client, `/api/v1/logs/_recent?type=query&minutes=${minutes}&limit=${limit}`, { headers: { 'x-fauna-source': OWN_SOURCE } });

/** Records the live view reads at most (the newest of its window). */
export const RECENT_LIMIT = 5000;

export const listExports = (client: FloraClient): Promise<{ results: LogExport[] }> =>
  apiJson(client, '/api/v1/logs/_list?type=query', { method: 'POST', body: { max_results: 100 } });

/** `database`: a path below the region group ('' = every database the key sees). */
export function requestExport(client: FloraClient, regionGroup: string, database: string, start: Date, end: Date): Promise<LogExport> {
  const where = database ? { database: `${regionGroup}/${database}` } : { region_group: regionGroup };
  return apiJson(client, '/api/v1/logs?type=query', { method: 'POST', body: { ...where, time_start: start.toISOString(), time_end: end.toISOString() } });
}

export const getExport = (client: FloraClient, id: string): Promise<LogExport> => apiJson(client, `/api/v1/logs/${encodeURIComponent(id)}?type=query`);
