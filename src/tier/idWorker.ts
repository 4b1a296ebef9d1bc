// Which worker number this process puts in the ids it generates (model/ids.ts): one no other live
// process of the tier holds, taken as a standing lease (tier/leases.ts) so that a process that dies
// frees its number. Starting from a random number keeps processes that start together from
// contending for the same one.

import { ID_WORKERS, setIdWorker } from '../model/ids';
import type { Leases, Role } from './leases';
import { log } from '../diag/log';

export async function takeIdWorker(leases: Leases): Promise<Role> {
  const first = Math.floor(Math.random() * ID_WORKERS);
  for (let i = 0; i < ID_WORKERS; i++) {
    const n = (first + i) % ID_WORKERS;
    const name = `id-worker:${n}`;
    if (!(await leases.acquire(name))) continue;
    setIdWorker(n);
    return leases.role(name);
  }
  // Over a thousand live processes: ids stay unique through the check every generated id gets
  // (model/documents.ts), only slower.
  log.warn('every id worker number is taken; ids may collide and be generated again');
  return { held: () => false, stop: async () => undefined };
}
