// Every targeted attack (attack.ts), each in its own module. One line each.

import type { TargetedAttack } from './attack';
import { abandonedQueries } from './abandoned';
import { bcryptQuery } from './bcryptQuery';
import { forgedSecret } from './forgedSecret';
import { graphqlIntrospection } from './graphqlIntrospection';
import { h2Reserve } from './h2Reserve';
import { importPath } from './importPath';
import { jobFlood } from './jobFlood';
import { jobOwnership } from './jobOwnership';
import { jwksAbuse } from './jwksAbuse';
import { loginFlood } from './loginFlood';
import { longQueries } from './longQueries';

export const TARGETED: readonly TargetedAttack[] = [
  abandonedQueries,
  bcryptQuery,
  forgedSecret,
  graphqlIntrospection,
  h2Reserve,
  importPath,
  jobFlood,
  jobOwnership,
  jwksAbuse,
  loginFlood,
  longQueries,
];
