// Errors, warnings, hints and logs rendered against their source the way the core renders a
// response's `summary` (fql/shared/.../error/Diagnostic.scala, ast/Span.scala):
//
//   error: Unexpected end of query. Expected statement or expression
//   at *query*:1:4
//     |
//   1 | let
//     |    ^
//     |
//
// Parse errors, type-check errors and runtime errors (with their trace hints) all use it.

import { NULL_SRC, type Span, type Src } from './span';

/** What a hint is for; it picks the word before the colon (`hint:`, `cause:`, none for a trace). */
export type HintType = 'general' | 'performance' | 'trace' | 'namedTrace' | 'cause';

export interface Hint {
  readonly message: string;
  readonly span: Span;
  /** Text to put in place of the span: '' removes it (`---`), on an empty span it is inserted
   *  (`+++`), else it replaces the span (`~~~`); the source is shown with the change made. */
  readonly suggestion?: string;
  readonly hintType?: HintType;
}

export interface Diagnostic {
  /** `error`, `warning`, `info`, or a performance hint (which the summary lists after the logs). */
  readonly name: 'error' | 'warning' | 'info' | 'performance_hint';
  readonly message: string;
  readonly span: Span;
  /** Printed after the carets. */
  readonly annotation?: string;
  readonly hints?: ReadonlyArray<Hint>;
  /** An `info` log in its one-line form: `info at *query*:3: message`. */
  readonly short?: boolean;
}

/** Texts of sources that do not carry their own (UDF bodies...), by source name. */
export type SourceTexts = ReadonlyMap<string, string>;

export function error(message: string, span: Span, annotation?: string, hints?: Hint[]): Diagnostic {
  const d: { name: 'error'; message: string; span: Span; annotation?: string; hints?: Hint[] } = { name: 'error', message, span };
  if (annotation !== undefined) d.annotation = annotation;
  if (hints !== undefined && hints.length > 0) d.hints = hints;
  return d;
}

/** Renders diagnostics as the `summary` of a response: each rendered, separated by a blank line. */
export function renderSummary(diagnostics: ReadonlyArray<Diagnostic>, sources: SourceTexts = new Map()): string {
  return diagnostics.map((d) => renderDiagnostic(d, sources)).join('\n\n');
}

export function renderDiagnostic(d: Diagnostic, sources: SourceTexts = new Map()): string {
  const source = sourceOf(d.span.src, sources);
  if (d.name === 'info' && d.short === true) {
    const where = d.span.src === NULL_SRC || d.span.src.name === NULL_SRC.name ? '<no source>' : `${d.span.src.name}:${source === undefined ? 0 : source.lineNumberOf(d.span.start)}`;
    return `info at ${where}: ${d.message}`;
  }
  let out = renderBody(d.name, d.message, d.span, d.annotation ?? '', source, undefined, '^');
  const line = source === undefined ? 0 : source.lineNumberOf(d.span.start);
  for (const hint of d.hints ?? []) out += '\n' + renderHint(hint, sources, line, d.span.src);
  return out;
}

function hintName(t: HintType | undefined): string {
  switch (t ?? 'general') {
    case 'general': return 'hint';
    case 'performance': return 'performance_hint';
    case 'trace': return '';
    case 'namedTrace': return 'trace';
    case 'cause': return 'cause';
  }
}

function renderHint(hint: Hint, sources: SourceTexts, parentLine: number, parentSrc: Src): string {
  const source = sourceOf(hint.span.src, sources);
  const name = hintName(hint.hintType);
  const parent = { line: parentLine, src: parentSrc };
  const s = hint.suggestion;
  if (s === undefined) return renderBody(name, hint.message, hint.span, '', source, parent, '^');
  if (s === '') return renderBody(name, hint.message, hint.span, '', source, parent, '-');
  // Show the source with the suggestion applied, underlining the inserted text.
  const patched = source === undefined ? undefined : new SourceText(source.text.slice(0, hint.span.start) + s + source.text.slice(hint.span.end));
  const underline = hint.span.start === hint.span.end ? '+' : '~';
  const sp = { start: hint.span.start, end: hint.span.start + s.length, src: hint.span.src };
  return renderBody(name, hint.message, sp, '', patched, parent, underline);
}

function renderBody(name: string, message: string, sp: Span, annotation: string, source: SourceText | undefined,
  parent: { line: number; src: Src } | undefined, underline: string): string {
  let out = '';
  if (name !== '') out += message === '' ? `${name}:\n` : `${name}: ${message}\n`;
  if (source === undefined) return out + 'at <no source>';
  const { text, line, col } = annotate(sp, source, annotation, underline);
  if (parent === undefined || parent.line !== line || parent.src.name !== sp.src.name) {
    out += `at ${sp.src.name === NULL_SRC.name ? '' : sp.src.name + ':'}${line}:${col}\n`;
  }
  return out + text;
}

