// A parse or interpretation error pointing into the source: line, column and a caret under it.

export class FqlJsError extends Error {
  /** 1-based line and column of the offending text. */
  readonly line: number;
  readonly column: number;
  /** The problem alone, without the position and excerpt that `message` adds. */
  readonly reason: string;
  /** Where in the source the offending text starts (UTF-16 units, as String.slice counts). */
  readonly offset: number;

  constructor(reason: string, source: string, offset: number) {
    const { line, column, text } = locate(source, offset);
    const caret = ' '.repeat(visualWidth(text.slice(0, column - 1))) + '^';
    super(`${reason} (line ${line}, column ${column})\n  ${text.replace(/\t/g, ' ')}\n  ${caret}`);
    this.name = 'FqlJsError';
    this.reason = reason;
    this.line = line;
    this.column = column;
    this.offset = Math.max(0, Math.min(offset, source.length));
  }
}

const LINE_BREAK = /\r\n?|\n|\u2028|\u2029/g;

function locate(source: string, offset: number): { line: number; column: number; text: string } {
  offset = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  LINE_BREAK.lastIndex = 0;
  for (let m = LINE_BREAK.exec(source); m && m.index < offset; m = LINE_BREAK.exec(source)) {
    line++;
    lineStart = m.index + m[0].length;
  }
  LINE_BREAK.lastIndex = lineStart;
  const end = LINE_BREAK.exec(source)?.index ?? source.length;
  return { line, column: offset - lineStart + 1, text: source.slice(lineStart, end) };
}

/** Code points, so that the caret stays under the right character after astral ones. */
const visualWidth = (s: string): number => [...s].length;
