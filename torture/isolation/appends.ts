// The list-append workload (Elle's): documents hold lists; each transaction is one query of a few
// micro-operations, appends of values unique per key and reads of whole lists, run in order. The
// history (what each client sent, how it ended, what it read, its time) goes to the checker. Keys
// move on as the run goes, so lists stay short and every key sees a burst of contention.

import { query as q, type Expr } from 'faunadb';
import { prng } from '../../test/helpers/prng';
import { checkListAppend } from '../checker/listAppend';
import type { CheckResult, MicroOp, Txn } from '../checker/history';
import { call } from './call';
import type { Target } from './targets';

export interface AppendOptions {
  target: Target;
  seconds: number;
  clients: number;
  seed: number;
  /** Keys in use at once. */
  keys?: number;
  deadlineMs?: number;
  log?: (line: string) => void;
}

export interface AppendReport {
  history: Txn[];
  /** X-Txn-Retries summed: re-runs of transactions after a conflict, inside the server. */
  retries: number;
  /** 409 contended transaction answers (clients that allow the server no retry get them). */
  conflicts: number;
  check: CheckResult;
}

const ref = (key: string) => q.Ref(q.Collection('lists'), key.slice(1));

function opExpr(op: MicroOp): Expr {
  if (op.f === 'r') return q.If(q.Exists(ref(op.key)), q.Select(['data', 'v'], q.Get(ref(op.key))), []);
  const r = ref(op.key);
  return q.Do(q.If(q.Exists(r), q.Update(r, { data: { v: q.Append([op.value], q.Select(['data', 'v'], q.Get(r))) } }), q.Create(r, { data: { v: [op.value] } })), null as never);
}

/** One query running the micro-operations in order, answering with each one's result. */
export function txnExpr(ops: MicroOp[]): Expr {
  return q.Let(
    ops.map((op, i) => ({ [`o${i}`]: opExpr(op) })),
    ops.map((_, i) => q.Var(`o${i}`)),
  );
}

export async function runAppends(opts: AppendOptions): Promise<AppendReport> {
  const { target } = opts;
  const keysAtOnce = opts.keys ?? 8;
  const deadlineMs = opts.deadlineMs ?? 30_000;
  const history: Txn[] = [];
  const report = { retries: 0, conflicts: 0 };
  const nextValue = new Map<string, number>();
  const used = new Set<string>();
  let latestTs = 0;
  const t0 = performance.now();
  const clock = () => performance.now() - t0;

  const admin = target.client();
  const setup = await call(admin, q.CreateCollection({ name: 'lists' }), deadlineMs);
  if (setup.outcome !== 'ok') throw new Error(`list-append setup failed: ${setup.error}`);
  latestTs = setup.ts ?? 0;

  const until = Date.now() + opts.seconds * 1000;
  const client = async (n: number) => {
    const random = prng(opts.seed * 6007 + n);
    const int = (k: number) => Math.floor(random() * k);
    const headers = n % 4 === 3 ? { 'X-Max-Retries-On-Contention': '0' } : undefined;
    let c = target.clientAfter(latestTs, headers);
    while (Date.now() < until) {
      // The window of keys moves one key on every 100 transactions.
      const base = Math.floor(history.length / 100);
      const ops: MicroOp[] = Array.from({ length: 1 + int(4) }, () => {
        const key = `k${1 + base + int(keysAtOnce)}`;
        used.add(key);
        if (random() < 0.5) return { f: 'r', key, value: null };
        const value = (nextValue.get(key) ?? 0) + 1;
        nextValue.set(key, value);
        return { f: 'append', key, value };
      });
      const txn: Txn = { id: history.length, client: n, outcome: 'info', ops, start: clock(), end: 0 };
      history.push(txn);
      const a = await call<(number[] | null)[]>(c, txnExpr(ops), deadlineMs);
      txn.end = clock();
      txn.outcome = a.outcome;
      report.retries += a.retries;
      if (a.status === 409) report.conflicts++;
      if (a.outcome === 'ok') {
        txn.ts = a.ts;
        latestTs = Math.max(latestTs, a.ts ?? 0);
        txn.ops = ops.map((op, i) => (op.f === 'r' ? { ...op, value: a.value![i] as number[] } : op));
      } else if (a.outcome === 'info') {
        // A new connection; a new client number too, as the driver's session starts over.
        c = target.clientAfter(latestTs, headers);
        n += 1000;
      }
    }
  };

  let nextLog = Date.now() + 5000;
  const progress = setInterval(() => {
    if (Date.now() < nextLog) return;
    nextLog = Date.now() + 5000;
    opts.log?.(`  list-append: ${history.length} transactions, ${report.conflicts} 409, ${report.retries} retried in the server`);
  }, 1000);
  try {
    await Promise.all(Array.from({ length: opts.clients }, (_, n) => client(n)));
  } finally {
    clearInterval(progress);
  }

  // A last read of every key, after everything: each acknowledged append must be in it.
  const keys = [...used].sort();
  const last: Txn = { id: history.length, client: -1, outcome: 'info', ops: keys.map((key) => ({ f: 'r', key, value: null })), start: clock(), end: 0 };
  const a = await call<number[][]>(target.clientAfter(latestTs), txnExpr(last.ops), deadlineMs);
  if (a.outcome !== 'ok') throw new Error(`list-append final read failed: ${a.error}`);
  last.end = clock();
  last.outcome = 'ok';
  last.ts = a.ts;
  last.ops = keys.map((key, i) => ({ f: 'r', key, value: a.value![i] }));
  history.push(last);

  return { history, ...report, check: checkListAppend(history) };
}