function sourceOf(src: Src, sources: SourceTexts): SourceText | undefined {
  if (src.text !== undefined) return new SourceText(src.text);
  const text = sources.get(src.name);
  return text === undefined ? undefined : new SourceText(text);
}

/** A source text with its line starts (fql.error.Source). */
class SourceText {
  private newlines: number[] | undefined;
  constructor(readonly text: string) {}

  private nls(): number[] {
    if (this.newlines === undefined) {
      const nl: number[] = [];
      for (let i = this.text.indexOf('\n'); i !== -1; i = this.text.indexOf('\n', i + 1)) nl.push(i);
      this.newlines = nl;
    }
    return this.newlines;
  }

  /** 0-based line of an offset: the newlines before it. */
  lineIndexOf(at: number): number {
    const nl = this.nls();
    let lo = 0;
    let hi = nl.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (nl[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  lineNumberOf(at: number): number {
    return this.lineIndexOf(at) + 1;
  }

  lineStart(at: number): number {
    const idx = this.lineIndexOf(at);
    return idx === 0 ? 0 : this.nls()[idx - 1] + 1;
  }
}

// Java's Character.isWhitespace, which String.stripTrailing uses.
function isJavaWhitespace(c: number): boolean {
  if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20)) return true;
  if (c === 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a)) return true;
  return c === 0x2028 || c === 0x2029 || c === 0x205f || c === 0x3000;
}

function stripTrailing(s: string): string {
  let e = s.length;
  while (e > 0 && isJavaWhitespace(s.charCodeAt(e - 1))) e--;
  return s.slice(0, e);
}

/** Lines with their terminators (\n, \r\n or \r), as Scala's linesWithSeparators. */
function linesWithSeparators(s: string): string[] {
  const lines: string[] = [];
  let start = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13) {
      i += c === 13 && s.charCodeAt(i + 1) === 10 ? 2 : 1;
      lines.push(s.slice(start, i));
      start = i;
    } else i++;
  }
  if (start < s.length) lines.push(s.slice(start));
  return lines;
}

// Template placeholders (NUL `value>`) show as `<value>`.
function showLine(line: string): string {
  return line.includes('\0') ? line.replace(/\0/g, '<') : line;
}

/** The gutter-and-carets block under an `at` line, and the 1-based line and column it points at
 *  (Span.annotateWithLineColNumber). A span past the end points at the last visible character's
 *  end; a span running past its line draws a bracket down to where it ends. */
function annotate(sp: Span, source: SourceText, message: string, underline: string): { text: string; line: number; col: number } {
  let trimmed = stripTrailing(source.text);
  if (sp.start > trimmed.length) {
    const diff = sp.start - trimmed.length;
    return annotate({ start: sp.start - diff, end: sp.end - diff, src: sp.src }, new SourceText(trimmed), message, underline);
  }
  if (trimmed === '') trimmed = ' ';
  const length = sp.end - sp.start;
  const out: [string, string, string][] = [];
  let prefixWidth = 0;
  let gutterWidth = 0;
  const append = (prefix: string, gutter: string, line: string) => {
    prefixWidth = Math.max(prefixWidth, prefix.length);
    gutterWidth = Math.max(gutterWidth, gutter.length);
    out.push([prefix, gutter, line]);
  };
  let scanned = source.lineStart(sp.start);
  let lno = source.lineIndexOf(sp.start);
  let cno = -1;
  const lines = linesWithSeparators(trimmed);
  let next = lno;
  while (scanned <= sp.start && next < lines.length) {
    const i = next;
    const line = lines[next++];
    if (out.length > 0) out.shift();
    if (scanned + line.length <= sp.start && next < lines.length) {
      append('| ', '', line);
    } else {
      const indent = sp.start - scanned;
      lno = i + 1;
      cno = indent + 1;
      append(`${lno} | `, '', showLine(line));
      const multiline = indent + length > line.length && next < lines.length;
      if (!multiline) {
        append('| ', '', ' '.repeat(indent) + underline.repeat(Math.max(length, 0)) + (message.length > 0 ? ' ' + message : ''));
      } else {
        append('| ', ' _', '_'.repeat(indent) + underline);
        let rem = length - (line.length - indent);
        while (rem > 0) {
          const j = next;
          const l = lines[next++];
          const rem0 = rem - l.length;
          append(`${j + 1} | `, '| ', showLine(l));
          if (rem0 <= 0 || next >= lines.length) {
            append('| ', '|_', '_'.repeat(rem - 1) + '^');
            rem = 0;
          } else rem = rem0;
        }
      }
    }
    scanned += line.length;
  }
  out.unshift(['| ', '', '']);
  out.push(['| ', '', '']);
  const text = out
    .map(([p, g, line]) => stripTrailing(' '.repeat(prefixWidth - p.length) + p + ' '.repeat(gutterWidth - g.length) + g + line))
    .join('\n');
  return { text, line: lno, col: cno };
}
