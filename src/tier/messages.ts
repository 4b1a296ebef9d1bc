// What a `--workers` supervisor and its workers tell each other over the cluster IPC channel.

import cluster from 'node:cluster';

export type WorkerMessage =
  /** The worker accepts requests (its address, and those of its GraphQL and metrics ports when configured). */
  | { type: 'listening'; address: string; graphqlAddress?: string; metricsAddress?: string }
  /** The worker's listeners are closed; it is finishing its in-flight requests. */
  | { type: 'stopping' }
  /** A scrape of /metrics landed on the worker: the supervisor answers with the whole tier's. */
  | { type: 'metrics-request'; id: number };

export type SupervisorMessage =
  /** Stop: finish in-flight requests (`force`: drop them), then exit. */
  | { type: 'stop'; force: boolean }
  /** A sibling died: free what it left registered in the store. */
  | { type: 'reader-check' }
  /** The answer to a 'metrics-request': the tier's metrics in Prometheus' text format, or why not. */
  | { type: 'metrics'; id: number; text?: string; error?: string };

export function isWorkerMessage(m: unknown): m is WorkerMessage {
  const type = (m as { type?: unknown } | null)?.type;
  return type === 'listening' || type === 'stopping' || type === 'metrics-request';
}

function isSupervisorMessage(m: unknown): m is SupervisorMessage {
  const type = (m as { type?: unknown } | null)?.type;
  return type === 'stop' || type === 'reader-check' || type === 'metrics';
}

/** Set by the supervisor for its workers: `port,graphqlPort,metricsPort` the tier listens on. */
export const TIER_PORTS_ENV = 'FLORA_TIER_PORTS';

/** The ports a worker listens on (port 0 resolved by the supervisor). */
export function tierPorts(): { port: number; graphqlPort: number | undefined; metricsPort: number | undefined } | undefined {
  const raw = process.env[TIER_PORTS_ENV];
  if (!cluster.isWorker || !raw) return undefined;
  const [port, graphql, metrics] = raw.split(',');
  return { port: Number(port), graphqlPort: graphql ? Number(graphql) : undefined, metricsPort: metrics ? Number(metrics) : undefined };
}

/** True in a worker process of a tier. */
export function inTier(): boolean {
  return cluster.isWorker;
}

/** A tier worker's number (1, 2, …; a replacement gets the next one); undefined outside a tier. */
export function workerNumber(): number | undefined {
  return cluster.worker?.id;
}

export function tellSupervisor(m: WorkerMessage): void {
  process.send?.(m);
}

/** Calls `on` with each message from the supervisor; `gone` once the supervisor is gone (died). */
export function fromSupervisor(on: (m: SupervisorMessage) => void, gone: () => void): void {
  process.on('message', (m: unknown) => {
    if (isSupervisorMessage(m)) on(m);
  });
  // First among the listeners: node's cluster module answers a lost channel with process.exit(),
  // which hangs for good when a storage write is in flight (lmdb-js's write thread waits for this
  // thread to run the transaction's callback; exit joins that thread first).
  process.prependOnceListener('disconnect', gone);
}

/** Calls `on` with each answer of the supervisor to a 'metrics-request'. */
export function onMetricsAnswer(on: (m: Extract<SupervisorMessage, { type: 'metrics' }>) => void): void {
  process.on('message', (m: unknown) => {
    if (isSupervisorMessage(m) && m.type === 'metrics') on(m);
  });
}

/** Calls `fn` whenever the supervisor says a sibling worker died. */
export function onSiblingDeath(fn: () => void): void {
  process.on('message', (m: unknown) => {
    if (isSupervisorMessage(m) && m.type === 'reader-check') fn();
  });
}
