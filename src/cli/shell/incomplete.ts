// Whether the shell should keep reading: the input so far has an open bracket, an open template
// or comment, or it is JavaScript that stops short (`Add(1, 2) +`, `x =>`): a syntax error at its
// very end. Any other error is the user's to see, so the input is complete. FQL v10 likewise: its
// parser stops at the very end (`1 +`, `if (x) {`, `let x = 1` without the block's value).

import * as acorn from 'acorn';
import { parseQuery } from '../../fql10/parser';
import type { Language } from './language';

const OPTIONS: acorn.Options = { ecmaVersion: 'latest', sourceType: 'script' };
const OPENERS = new Set(['(', '[', '{', '${']);
const CLOSERS = new Set([')', ']', '}']);
/** Tokens that may run over several lines; an unterminated string constant may not (JavaScript's rule). */
const OPEN_ENDED = /^Unterminated (template|comment)/;

/** auto: incomplete as JavaScript, or not JavaScript at all and incomplete as FQL v10. */
export function isIncomplete(input: string, language: Language = '4'): boolean {
  if (language === '10') return isIncompleteV10(input);
  if (isIncompleteJs(input)) return true;
  return language === 'auto' && !parsesAsJs(input) && isIncompleteV10(input);
}

function isIncompleteV10(input: string): boolean {
  if (input.trim() === '') return false;
  const parsed = parseQuery(input);
  if (parsed.ok) return false;
  const end = input.trimEnd().length;
  // An open block comment or string is reported where it starts.
  return parsed.errors.some((d) => d.span.start >= end) || OPEN_COMMENT.test(input);
}

/** A `/*` with no `*\/` after it. */
const OPEN_COMMENT = /\/\*(?![\s\S]*\*\/)/;

function parsesAsJs(input: string): boolean {
  try {
    acorn.parse(input, OPTIONS);
    return true;
  } catch {
    return false;
  }
}

function isIncompleteJs(input: string): boolean {
  if (input.trim() === '') return false;
  let depth = 0;
  try {
    for (const token of acorn.tokenizer(input, OPTIONS)) {
      if (OPENERS.has(token.type.label)) depth++;
      else if (CLOSERS.has(token.type.label) && --depth < 0) return false;
    }
  } catch (e) {
    return e instanceof SyntaxError && OPEN_ENDED.test(e.message);
  }
  if (depth > 0) return true;
  try {
    acorn.parse(input, OPTIONS);
    return false;
  } catch (e) {
    const pos = (e as { pos?: unknown }).pos;
    return e instanceof SyntaxError && typeof pos === 'number' && pos >= input.trimEnd().length;
  }
}
