// The FSL grammar (SchemaItemParser.scala `parseRawSchemaItems`): a file is items, each
// `@annotations keyword name? value?`, values being blocks of items, `[paths]`, function
// signatures with bodies, fields, migrations or FQL expressions. This phase accepts any keyword
// anywhere (./convert.ts judges); what it cannot read becomes an `Invalid` value up to the end of
// the line, so one bad line does not hide the errors of the rest.
//
// Cuts follow the core's tokens (Tokens.scala): after `{`, `(`, `[`, `:`, `=`, `->`, `@`, `*`,
// `function`, `access`, `provider`, `compute` and a migration's keyword a failure is final.

import type { Block, Expr, Name, TypeExpr } from '../ast';
import { error } from '../diagnostic';
import type { Span } from '../span';
import type { Cursor } from '../parser/cursor';
import { blockBody, expr, expr0 } from '../parser/exprs';
import { invalidIdent } from '../parser/errors';
import { KEYWORDS, keyword, plainName } from '../parser/identifiers';
import { doubleString, singleString } from '../parser/strings';
import { typeTerm } from '../parser/types';
import {
  FIELD_KEYWORD, type ColonPartialType, type ColonType, type FieldKind, type FieldPath, type FslAnnotation, type FslArg,
  type FslBlock, type FslFunction, type FslLit, type FslMigration, type FslNode, type FslPaths, type FslValue, type PathElem,
} from './ast';

const GENERIC_KEYWORDS = new Set(['collection', 'role', 'index', 'terms', 'values', 'unique', 'predicate', 'migrations', 'privileges', 'membership', 'history_days', 'ttl_days', 'check']);
// Items that take no name, lest the next word be read as one (`read` then `write` on the next line).
const NO_NAME_KEYWORDS = new Set(['create', 'create_with_id', 'delete', 'read', 'write', 'history_read', 'history_write', 'unrestricted_read', 'call', 'issuer', 'jwks_uri', 'document_ttls']);
const MIGRATION_KEYWORDS = new Set(['backfill', 'drop', 'split', 'move', 'add', 'move_conflicts', 'move_wildcard', 'add_wildcard']);
const ANNOTATIONS = new Set(['alias', 'role']);

/** A whole file: items separated by newlines or `;`, with the doc comments above top-level items. */
export function fslFile(c: Cursor): FslNode[] {
  const p = new RawParser(c);
  p.itemnl();
  const items: FslNode[] = [];
  for (;;) {
    const save = c.pos;
    if (items.length > 0 && !p.itemsep()) break;
    const item = p.itemWithDoc();
    if (item === null) {
      c.pos = save;
      break;
    }
    items.push(item);
  }
  p.itemsep();
  if (!c.atEnd()) {
    c.note('end-of-input');
    c.abort();
  }
  return items;
}

class RawParser {
  private lastDocComment: Span | null = null;

  constructor(private readonly c: Cursor) {}

  // ---- separators and doc comments ----

  /** `;`, blanks, newlines and doc comments before the first item. */
  itemnl(): void {
    const c = this.c;
    for (;;) {
      const ch = c.code();
      if (ch === 59 || ch === 32 || ch === 9 || ch === 13 || ch === 10) c.pos++;
      else if (!this.docComment()) return;
    }
  }

  /** Between top-level items: at least one `;`, newline or doc comment. */
  itemsep(): boolean {
    const c = this.c;
    const start = c.pos;
    c.ws();
    let seen = false;
    for (;;) {
      const ch = c.code();
      if (ch === 59 || ch === 10) c.pos++;
      else if (ch === 13 && c.code(c.pos + 1) === 10) c.pos += 2;
      else if (!this.docComment()) break;
      seen = true;
      while (c.code() === 32 || c.code() === 9) c.pos++;
    }
    if (!seen) c.pos = start;
    return seen;
  }

  /** Line comments, and block comments ending their line; remembered as the next item's doc. */
  private docComment(): boolean {
    const c = this.c;
    const start = c.pos;
    for (;;) {
      if (c.text.startsWith('//', c.pos)) {
        const nl = c.text.indexOf('\n', c.pos);
        c.pos = nl === -1 ? c.text.length : nl + 1;
      } else if (c.text.startsWith('/*', c.pos)) {
        const end = blockCommentEnd(c.text, c.pos);
        if (end === -1) break;
        c.pos = end;
        while (c.code() === 32 || c.code() === 9) c.pos++;
        if (c.code() === 10) c.pos++;
      } else break;
    }
    if (c.pos === start) return false;
    this.lastDocComment = c.span(start, c.pos);
    return true;
  }

