// Health checks for load balancers and orchestrators (issue 34): `/healthz` answers while the process
// serves; `/readyz` while it should get traffic: its store answers a snapshot (LMDB: a read of the
// head; PostgreSQL: a round trip) within READY_TIMEOUT_MS, and it is not draining. On SIGTERM a server
// drains first (cli/main.ts): `/readyz` answers 503 for --drain-ms while requests are still served,
// so the balancer stops sending before the port closes. No secret is needed, and neither tells
// anything a scan could use. Storage upgrades run before the port opens, so a server that answers
// has done them.

import type { QueryService } from '../fql/api';
import type { Handler } from './router';

/** Longest a readiness check waits for the store before it says the store does not answer. */
const READY_TIMEOUT_MS = 2_000;

export class Health {
  private drainingSince: number | undefined;

  drain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }
}

const answer = (status: number, body: object) => ({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store' } });

export const healthz: Handler = async () => answer(200, { status: 'ok' });

export function readyz(service: QueryService, health: Health): Handler {
  return async () => {
    if (health.draining) return answer(503, { status: 'draining' });
    const store = service.tier?.store;
    if (store === undefined) return answer(200, { status: 'ready' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), READY_TIMEOUT_MS)));
    try {
      const outcome = await Promise.race([store.run(async () => undefined, { maxRetries: 0 }).then(() => 'ok' as const), late]);
      if (outcome === 'late') return answer(503, { status: 'unavailable', reason: `the store did not answer within ${READY_TIMEOUT_MS} ms` });
      return answer(200, { status: 'ready' });
    } catch (e) {
      return answer(503, { status: 'unavailable', reason: `the store does not answer: ${(e as Error).message}` });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Probes a balancer sends every few seconds: kept out of the query log, which is about queries. */
export function isHealthPath(path: string): boolean {
  return path === '/healthz' || path === '/readyz';
}
