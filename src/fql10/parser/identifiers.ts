// Identifiers and keywords (Identifiers.scala, Tokens.scala).

import type { Name } from '../ast';
import { invalidIdent } from './errors';
import type { Cursor } from './cursor';

/** Words that cannot name a variable or parameter (they may still be field names: `x.if`). */
export const KEYWORDS: ReadonlySet<string> = new Set(['if', 'else', 'at', 'match', 'case', 'let', 'null', 'true', 'false', 'isa', 'join', 'on', 'of']);

/** A name FQL can write bare (Tokens.isValidIdent): letters, digits and `_`, not a keyword.
 *  Others are quoted where they name things (`collection "0Foo$"`, `.["a b"]`). */
export function isValidIdent(s: string): boolean {
  return /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(s) && !KEYWORDS.has(s);
}

/** Names `let` may not bind: the keywords, `FQL` and `_`. */
export const INVALID_VARIABLES: ReadonlySet<string> = new Set([...KEYWORDS, 'FQL', '_']);

export function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** Letters, digits, `_`, and the prime `'` (`foo'`). */
export function isIdentRest(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 39;
}

/** An identifier's text, keywords included; null (consuming nothing) if none starts here. */
export function plainIdent(c: Cursor): string | null {
  const start = c.pos;
  if (!isIdentStart(c.code())) return null;
  let i = start + 1;
  while (i < c.text.length && isIdentRest(c.text.charCodeAt(i))) i++;
  c.pos = i;
  return c.text.slice(start, i);
}

export function plainName(c: Cursor): Name | null {
  const start = c.pos;
  const str = plainIdent(c);
  return str === null ? null : { str, span: c.span(start, c.pos) };
}

/** The keyword `kw`, not followed by an identifier character. */
export function keyword(c: Cursor, kw: string): boolean {
  if (c.text.startsWith(kw, c.pos) && !isIdentRest(c.code(c.pos + kw.length))) {
    c.pos += kw.length;
    return true;
  }
  return false;
}

/** A variable name: an identifier that is no keyword (a keyword here is an error). */
export function ident(c: Cursor): Name | null {
  const name = plainName(c);
  if (name === null) {
    c.note('identifier');
    return null;
  }
  if (KEYWORDS.has(name.str)) c.fail(invalidIdent(name));
  return name;
}
