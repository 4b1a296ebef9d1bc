// The parts `npm run torture` runs, in order. Each lives in its own module.

import type { Part } from './part';
import { hostilePart } from './hostile';
import { crashPart, crashPgPart } from './crash';
import { isolationPart } from './isolation';

export const PARTS: readonly Part[] = [crashPart, crashPgPart, hostilePart, isolationPart];
