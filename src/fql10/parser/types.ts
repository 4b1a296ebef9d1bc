// Type expressions (PartialTypeExprParser.scala, TypeExprParser.scala): parsed into the tree for
// `let x: T` and patterns, never checked. Operators, loosest first: `=>` (right-associative), `|`,
// `&`, postfix `?`.

import type { Name, TypeExpr } from '../ast';
import { error } from '../diagnostic';
import type { Span } from '../span';
import { duplicateObjectKey, invalidNamedType, invalidVariadic } from './errors';
import type { Cursor } from './cursor';
import { ident, isIdentRest, isIdentStart, keyword } from './identifiers';
import { number } from './numbers';
import { doubleString, singleString } from './strings';
import { expr0, objectFieldName } from './exprs';

/** A parenthesised list that may be a lambda's parameters: `(a: A, ...b: B)`. */
interface Args {
  readonly kind: 'Args';
  readonly params: [Name | null, TypeExpr][];
  readonly variadic: [Name | null, TypeExpr] | null;
  readonly span: Span;
}

type ExprOrArgs = TypeExpr | Args;

const PRECEDENCE: Record<string, number> = { '=>': 0, '|': 1, '&': 2, '?': 3 };

/** A type followed by whitespace and newlines (Types.expr). */
export function typeExpr(c: Cursor): TypeExpr | null {
  const t = typeTerm(c);
  if (t !== null) c.nl();
  return t;
}

/** Fails (names what was expected) unless a type comes here. */
function needType(c: Cursor): TypeExpr {
  const t = typeExpr(c);
  return t ?? c.abort();
}

/** A type without the whitespace after it (PartialTypes.expr0). */
export function typeTerm(c: Cursor): TypeExpr | null {
  c.enter();
  const init = baseType(c);
  if (init === null) {
    c.leave();
    return null;
  }
  const exprs: ExprOrArgs[] = [init];
  const ops: Name[] = [];
  const build = (op: Name) => {
    if (op.str === '?') {
      const base = orFail(c, exprs.pop()!);
      exprs.push({ kind: 'Nullable', base, qmarkSpan: op.span, span: c.span(base.span.start, op.span.end) });
      return;
    }
    const rhs = orFail(c, exprs.pop()!);
    const l = exprs.pop()!;
    exprs.push(binary(c, l, op.str, rhs));
  };
  for (;;) {
    const start = c.pos;
    let op: string | null = null;
    if (c.eat('?')) op = '?';
    else if (c.eat('=>')) op = '=>';
    else if (c.eat('|')) op = '|';
    else if (c.eat('&')) op = '&';
    if (op === null) break;
    const name = { str: op, span: c.span(start, c.pos) };
    const prec = PRECEDENCE[op];
    while (ops.length > 0) {
      const top = ops[ops.length - 1];
      const p0 = PRECEDENCE[top.str];
      if (p0 > prec || (p0 === prec && top.str !== '=>')) build(ops.pop()!);
      else break;
    }
    ops.push(name);
    if (op === '?') c.ws();
    else {
      c.nl();
      const rhs = baseType(c);
      if (rhs === null) c.abort();
      exprs.push(rhs);
    }
  }
  while (ops.length > 0) build(ops.pop()!);
  c.leave();
  return orFail(c, exprs.pop()!);
}

function binary(c: Cursor, l: ExprOrArgs, op: string, rhs: TypeExpr): TypeExpr {
  if (l.kind === 'Args') {
    if (op === '=>') return { kind: 'TypeLambda', params: l.params, variadic: l.variadic, ret: rhs, span: c.span(l.span.start, rhs.span.end) };
    return orFail(c, l);
  }
  const sp = c.span(l.span.start, rhs.span.end);
  if (op === '|') return l.kind === 'Union' ? { kind: 'Union', members: [...l.members, rhs], span: sp } : { kind: 'Union', members: [l, rhs], span: sp };
  if (op === '&') return l.kind === 'Intersect' ? { kind: 'Intersect', members: [...l.members, rhs], span: sp } : { kind: 'Intersect', members: [l, rhs], span: sp };
  const params: [null, TypeExpr][] = l.kind === 'TypeTuple' ? l.elems.map((e) => [null, e]) : [[null, l]];
  return { kind: 'TypeLambda', params, variadic: null, ret: rhs, span: sp };
}

