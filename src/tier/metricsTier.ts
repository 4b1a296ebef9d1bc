// /metrics of a tier (issue 34): a scrape lands on one worker, which asks the supervisor; the
// supervisor gathers every worker's registry over the cluster channel and adds them up (prom-client's
// AggregatorRegistry: counters and histograms summed, each family by its own aggregator), so any
// worker answers for the whole tier. A worker that does not answer within prom-client's 5 s makes
// the scrape fail (503) rather than report a part of the tier as the whole.

import cluster from 'node:cluster';
import { AggregatorRegistry, type PrometheusContentType, type Registry } from 'prom-client';
import type { Scrape } from '../server/metricsApi';
import { onMetricsAnswer, tellSupervisor } from './messages';

/** Longer than the supervisor's own wait for its workers, so that its answer says why. */
const ANSWER_TIMEOUT_MS = 7_000;

let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

/** In the supervisor: every worker's metrics, added up, in Prometheus' text format. */
export function tierMetrics(): Promise<string> {
  aggregator ??= new AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** In a worker: answers the supervisor's requests from `registry`; the scrape asks for the tier's. */
export function workerScrape(registry: Registry): Scrape {
  AggregatorRegistry.setRegistries([registry]);
  // Its construction is what makes this worker answer the supervisor's requests (prom-client's
  // cluster.js). Tests make one worker never answer (FLORA_TEST_METRICS_SILENT_WORKER, its id).
  if (process.env.FLORA_TEST_METRICS_SILENT_WORKER !== String(cluster.worker?.id)) new AggregatorRegistry();
  const waiting = new Map<number, { ok: (text: string) => void; fail: (err: Error) => void }>();
  let next = 0;
  onMetricsAnswer((m) => {
    const w = waiting.get(m.id);
    if (!w) return; // answered after its scrape gave up
    waiting.delete(m.id);
    if (m.text !== undefined) w.ok(m.text);
    else w.fail(new Error(m.error ?? 'no answer'));
  });
  return () =>
    new Promise<string>((ok, fail) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        fail(new Error('the tier did not answer in time'));
      }, ANSWER_TIMEOUT_MS);
      waiting.set(id, { ok: (t) => (clearTimeout(timer), ok(t)), fail: (e) => (clearTimeout(timer), fail(e)) });
      tellSupervisor({ type: 'metrics-request', id });
    });
}
