// Every targeted attack (attack.ts), each in its own module. One line each.

import type { TargetedAttack } from './attack';
import { importPath } from './importPath';
import { jobFlood } from './jobFlood';
import { jobOwnership } from './jobOwnership';

export const TARGETED: readonly TargetedAttack[] = [
  jobOwnership,
  jobFlood,
  importPath,
];
