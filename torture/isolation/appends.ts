// The list-append workload (Elle's): documents hold lists; each transaction is a few appends of
// values unique per key and reads of whole lists, run in order in one query. Keys move on as the
// run goes (the window of keys in use moves one key every 100 transactions), so lists stay short
// and every key sees a burst of contention.

import { query as q } from 'faunadb';
import { checkListAppend } from '../checker/listAppend';
import type { MicroOp } from '../checker/history';
import type { Workload } from './workload';

export function listAppend(keysAtOnce = 8): Workload<MicroOp> {
  const nextValue = new Map<string, number>();
  const used = new Set<string>();
  const ref = (key: string) => q.Ref(q.Collection('lists'), key.slice(1));
  return {
    name: 'list-append',
    collection: 'lists',
    draw(random, issued) {
      const base = Math.floor(issued / 100);
      return Array.from({ length: 1 + Math.floor(random() * 4) }, (): MicroOp => {
        const key = `k${1 + base + Math.floor(random() * keysAtOnce)}`;
        used.add(key);
        if (random() < 0.5) return { f: 'r', key, value: null };
        const value = (nextValue.get(key) ?? 0) + 1;
        nextValue.set(key, value);
        return { f: 'append', key, value };
      });
    },
    expr(op) {
      const r = ref(op.key);
      if (op.f === 'r') return q.If(q.Exists(r), q.Select(['data', 'v'], q.Get(r)), []);
      return q.Do(q.If(q.Exists(r), q.Update(r, { data: { v: q.Append([op.value], q.Select(['data', 'v'], q.Get(r))) } }), q.Create(r, { data: { v: [op.value] } })), null as never);
    },
    answered: (ops, results) => ops.map((op, i) => (op.f === 'r' ? { ...op, value: results[i] as number[] } : op)),
    finalReads: () => [...used].sort().map((key) => ({ f: 'r', key, value: null })),
    check: checkListAppend,
  };
}
