// A serializability checker for list-append histories, after Jepsen's Elle (Kingsbury & Alvaro,
// "Elle: Inferring Isolation Anomalies from Experimental Observations", 2020). Appends of unique
// values make every read reveal the order of the writes before it: the longest read of a key gives
// its version order, from which the ww, wr and rw dependencies between transactions follow; a cycle
// among them is an anomaly, named by its edges. Since Flora gives each transaction a time (X-Txn-Time)
// and promises that read-write transactions are strictly serializable in that order, the times are
// checked too: every dependency must point forward in time, and a write transaction that finished
// before another began must have the earlier time.
//
// (No maintained JavaScript checker of this kind exists on npm: `elle`, `jepsen` and `knossos` are
// not published there, and `porcupine` is an unrelated package (the Go linearizability checker of
// that name is not for JavaScript). Hence this one, kept small.)

import { DepGraph, type Cycle, type Step } from './graph';
import { countOutcomes, isAppend, isRead, writes, type Anomaly, type AnomalyKind, type CheckResult, type Op, type Read, type Txn } from './history';
import { checkRealtime, checkSessions, timed } from './times';

/** The longest read of each key: its version order (what every other read must be a prefix of). */
function versionOrders(txns: Txn[]): Map<string, number[]> {
  const order = new Map<string, number[]>();
  for (const t of txns) {
    if (t.outcome !== 'ok') continue;
    for (const op of t.ops) if (isRead(op) && op.value && op.value.length > (order.get(op.key)?.length ?? -1)) order.set(op.key, op.value);
  }
  return order;
}

const isPrefix = (a: number[], b: number[]) => a.length <= b.length && a.every((v, i) => v === b[i]);

/**
 * Each read of `t` with `t`'s own earlier appends to the key taken off its end: the state of the
 * key that `t` read from other transactions. Undefined for a read that does not end with them.
 */
function externalReads(t: Txn): { op: Read; ext: number[] | undefined; appendsAfter: boolean }[] {
  const own = new Map<string, number[]>();
  const out: { op: Read; ext: number[] | undefined; appendsAfter: boolean }[] = [];
  t.ops.forEach((op, i) => {
    if (isAppend(op)) {
      own.set(op.key, [...(own.get(op.key) ?? []), op.value]);
    } else if (op.value) {
      const mine = own.get(op.key) ?? [];
      const tail = op.value.slice(op.value.length - mine.length);
      const ext = op.value.length >= mine.length && tail.every((v, j) => v === mine[j]) ? op.value.slice(0, op.value.length - mine.length) : undefined;
      const appendsAfter = t.ops.slice(i + 1).some((o) => isAppend(o) && o.key === op.key);
      out.push({ op, ext, appendsAfter });
    }
  });
  return out;
}

