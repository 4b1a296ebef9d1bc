// Whether the shell should keep reading: the input so far has an open bracket, an open template
// or comment, or it is JavaScript that stops short (`Add(1, 2) +`, `x =>`): a syntax error at its
// very end. Any other error is the user's to see, so the input is complete.

import * as acorn from 'acorn';

const OPTIONS: acorn.Options = { ecmaVersion: 'latest', sourceType: 'script' };
const OPENERS = new Set(['(', '[', '{', '${']);
const CLOSERS = new Set([')', ']', '}']);
/** Tokens that may run over several lines; an unterminated string constant may not (JavaScript's rule). */
const OPEN_ENDED = /^Unterminated (template|comment)/;

export function isIncomplete(input: string): boolean {
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
