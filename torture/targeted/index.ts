// Every targeted attack (attack.ts), each in its own module. One line each.

import type { TargetedAttack } from './attack';
import { abandonedQueries } from './abandoned';
import { jwksAbuse } from './jwksAbuse';
import { longQueries } from './longQueries';

export const TARGETED: readonly TargetedAttack[] = [
  abandonedQueries,
  jwksAbuse,
  longQueries,
];
