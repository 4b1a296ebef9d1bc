// String literals (Strings.scala): 'single' (no interpolation), "double" with `#{expr}`
// interpolation, heredocs `<<-END` (verbatim) and `<<+END` (interpolated), un-indented to their
// least indented line, and escapes.

import type { Expr } from '../ast';
import { invalidEscape } from './errors';
import { isDisplay, type Cursor } from './cursor';
import { isIdentRest, plainIdent } from './identifiers';

const ESCAPES: Record<string, string> = {
  '\\': '\\', '0': '\0', "'": "'", '"': '"', '`': '`', n: '\n', r: '\r', v: '\v', t: '\t', b: '\b', f: '\f', '#': '#',
};

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

/** One part of a string: text, or an interpolation with the offset of its `#`. */
export type StrPart = string | { readonly at: number; readonly expr: Expr };

/** Parses an interpolated expression (after `#{`), up to but not including the `}`. */
export type InnerExpr = (c: Cursor) => Expr;

/** After a `\`: the escaped text. Committed: a bad escape fails for good. */
function escape(c: Cursor): string {
  const ch = c.text[c.pos];
  if (ch !== undefined && ch in ESCAPES) {
    c.pos++;
    return ESCAPES[ch];
  }
  const start = c.pos;
  if (ch === 'x') {
    c.pos++;
    hexDigits(c, 2);
    return codepoint(c, c.text.slice(start + 1, c.pos), start - 1);
  }
  if (ch === 'u') {
    c.pos++;
    if (isHex(c.code())) {
      hexDigits(c, 4);
      return codepoint(c, c.text.slice(start + 1, c.pos), start - 1);
    }
    if (!c.eat('{')) {
      c.note('`{`');
      c.note('hex digit');
      c.abort();
    }
    const digitsStart = c.pos;
    while (c.pos - digitsStart < 6 && isHex(c.code())) c.pos++;
    if (c.pos === digitsStart) {
      c.note('hex digit');
      c.abort();
    }
    const digits = c.text.slice(digitsStart, c.pos);
    if (c.pos - digitsStart < 6) c.note('hex digit');
    c.need('}');
    return codepoint(c, digits, start - 1);
  }
  c.note('escape code');
  return c.abort();
}

function hexDigits(c: Cursor, n: number): void {
  for (let i = 0; i < n; i++) {
    if (!isHex(c.code())) {
      c.note('hex digit');
      c.abort();
    }
    c.pos++;
  }
}

function codepoint(c: Cursor, hex: string, start: number): string {
  const cp = parseInt(hex, 16);
  const sp = c.span(start, c.pos);
  if (cp > 0x10ffff) c.fail(invalidEscape(sp, 'outside of valid unicode range'));
  if (cp >= 0xd800 && cp <= 0xdfff) c.fail(invalidEscape(sp, 'surrogates are disallowed'));
  return String.fromCodePoint(cp);
}

/** Text and escapes up to (not including) a character in `stop` or a non-display character.
 *  Returns null if there is none. */
function innerString(c: Cursor, stop: string): string | null {
  let out = '';
  let any = false;
  let runStart = c.pos;
  for (;;) {
    const code = c.code();
    if (code === 92) {
      out += c.text.slice(runStart, c.pos);
      c.pos++;
      out += escape(c);
      runStart = c.pos;
      any = true;
    } else if (code === -1 || !isDisplay(code) || stop.includes(c.text[c.pos])) {
      break;
    } else {
      c.pos++;
      any = true;
    }
  }
  if (!any) return null;
  return out + c.text.slice(runStart, c.pos);
}

/** `'...'`: null (consuming nothing) if no complete single-quoted string starts here. */
export function singleString(c: Cursor): string | null {
  const start = c.pos;
  if (!c.eat("'")) return null;
  const s = innerString(c, "'") ?? '';
  if (!c.eat("'")) {
    c.note("`'`");
    c.pos = start;
    return null;
  }
  return s;
}

/** `"..."` without interpolation (object keys of type and pattern literals). */
export function doubleString(c: Cursor): string | null {
  const start = c.pos;
  if (!c.eat('"')) return null;
  const s = innerString(c, '"') ?? '';
  if (!c.eat('"')) {
    c.note('`"`');
    c.pos = start;
    return null;
  }
  return s;
}

/** `"..."` with `#{expr}` interpolations: the parts as the core splits them (a lone `#` is a part
 *  of its own). Null (consuming nothing) if no complete string starts here. */
