// A small pretty-printer: a document of tokens and bracketed lists, printed on one line when it
// fits the width and otherwise one list item per line, indented by two (util.inspect's shape).

/** What a token is, for a colouriser. */
export type TokenKind = 'string' | 'number' | 'keyword' | 'function' | 'punctuation';

/** Wraps a token's text for display (e.g. in ANSI colour codes); its width is the text's own. */
export type Colouriser = (kind: TokenKind, text: string) => string;

export type Doc = Token | Seq | List;

interface Token {
  readonly kind?: TokenKind;
  readonly text: string;
}

interface Seq {
  readonly seq: readonly Doc[];
}

interface List {
  readonly open: Doc;
  readonly items: readonly Doc[];
  readonly close: Doc;
  /** A space inside the brackets on one line: `{ a: 1 }`, `[ 1 ]` (util.inspect), not `f(1)`. */
  readonly pad: boolean;
}

export const tok = (text: string, kind?: TokenKind): Doc => ({ text, kind });
export const punct = (text: string): Doc => ({ text, kind: 'punctuation' });
export const seq = (...docs: Doc[]): Doc => ({ seq: docs });
export const list = (open: Doc, items: readonly Doc[], close: Doc, pad: boolean): Doc => ({ open, items, close, pad });

/** `Name(arg, …)`, breaking over lines like any list. */
export const callDoc = (name: string, args: readonly Doc[]): Doc => list(seq(tok(name, 'function'), punct('(')), args, punct(')'), false);

/** Width of the document on one line, or Infinity past `limit` (so long lists are not measured whole). */
function flatWidth(d: Doc, limit: number): number {
  if ('text' in d) return d.text.length;
  let w = 0;
  if ('seq' in d) {
    for (const part of d.seq) if ((w += flatWidth(part, limit - w)) > limit) return Infinity;
    return w;
  }
  w = flatWidth(d.open, limit) + flatWidth(d.close, limit) + (d.items.length > 0 && d.pad ? 2 : 0) + 2 * Math.max(0, d.items.length - 1);
  for (const item of d.items) if ((w += flatWidth(item, limit - w)) > limit) return Infinity;
  return w;
}

export interface LayoutOptions {
  /** Columns to fit a line into (default 80). */
  readonly width?: number;
  readonly colour?: Colouriser;
}

export function layout(d: Doc, options: LayoutOptions = {}): string {
  const width = options.width ?? 80;
  const colour = options.colour;
  let out = '';
  let col = 0;
  const emit = (t: Token) => {
    out += colour && t.kind ? colour(t.kind, t.text) : t.text;
    col += t.text.length;
  };
  const newline = (indent: number) => {
    out += '\n' + ' '.repeat(indent);
    col = indent;
  };
  const flat = (x: Doc): void => {
    if ('text' in x) return emit(x);
    if ('seq' in x) return x.seq.forEach(flat);
    flat(x.open);
    if (x.pad && x.items.length > 0) emit({ text: ' ' });
    x.items.forEach((item, i) => {
      if (i > 0) emit({ text: ', ', kind: 'punctuation' });
      flat(item);
    });
    if (x.pad && x.items.length > 0) emit({ text: ' ' });
    flat(x.close);
  };
  // `trail` is what follows on the same line (a comma, closing brackets), which must fit too.
  const print = (x: Doc, indent: number, trail: number): void => {
    if ('text' in x) return emit(x);
    if ('seq' in x) {
      // Only the last part can break; the parts before it stay on this line.
      x.seq.forEach((part, i) => (i === x.seq.length - 1 ? print(part, indent, trail) : flat(part)));
      return;
    }
    if (x.items.length === 0 || col + flatWidth(x, width) + trail <= width) return flat(x);
    print(x.open, indent, 0);
    x.items.forEach((item, i) => {
      newline(indent + 2);
      print(item, indent + 2, i < x.items.length - 1 ? 1 : 0);
      if (i < x.items.length - 1) emit({ text: ',', kind: 'punctuation' });
    });
    newline(indent);
    print(x.close, indent, trail);
  };
  print(d, 0, 0);
  return out;
}