/** Named or variadic parameters used as a plain type: each is an error. */
function orFail(c: Cursor, e: ExprOrArgs): TypeExpr {
  if (e.kind !== 'Args') return e;
  for (const [name] of e.params) if (name !== null) c.emit(invalidNamedType(name.span));
  if (e.variadic !== null) c.emit(invalidVariadic(e.variadic[1].span));
  return { kind: 'TypeId', str: 'null', span: c.span(0, 0) };
}

function baseType(c: Cursor): ExprOrArgs | null {
  const t = simpleType(c) ?? tupleArgs(c);
  if (t !== null) c.ws();
  else c.note('type');
  return t;
}

function simpleType(c: Cursor): TypeExpr | null {
  const start = c.pos;
  if (keyword(c, 'Any')) return { kind: 'Any', span: c.span(start, c.pos) };
  if (keyword(c, 'Never')) return { kind: 'Never', span: c.span(start, c.pos) };
  if (keyword(c, 'true')) return { kind: 'Singleton', value: { kind: 'True' }, span: c.span(start, c.pos) };
  if (keyword(c, 'false')) return { kind: 'Singleton', value: { kind: 'False' }, span: c.span(start, c.pos) };
  const n = number(c, false);
  if (n !== null) return { kind: 'Singleton', value: n, span: c.span(start, c.pos) };
  const s = singleString(c) ?? doubleString(c);
  if (s !== null) return { kind: 'Singleton', value: { kind: 'Str', value: s }, span: c.span(start, c.pos) };
  return varType(c) ?? objectType(c) ?? arrayTupleType(c);
}

/** `Name`, `Mod.Name`, `Name<T, ...>`. */
function varType(c: Cursor): TypeExpr | null {
  const start = c.pos;
  if (!isIdentStart(c.code())) return null;
  let i = start + 1;
  for (;;) {
    while (isIdentRest(c.code(i))) i++;
    if (c.code(i) === 46 && isIdentRest(c.code(i + 1))) i++;
    else break;
  }
  c.pos = i;
  const name = { str: c.text.slice(start, i), span: c.span(start, i) };
  if (!c.maybe('<')) return { kind: 'TypeId', str: name.str, span: name.span };
  c.nl();
  const targs: TypeExpr[] = [needType(c)];
  while (c.maybe(',')) {
    c.nl();
    const t = typeExpr(c);
    if (t === null) break;
    targs.push(t);
  }
  c.need('>');
  return { kind: 'Cons', name, targs, span: c.span(start, c.pos) };
}

function objectType(c: Cursor): TypeExpr | null {
  const start = c.pos;
  if (!c.eat('{')) return null;
  c.nl();
  const fields: [Name, TypeExpr][] = [];
  let wildcard: TypeExpr | null = null;
  let wildcardSpan: Span | null = null;
  let iface: Span | null = null;
  const seen = new Map<string, Name>();
  let first = true;
  for (;;) {
    const save = c.pos;
    if (!first) {
      c.ws();
      const sep = c.code();
      if (sep === 59 || sep === 44 || sep === 10 || sep === 13) c.pos++;
      else if (sep === 47 && c.code(c.pos + 1) === 47) c.nl();
      else {
        c.pos = save;
        break;
      }
      c.nl();
    }
    const fieldStart = c.pos;
    const field = objectTypeField(c);
    if (field === null) {
      c.pos = save;
      break;
    }
    first = false;
    const fieldSpan = c.span(fieldStart, field.end);
    if (wildcardSpan !== null) c.emit(error('Wildcard must be the last element in an object', fieldSpan, undefined, [{ message: 'Wildcard defined here', span: wildcardSpan }]));
    if (iface !== null) c.emit(error('Interface must be the last element in an object', fieldSpan, undefined, [{ message: 'Interface defined here', span: iface }]));
    if (field.kind === 'literal') {
      const orig = seen.get(field.name.str);
      if (orig !== undefined) c.fail(duplicateObjectKey(orig.span, field.name.span));
      seen.set(field.name.str, field.name);
      fields.push([field.name, field.ty]);
    } else if (field.kind === 'wildcard') {
      wildcard = field.ty;
      wildcardSpan = field.ty.span;
    } else iface = fieldSpan;
  }
  if (!first) {
    c.eat(',');
    c.nl();
  }
  c.need('}');
  const sp = c.span(start, c.pos);
  return iface !== null ? { kind: 'Interface', fields, span: sp } : { kind: 'TypeObject', fields, wildcard, span: sp };
}

