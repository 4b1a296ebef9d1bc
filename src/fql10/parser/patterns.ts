// Patterns of `match` cases (PatExprParser.scala): `_`, names, literals, `{ a, b: pat }`,
// `[a, ...rest]`, `(a, b)`, with `: Type` or `@ pat` suffixes on `_` and names.

import type { Name, PatExpr } from '../ast';
import type { Cursor } from './cursor';
import { ident, keyword } from './identifiers';
import { number } from './numbers';
import { doubleString, singleString } from './strings';
import { typeExpr } from './types';
import { objectFieldName } from './exprs';

/** A pattern and the whitespace after it. */
export function pattern(c: Cursor): PatExpr | null {
  c.enter();
  const p = hole(c) ?? lit(c) ?? object(c) ?? list(c, '(', ')') ?? list(c, '[', ']') ?? bind(c);
  c.leave();
  if (p !== null) c.nl();
  return p;
}

function need(c: Cursor): PatExpr {
  return pattern(c) ?? c.abort();
}

/** `: Type` or `@ pattern`. */
function suffix(c: Cursor): PatExpr | null {
  if (c.maybe(':')) {
    c.nl();
    const t = typeExpr(c) ?? c.abort();
    return { kind: 'PatType', tpe: t, span: t.span };
  }
  if (c.maybe('@')) {
    c.nl();
    return need(c);
  }
  return null;
}

function hole(c: Cursor): PatExpr | null {
  const start = c.pos;
  if (!c.eat('_')) return null;
  const end = c.pos;
  c.nl();
  const inner = suffix(c);
  return { kind: 'PatHole', inner, span: c.span(start, inner === null ? end : inner.span.end) };
}

function bind(c: Cursor): PatExpr | null {
  const name = ident(c);
  if (name === null) return null;
  c.nl();
  const inner = suffix(c);
  return { kind: 'PatBind', name, inner, span: inner === null ? name.span : c.span(name.span.start, inner.span.end) };
}

function lit(c: Cursor): PatExpr | null {
  const start = c.pos;
  const value = keyword(c, 'null') ? { kind: 'Null' as const }
    : keyword(c, 'true') ? { kind: 'True' as const }
    : keyword(c, 'false') ? { kind: 'False' as const }
    : number(c, false);
  if (value !== null) return { kind: 'PatLit', value, span: c.span(start, c.pos) };
  const s = singleString(c) ?? objectFieldName(c);
  if (s === null) return null;
  if (typeof s !== 'string' && s.span.start !== start) return null;
  return { kind: 'PatLit', value: { kind: 'Str', value: typeof s === 'string' ? s : s.str }, span: c.span(start, c.pos) };
}

function object(c: Cursor): PatExpr | null {
  const start = c.pos;
  if (!c.eat('{')) return null;
  c.nl();
  const fields: [Name, PatExpr][] = [];
  for (;;) {
    const save = c.pos;
    if (fields.length > 0) {
      if (!c.maybe(',')) break;
      c.nl();
    }
    const f = objectField(c);
    if (f === null) {
      c.pos = save;
      break;
    }
    fields.push(f);
  }
  if (c.maybe(',')) c.nl();
  c.need('}');
  return { kind: 'PatObject', fields, span: c.span(start, c.pos) };
}

function objectField(c: Cursor): [Name, PatExpr] | null {
  const start = c.pos;
  const quoted = singleString(c) ?? doubleString(c);
  if (quoted !== null) {
    const name = { str: quoted, span: c.span(start, c.pos) };
    c.need(':');
    c.nl();
    const p = need(c);
    c.nl();
    return [name, p];
  }
  const id = ident(c);
  if (id === null) return null;
  c.ws();
  let p: PatExpr = { kind: 'PatBind', name: id, inner: null, span: id.span };
  if (c.maybe(':')) {
    c.nl();
    p = need(c);
  }
  c.nl();
  return [id, p];
}

/** `(a, b)` (one element is itself) and `[a, b, ...rest]`. */
function list(c: Cursor, open: string, close: string): PatExpr | null {
  const start = c.pos;
  if (!c.eat(open)) return null;
  c.nl();
  const elems: PatExpr[] = [];
  let rest: PatExpr | null = null;
  const isArray = open === '[';
  if (isArray && c.maybe('...')) {
    c.nl();
    rest = need(c);
  } else {
    const first = pattern(c);
    if (first !== null) {
      elems.push(first);
      for (;;) {
        const save = c.pos;
        if (!c.maybe(',')) break;
        c.nl();
        if (isArray && c.maybe('...')) {
          c.nl();
          rest = need(c);
          break;
        }
        const p = pattern(c);
        if (p === null) {
          c.pos = save;
          break;
        }
        elems.push(p);
      }
    }
    if (!isArray && c.maybe(',')) c.nl();
  }
  c.need(close);
  if (!isArray && elems.length === 1) return elems[0];
  return { kind: 'PatArray', elems, rest, span: c.span(start, c.pos) };
}
