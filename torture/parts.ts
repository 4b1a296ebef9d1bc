// The parts `npm run torture` runs, in order. Each lives in its own module.

import type { Part } from './part';
import { hostilePart } from './hostile';
import { fuzzPart } from './fuzz';

export const PARTS: readonly Part[] = [hostilePart, fuzzPart];
