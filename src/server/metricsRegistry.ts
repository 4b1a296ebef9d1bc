// The families /metrics serves (README "Metrics"), read from where they are kept only when scraped.
// Label values come from bounded sets the code names (route names, status codes, fixed words):
// never a path, a secret or a database name.
//
// Each family says how a tier's supervisor adds up its workers' (prom-client's AggregatorRegistry):
// counts and histograms are summed, what every worker reads from the one store (its size, the
// pending index builds) is the largest worker's.

import { collectDefaultMetrics, Counter, Gauge, Registry, type Aggregator, type Metric } from 'prom-client';
import type { QueryService } from '../fql/api';
import type { LogSystem } from '../logs/index';
import { decodeBuildList, PENDING_BUILDS_KEY } from '../model/indexBuild';
import type { Timings } from '../storage/timings';
import { OPS, type ServerMetrics } from './serverMetrics';

export interface MetricSources {
  requests: ServerMetrics;
  service: QueryService;
  logs?: LogSystem;
}

/** A registry with every family of this process (and Node's own: memory, event-loop delay, GC). */
export function metricsRegistry({ requests, service, logs }: MetricSources): Registry {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  new Gauge({ name: 'flora_workers', help: 'Processes serving the port (a tier adds up its workers).', registers }).set(1);

  // --- requests ---
  new Counter({ name: 'flora_http_requests_total', help: 'Requests answered, by route name and status code.', labelNames: ['route', 'status'], registers, collect() {
    this.reset();
    for (const r of requests.routes)
      r.statuses.forEach((n, status) => {
        if (n > 0) this.inc({ route: r.name, status }, n);
      });
  } });
  register(registry, histogram('flora_http_request_duration_seconds', 'Time from a request to its answer (for a stream, until it opens), by route name.', () =>
    requests.routes.filter((r) => r.durations.count > 0).map((r) => ({ labels: { route: r.name }, timings: r.durations }))));
  const opsHelp: Record<(typeof OPS)[number], [string, string]> = {
    computeOps: ['flora_query_compute_ops_total', 'Compute ops (x-compute-ops) of the answered queries, by route name.'],
    byteReadOps: ['flora_query_read_ops_total', 'Read ops (x-byte-read-ops), by route name.'],
    byteWriteOps: ['flora_query_write_ops_total', 'Write ops (x-byte-write-ops), by route name.'],
    storageBytesRead: ['flora_query_storage_read_bytes_total', 'Storage bytes read (x-storage-bytes-read), by route name.'],
    storageBytesWrite: ['flora_query_storage_written_bytes_total', 'Storage bytes written (x-storage-bytes-write), by route name.'],
    txnRetries: ['flora_transaction_retries_total', 'Transactions re-run after a conflict (x-txn-retries), by route name.'],
  };
  OPS.forEach((op, i) => {
    const [name, help] = opsHelp[op];
    new Counter({ name, help, labelNames: ['route'], registers, collect() {
      this.reset();
      for (const r of requests.routes) if (r.ops[i] > 0) this.inc({ route: r.name }, r.ops[i]);
    } });
  });
  new Counter({ name: 'flora_transaction_conflicts_total', help: 'Answers 409, by route name (on the query routes: a transaction still in conflict after its retries).', labelNames: ['route'], registers, collect() {
    this.reset();
    for (const r of requests.routes) if (r.statuses[409] > 0) this.inc({ route: r.name }, r.statuses[409]);
  } });

  // --- load ---
  new Gauge({ name: 'flora_admission_running', help: 'Queries evaluating now.', registers, collect() {
    this.set(service.admission.running);
  } });
  new Gauge({ name: 'flora_admission_queued', help: 'Queries waiting for a turn to evaluate (beyond the line: 429).', registers, collect() {
    this.set(service.admission.queued);
  } });
  new Gauge({ name: 'flora_memory_pool_used_bytes', help: 'Memory held by requests in flight (bodies, values, answers).', registers, collect() {
    this.set(service.pool.inUse);
  } });
  new Gauge({ name: 'flora_memory_pool_capacity_bytes', help: 'Memory all requests in flight may hold (--memory-mb).', registers, collect() {
    this.set(service.pool.capacity);
  } });
  new Gauge({ name: 'flora_open_streams', help: 'Open event streams, by protocol (v4: POST /stream; v10: /stream/1).', labelNames: ['protocol'], registers, collect() {
    this.set({ protocol: 'v4' }, requests.openStreams('v4'));
    this.set({ protocol: 'v10' }, requests.openStreams('v10'));
  } });

  // --- query log ---
  new Counter({ name: 'flora_query_log_records_total', help: 'Query-log records written, dropped (the writer could not keep up) or lost to write errors.', labelNames: ['outcome'], registers, collect() {
    this.reset();
    const stats = logs?.writerStats();
    if (!stats) return;
    this.inc({ outcome: 'written' }, stats.written);
    this.inc({ outcome: 'dropped' }, stats.dropped);
    this.inc({ outcome: 'failed' }, stats.failed);
  } });
  new Gauge({ name: 'flora_query_log_buffered_bytes', help: 'Query-log bytes waiting to be written.', registers, collect() {
    this.set(logs?.writerStats()?.bufferedBytes ?? 0);
  } });

  // --- the store ---
  const store = service.tier?.store;
  if (store) {
    new Gauge({ name: 'flora_store_size_bytes', help: "Bytes the store takes (LMDB: its data file; PostgreSQL: the database's size).", aggregator: 'max', registers, async collect() {
      const size = await store.sizeBytes().catch(() => undefined); // unreachable: the last size stands
      if (size !== undefined) this.set(size);
    } });
    new Gauge({ name: 'flora_index_builds_pending', help: 'Index builds not finished yet (in the background), in every database.', aggregator: 'max', registers, async collect() {
      const pending = await store.run(async (txn) => decodeBuildList(await txn.getMeta(PENDING_BUILDS_KEY)).length, { maxRetries: 0 }).catch(() => undefined);
      if (pending !== undefined) this.set(pending.result);
    } });
    register(registry, histogram('flora_commit_duration_seconds', 'Time a durable commit write took (commits arriving together share one).', () => [{ labels: {}, timings: store.commitTimes }]));
  }
  return registry;
}

interface HistogramSeries {
  labels: Record<string, string>;
  timings: Timings;
}

/** What prom-client's registry reads from a family: its get() (registry.js takes any such object). */
interface Family {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: Aggregator;
  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: Aggregator; values: { metricName: string; labels: Record<string, string | number>; value: number }[] }>;
}

/**
 * A histogram family over Timings the hot path fills (prom-client's own Histogram costs a label hash
 * and an object per observation: about a microsecond and a half a request).
 */
function histogram(name: string, help: string, series: () => HistogramSeries[]): Family {
  const family = { name, help, type: 'histogram' as const, aggregator: 'sum' as const };
  return {
    ...family,
    async get() {
      const values = [];
      for (const { labels, timings } of series()) {
        let cumulative = 0;
        timings.bounds.forEach((le, i) => {
          cumulative += timings.counts[i];
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
        });
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: timings.count });
        values.push({ metricName: `${name}_sum`, labels, value: timings.sum });
        values.push({ metricName: `${name}_count`, labels, value: timings.count });
      }
      return { ...family, values };
    },
  };
}

function register(registry: Registry, family: Family): void {
  registry.registerMetric(family as unknown as Metric);
}