export function interpolatedString(c: Cursor, inner: InnerExpr): StrPart[] | null {
  const start = c.pos;
  if (!c.eat('"')) return null;
  const parts: StrPart[] = [];
  for (;;) {
    if (c.code() === 35) {
      const at = c.pos;
      if (c.text.startsWith('#{', c.pos)) {
        c.pos += 2;
        const expr = inner(c);
        c.need('}');
        parts.push({ at, expr });
      } else {
        c.pos++;
        parts.push('#');
      }
      continue;
    }
    const s = innerString(c, '"#');
    if (s === null) break;
    parts.push(s);
  }
  if (!c.eat('"')) {
    c.note('`"`');
    c.pos = start;
    return null;
  }
  return parts;
}

/** `<<-DELIM` / `<<+DELIM` and the line breaks after it; the delimiter, or null if absent. */
function heredocStart(c: Cursor, sigil: string): string | null {
  if (!c.eat(sigil)) return null;
  c.ws();
  const delim = plainIdent(c);
  if (delim === null) {
    c.note('identifier');
    c.abort();
  }
  let lines = 0;
  for (;;) {
    const save = c.pos;
    c.ws();
    const nlStart = c.pos;
    while (c.code() === 10 || c.code() === 13) c.pos++;
    if (c.pos === nlStart) {
      c.pos = save;
      break;
    }
    lines++;
  }
  if (lines === 0) c.abort();
  return delim;
}

/** Whether the text at the cursor (after spaces) is the closing delimiter; consumes it if so. */
function heredocEnd(c: Cursor, delim: string): boolean {
  const save = c.pos;
  c.ws();
  if (c.text.startsWith(delim, c.pos) && !isIdentRest(c.code(c.pos + delim.length))) {
    c.pos += delim.length;
    return true;
  }
  c.pos = save;
  return false;
}

function lineBreaks(c: Cursor): string {
  const start = c.pos;
  while (c.code() === 10 || c.code() === 13) c.pos++;
  return c.text.slice(start, c.pos);
}

/** Index of the first character that is no space or tab (the length if none). */
function indentOf(s: string): number {
  let i = 0;
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  return i;
}

/** `<<-END ... END`: verbatim lines, un-indented. */
export function heredoc(c: Cursor): string | null {
  const delim = heredocStart(c, '<<-');
  if (delim === null) return null;
  const lines: [string, string][] = [];
  while (!heredocEnd(c, delim)) {
    const start = c.pos;
    while (c.code() !== 10 && c.code() !== 13 && c.code() !== -1 && isDisplay(c.code())) c.pos++;
    if (c.pos === start) c.abort();
    const text = c.text.slice(start, c.pos);
    const nl = lineBreaks(c);
    if (nl === '') c.abort();
    lines.push([text, nl]);
  }
  const indent = lines.reduce((m, [t]) => Math.min(m, indentOf(t)), Number.MAX_SAFE_INTEGER);
  return lines.map(([t, nl]) => t.slice(indent) + nl).join('');
}

/** `<<+END ... END`: lines with `#{expr}` interpolations, un-indented. */
export function interpolatedHeredoc(c: Cursor, inner: InnerExpr): StrPart[] | null {
  const delim = heredocStart(c, '<<+');
  if (delim === null) return null;
  const lines: [StrPart[], string][] = [];
  while (!heredocEnd(c, delim)) {
    const parts: StrPart[] = [];
    for (;;) {
      const code = c.code();
      if (code === 35) {
        const at = c.pos;
        if (c.text.startsWith('#{', c.pos)) {
          c.pos += 2;
          const expr = inner(c);
          c.need('}');
          parts.push({ at, expr });
        } else {
          c.pos++;
          parts.push('#');
        }
        continue;
      }
      const start = c.pos;
      while (c.code() !== 35 && c.code() !== 10 && c.code() !== 13 && c.code() !== -1 && isDisplay(c.code())) c.pos++;
      if (c.pos === start) break;
      parts.push(c.text.slice(start, c.pos));
    }
    const nl = lineBreaks(c);
    if (nl === '') c.abort();
    lines.push([parts, nl]);
  }
  // A line starting with an interpolation (or nothing) is not indented.
  const indent = lines.reduce((m, [ps]) => Math.min(m, typeof ps[0] === 'string' ? indentOf(ps[0]) : 0), Number.MAX_SAFE_INTEGER);
  const out: StrPart[] = [];
  for (const [ps, nl] of lines) {
    if (typeof ps[0] === 'string') {
      out.push(ps[0].slice(indent));
      out.push(...ps.slice(1));
    } else out.push(...ps);
    out.push(nl);
  }
  return out;
}