  itemWithDoc(): FslNode | null {
    const item = this.item();
    const doc = this.lastDocComment;
    if (item !== null && doc !== null && doc.end === item.span.start) {
      return { ...item, docComment: doc, span: this.c.span(doc.start, item.span.end) };
    }
    return item;
  }

  // ---- items ----

  /** Items in a block, separated by newlines or `;`. */
  private items(): FslNode[] {
    const c = this.c;
    c.blocksep();
    const items: FslNode[] = [];
    for (;;) {
      const save = c.pos;
      if (items.length > 0 && !c.blocksep()) break;
      const item = this.item();
      if (item === null) {
        c.pos = save;
        break;
      }
      items.push(item);
    }
    c.blocksep();
    return items;
  }

  private item(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    // The core's rules here are unnamed: a failure at the item's start names nothing.
    const [annotations, item] = c.unnamed(() => {
      const anns = this.annotations();
      return [anns, c.forgetting(() => this.fieldItem()) ?? this.genericItem() ?? this.funcItem() ?? this.accessProviderItem() ?? this.noNameItem() ?? this.migrationItem() ?? this.invalidItem()] as const;
    });
    if (item === null) {
      // Past an `@` (a cut) the item must follow.
      if (annotations.length > 0) c.abort();
      c.pos = start;
      return null;
    }
    c.ws();
    // The span takes in the `;`s that end the item on its line.
    let end = item.span.end;
    for (let i = c.pos; ;) {
      const ch = c.code(i);
      if (ch === 32 || ch === 9) i++;
      else if (ch === 59) end = ++i;
      else if (ch === 47 && c.code(i + 1) === 42) {
        const e = blockCommentEnd(c.text, i);
        if (e === -1) break;
        i = e;
      } else break;
    }
    return { ...item, annotations, span: c.span(start, end) };
  }

  private annotations(): FslAnnotation[] {
    const c = this.c;
    const out: FslAnnotation[] = [];
    for (;;) {
      const start = c.pos;
      if (!c.eat('@')) return out;
      c.nl();
      const keyword = plainName(c);
      if (keyword === null || !ANNOTATIONS.has(keyword.str)) return c.abort(start + 1);
      c.nl();
      c.need('(');
      c.nl();
      const value = this.schemaName() ?? c.abort();
      c.need(')');
      out.push({ keyword, value, span: c.span(start, c.pos) });
      c.nl();
    }
  }

  /** An identifier, or a quoted legacy name (`"0Foo$"`). A missing one is reported as the core's
   *  specs show: "name" where it is required (after `function`, `provider`, `@alias(`),
   *  "identifier" where it is optional (`collection #`). */
  private schemaName(missing: 'name' | 'identifier' = 'name'): Name | null {
    const c = this.c;
    const start = c.pos;
    const name = ident(c);
    if (name !== null) return name;
    const s = singleString(c) ?? doubleString(c);
    if (s !== null) return { str: s, span: c.span(start, c.pos) };
    c.note(missing);
    return null;
  }

  /** `name: Type = default`, `compute name: Type = lambda`, `*: Type`; a name with neither type
   *  nor value is no field (`read` in privileges). */
  private fieldItem(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    let fieldKind: FieldKind = 'defined';
    let kwSpan: Span | null = null;
    let committed = false;
    if (keyword(c, 'compute')) {
      c.nl();
      kwSpan = c.span(start, c.pos);
      fieldKind = 'compute';
      committed = true;
    }
    let name = this.schemaName();
    if (name === null) {
      const starAt = c.pos;
      if (c.maybe('*')) {
        c.nl();
        name = { str: '*', span: c.span(starAt, starAt + 1) };
        fieldKind = 'wildcard';
        committed = true;
      } else if (committed) return c.abort();
      else return null;
    }
    c.ws();
    const ty = this.colonPartialType();
    c.ws();
    let value: FslLit | null = null;
    if (c.maybe('=')) {
      c.nl();
      value = this.lit() ?? c.abort();
    }
    if ((fieldKind === 'defined' && ty === null && value === null) || (fieldKind === 'wildcard' && ty === null)) {
      if (committed) c.abort();
      c.pos = start;
      return null;
    }
    const endSpan = value?.span ?? ty?.span ?? name.span;
    const span = c.span(name.span.start, endSpan.end);
    return {
      annotations: [], keyword: { str: FIELD_KEYWORD, span: kwSpan ?? name.span }, name,
      body: { kind: 'Field', fieldKind, ty, value, span: fieldSpan(ty, value, name.span) }, span, docComment: null,
    };
  }

