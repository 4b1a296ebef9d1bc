// Where a query's mistake is, so that the editor marks it in place: from a v4 syntax error's offset,
// or from an FQL v10 summary (`at *query*:line:column` with a caret line under it); and the editor's
// highlighted pieces with that stretch marked. Pure: tested without a browser.

import type { HighlightKind, Piece } from './highlight';

export interface Mistake {
  /** Where it starts in the source (UTF-16 units) and how many units it covers (at least 1). */
  offset: number;
  length: number;
}

export interface MarkedPiece {
  text: string;
  kind: HighlightKind;
  /** Part of the mistake. */
  mistake?: boolean;
}

/** The offset of 1-based `line` and `column` (a column in code points, as the summary counts them). */
export function offsetOf(source: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf('\n', at);
    if (next < 0) return source.length;
    at = next + 1;
  }
  for (let c = 1; c < column && at < source.length && source[at] !== '\n'; c++) at += (source.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
  return at;
}

/** The first mistake an FQL v10 summary points at in the query, or null when it points at none. */
export function summaryMistake(source: string, summary: string): Mistake | null {
  const lines = summary.split('\n');
  const i = lines.findIndex((l) => /^at \*query\*:\d+:\d+$/.test(l));
  if (i < 0) return null;
  const [, line, column] = /:(\d+):(\d+)$/.exec(lines[i])!;
  // The excerpt follows: `  |`, `1 | text`, `  |    ^^^`: the carets give the length.
  const carets = lines.slice(i + 1, i + 5).map((l) => /^\s*\|\s*(\^+)/.exec(l)).find((m) => m !== null);
  return { offset: offsetOf(source, Number(line), Number(column)), length: carets ? carets[1].length : 1 };
}

/**
 * `pieces` (covering `source`) with the stretch of `m` marked. A mistake at the end of the text, or
 * on a line break, marks a space added there, so there is something to see.
 */
export function markMistake(pieces: readonly Piece[], m: Mistake): MarkedPiece[] {
  const out: MarkedPiece[] = [];
  const end = m.offset + Math.max(1, m.length);
  let at = 0;
  let marked = false;
  for (const p of pieces) {
    const from = at;
    at += p.text.length;
    const a = Math.max(from, Math.min(m.offset, at));
    const b = Math.max(a, Math.min(end, at));
    if (a === b) {
      out.push({ ...p });
      continue;
    }
    if (a > from) out.push({ text: p.text.slice(0, a - from), kind: p.kind });
    const inner = p.text.slice(a - from, b - from);
    // A line break stays itself (a mark on it would not show): the marker goes before it.
    const nl = inner.indexOf('\n');
    if (nl === 0) out.push({ text: ' ', kind: p.kind, mistake: true }, { text: inner, kind: p.kind });
    else if (nl > 0) out.push({ text: inner.slice(0, nl), kind: p.kind, mistake: true }, { text: inner.slice(nl), kind: p.kind });
    else out.push({ text: inner, kind: p.kind, mistake: true });
    marked = true;
    if (b < at) out.push({ text: p.text.slice(b - from), kind: p.kind });
  }
  if (!marked) out.push({ text: ' ', kind: 'plain', mistake: true });
  return out;
}
