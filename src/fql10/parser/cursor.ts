// The parser's state over the source text: the position, whitespace and comments, the errors
// found so far, and the failure bookkeeping that reproduces the core's (fastparse) messages.
//
// Sub-parsers return a value, or `null` for a failure the caller may back out of. A failure past
// a point the core's grammar commits to (a fastparse "cut": after `(`, `{`, `let`, an operator...)
// throws ABORT instead, with the position it failed at. The core then names what could have come
// at that position; as fastparse does, a second, tracing run over the same text collects those
// names (`note`) at exactly that position, so the first run records nothing.

import type { Expr, Name } from '../ast';
import type { Diagnostic } from '../diagnostic';
import type { Span, Src } from '../span';

/** Thrown for a committed failure; `Cursor.abortAt` holds where. */
export const ABORT: unique symbol = Symbol('fql10 parse abort');

/** The deepest nesting of expressions, types and patterns a query may have. The core has no such
 *  limit (its parser recurses on the JVM stack); this keeps deep input from overflowing ours. */
export const MAX_DEPTH = 256;

export class Cursor {
  pos = 0;
  /** Errors the grammar reports itself (they win over an `Expected ...` failure). */
  readonly errors: Diagnostic[] = [];
  abortAt = -1;
  /** In the tracing run, the position whose expectations are collected; -1 otherwise. */
  readonly traceAt: number;
  readonly traced: string[] = [];
  /** While FSL reads a field's type, the defaults its object fields declare (`{ a: Int = 0 }`),
   *  by field name; elsewhere null, and a default is an error where it is written. */
  typeDefaults: Map<Name, Expr> | null = null;
  private depth = 0;
  private templateCount = 0;

  constructor(readonly text: string, readonly src: Src, readonly isTemplate: boolean, traceAt = -1) {
    this.traceAt = traceAt;
  }

  span(start: number, end: number): Span {
    return { start, end, src: this.src };
  }

  code(at = this.pos): number {
    return at < this.text.length ? this.text.charCodeAt(at) : -1;
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  /** Consumes `s` if the text continues with it. */
  eat(s: string): boolean {
    if (this.text.startsWith(s, this.pos)) {
      this.pos += s.length;
      return true;
    }
    return false;
  }

  /** Records that `name` could have come at `at` (only in the tracing run). */
  note(name: string, at = this.pos): void {
    if (at === this.traceAt) this.traced.push(name);
  }

  /** Fails for good at `at`. */
  abort(at = this.pos): never {
    this.abortAt = at;
    throw ABORT;
  }

  /** Records an error and fails for good. */
  fail(d: Diagnostic): never {
    this.errors.push(d);
    this.abortAt = d.span.start;
    throw ABORT;
  }

  /** Records an error and carries on. */
  emit(d: Diagnostic): void {
    this.errors.push(d);
  }

  /** Expects `tok` (named for messages as `` `tok` ``): consumes it or fails for good. */
  need(tok: string): void {
    if (!this.eat(tok)) {
      this.note('`' + tok + '`');
      this.abort();
    }
  }

  /** Consumes `tok` if present; else notes it as a possibility here. */
  maybe(tok: string): boolean {
    if (this.eat(tok)) return true;
    this.note('`' + tok + '`');
    return false;
  }

  /** Runs `f` as a rule the core leaves unnamed (its own `P(...)`): what its parts expected at
   *  the position it starts from is not reported. */
  unnamed<T>(f: () => T): T {
    const at = this.pos;
    const n = this.traced.length;
    try {
      return f();
    } finally {
      if (at === this.traceAt) this.traced.length = n;
    }
  }

  /** Runs `f`; if it fails (null), what it expected on the way is not reported: the core's rules
   *  that reject what they read through `flatMap` and `Fail` (FSL's fields) name nothing. */
  forgetting<T>(f: () => T | null): T | null {
    const n = this.traced.length;
    const r = f();
    if (r === null) this.traced.length = n;
    return r;
  }

  /** Runs `f`; a committed failure in it is a plain one (the core's `NoCut`): null, with the
   *  position restored. Errors it recorded stay, as in the core. */
  attempt<T>(f: () => T | null): T | null {
    const pos = this.pos;
    const depth = this.depth;
    try {
      return f();
    } catch (e) {
      if (e !== ABORT) throw e;
      this.pos = pos;
      this.depth = depth;
      return null;
    }
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.fail({ name: 'error', message: `Query nesting exceeds the limit of ${MAX_DEPTH} levels`, span: this.span(this.pos, this.pos + 1) });
    }
  }

