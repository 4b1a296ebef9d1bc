// The bank workload (Jepsen's bank, PostgreSQL isolation tester's classic): accounts with a known
// total; writers move money between two random accounts in one query each (read both balances,
// refuse an overdraft with Abort or If, write both, and a ledger entry); readers read every balance
// in one query, through the documents and through two indexes (so index entries are checked with
// their documents); snapshot readers read again at times already seen with At, which must give the
// very same balances. At the end every acknowledged transfer, and no refused or failed one, is in
// the ledger, and the balances are what the ledger says.

import { query as q, type Client, type Expr } from 'faunadb';
import { prng } from '../../test/helpers/prng';
import { call, readSurely, type Answer } from './call';
import type { Target } from './targets';

export interface BankOptions {
  target: Target;
  seconds: number;
  /** Clients making transfers. */
  writers: number;
  /** Clients reading every balance (and as many reading snapshots). */
  readers: number;
  seed: number;
  accounts?: number;
  deadlineMs?: number;
  log?: (line: string) => void;
}

export interface BankReport {
  transfers: { ok: number; refused: number; aborted: number; conflicts: number; fail: number; info: number };
  reads: number;
  snapshotReads: number;
  /** X-Txn-Retries summed: re-runs of transactions after a conflict, inside the server. */
  retries: number;
  /** Each a violated invariant, with the data that shows it. */
  anomalies: string[];
}

const START = 100;
const ACCOUNTS = 16;

const account = (id: number) => q.Ref(q.Collection('accounts'), String(id));

/** Every balance three ways, in one query: documents, an index of all balances, an index per group. */
function balancesExpr(): Expr {
  return q.Let(
    {
      docs: q.Select('data', q.Map(q.Paginate(q.Documents(q.Collection('accounts')), { size: 1000 }), q.Lambda('r', [q.Select('id', q.Var('r')), q.Select(['data', 'balance'], q.Get(q.Var('r')))]))),
      entries: q.Select('data', q.Map(q.Paginate(q.Match(q.Index('account_balances')), { size: 1000 }), q.Lambda(['b', 'r'], [q.Select('id', q.Var('r')), q.Var('b')]))),
      groups: q.Map([0, 1], q.Lambda('g', q.Sum(q.Select('data', q.Map(q.Paginate(q.Match(q.Index('balances_by_group'), q.Var('g')), { size: 1000 }), q.Lambda(['b', 'r'], q.Var('b'))))))),
    },
    { docs: q.Var('docs'), entries: q.Var('entries'), groups: q.Var('groups') },
  );
}

interface Balances {
  docs: [string, number][];
  entries: [string, number][];
  groups: number[];
}

function transferExpr(id: string, from: number, to: number, amount: number, abort: boolean): Expr {
  return q.Let(
    { a: q.Select(['data', 'balance'], q.Get(account(from))), b: q.Select(['data', 'balance'], q.Get(account(to))) },
    q.If(
      q.GTE(q.Var('a'), amount),
      q.Do(
        q.Update(account(from), { data: { balance: q.Subtract(q.Var('a'), amount) } }),
        q.Update(account(to), { data: { balance: q.Add(q.Var('b'), amount) } }),
        q.Create(q.Collection('ledger'), { data: { id, from, to, amount } }),
        true,
      ),
      abort ? q.Abort('overdraft') : false,
    ),
  );
}

/** What is wrong with one read of every balance (empty when nothing is). */
function audit(b: Balances, accounts: number, what: string): string[] {
  const problems: string[] = [];
  const docs = new Map(b.docs);
  const sum = b.docs.reduce((s, [, v]) => s + v, 0);
  const shown = JSON.stringify(Object.fromEntries(b.docs));
  if (b.docs.length !== accounts) problems.push(`${what}: ${b.docs.length} accounts, not ${accounts}: ${shown}`);
  if (sum !== accounts * START) problems.push(`${what}: balances sum to ${sum}, not ${accounts * START}: ${shown}`);
  if (b.docs.some(([, v]) => v < 0)) problems.push(`${what}: a negative balance: ${shown}`);
  const entries = new Map(b.entries);
  if (b.entries.length !== accounts || [...docs].some(([id, v]) => entries.get(id) !== v))
    problems.push(`${what}: index account_balances disagrees with the documents: index ${JSON.stringify(b.entries)}, documents ${shown}`);
  const groupSums = [0, 1].map((g) => b.docs.filter(([id]) => Number(id) % 2 === g).reduce((s, [, v]) => s + v, 0));
  if (b.groups[0] !== groupSums[0] || b.groups[1] !== groupSums[1])
    problems.push(`${what}: index balances_by_group sums ${JSON.stringify(b.groups)}, the documents ${JSON.stringify(groupSums)}`);
  return problems;
}

