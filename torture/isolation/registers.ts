// The register workload: a few documents each hold one number; each transaction writes values
// unique per key and reads, in order, in one query. Few keys, so transactions collide often.

import { query as q } from 'faunadb';
import { checkRegisters } from '../checker/register';
import type { RegisterOp } from '../checker/history';
import type { Workload } from './workload';

export function registers(keys = 5): Workload<RegisterOp> {
  const nextValue = new Map<string, number>();
  const ref = (key: string) => q.Ref(q.Collection('registers'), key.slice(1));
  const all = Array.from({ length: keys }, (_, i) => `r${i + 1}`);
  return {
    name: 'registers',
    collection: 'registers',
    draw(random) {
      return Array.from({ length: 1 + Math.floor(random() * 3) }, (): RegisterOp => {
        const key = all[Math.floor(random() * keys)];
        if (random() < 0.5) return { f: 'r', key, value: null };
        const value = (nextValue.get(key) ?? 0) + 1;
        nextValue.set(key, value);
        return { f: 'w', key, value };
      });
    },
    expr(op) {
      const r = ref(op.key);
      if (op.f === 'r') return q.If(q.Exists(r), q.Select(['data', 'v'], q.Get(r)), 0);
      return q.Do(q.If(q.Exists(r), q.Update(r, { data: { v: op.value } }), q.Create(r, { data: { v: op.value } })), null as never);
    },
    answered: (ops, results) => ops.map((op, i) => (op.f === 'r' ? { ...op, value: results[i] as number } : op)),
    finalReads: () => all.map((key) => ({ f: 'r', key, value: null })),
    check: checkRegisters,
  };
}