  /** `collection Foo {...}`, `index byX {...}`, `terms [...]`, `history_days 3`... */
  private genericItem(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    const kw = plainName(c);
    if (kw === null || !GENERIC_KEYWORDS.has(kw.str)) {
      c.pos = start;
      return null;
    }
    c.nl();
    const name = this.schemaName('identifier');
    if (name !== null) c.ws();
    const value = this.value();
    return { annotations: [], keyword: kw, name, body: value, span: value?.span ?? name?.span ?? kw.span, docComment: null };
  }

  private funcItem(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    if (!keyword(c, 'function')) return null;
    c.nl();
    const name = this.schemaName() ?? c.abort();
    c.ws();
    const f = this.func();
    return { annotations: [], keyword: { str: 'function', span: c.span(start, start + 8) }, name, body: f, span: f.span, docComment: null };
  }

  private accessProviderItem(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    if (!keyword(c, 'access')) return null;
    c.nl();
    c.ws();
    const i2 = c.pos;
    if (!keyword(c, 'provider')) {
      c.note('provider');
      c.abort();
    }
    c.nl();
    const name = this.schemaName() ?? c.abort();
    c.ws();
    const value = this.value() ?? c.abort();
    return { annotations: [], keyword: { str: 'access provider', span: c.span(start, i2 + 8) }, name, body: value, span: value.span, docComment: null };
  }

  private noNameItem(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    const kw = plainName(c);
    if (kw === null || !NO_NAME_KEYWORDS.has(kw.str)) {
      c.pos = start;
      return null;
    }
    c.ws();
    const value = this.value();
    return { annotations: [], keyword: kw, name: null, body: value, span: value?.span ?? kw.span, docComment: null };
  }

  private migrationItem(): FslNode | null {
    const c = this.c;
    const start = c.pos;
    const kw = plainName(c);
    if (kw === null || !MIGRATION_KEYWORDS.has(kw.str)) {
      c.pos = start;
      return null;
    }
    c.ws();
    const m = this.migration(kw);
    return { annotations: [], keyword: kw, name: null, body: m, span: m.span, docComment: null };
  }

  private migration(kw: Name): FslMigration {
    const c = this.c;
    const to = (end: number) => c.span(kw.span.start, end);
    switch (kw.str) {
      case 'backfill': {
        const path = this.fieldPath();
        c.ws();
        c.need('=');
        c.nl();
        const value = this.lit() ?? c.abort();
        return { kind: 'Backfill', path, value, span: to(value.span.end) };
      }
      case 'drop': {
        const path = this.fieldPath();
        return { kind: 'Drop', path, span: to(path.span.end) };
      }
      case 'split': {
        const from = this.fieldPath();
        c.ws();
        c.need('->');
        c.nl();
        const into: FieldPath[] = [];
        for (;;) {
          const save = c.pos;
          if (into.length > 0) {
            if (!c.maybe(',')) break;
            c.nl();
          }
          const e = expr0(c, true);
          if (e === null) {
            c.pos = save;
            break;
          }
          into.push(this.toPath(e));
        }
        const end = into.length > 0 ? into[into.length - 1].span.end : from.span.end;
        return { kind: 'Split', from, to: into, span: to(end) };
      }
      case 'move': {
        const from = this.fieldPath();
        c.ws();
        c.need('->');
        c.nl();
        const dest = this.fieldPath();
        return { kind: 'Move', from, to: dest, span: to(dest.span.end) };
      }
      case 'add': {
        const path = this.fieldPath();
        return { kind: 'Add', path, span: to(path.span.end) };
      }
      case 'move_conflicts': {
        const into = this.fieldPath();
        return { kind: 'MoveConflicts', into, span: to(into.span.end) };
      }
      case 'move_wildcard': {
        const into = this.fieldPath();
        return { kind: 'MoveWildcard', into, span: to(into.span.end) };
      }
      default:
        return { kind: 'AddWildcard', span: kw.span };
    }
  }

  /** A field path written as a short lambda (`.a.b[0]`); anything else is an error. */
  private fieldPath(): FieldPath {
    const c = this.c;
    const e = c.unnamed(() => expr0(c, true)) ?? c.abort();
    return this.toPath(e);
  }

  private toPath(e: Expr): FieldPath {
    const r = fieldPathOf(e);
    if ('error' in r) this.c.fail(r.error);
    return r;
  }