const sameBalances = (a: Balances, b: Balances) => JSON.stringify([...a.docs].sort()) === JSON.stringify([...b.docs].sort());

export async function runBank(opts: BankOptions): Promise<BankReport> {
  const accounts = opts.accounts ?? ACCOUNTS;
  const deadlineMs = opts.deadlineMs ?? 30_000;
  const { target } = opts;
  const report: BankReport = { transfers: { ok: 0, refused: 0, aborted: 0, conflicts: 0, fail: 0, info: 0 }, reads: 0, snapshotReads: 0, retries: 0, anomalies: [] };
  let latestTs = 0;
  const must = async <T>(c: Client, expr: Expr, what: string): Promise<T> => {
    const a = await call<T>(c, expr, deadlineMs);
    if (a.outcome !== 'ok') throw new Error(`bank: ${what} failed: ${a.error}`);
    latestTs = Math.max(latestTs, a.ts ?? 0);
    return a.value as T;
  };

  const admin = target.client();
  await must(admin, q.Do(q.CreateCollection({ name: 'accounts' }), q.CreateCollection({ name: 'ledger' })), 'setup');
  await must(
    admin,
    q.Do(
      q.CreateIndex({ name: 'account_balances', source: q.Collection('accounts'), values: [{ field: ['data', 'balance'] }, { field: ['ref'] }] }),
      q.CreateIndex({ name: 'balances_by_group', source: q.Collection('accounts'), terms: [{ field: ['data', 'group'] }], values: [{ field: ['data', 'balance'] }, { field: ['ref'] }] }),
    ),
    'indexes',
  );
  await must(admin, q.Do(...Array.from({ length: accounts }, (_, i) => q.Create(account(i + 1), { data: { balance: START, group: (i + 1) % 2 } }))), 'accounts');

  const until = Date.now() + opts.seconds * 1000;
  const seen: { ts: number; balances: Balances }[] = [];
  const commits: number[] = [];
  const outcomes = new Map<string, 'applied' | 'not applied' | 'unknown'>();
  const note = (a: Answer<unknown>) => {
    report.retries += a.retries;
    if (a.ts) latestTs = Math.max(latestTs, a.ts);
  };

  const writer = async (w: number) => {
    const random = prng(opts.seed * 7919 + w);
    const int = (n: number) => Math.floor(random() * n);
    // Every fourth writer lets the server retry nothing: conflicts come back as 409.
    const headers = w % 4 === 3 ? { 'X-Max-Retries-On-Contention': '0' } : undefined;
    // (Every client carries the setup's time: a snapshot from before the accounts existed would be
    // a legitimate read of no accounts at all.)
    let c = target.clientAfter(latestTs, headers);
    for (let n = 0; Date.now() < until; n++) {
      const from = 1 + int(accounts);
      const to = 1 + ((from + int(accounts - 1)) % accounts);
      const id = `${w}-${n}`;
      const a = await call<boolean>(c, transferExpr(id, from, to, 1 + int(60), n % 2 === 0), deadlineMs);
      note(a);
      if (a.outcome === 'ok') {
        outcomes.set(id, a.value ? 'applied' : 'not applied');
        if (a.value) report.transfers.ok++;
        else report.transfers.refused++;
        if (a.value && a.ts) commits.push(a.ts);
      } else if (a.outcome === 'fail') {
        outcomes.set(id, 'not applied');
        if (a.code === 'transaction aborted') report.transfers.aborted++;
        else if (a.status === 409) report.transfers.conflicts++;
        else {
          report.transfers.fail++;
          // (429: turned away under load, before it ran.)
          if (a.status !== 429) report.anomalies.push(`transfer ${id} failed unexpectedly: ${a.error}`);
        }
      } else {
        outcomes.set(id, 'unknown');
        report.transfers.info++;
        c = target.clientAfter(latestTs, headers);
      }
    }
  };

  const reader = async (r: number) => {
    let c = target.clientAfter(latestTs);
    while (Date.now() < until) {
      const a = await call<Balances>(c, balancesExpr(), deadlineMs);
      note(a);
      if (a.outcome !== 'ok') {
        if (a.outcome === 'fail') report.anomalies.push(`reader ${r}: a read failed: ${a.error}`);
        c = target.clientAfter(latestTs);
        continue;
      }
      report.reads++;
      report.anomalies.push(...audit(a.value!, accounts, `read at ts ${a.ts}`));
      if (a.ts && seen.length < 10_000) seen.push({ ts: a.ts, balances: a.value! });
    }
  };

  // Reads at times already seen: a past read's time must give its very balances again, and a
  // transfer's commit time a consistent state.
  const snapshotReader = async (r: number) => {
    const random = prng(opts.seed * 104729 + r);
    let c = target.clientAfter(latestTs);
    while (Date.now() < until) {
      const past = random() < 0.5 && seen.length > 0 ? seen[Math.floor(random() * seen.length)] : undefined;
      const ts = past?.ts ?? (commits.length > 0 ? commits[Math.floor(random() * commits.length)] : undefined);
      if (ts === undefined) {
        await new Promise((res) => setTimeout(res, 20));
        continue;
      }
      const a = await call<Balances>(c, q.At(ts, balancesExpr()), deadlineMs);
      note(a);
      if (a.outcome !== 'ok') {
        if (a.outcome === 'fail') report.anomalies.push(`snapshot reader ${r}: At(${ts}) failed: ${a.error}`);
        c = target.clientAfter(latestTs);
        continue;
      }
      report.snapshotReads++;
      report.anomalies.push(...audit(a.value!, accounts, `At(${ts})`));
      if (past && !sameBalances(past.balances, a.value!))
        report.anomalies.push(`At(${ts}) read ${JSON.stringify(a.value!.docs)}, but the read at that time gave ${JSON.stringify(past.balances.docs)}`);
    }
  };

  let nextLog = Date.now() + 5000;
  const progress = setInterval(() => {
    if (Date.now() < nextLog) return;
    nextLog = Date.now() + 5000;
    const t = report.transfers;
    opts.log?.(`  bank: ${t.ok} transfers, ${t.refused + t.aborted} refused, ${t.conflicts} 409, ${t.info} unknown; ${report.reads} reads, ${report.snapshotReads} snapshot reads`);
  }, 1000);
  try {
    await Promise.all([
      ...Array.from({ length: opts.writers }, (_, w) => writer(w)),
      ...Array.from({ length: opts.readers }, (_, r) => reader(r)),
      ...Array.from({ length: opts.readers }, (_, r) => snapshotReader(r)),
    ]);
  } finally {
    clearInterval(progress);
  }

  // The end state, read by a client that has seen every answer's time.
  const surely = async <T>(expr: Expr, what: string): Promise<T> => {
    const a = await readSurely<T>(() => target.clientAfter(latestTs), expr, deadlineMs);
    if (a.outcome !== 'ok') throw new Error(`bank: ${what} failed: ${a.error}`);
    return a.value as T;
  };
  const end = await surely<Balances>(balancesExpr(), 'final read');
  report.anomalies.push(...audit(end, accounts, 'final read'));
  const ledger = await surely<{ id: string; from: number; to: number; amount: number }[]>(
    q.Select('data', q.Map(q.Paginate(q.Documents(q.Collection('ledger')), { size: 100_000 }), q.Lambda('r', q.Select('data', q.Get(q.Var('r')))))),
    'ledger',
  );
  const inLedger = new Map<string, number>();
  const expected = new Map(Array.from({ length: accounts }, (_, i) => [String(i + 1), START]));
  for (const t of ledger) {
    inLedger.set(t.id, (inLedger.get(t.id) ?? 0) + 1);
    expected.set(String(t.from), expected.get(String(t.from))! - t.amount);
    expected.set(String(t.to), expected.get(String(t.to))! + t.amount);
  }
  for (const [id, times] of inLedger) {
    const o = outcomes.get(id);
    if (times > 1) report.anomalies.push(`transfer ${id} is in the ledger ${times} times`);
    if (o === 'not applied') report.anomalies.push(`transfer ${id} was refused or failed, but is in the ledger`);
  }
  for (const [id, o] of outcomes) if (o === 'applied' && !inLedger.has(id)) report.anomalies.push(`acknowledged transfer ${id} is missing from the ledger`);
  if (end.docs.some(([id, v]) => expected.get(id) !== v))
    report.anomalies.push(`final balances ${JSON.stringify(end.docs)} are not what the ledger gives: ${JSON.stringify([...expected])}`);
  return report;
}
