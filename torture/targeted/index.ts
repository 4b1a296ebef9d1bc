// Every targeted attack (attack.ts), each in its own module. One line each.

import type { TargetedAttack } from './attack';
import { h2Reserve } from './h2Reserve';

export const TARGETED: readonly TargetedAttack[] = [
  h2Reserve,
];