  /** A keyword followed by something the grammar cannot read: kept up to the end of the line. */
  private invalidItem(): FslNode | null {
    const c = this.c;
    const kw = ident(c);
    if (kw === null) return null;
    c.ws();
    const i1 = c.pos;
    c.pos = invalidCharsEnd(c.text, c.pos);
    return { annotations: [], keyword: kw, name: null, body: { kind: 'Invalid', span: c.span(i1, c.pos) }, span: c.span(kw.span.start, c.pos), docComment: null };
  }

  // ---- values ----

  private value(): FslValue | null {
    const c = this.c;
    return c.unnamed(() => this.block() ?? this.paths() ?? this.lit());
  }

  private block(): FslBlock | null {
    const c = this.c;
    const i1 = c.pos;
    if (!c.eat('{')) return null;
    c.nl();
    const items = this.items();
    const i2 = c.pos;
    c.need('}');
    return { kind: 'Block', open: c.span(i1, i1 + 1), items, close: c.span(i2, i2 + 1), span: c.span(i1, i2 + 1) };
  }

  private paths(): FslPaths | null {
    const c = this.c;
    const i1 = c.pos;
    if (!c.eat('[')) return null;
    c.nl();
    const paths: Expr[] = [];
    for (;;) {
      const save = c.pos;
      if (paths.length > 0) {
        if (!c.maybe(',')) break;
        c.nl();
      }
      const e = expr(c, true);
      if (e === null) {
        c.pos = save;
        break;
      }
      paths.push(e);
    }
    const i2 = c.pos;
    c.need(']');
    return { kind: 'Paths', open: c.span(i1, i1 + 1), paths, close: c.span(i2, i2 + 1), span: c.span(i1, i2 + 1) };
  }

  private lit(): FslLit | null {
    const c = this.c;
    const e = c.unnamed(() => expr0(c, false));
    return e === null ? null : { kind: 'Lit', expr: e, span: e.span };
  }

  /** `(args): Ret { body }`; a body that does not parse is kept as `Invalid` from `(`. */
  private func(): FslFunction | { kind: 'Invalid'; span: Span } {
    const c = this.c;
    const i1 = c.pos;
    c.need('(');
    c.nl();
    const { args, variadic } = this.args();
    const i2 = c.pos;
    c.need(')');
    const ret = this.colonType();
    c.nl();
    const bodyAt = c.pos;
    const body = c.attempt(() => this.exprBlock());
    if (body === null) {
      c.pos = invalidCharsEnd(c.text, bodyAt);
      return { kind: 'Invalid', span: c.span(i1, c.pos) };
    }
    return { kind: 'Function', open: c.span(i1, i1 + 1), args, variadic, close: c.span(i2, i2 + 1), ret, body, span: c.span(i1, body.span.end) };
  }

  private args(): { args: FslArg[]; variadic: (FslArg & { dots: Span }) | null } {
    const c = this.c;
    const items: (FslArg & { dots?: Span })[] = [];
    for (;;) {
      const save = c.pos;
      if (items.length > 0) {
        if (!c.maybe(',')) break;
        c.nl();
      }
      const a = this.arg();
      if (a === null) {
        c.pos = save;
        break;
      }
      items.push(a);
    }
    if (c.maybe(',')) c.nl();
    c.nl();
    items.forEach((a, i) => {
      if (a.dots !== undefined && i !== items.length - 1) c.emit(error('Variadic argument must be the last argument.', a.span));
    });
    const args = items.filter((a) => a.dots === undefined);
    const v = items.find((a) => a.dots !== undefined);
    return { args, variadic: v === undefined ? null : { name: v.name, ty: v.ty, span: v.span, dots: v.dots! } };
  }

  private arg(): (FslArg & { dots?: Span }) | null {
    const c = this.c;
    const start = c.pos;
    const name = ident(c);
    if (name !== null) {
      c.nl();
      const ty = this.colonType();
      return { name, ty, span: c.span(name.span.start, ty?.span.end ?? name.span.end) };
    }
    if (!c.maybe('...')) return null;
    c.nl();
    const vname = ident(c) ?? c.abort();
    c.nl();
    const ty = this.colonType();
    return { name: vname, ty, span: c.span(start, ty?.span.end ?? vname.span.end), dots: c.span(start, start + 3) };
  }

  /** `: Type` (named "a type annotation" in failures). */
  private colonType(): ColonType | null {
    const c = this.c;
    const at = c.pos;
    if (!c.eat(':')) {
      c.note('a type annotation');
      return null;
    }
    c.nl();
    const ty: TypeExpr = typeTerm(c) ?? c.abort();
    return { colon: c.span(at, at + 1), ty, span: c.span(at, ty.span.end) };
  }