type TypeField =
  | { kind: 'literal'; name: Name; ty: TypeExpr; end: number }
  | { kind: 'wildcard'; ty: TypeExpr; end: number }
  | { kind: 'interface'; end: number };

function objectTypeField(c: Cursor): TypeField | null {
  const start = c.pos;
  const name = objectFieldName(c);
  if (name !== null) {
    c.ws();
    if (!c.maybe(':')) {
      c.pos = start;
      return null;
    }
    c.nl();
    const ty = typeTerm(c) ?? c.abort();
    let end = ty.span.end;
    if (c.maybe('=')) {
      c.nl();
      const defaults = c.typeDefaults;
      c.typeDefaults = null;
      const d = expr0(c, false) ?? c.abort();
      c.typeDefaults = defaults;
      if (defaults !== null) defaults.set(name, d);
      else c.emit(error('Default values are not allowed here', d.span));
      end = d.span.end;
    }
    return { kind: 'literal', name, ty, end };
  }
  if (c.eat('*')) {
    c.ws();
    c.need(':');
    c.nl();
    const ty = typeTerm(c) ?? c.abort();
    return { kind: 'wildcard', ty, end: ty.span.end };
  }
  if (c.eat('...')) {
    const end = c.pos;
    c.nl();
    return { kind: 'interface', end };
  }
  return null;
}

function tupleArgs(c: Cursor): ExprOrArgs | null {
  const start = c.pos;
  if (!c.eat('(')) return null;
  c.nl();
  const items = c.list(namedTypeOrVariadic);
  c.need(')');
  const sp = c.span(start, c.pos);
  if (items.length === 0) return { kind: 'TypeTuple', elems: [], span: sp };
  const last = items[items.length - 1];
  const named = items.some(([n]) => n !== null);
  if (last[2] || named) {
    const params: [Name | null, TypeExpr][] = [];
    const body = last[2] ? items.slice(0, -1) : items;
    for (const [n, t, vari] of body) {
      if (vari) c.emit(invalidVariadic(t.span));
      else params.push([n, t]);
    }
    return { kind: 'Args', params, variadic: last[2] ? [last[0], last[1]] : null, span: sp };
  }
  const elems = items.map(([, t]) => t);
  return elems.length === 1 ? elems[0] : { kind: 'TypeTuple', elems, span: sp };
}

/** `name: T`, `T`, `...T` or `name: ...T`; the flag says variadic. */
function namedTypeOrVariadic(c: Cursor): [Name | null, TypeExpr, boolean] | null {
  const start = c.pos;
  let name: Name | null = null;
  const id = ident(c);
  if (id !== null) {
    if (c.maybe(':')) {
      c.nl();
      name = id;
    } else c.pos = start;
  }
  const t = typeExpr(c);
  if (t !== null) return [name, t, false];
  if (c.maybe('...')) {
    c.nl();
    return [name, needType(c), true];
  }
  if (name !== null) c.abort();
  c.pos = start;
  return null;
}

function arrayTupleType(c: Cursor): TypeExpr | null {
  const start = c.pos;
  if (!c.eat('[')) return null;
  c.nl();
  // The core's element rule is unnamed: `[` then no type expects only `,` or `]`.
  const elems = c.list((c) => c.unnamed(() => typeExpr(c)));
  c.need(']');
  return { kind: 'TypeTuple', elems, span: c.span(start, c.pos) };
}
