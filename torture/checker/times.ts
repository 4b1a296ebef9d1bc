// Checks of the transactions' times that hold for any workload: Flora promises every transaction
// strictly serializable in the order of their times (DECISIONS #10, issue 31), so a transaction that
// began after a write transaction finished has a later time (a commit) or a time no earlier (a read,
// whose time is its snapshot's: it sees that write), whatever process served either and whether or
// not the client sent the last time it saw; and a client never goes back in time (the driver sends
// the last time it saw as X-Last-Seen-Txn).

import { writes, type AnomalyKind, type Op, type Txn } from './history';

type Timed = Txn<Op> & { ts: number };
export const timed = (t: Txn<Op> | undefined): t is Timed => t !== undefined && t.outcome === 'ok' && t.ts !== undefined;

export function checkRealtime(history: Txn<Op>[], report: (kind: AnomalyKind, detail: string, txns: Txn<Op>[]) => void): void {
  // Sweep the transactions by start, knowing the greatest time among the writers already finished.
  const all = history.filter(timed);
  const byEnd = all.filter((t) => writes(t)).sort((a, b) => a.end - b.end);
  let done = 0;
  let latest: Timed | undefined;
  for (const b of [...all].sort((x, y) => x.start - y.start)) {
    while (done < byEnd.length && byEnd[done].end < b.start) {
      if (!latest || byEnd[done].ts > latest.ts) latest = byEnd[done];
      done++;
    }
    if (!latest) continue;
    if (writes(b) && latest.ts >= b.ts) report('realtime', `T${latest.id} (ts ${latest.ts}) finished before T${b.id} began, which has ts ${b.ts}`, [latest, b]);
    else if (!writes(b) && latest.ts > b.ts)
      report('realtime', `T${latest.id} (ts ${latest.ts}) finished before T${b.id} began, which read a snapshot at ${b.ts} without it (a stale read)`, [latest, b]);
  }
}

export function checkSessions(history: Txn<Op>[], report: (kind: AnomalyKind, detail: string, txns: Txn<Op>[]) => void): void {
  const lastOf = new Map<number, Timed>();
  for (const t of [...history].sort((a, b) => a.start - b.start)) {
    if (!timed(t)) continue;
    const prev = lastOf.get(t.client);
    if (prev && prev.ts > t.ts) report('session', `client ${t.client} went back in time: T${prev.id} at ${prev.ts}, then T${t.id} at ${t.ts}`, [prev, t]);
    lastOf.set(t.client, t);
  }
}
