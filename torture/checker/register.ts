// A checker for register histories (read/write of single values, unique per key, registers
// starting at 0). A register's reads do not reveal the order of its writes the way lists do, but
// Flora names the order: the transactions' times (read-write transactions are serializable in
// their order, read-only ones are snapshots at theirs). So each read must give the value of the
// last committed write before its time (or of one whose fate is unknown, whose time is unknown
// too), its own transaction's last write before it, never a failed or intermediate write.

import { countOutcomes, writes, type Anomaly, type AnomalyKind, type CheckResult, type Op, type RegisterOp, type Txn } from './history';
import { checkRealtime, checkSessions, timed } from './times';

interface Version {
  ts: number;
  value: number;
  txn: Txn<RegisterOp>;
}

export function checkRegisters(history: Txn<RegisterOp>[]): CheckResult {
  const anomalies: Anomaly[] = [];
  const report = (kind: AnomalyKind, detail: string, txns: Txn<Op>[]) => void anomalies.push({ kind, detail, txns: [...new Set(txns)] });

  // Who wrote each value, and each key's committed versions (a transaction's last write) by time.
  const writer = new Map<string, Map<number, Txn<RegisterOp>>>();
  const versions = new Map<string, Version[]>();
  for (const t of history) {
    const last = new Map<string, number>();
    for (const op of t.ops) {
      if (op.f !== 'w') continue;
      (writer.get(op.key) ?? writer.set(op.key, new Map()).get(op.key)!).set(op.value, t);
      last.set(op.key, op.value);
    }
    if (timed(t)) for (const [key, value] of last) (versions.get(key) ?? versions.set(key, []).get(key)!).push({ ts: t.ts, value, txn: t });
  }
  for (const v of versions.values()) v.sort((a, b) => a.ts - b.ts);
  const finalWrite = (t: Txn<RegisterOp>, key: string) => t.ops.filter((o) => o.f === 'w' && o.key === key).pop()?.value;

  let reads = 0;
  for (const t of history) {
    if (!timed(t)) continue;
    const own = new Map<string, number>();
    for (const op of t.ops) {
      if (op.f === 'w') {
        own.set(op.key, op.value);
        continue;
      }
      if (op.value === null) continue;
      reads++;
      const v = op.value;
      const mine = own.get(op.key);
      if (mine !== undefined) {
        if (v !== mine) report('internal', `read ${op.key} = ${v} after writing ${mine} to it`, [t]);
        continue;
      }
      // A writer sees commits before its own time; a read-only snapshot, those up to its time.
      const visible = (ts: number) => (writes(t) ? ts < t.ts : ts <= t.ts);
      const before = (versions.get(op.key) ?? []).filter((x) => visible(x.ts) && x.txn !== t);
      const expected = before.length > 0 ? before[before.length - 1] : undefined;
      if (v === (expected?.value ?? 0)) continue;
      const w = v === 0 ? undefined : writer.get(op.key)?.get(v);
      if (v !== 0 && !w) report('garbage-read', `read ${op.key} = ${v}, which nobody wrote`, [t]);
      else if (w?.outcome === 'fail') report('G1a', `read ${op.key} = ${v}, written by a transaction that failed`, [t, w]);
      else if (w && finalWrite(w, op.key) !== v) report('G1b', `read ${op.key} = ${v}, an intermediate write of its transaction`, [t, w]);
      else if (w?.outcome === 'info') continue; // committed at a time nobody was told: cannot be placed
      else if (w && timed(w) && !visible(w.ts)) report('future-read', `read ${op.key} = ${v} at ts ${t.ts}, written at ts ${w.ts}`, [t, w]);
      else report('stale-read', `read ${op.key} = ${v} at ts ${t.ts}, but ${expected?.value ?? 0} was the last value written before it (ts ${expected?.ts})`, [t, ...(expected ? [expected.txn] : []), ...(w ? [w] : [])]);
    }
  }
  checkRealtime(history, report);
  checkSessions(history, report);
  return { anomalies, counts: countOutcomes(history), edges: reads };
}
