// Which FQL an input of `flora eval` or `flora shell` is in (--version). `auto` keeps every input of
// the v4 shell's users running as before and takes FQL v10 without a flag: an input that the v4
// syntax accepts is v4; one it refuses is v10 if the v10 parser accepts it and it calls no v4
// function v10 lacks (`Paginate(Colections())` is a v4 typo, which v4's error names).

import { FUNCTION_NAMES } from '../../fqljs';
import { parseQuery } from '../../fql10/parser';
import { STDLIB_GLOBALS } from '../../fql10/stdlib/globals';

/** --version: 4, 10, or each input in the language it parses as. */
export type Language = '4' | '10' | 'auto';
export const LANGUAGES: readonly Language[] = ['4', '10', 'auto'];

/** FQL v10's global names: the standard library's, the schema's modules, and the keywords that start an expression. */
export const V10_NAMES: readonly string[] = [
  ...STDLIB_GLOBALS.keys(),
  ...['Collection', 'Database', 'Role', 'Key', 'Credential', 'AccessProvider', 'Token'],
  ...['let', 'if', 'else', 'at', 'true', 'false', 'null', 'isa'],
];

/** v4's functions that are no v10 global: a call of one is v4. */
const V4_ONLY = new Set(FUNCTION_NAMES.filter((n) => !V10_NAMES.includes(n)));

/**
 * auto's choice for an input the v4 syntax refused: v10 when it parses as v10 and calls no v4-only
 * function; when neither parser takes it, the language of the previous input (whose errors the
 * user is reading).
 */
export function refusedByV4IsV10(input: string, previous: '4' | '10'): boolean {
  if (!parseQuery(input).ok) return previous === '10';
  for (const m of input.matchAll(/(?<![\w$.])([A-Z][\w$]*)\s*\(/g)) if (V4_ONLY.has(m[1])) return false;
  return true;
}
