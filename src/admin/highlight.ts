// Syntax highlighting for the query editor: the text is split into tokens by acorn's tokenizer (the
// parser the query goes through anyway), and a <pre> of coloured spans sits under a transparent
// textarea. Text the tokenizer cannot read (a query half typed) is shown plain from there on.

import { tokenizer } from 'acorn';
import { FUNCTION_NAMES } from '../fqljs/shapes';

/** `comment` only in FSL (fslText.ts): here comments are plain. */
export type HighlightKind = 'fn' | 'string' | 'number' | 'literal' | 'name' | 'punct' | 'comment' | 'plain';

export interface Piece {
  text: string;
  kind: HighlightKind;
}

const FUNCTIONS = new Set(FUNCTION_NAMES);
/** acorn's labels of the literal keywords (`undefined` is a name to it, not a keyword). */
const LITERALS = new Set(['true', 'false', 'null']);

/** The source cut into pieces that cover all of it, each with its kind (spaces and comments are plain). */
export function highlightPieces(source: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  const push = (end: number, kind: HighlightKind) => {
    if (end > at) pieces.push({ text: source.slice(at, end), kind });
    at = end;
  };
  try {
    for (const token of tokenizer(source, { ecmaVersion: 'latest' })) {
      push(token.start, 'plain');
      const label = token.type.label;
      const text = source.slice(token.start, token.end);
      const kind: HighlightKind =
        label === 'string' || label === 'template' || label === '`' ? 'string'
        : label === 'num' || label === 'bigint' ? 'number'
        : label === 'name' ? (FUNCTIONS.has(text) ? 'fn' : 'name')
        : LITERALS.has(label) ? 'literal'
        : 'punct';
      push(token.end, kind);
    }
  } catch {
    // An unfinished string or a character JavaScript has no token for: the rest as it is.
  }
  push(source.length, 'plain');
  return pieces;
}
