// A targeted attack: one way a client key, a user token or no key at all once stopped, starved or
// read across Flora (issue 30), replayed against real processes. Unlike the hostile part's random
// draws, each attack is aimed, and its verdict is a count that must be 0: requests that got what they
// must not, pings the attack held up, bytes it read that were not its own.
//
// The torture suite runs every attack of a part after that part's own run (`hostile`, `access`), at
// full size; `npm test` runs each in its own regression test at the smaller `test` size.

import { pingFigures, slowPings, type PingReport } from './pingWatch';

export interface TargetedOptions {
  /** `test`: the short form of npm test; `torture`: the full form of npm run torture. */
  size: 'test' | 'torture';
  /** Progress lines. */
  log: (line: string) => void;
}

export interface TargetedResult {
  /** Must be 0: each is something the attack achieved that it must not (details say which). */
  violations: number;
  /** Measured figures for the report (ping max, CPU, RSS, requests sent), as printed. */
  figures: Record<string, string>;
  /** One line per violation, with what to run to reproduce it; and notes. */
  details: string[];
}

export interface TargetedAttack {
  /** Short name, e.g. `h2-reserve`: the report's row label. */
  name: string;
  /** The torture part that runs it. */
  part: 'hostile' | 'access';
  /** One line: the attack and what must hold. */
  about: string;
  /** Starts the servers it needs (test/helpers/server startFlora), attacks, stops them. Never throws for a verdict. */
  run(opts: TargetedOptions): Promise<TargetedResult>;
}

/** Collects an attack's verdict: its violations, a line for each kind, and the pings it is judged by. */
export class Verdict {
  violations = 0;
  readonly details: string[] = [];
  private pings: PingReport | undefined;

  /** Counts `n` violations (true: one), told by `line` when there are any. */
  fail(n: number | boolean, line: string | (() => string)): void {
    if (Number(n) <= 0) return;
    this.violations += Number(n);
    this.details.push(typeof line === 'string' ? line : line());
  }

  /**
   * Counts the slow pings of `report` (seen `during` what). The result's figures are those of the
   * slowest report, with the slow pings of every one.
   */
  ping(report: PingReport, during?: string): void {
    this.fail(report.slow, () => slowPings(report, during));
    const slowest = this.pings === undefined || report.maxMs >= this.pings.maxMs ? report : this.pings;
    this.pings = { ...slowest, slow: (this.pings?.slow ?? 0) + report.slow };
  }

  result(figures: Record<string, string>): TargetedResult {
    return { violations: this.violations, figures: this.pings ? { ...figures, ...pingFigures(this.pings) } : figures, details: this.details };
  }
}
