// Clients running transactions of micro-operations (list appends, register writes, reads), one
// query each, recording the history the checkers read: what each client sent, how it ended, what
// it read, its time. A workload says how to draw operations, write them in FQL and check them.

import { query as q, type Expr } from 'faunadb';
import { prng } from '../../test/helpers/prng';
import type { CheckResult, Op, Txn } from '../checker/history';
import { call, callHttp, readSurely } from './call';
import type { Target } from './targets';

export interface Workload<O extends Op> {
  name: string;
  /** The collection whose documents are the keys (document id = key without its first letter). */
  collection: string;
  /** The next transaction's operations; `issued` transactions were drawn before it. */
  draw(random: () => number, issued: number): O[];
  /** One operation as FQL; its value is the operation's result (reads) or null. */
  expr(op: O): Expr;
  /** The operations with what the reads answered filled in. */
  answered(ops: O[], results: unknown[]): O[];
  /** Reads of every key drawn so far, run once the clients are done. */
  finalReads(): O[];
  check(history: Txn<O>[]): CheckResult;
}

export interface WorkloadOptions {
  target: Target;
  seconds: number;
  clients: number;
  seed: number;
  deadlineMs?: number;
  log?: (line: string) => void;
}

export interface WorkloadReport<O extends Op> {
  history: Txn<O>[];
  /** X-Txn-Retries summed: re-runs of transactions after a conflict, inside the server. */
  retries: number;
  /** 409 contended transaction answers (clients that allow the server no retry get them). */
  conflicts: number;
  check: CheckResult;
}

/** One query running the operations in order, answering with each one's result. */
function txnExpr<O extends Op>(w: Workload<O>, ops: O[]): Expr {
  return q.Let(
    ops.map((op, i) => ({ [`o${i}`]: w.expr(op) })),
    ops.map((_, i) => q.Var(`o${i}`)),
  );
}

export async function runWorkload<O extends Op>(w: Workload<O>, opts: WorkloadOptions): Promise<WorkloadReport<O>> {
  const { target } = opts;
  const deadlineMs = opts.deadlineMs ?? 30_000;
  const history: Txn<O>[] = [];
  const report = { retries: 0, conflicts: 0 };
  let latestTs = 0;
  const t0 = performance.now();
  const clock = () => performance.now() - t0;

  const setup = await call(target.client(), q.CreateCollection({ name: w.collection }), deadlineMs);
  if (setup.outcome !== 'ok') throw new Error(`${w.name} setup failed: ${setup.error}`);
  latestTs = setup.ts ?? 0;

  const until = Date.now() + opts.seconds * 1000;
  const client = async (n: number) => {
    const random = prng(opts.seed * 6007 + n);
    // Every fourth client lets the server retry nothing: conflicts come back as 409. Another is a
    // plain HTTP client: a fresh connection per transaction and no X-Last-Seen-Txn, whose reads
    // checkRealtime holds to every write acknowledged before they began.
    const headers = n % 4 === 3 ? { 'X-Max-Retries-On-Contention': '0' } : undefined;
    const plain = n % 4 === 1;
    let c = plain ? undefined : target.clientAfter(latestTs, headers);
    while (Date.now() < until) {
      const ops = w.draw(random, history.length);
      const txn: Txn<O> = { id: history.length, client: n, outcome: 'info', ops, start: clock(), end: 0 };
      history.push(txn);
      const expr = txnExpr(w, ops);
      const a = c ? await call<unknown[]>(c, expr, deadlineMs) : await callHttp<unknown[]>(target.endpoint(), target.secret, expr, deadlineMs);
      txn.end = clock();
      txn.outcome = a.outcome;
      report.retries += a.retries;
      if (a.status === 409) report.conflicts++;
      if (a.outcome === 'ok') {
        txn.ts = a.ts;
        latestTs = Math.max(latestTs, a.ts ?? 0);
        txn.ops = w.answered(ops, a.value!);
      } else if (a.outcome === 'info') {
        // A new connection; a new client number too, as the driver's session starts over.
        if (c) c = target.clientAfter(latestTs, headers);
        n += 1000;
      }
    }
  };

  let nextLog = Date.now() + 5000;
  const progress = setInterval(() => {
    if (Date.now() < nextLog) return;
    nextLog = Date.now() + 5000;
    opts.log?.(`  ${w.name}: ${history.length} transactions, ${report.conflicts} 409, ${report.retries} retried in the server`);
  }, 1000);
  try {
    await Promise.all(Array.from({ length: opts.clients }, (_, n) => client(n)));
  } finally {
    clearInterval(progress);
  }

  // A last read of every key, after everything: each acknowledged write must be in it.
  const ops = w.finalReads();
  const last: Txn<O> = { id: history.length, client: -1, outcome: 'ok', ops, start: clock(), end: 0 };
  const a = await readSurely<unknown[]>(() => target.clientAfter(latestTs), txnExpr(w, ops), deadlineMs);
  if (a.outcome !== 'ok') throw new Error(`${w.name} final read failed: ${a.error}`);
  last.end = clock();
  last.ts = a.ts;
  last.ops = w.answered(ops, a.value!);
  history.push(last);

  return { history, ...report, check: w.check(history) };
}
