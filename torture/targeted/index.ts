// Every targeted attack (attack.ts), each in its own module. One line each.

import type { TargetedAttack } from './attack';
import { bcryptQuery } from './bcryptQuery';
import { loginFlood } from './loginFlood';
import { forgedSecret } from './forgedSecret';

export const TARGETED: readonly TargetedAttack[] = [
  bcryptQuery,
  loginFlood,
  forgedSecret,
];