  leave(): void {
    this.depth--;
  }

  /** The next template value's variable (`$0`, `$1`, ... in the order they appear). */
  nextTemplateName(): string {
    return '$' + this.templateCount++;
  }

  // ---- whitespace (Whitespace.scala) ----

  /** Spaces, tabs and block comments on one line. */
  ws(): void {
    for (;;) {
      const c = this.code();
      if (c === 32 || c === 9) this.pos++;
      else if (c === 47 && this.code(this.pos + 1) === 42) {
        if (!this.blockComment()) return;
      } else return;
    }
  }

  /** Whitespace, newlines and comments of both kinds. */
  nl(): void {
    for (;;) {
      const c = this.code();
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else if (c === 47 && this.code(this.pos + 1) === 47) this.lineComment();
      else if (c === 47 && this.code(this.pos + 1) === 42) {
        if (!this.blockComment()) return;
      } else return;
    }
  }

  /** `item (, item)*` with newlines after each comma, then an optional trailing comma (even after no
   *  item, as the core's `x.repX(sep = ",") ~~ ",".?`): the inside of a bracketed list. */
  list<T>(item: (c: Cursor) => T | null): T[] {
    const items: T[] = [];
    for (;;) {
      const save = this.pos;
      if (items.length > 0) {
        if (!this.maybe(',')) break;
        this.nl();
      }
      const x = item(this);
      if (x === null) {
        this.pos = save;
        break;
      }
      items.push(x);
    }
    if (this.maybe(',')) this.nl();
    return items;
  }

  /** A statement separator: whitespace with at least one `;`, newline or line comment. */
  blocksep(): boolean {
    const start = this.pos;
    this.ws();
    let seen = false;
    for (;;) {
      const c = this.code();
      if (c === 59 || c === 10 || c === 13) this.pos++;
      else if (c === 47 && this.code(this.pos + 1) === 47) this.lineComment();
      else break;
      seen = true;
      this.ws();
    }
    if (!seen) this.pos = start;
    return seen;
  }

  /** `//` to the end of the line; it stops at a character a query may not contain. */
  private lineComment(): void {
    this.pos += 2;
    for (;;) {
      const c = this.code();
      if (c === -1 || !isDisplay(c)) return;
      this.pos++;
      if (c === 10) return;
    }
  }

  /** A nested block comment; false (consuming nothing) when it is not closed. */
  private blockComment(): boolean {
    const start = this.pos;
    let depth = 0;
    while (this.pos < this.text.length) {
      const c = this.code();
      if (c === 47 && this.code(this.pos + 1) === 42) {
        depth++;
        this.pos += 2;
      } else if (c === 42 && this.code(this.pos + 1) === 47) {
        this.pos += 2;
        if (--depth === 0) return true;
      } else if (isDisplay(c)) this.pos++;
      else break;
    }
    this.pos = start;
    return false;
  }
}

/** Characters a query's strings and comments may hold verbatim (Strings.scala `Chars.isDisplay`):
 *  no control characters but tab and line breaks, nor ones that can reorder displayed text. */
export function isDisplay(c: number): boolean {
  if (c <= 0x08 || (c >= 0x0e && c <= 0x1f) || c === 0x7f) return false;
  if (c >= 0xfff0 || c === 0xfeff) return false;
  if ((c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) || (c >= 0x2060 && c <= 0x206f)) return false;
  return true;
}
