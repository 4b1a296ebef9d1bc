// ANSI colours for a terminal, in util.inspect's palette (fauna-shell printed with util.inspect):
// strings green, numbers and booleans yellow, function names cyan.

import type { Colouriser, TokenKind } from '../../fqljs';

const TOKEN_COLOURS: Readonly<Record<TokenKind, number | undefined>> = {
  string: 32,
  number: 33,
  keyword: 33,
  function: 36,
  punctuation: undefined,
};

/** Foreground colour `code`, reset to the default after (39) so that it nests in dim text. */
const fg = (code: number, text: string): string => `\x1b[${code}m${text}\x1b[39m`;

export const colourToken: Colouriser = (kind, text) => {
  const code = TOKEN_COLOURS[kind];
  return code === undefined ? text : fg(code, text);
};

export const dim = (text: string): string => `\x1b[2m${text}\x1b[22m`;
export const red = (text: string): string => fg(31, text);

/** Colour on a terminal, unless NO_COLOR (no-color.org) is set or TERM is dumb. */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}