export function checkListAppend(history: Txn[]): CheckResult {
  const anomalies: Anomaly[] = [];
  const report = (kind: AnomalyKind, detail: string, txns: Txn<Op>[]) => void anomalies.push({ kind, detail, txns: [...new Set(txns)] });
  const ok = history.filter((t) => t.outcome === 'ok');

  // Who appended each value (appends of failed and indeterminate transactions included).
  const writer = new Map<string, Map<number, Txn>>();
  for (const t of history) for (const op of t.ops) if (isAppend(op)) (writer.get(op.key) ?? writer.set(op.key, new Map()).get(op.key)!).set(op.value, t);
  const writerOf = (key: string, value: number) => writer.get(key)?.get(value);

  // Within one transaction: reads see its own appends, in order, and nothing read twice.
  for (const t of ok) {
    const known = new Map<string, number[]>();
    const own = new Map<string, number[]>();
    for (const op of t.ops) {
      if (isAppend(op)) {
        own.set(op.key, [...(own.get(op.key) ?? []), op.value]);
        const k = known.get(op.key);
        if (k) k.push(op.value);
        continue;
      }
      const got = op.value ?? [];
      if (new Set(got).size !== got.length) report('duplicate', `read of ${op.key} holds a value twice: ${JSON.stringify(got)}`, [t]);
      const expected = known.get(op.key);
      const mine = own.get(op.key) ?? [];
      const consistent = expected ? expected.length === got.length && isPrefix(expected, got) : isPrefix(mine, got.slice(got.length - mine.length)) && got.length >= mine.length;
      if (!consistent) report('internal', `read of ${op.key} gave ${JSON.stringify(got)}, expected ${expected ? JSON.stringify(expected) : `a list ending ${JSON.stringify(mine)}`}`, [t]);
      known.set(op.key, [...got]);
    }
  }

  // Every read is a prefix of the version order of its key, and reads only what was written.
  const order = versionOrders(history);
  for (const t of ok) {
    for (const op of t.ops) {
      if (!isRead(op) || !op.value) continue;
      const longest = order.get(op.key)!;
      if (!isPrefix(op.value, longest)) {
        const other = ok.find((u) => u.ops.some((o) => isRead(o) && o.key === op.key && o.value === longest))!;
        report('incompatible-order', `reads of ${op.key} disagree: ${JSON.stringify(op.value)} is no prefix of ${JSON.stringify(longest)}`, [t, other]);
      }
      op.value.forEach((v, i) => {
        const w = writerOf(op.key, v);
        if (!w) report('garbage-read', `read ${v} in ${op.key}, which nobody appended`, [t]);
        else if (w.outcome === 'fail' && w !== t) report('G1a', `read ${v} in ${op.key}, appended by a transaction that failed`, [t, w]);
        else if (w !== t && i === op.value!.length - 1) {
          // The last value read, when its writer appended more to the key after it: an intermediate state.
          const later = w.ops.findIndex((o) => isAppend(o) && o.key === op.key && o.value === v);
          if (w.ops.slice(later + 1).some((o) => isAppend(o) && o.key === op.key)) report('G1b', `read ${op.key} ending ${v}, an intermediate state of the transaction that appended it`, [t, w]);
        }
      });
    }
  }

  // Two committed transactions that read the same state of a key and both appended to it.
  const rmw = new Map<string, Txn[]>();
  for (const t of ok) {
    for (const { op, ext, appendsAfter } of externalReads(t)) {
      if (!ext || !appendsAfter) continue;
      const at = `${op.key}@${ext.length}`;
      const others = rmw.get(at) ?? [];
      if (others.length > 0 && !others.includes(t)) report('lost-update', `both read ${op.key} = ${JSON.stringify(ext)} and appended to it`, [others[0], t]);
      if (!others.includes(t)) rmw.set(at, [...others, t]);
    }
  }

  // The dependency graph over committed transactions (and indeterminate ones seen to have committed).
  const graph = new DepGraph();
  const byId = new Map(history.map((t) => [t.id, t]));
  const counted = (t: Txn | undefined): t is Txn => t !== undefined && t.outcome !== 'fail';
  for (const [key, values] of order) {
    for (let i = 1; i < values.length; i++) {
      const a = writerOf(key, values[i - 1]);
      const b = writerOf(key, values[i]);
      if (counted(a) && counted(b)) graph.add(a.id, b.id, 'ww', `${key}: ${values[i - 1]} then ${values[i]}`);
    }
  }
  for (const t of ok) {
    for (const { op, ext } of externalReads(t)) {
      if (!ext) continue;
      const values = order.get(op.key) ?? [];
      const last = ext.length > 0 ? writerOf(op.key, ext[ext.length - 1]) : undefined;
      if (counted(last)) graph.add(last.id, t.id, 'wr', `${op.key}: read ${ext[ext.length - 1]}`);
      const next = ext.length < values.length ? writerOf(op.key, values[ext.length]) : undefined;
      // (Past an intermediate state, the next value is the same writer's: G1b, reported above.)
      if (counted(next) && next !== last) graph.add(t.id, next.id, 'rw', `${op.key}: read ${ext.length ? `up to ${ext[ext.length - 1]}` : 'empty'}, before ${values[ext.length]}`);
    }
  }
  const cycles = graph.cycles();
  for (const c of cycles) report(c.kind, describeCycle(c), c.steps.map((s) => byId.get(s.from)!));

  checkTimes(history, order, graph.edges(), byId, report);
  checkRealtime(history, report);
  checkSessions(history, report);
  return { anomalies, counts: countOutcomes(history), edges: graph.edges().length };
}

function describeCycle(c: Cycle): string {
  return c.steps.map((s) => `T${s.from} -${s.dep}(${s.why})-> `).join('') + `T${c.steps[0].from}`;
}

/**
 * Dependencies point forward in time (a read-only reader may share its writer's time: its snapshot
 * is that commit), and no read with a greater time misses a committed write.
 */
function checkTimes(
  history: Txn[],
  order: Map<string, number[]>,
  edges: Step[],
  byId: Map<number, Txn>,
  report: (kind: AnomalyKind, detail: string, txns: Txn[]) => void,
): void {
  for (const e of edges) {
    const a = byId.get(e.from);
    const b = byId.get(e.to);
    if (!timed(a) || !timed(b)) continue;
    const forward = e.dep === 'wr' && !writes(b) ? a.ts <= b.ts : a.ts < b.ts;
    if (!forward) report('ts-order', `T${a.id} -${e.dep}(${e.why})-> T${b.id}, but ts ${a.ts} then ${b.ts}`, [a, b]);
  }
  for (const w of history) {
    if (!timed(w)) continue;
    for (const op of w.ops) {
      if (!isAppend(op) || (order.get(op.key) ?? []).includes(op.value)) continue;
      const reader = history.find((r) => timed(r) && r.ts > w.ts && r.ops.some((o) => isRead(o) && o.key === op.key && o.value));
      if (reader) report('lost-write', `append of ${op.value} to ${op.key} (ts ${w.ts}) is missing from a read at ts ${reader.ts}`, [w, reader]);
    }
  }
}
