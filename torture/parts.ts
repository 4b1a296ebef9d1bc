// The parts `npm run torture` runs, in order. Each lives in its own module.

import type { Part } from './part';
import { hostilePart } from './hostile';
import { crashPart, crashPgPart } from './crash';
import { isolationPart } from './isolation';
import { fuzzPart } from './fuzz';
import { accessPart } from './access';
import { overloadPart } from './overload';

export const PARTS: readonly Part[] = [crashPart, crashPgPart, isolationPart, hostilePart, fuzzPart, accessPart, overloadPart];
