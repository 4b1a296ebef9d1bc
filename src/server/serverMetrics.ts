// What the HTTP layer counts for /metrics, one per process, shared by all of its listeners: requests
// by route name and status, their durations, and the work their queries reported. Recording a request
// is a few array increments (no label strings, no allocation): the families and their labels are
// built only at a scrape (metricsRegistry.ts).

import type { QueryMetrics } from '../fql/api';
import { Timings } from '../storage/timings';

/** The route name of a request no route took (a 404): its path is never a label. */
export const UNMATCHED = 'unmatched';

/** Status codes are counted in a table this wide (every HTTP status is below it). */
const STATUSES = 600;

/** Per route: the sums of what its queries reported (QueryMetrics), in this order. */
export const OPS = ['computeOps', 'byteReadOps', 'byteWriteOps', 'storageBytesRead', 'storageBytesWrite', 'txnRetries'] as const;

export interface RouteStats {
  readonly name: string;
  /** Requests by status code. */
  readonly statuses: Float64Array;
  readonly durations: Timings;
  /** Sums of OPS. */
  readonly ops: Float64Array;
}

export class ServerMetrics {
  readonly routes: RouteStats[] = [];
  private readonly byName = new Map<string, number>();
  /** Open streams of each protocol, from every listener that serves them. */
  private readonly streamCounts = { v4: [] as (() => number)[], v10: [] as (() => number)[] };

  /** The slot `record` takes for the route named `name` (the same slot for the same name). */
  slot(name: string): number {
    let slot = this.byName.get(name);
    if (slot === undefined) {
      slot = this.routes.length;
      this.routes.push({ name, statuses: new Float64Array(STATUSES), durations: new Timings(), ops: new Float64Array(OPS.length) });
      this.byName.set(name, slot);
    }
    return slot;
  }

  /** One answered request (the hot path). */
  record(slot: number, status: number, seconds: number, metrics: QueryMetrics | undefined): void {
    const r = this.routes[slot];
    r.statuses[status > 0 && status < STATUSES ? status : 0]++;
    r.durations.observe(seconds);
    if (metrics === undefined) return;
    const ops = r.ops;
    ops[0] += metrics.computeOps;
    ops[1] += metrics.byteReadOps;
    ops[2] += metrics.byteWriteOps;
    ops[3] += metrics.storageBytesRead;
    ops[4] += metrics.storageBytesWrite;
    ops[5] += metrics.txnRetries;
  }

  /** Counts the streams `count` says are open among the `protocol` ones. */
  watchStreams(protocol: 'v4' | 'v10', count: () => number): void {
    this.streamCounts[protocol].push(count);
  }

  openStreams(protocol: 'v4' | 'v10'): number {
    let n = 0;
    for (const count of this.streamCounts[protocol]) n += count();
    return n;
  }
}
