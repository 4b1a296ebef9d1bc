// Every targeted attack (attack.ts), each in its own module. One line each.

import type { TargetedAttack } from './attack';
import { graphqlIntrospection } from './graphqlIntrospection';

export const TARGETED: readonly TargetedAttack[] = [
  graphqlIntrospection,
];
