// Runs the targeted attacks of one torture part and folds their verdicts into the part's result:
// one column with the sum of their must-be-0 counts, a detail line per attack with its figures, and a
// problem per attack that achieved anything.

import type { PartResult } from '../part';
import type { TargetedAttack, TargetedOptions } from './attack';
import { TARGETED } from './index';

export async function runTargeted(part: TargetedAttack['part'], opts: TargetedOptions): Promise<PartResult> {
  const details: string[] = [];
  const problems: string[] = [];
  let violations = 0;
  for (const attack of TARGETED.filter((a) => a.part === part)) {
    opts.log(`  targeted ${attack.name}: ${attack.about}`);
    let result;
    try {
      result = await attack.run(opts);
    } catch (e) {
      // An attack that cannot run is a failure of the suite, reported as one violation.
      result = { violations: 1, figures: {}, details: [`could not run: ${(e as Error).stack ?? String(e)}`] };
    }
    violations += result.violations;
    const figures = Object.entries(result.figures).map(([k, v]) => `${k} ${v}`).join(', ');
    details.push(`targeted ${attack.name}: ${result.violations} violations${figures ? `; ${figures}` : ''}`);
    details.push(...result.details.map((d) => `  ${d}`));
    if (result.violations > 0) problems.push(`targeted ${attack.name}: ${result.violations} violations`);
  }
  return { row: { 'targeted violations': String(violations) }, details, problems };
}

/** A part's result with the targeted attacks' added. */
export function withTargeted(own: PartResult, targeted: PartResult): PartResult {
  return {
    row: { ...own.row, ...targeted.row },
    details: [...own.details, ...targeted.details],
    problems: [...own.problems, ...targeted.problems],
  };
}