  /** A field's `: Type`, its object fields' defaults collected. */
  private colonPartialType(): ColonPartialType | null {
    const c = this.c;
    const at = c.pos;
    if (!c.eat(':')) {
      c.note('a type annotation');
      return null;
    }
    c.nl();
    const defaults = new Map<Name, Expr>();
    const outer = c.typeDefaults;
    c.typeDefaults = defaults;
    try {
      const ty = typeTerm(c) ?? c.abort();
      return { colon: c.span(at, at + 1), ty, defaults, span: c.span(at, ty.span.end) };
    } finally {
      c.typeDefaults = outer;
    }
  }

  private exprBlock(): Block | null {
    const c = this.c;
    const i1 = c.pos;
    if (!c.eat('{')) return null;
    c.nl();
    const body = blockBody(c, false);
    const i2 = c.pos;
    c.need('}');
    return { kind: 'Block', body, span: c.span(i1, i2 + 1) };
  }
}

/** An identifier; a keyword is an error. Unlike `ident` it names nothing when absent (the core's
 *  `ident` is an unnamed rule). */
function ident(c: Cursor): Name | null {
  const name = plainName(c);
  if (name !== null && KEYWORDS.has(name.str)) c.fail(invalidIdent(name));
  return name;
}

function fieldSpan(ty: ColonPartialType | null, value: FslLit | null, fallback: Span): Span {
  if (ty !== null && value !== null) return { start: ty.span.start, end: value.span.end, src: ty.span.src };
  return ty?.span ?? value?.span ?? fallback;
}

/** The path a short lambda of selects and literal accesses names (ExprParser.processFieldPathExpr). */
export function fieldPathOf(e: Expr): FieldPath | { error: ReturnType<typeof error> } {
  if (e.kind !== 'ShortLambda' || e.body.kind !== 'MethodChain') return { error: error('Invalid field path', e.span) };
  const chain = e.body;
  const elems: PathElem[] = [];
  for (const link of chain.chain) {
    if (link.kind === 'Select' && !link.optional) elems.push({ kind: 'field', name: link.field.str, span: link.field.span });
    else if (link.kind === 'Access' && link.optional === null && link.args.length === 1 && link.args[0].kind === 'Lit') {
      const lit = link.args[0];
      if (lit.value.kind === 'Str') elems.push({ kind: 'field', name: lit.value.value, span: lit.span });
      else if (lit.value.kind === 'Int' && lit.value.value >= 0n && lit.value.value <= 0x7fffffffffffffffn) elems.push({ kind: 'index', index: Number(lit.value.value), span: lit.span });
      else return { error: error('Invalid field path', link.span) };
    } else return { error: error('Invalid field path', link.span) };
  }
  return { elems, span: chain.span };
}

/** The end of a nested block comment starting at `at`, or -1 if it is not closed. */
function blockCommentEnd(text: string, at: number): number {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    if (text.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (text.startsWith('*/', i)) {
      i += 2;
      if (--depth === 0) return i;
    } else i++;
  }
  return -1;
}

/** Where unreadable text ends (InvalidItem.invalidChars): at a newline, `;` or `}` outside any
 *  bracket, skipping strings and comments; brackets need not match, but a `}` closing something
 *  else ends it. */
function invalidCharsEnd(text: string, start: number): number {
  const stack: number[] = [];
  let i = start;
  const at = (j: number) => (j < text.length ? text.charCodeAt(j) : 0);
  const skipString = (q: number) => {
    i++;
    while (i < text.length) {
      const ch = at(i);
      if (ch === 92) i++;
      else if (ch === q) return;
      i++;
    }
  };
  while (i < text.length) {
    const ch = at(i);
    let done = false;
    if (ch === 39 || ch === 34) skipString(ch);
    else if (ch === 47 && at(i + 1) === 47) {
      while (i < text.length && at(i) !== 10 && at(i) !== 13) i++;
    } else if (ch === 47 && at(i + 1) === 42) {
      i += 2;
      let depth = 1;
      while (i < text.length) {
        if (at(i) === 47 && at(i + 1) === 42) depth++;
        else if (at(i) === 42 && at(i + 1) === 47) depth--;
        if (depth > 0) i++;
        else break;
      }
    } else if ((ch === 13 || ch === 10 || ch === 59 || ch === 125) && stack.length === 0) done = true;
    else if ((ch === 41 || ch === 93) && stack.length === 0) {
      // a stray closer: ignored
    } else if (ch === 40 || ch === 91 || ch === 123) stack.push(ch);
    else if (ch === 41 || ch === 93) stack.pop();
    else if (ch === 125 && stack.pop() !== 123) done = true;
    if (done) break;
    i++;
  }
  return Math.min(i, text.length);
}
