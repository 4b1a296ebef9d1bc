// Expressions (ExprParser.scala): terms, method chains, operators by precedence, projections,
// objects vs blocks, lambdas, `if`/`at`/`match`, and block bodies.

import type { ChainComponent, Expr, Literal, LongLambda, Name, PatExpr, Stmt, ShortLambda } from '../ast';
import { THIS_NAME, UNDERSCORE_NAME } from '../ast';
import { error } from '../diagnostic';
import type { Span } from '../span';
import type { Cursor } from './cursor';
import {
  bodyMustBeALambda, duplicateLambdaArgument, duplicateObjectKey, interpolatedObjectKey, invalidIdent, invalidShortLambda,
  missingReturn, unexpectedEndOfBlock, unexpectedEndOfQuery,
} from './errors';
import { ident, INVALID_VARIABLES, isIdentRest, KEYWORDS, keyword, plainName } from './identifiers';
import { number } from './numbers';
import { heredoc, interpolatedHeredoc, interpolatedString, singleString, type StrPart } from './strings';
import { typeExpr } from './types';
import { VALUE_SIGIL } from '../../wire/v10/request';
import { pattern } from './patterns';

/** Binding strength of binary operators, loosest first (ExprParser.ExprOpPrecedences). */
export const OPERATOR_PRECEDENCE: ReadonlyMap<string, number> = new Map(
  [['??'], ['||'], ['&&'], ['==', '!=', '=~', '!~'], ['>', '<', '>=', '<='], ['isa'], ['|'], ['^'], ['&'], ['+', '-'], ['*', '/', '%'], ['**']]
    .flatMap((ops, i) => ops.map((op) => [op, i] as [string, number])),
);
const RIGHT_ASSOCIATIVE = new Set(['**']);


const NULL_LIT: Literal = { kind: 'Null' };
const TRUE_LIT: Literal = { kind: 'True' };
const FALSE_LIT: Literal = { kind: 'False' };

// Method chain pieces before Select+Apply pairs become MethodCalls.
type Link =
  | { k: 'sel'; dotSpan: Span; field: Name; optional: boolean }
  | { k: 'bang'; span: Span }
  | { k: 'app'; args: Expr[]; optional: Span | null; span: Span }
  | { k: 'acc'; args: Expr[]; optional: Span | null; span: Span };

interface Op {
  readonly name: Name;
  readonly prec: number;
  readonly rhs: Expr;
}

type Projection = { readonly elems: [Name, Expr][]; readonly end: number };

// ---- expressions ----

/** An expression and the whitespace and newlines after it (`expr`, named "expression"). */
export function expr(c: Cursor, shortLambda = false): Expr | null {
  const at = c.pos;
  const e = expr0(c, shortLambda);
  if (e === null) {
    c.note('expression', at);
    return null;
  }
  c.nl();
  return e;
}

/** An expression; a short lambda (`.foo`) outside call arguments is an error. */
export function expr0(c: Cursor, shortLambda: boolean): Expr | null {
  c.enter();
  const e = ifExpr(c) ?? atExpr(c) ?? matchExpr(c) ?? baseExpr(c) ?? identOrLambda(c) ?? tupleOrLambda(c);
  c.leave();
  if (e !== null && e.kind === 'ShortLambda' && !shortLambda) c.emit(invalidShortLambda(e.span));
  return e;
}

function needExpr0(c: Cursor): Expr {
  return expr0(c, false) ?? c.abort();
}

function ifExpr(c: Cursor): Expr | null {
  const start = c.pos;
  if (!keyword(c, 'if')) return null;
  c.nl();
  c.need('(');
  c.nl();
  const pred = expr(c) ?? c.abort();
  c.need(')');
  c.nl();
  const then = needExpr0(c);
  const save = c.pos;
  c.nl();
  if (keyword(c, 'else')) {
    c.nl();
    const els = needExpr0(c);
    return { kind: 'IfElse', pred, then, else: els, span: c.span(start, els.span.end) };
  }
  c.pos = save;
  return { kind: 'If', pred, then, span: c.span(start, then.span.end) };
}

function atExpr(c: Cursor): Expr | null {
  const start = c.pos;
  if (!keyword(c, 'at')) return null;
  c.nl();
  c.need('(');
  c.nl();
  const ts = expr(c) ?? c.abort();
  c.need(')');
  c.nl();
  const body = needExpr0(c);
  return { kind: 'At', ts, body, span: c.span(start, body.span.end) };
}

function matchExpr(c: Cursor): Expr | null {
  const start = c.pos;
  if (!keyword(c, 'match')) return null;
  c.nl();
  const scrut = term(c) ?? c.abort();
  const e = buildChain(scrut, chainLinks(c));
  c.need('{');
  c.nl();
  const branches: [PatExpr, Expr][] = [];
  for (;;) {
    if (!keyword(c, 'case')) break;
    c.nl();
    const pat = pattern(c) ?? c.abort();
    c.need('=>');
    c.nl();
    branches.push([pat, needExpr0(c)]);
    if (!c.blocksep()) break;
  }
  c.need('}');
  const end = c.pos;
  c.ws();
  return { kind: 'Match', e, branches, span: c.span(start, end) };
}

function baseExpr(c: Cursor): Expr | null {
  const t = baseterm(c);
  return t === null ? null : exprRhs(c, t);
}

function identOrLambda(c: Cursor): Expr | null {
  const p = plainName(c);
  if (p === null) return null;
  if (KEYWORDS.has(p.str)) c.fail(invalidIdent(p));
  c.ws();
  if (c.eat('=>')) {
    c.nl();
    const body = needExpr0(c);
    const param = p.str === UNDERSCORE_NAME ? null : p;
    return { kind: 'LongLambda', params: [param], variadic: null, body, span: c.span(p.span.start, body.span.end) };
  }
  return exprRhs(c, { kind: 'Id', str: p.str, span: p.span });
}

function tupleOrLambda(c: Cursor): Expr | null {
  const start = c.pos;
  if (!c.eat('(')) return null;
  c.nl();
  const { args, isIds } = expressionList(c);
  let vari: Name | undefined;
  if (c.maybe('...')) {
    c.nl();
    vari = ident(c) ?? c.abort();
  }
  c.need(')');
  const end = c.pos;
  c.ws();
  const tuple: Expr = { kind: 'Tuple', elems: args, span: c.span(start, end) };
  if (!isIds) {
    if (vari !== undefined) c.fail(error('invalid variadic tuple', c.span(start, end)));
    return exprRhs(c, tuple);
  }
  if (!c.eat('=>')) return exprRhs(c, tuple);
  c.nl();
  const body = needExpr0(c);
  const params = args.map((a) => (a.kind === 'Id' && a.str !== UNDERSCORE_NAME ? { str: a.str, span: a.span } : null));
  const variName = vari === undefined ? undefined : vari.str === UNDERSCORE_NAME ? null : vari;
  const lambda: LongLambda = {
    kind: 'LongLambda', params, variadic: variName === undefined ? null : { name: variName }, body, span: c.span(start, body.span.end),
  };
  const seen = new Map<string, Name>();
  for (const n of variName ? [...params, variName] : params) {
    if (n === null) continue;
    const orig = seen.get(n.str);
    if (orig !== undefined) c.emit(duplicateLambdaArgument(orig.span, n.span));
    else seen.set(n.str, n);
  }
  return lambda;
}

/** Comma-separated expressions (short lambdas allowed) with an optional trailing comma, and
 *  whether all are bare identifiers (so the list may be a lambda's parameters). */
function expressionList(c: Cursor): { args: Expr[]; isIds: boolean } {
  const first = expr(c, true);
  if (first === null) return { args: [], isIds: true };
  const args = [first];
  for (;;) {
    const save = c.pos;
    if (!c.maybe(',')) break;
    c.nl();
    const e = expr(c, true);
    if (e === null) {
      c.pos = save;
      break;
    }
    args.push(e);
  }
  if (c.maybe(',')) c.nl();
  return { args, isIds: args.every((a) => a.kind === 'Id') };
}

function exprRhs(c: Cursor, e: Expr): Expr {
  const links = chainLinks(c);
  const ops = opChain(c);
  const prj = projection(c);
  return buildProjection(c, buildOps(c, buildChain(e, links), ops), prj);
}

// ---- terms ----

/** A term that may start an expression statement: literals, objects/blocks, arrays, `.foo`. */
function baseterm(c: Cursor): Expr | null {
  const t = baseterm0(c);
  if (t !== null) return buildChain(t, chainLinks(c));
  return unaryOp(c);
}

/** An operand of a binary operator. */
function term(c: Cursor): Expr | null {
  const t = term0(c);
  if (t !== null) return buildChain(t, chainLinks(c));
  return unaryOp(c);
}

function baseterm0(c: Cursor): Expr | null {
  const e = placeholder(c) ?? literal(c) ?? strTemplate(c) ?? objectOrBlock(c) ?? array(c) ?? anonChainStart(c);
  if (e !== null) c.ws();
  return e;
}

function term0(c: Cursor): Expr | null {
  let e = baseterm0(c) ?? tuple(c);
  if (e === null) {
    const p = plainName(c);
    if (p === null) return null;
    if (KEYWORDS.has(p.str)) c.fail(invalidIdent(p));
    e = { kind: 'Id', str: p.str, span: p.span };
  }
  c.ws();
  return e;
}

function placeholder(c: Cursor): Expr | null {
  if (!c.isTemplate) return null;
  const start = c.pos;
  if (!c.eat(VALUE_SIGIL)) return null;
  return { kind: 'Id', str: c.nextTemplateName(), span: c.span(start, c.pos) };
}

function literal(c: Cursor): Expr | null {
  const start = c.pos;
  let value: Literal | null = null;
  if (keyword(c, 'null')) value = NULL_LIT;
  else if (keyword(c, 'true')) value = TRUE_LIT;
  else if (keyword(c, 'false')) value = FALSE_LIT;
  else {
    value = number(c);
    if (value === null) {
      const s = heredoc(c) ?? singleString(c);
      if (s !== null) value = { kind: 'Str', value: s };
    }
  }
  return value === null ? null : { kind: 'Lit', value, span: c.span(start, c.pos) };
}

const interpolation = (c: Cursor): Expr => {
  c.nl();
  return expr(c) ?? c.abort();
};

function strTemplate(c: Cursor): Expr | null {
  const start = c.pos;
  const parts = interpolatedString(c, interpolation) ?? interpolatedHeredoc(c, interpolation);
  if (parts === null) return null;
  const sp = c.span(start, c.pos);
  if (parts.length === 0) return { kind: 'Lit', value: { kind: 'Str', value: '' }, span: sp };
  if (parts.length === 1 && typeof parts[0] === 'string') return { kind: 'Lit', value: { kind: 'Str', value: parts[0] }, span: sp };
  return { kind: 'StrTemplate', parts: parts.map((p) => (typeof p === 'string' ? p : p.expr)), span: sp };
}

function array(c: Cursor): Expr | null {
  const start = c.pos;
  if (!c.eat('[')) return null;
  c.nl();
  const elems = c.list((c) => expr(c));
  c.need(']');
  return { kind: 'Array', elems, span: c.span(start, c.pos) };
}

function tuple(c: Cursor): Expr | null {
  const start = c.pos;
  if (!c.eat('(')) return null;
  c.nl();
  const { args } = expressionList(c);
  c.need(')');
  return { kind: 'Tuple', elems: args, span: c.span(start, c.pos) };
}

function unaryOp(c: Cursor): Expr | null {
  const start = c.pos;
  const ch = c.code();
  if (ch !== 45 && ch !== 126 && ch !== 33) return null;
  c.pos++;
  const op = { str: c.text[start], span: c.span(start, c.pos) };
  c.ws();
  c.enter();
  const t = term(c) ?? c.abort();
  c.leave();
  if (t.kind === 'ShortLambda') {
    const b = t.body;
    const call: Expr = { kind: 'OperatorCall', e: b, op, arg: null, argsSpan: c.span(start, b.span.end), span: b.span };
    return { kind: 'ShortLambda', body: call, span: call.span };
  }
  return { kind: 'OperatorCall', e: t, op, arg: null, argsSpan: c.span(start, t.span.end), span: t.span };
}

// ---- objects and blocks ----

/** `{}` is an empty object; `{ key: ...` an object; any other `{ ... }` a block. */
function objectOrBlock(c: Cursor): Expr | null {
  const start = c.pos;
  if (!c.eat('{')) return null;
  c.nl();
  if (c.eat('}')) return { kind: 'Object', fields: [], span: c.span(start, c.pos) };
  const save = c.pos;
  const fields = objectBody(c);
  if (fields !== null) {
    c.need('}');
    return { kind: 'Object', fields, span: c.span(start, c.pos) };
  }
  c.pos = save;
  const body = blockBody(c, false);
  c.need('}');
  return { kind: 'Block', body, span: c.span(start, c.pos) };
}

/** `key: value, ...`; null (consuming nothing) unless it starts with a key and a `:`. */
function objectBody(c: Cursor): [Name, Expr][] | null {
  const start = c.pos;
  const fields: [Name, Expr][] = [];
  for (;;) {
    const save = c.pos;
    if (fields.length > 0) {
      if (!c.maybe(',')) break;
      c.nl();
    }
    const name = objectFieldName(c);
    if (name !== null) c.ws();
    if (name === null || !c.maybe(':')) {
      if (fields.length === 0) {
        c.pos = start;
        c.note('expression');
        return null;
      }
      c.pos = save;
      break;
    }
    c.nl();
    fields.push([name, expr(c) ?? c.abort()]);
  }
  if (c.maybe(',')) c.nl();
  const seen = new Map<string, Name>();
  for (const [k] of fields) {
    const orig = seen.get(k.str);
    if (orig !== undefined) c.emit(duplicateObjectKey(orig.span, k.span));
    else seen.set(k.str, k);
  }
  return fields;
}

/** An object key: a bare word (keywords too), or a quoted string without interpolation. */
export function objectFieldName(c: Cursor): Name | null {
  const name = plainName(c);
  if (name !== null) return name;
  const start = c.pos;
  const single = singleString(c);
  if (single !== null) return { str: single, span: c.span(start, c.pos) };
  const parts = interpolatedString(c, interpolation);
  if (parts === null) return null;
  const sp = c.span(start, c.pos);
  const interpolated = parts.find((p): p is Exclude<StrPart, string> => typeof p !== 'string');
  // The core reports this as soon as the key is read, even where `{` turns out to open a block
  // (`{ "#{x}" }`): ExprParser.scala objectFieldDoubleString.
  if (interpolated !== undefined) c.fail(interpolatedObjectKey(interpolated.expr.span, c.span(interpolated.at, interpolated.at), sp));
  return { str: parts.join(''), span: sp };
}

/** Statements separated by `;` or newlines; the last must be an expression. */
export function blockBody(c: Cursor, isQuery: boolean): Stmt[] {
  const stmts: Stmt[] = [];
  for (;;) {
    const s = letStmt(c) ?? exprStmt(c);
    if (s === null) break;
    stmts.push(s);
    if (!c.blocksep()) break;
  }
  c.nl();
  const i = c.pos;
  if (stmts.length === 0) c.fail(isQuery ? unexpectedEndOfQuery(c.span(i, i + 1)) : unexpectedEndOfBlock(c.span(i, i + 1)));
  const last = stmts[stmts.length - 1];
  if (last.kind !== 'ExprStmt') c.fail(missingReturn(c.span(i, i + 1), last.span));
  return stmts;
}

function letStmt(c: Cursor): Stmt | null {
  const start = c.pos;
  if (!keyword(c, 'let')) return null;
  c.nl();
  const name = ident(c) ?? c.abort();
  c.nl();
  let tpe = null;
  if (c.maybe(':')) {
    c.nl();
    tpe = typeExpr(c) ?? c.abort();
  }
  c.need('=');
  c.nl();
  const value = needExpr0(c);
  if (INVALID_VARIABLES.has(name.str)) c.fail(invalidIdent(name));
  return { kind: 'Let', name, tpe, value, span: c.span(start, value.span.end) };
}

function exprStmt(c: Cursor): Stmt | null {
  const e = expr0(c, false);
  return e === null ? null : { kind: 'ExprStmt', expr: e, span: e.span };
}

/** The query: statements, then nothing else. */
export function queryBody(c: Cursor): Expr {
  c.nl();
  const start = c.pos;
  const body = blockBody(c, true);
  const end = c.pos;
  c.nl();
  if (!c.atEnd()) {
    c.note('end-of-input');
    c.abort();
  }
  return { kind: 'Block', body, span: c.span(start, end) };
}

/** One expression, then nothing else (Parser.expr). */
export function loneExpr(c: Cursor, shortLambda: boolean): Expr {
  c.nl();
  const e = expr(c, shortLambda) ?? c.abort();
  if (!c.atEnd()) {
    c.note('end-of-input');
    c.abort();
  }
  return e;
}

/** A function body that must be a lambda (Parser.lambdaExpr: user function bodies). */
export function lambdaBody(c: Cursor): LongLambda | ShortLambda {
  c.nl();
  const stmts: Stmt[] = [];
  for (;;) {
    const save = c.pos;
    if (stmts.length > 0 && !c.blocksep()) break;
    const s = letStmt(c) ?? exprStmt(c);
    if (s === null) {
      c.pos = save;
      break;
    }
    stmts.push(s);
  }
  const errorsBefore = c.errors.length;
  c.nl();
  const i = c.pos;
  if (stmts.length === 0) c.fail(unexpectedEndOfQuery(c.span(i, i + 1)));
  const only = stmts.length === 1 && stmts[0].kind === 'ExprStmt' ? stmts[0].expr : null;
  let result: LongLambda | ShortLambda;
  if (only !== null && only.kind === 'LongLambda') result = only;
  else if (only !== null && only.kind === 'Tuple' && only.elems.length === 1 && only.elems[0].kind === 'ShortLambda') result = only.elems[0];
  else if (only !== null && only.kind === 'ShortLambda' && errorsBefore > 0) return c.abort();
  else return c.fail(bodyMustBeALambda(c.span(0, i), stmts.length === 1));
  if (!c.atEnd()) {
    c.note('end-of-input');
    c.abort();
  }
  return result;
}

// ---- method chains ----

/** `.f`, `?.f`, `(args)`, `?.(args)`, `[args]`, `?.[args]` and `!`, as many as follow. A `.` or
 *  `?.` may start a new line. */
function chainLinks(c: Cursor): Link[] {
  const links: Link[] = [];
  for (;;) {
    const save = c.pos;
    c.nl();
    const s = c.pos;
    if (c.eat('?.')) {
      c.nl();
      const e1 = c.pos;
      const optional = c.span(s, e1);
      const call = applyOrAccess(c, optional);
      if (call !== null) {
        links.push(call);
        continue;
      }
      const field = plainName(c);
      if (field === null) {
        c.note('identifier');
        c.abort();
      }
      c.ws();
      links.push({ k: 'sel', dotSpan: c.span(s, e1), field, optional: true });
      continue;
    }
    if (c.code() === 46) {
      c.pos++;
      c.nl();
      const e1 = c.pos;
      const field = plainName(c);
      if (field === null) {
        c.note('identifier');
        c.abort();
      }
      c.ws();
      links.push({ k: 'sel', dotSpan: c.span(s, e1), field, optional: false });
      continue;
    }
    c.pos = save;
    const call = applyOrAccess(c, null);
    if (call !== null) {
      links.push(call);
      continue;
    }
    if (c.code() === 33 && c.code(c.pos + 1) !== 61 && c.code(c.pos + 1) !== 126) {
      c.pos++;
      links.push({ k: 'bang', span: c.span(c.pos - 1, c.pos) });
      c.ws();
      continue;
    }
    return links;
  }
}

function applyOrAccess(c: Cursor, optional: Span | null): Link | null {
  const s = c.pos;
  const open = c.code();
  if (open !== 40 && open !== 91) return null;
  c.pos++;
  c.nl();
  const { args } = expressionList(c);
  c.need(open === 40 ? ')' : ']');
  const sp = c.span(s, c.pos);
  c.ws();
  return open === 40 ? { k: 'app', args, optional, span: sp } : { k: 'acc', args, optional, span: sp };
}

/** `.foo`, `.(x)`, `.[0]` with no receiver: a short lambda over `$this`. */
function anonChainStart(c: Cursor): Expr | null {
  const s = c.pos;
  if (c.code() !== 46) return null;
  c.pos++;
  c.nl();
  const e1 = c.pos;
  let first: Link | null = null;
  const field = plainName(c);
  if (field !== null) {
    c.ws();
    first = { k: 'sel', dotSpan: c.span(s, e1), field, optional: false };
  } else first = applyOrAccess(c, null);
  if (first === null) {
    c.pos = s;
    return null;
  }
  const ths: Expr = { kind: 'Id', str: THIS_NAME, span: c.span(s, s) };
  const body = buildChain(ths, [first]);
  return { kind: 'ShortLambda', body, span: body.span };
}

function linkSpan(l: ChainComponent): Span {
  return l.span;
}

function unlink(m: ChainComponent): Link[] {
  switch (m.kind) {
    case 'Bang': return [{ k: 'bang', span: m.span }];
    case 'Select': return [{ k: 'sel', dotSpan: m.dotSpan, field: m.field, optional: m.optional }];
    case 'Apply': return [{ k: 'app', args: [...m.args], optional: m.optional, span: m.applySpan }];
    case 'Access': return [{ k: 'acc', args: [...m.args], optional: m.optional, span: m.accSpan }];
    case 'MethodCall': return [
      { k: 'sel', dotSpan: m.dotSpan, field: m.field, optional: m.selectOptional },
      { k: 'app', args: [...m.args], optional: m.applyOptional, span: m.applySpan },
    ];
  }
}

/** The chain over `init` (continuing it if `init` is a chain, as after `.foo`); a select directly
 *  followed by an apply is one MethodCall. */
function buildChain(init: Expr, links: Link[]): Expr {
  if (links.length === 0) return init;
  const short = init.kind === 'ShortLambda';
  const inner = short ? init.body : init;
  let base = inner;
  let all = links;
  if (inner.kind === 'MethodChain') {
    base = inner.e;
    all = [...inner.chain.flatMap(unlink), ...links];
  }
  const chain: ChainComponent[] = [];
  for (let i = 0; i < all.length; i++) {
    const l = all[i];
    switch (l.k) {
      case 'bang':
        chain.push({ kind: 'Bang', span: l.span });
        break;
      case 'sel': {
        const next = all[i + 1];
        if (next !== undefined && next.k === 'app') {
          i++;
          chain.push({
            kind: 'MethodCall', dotSpan: l.dotSpan, field: l.field, args: next.args, selectOptional: l.optional,
            applyOptional: next.optional, applySpan: next.span, span: spanOf(l.dotSpan, next.span),
          });
        } else chain.push({ kind: 'Select', dotSpan: l.dotSpan, field: l.field, optional: l.optional, span: spanOf(l.dotSpan, l.field.span) });
        break;
      }
      case 'app':
        chain.push({ kind: 'Apply', args: l.args, optional: l.optional, applySpan: l.span, span: l.optional ? spanOf(l.optional, l.span) : l.span });
        break;
      case 'acc':
        chain.push({ kind: 'Access', args: l.args, optional: l.optional, accSpan: l.span, span: l.optional ? spanOf(l.optional, l.span) : l.span });
        break;
    }
  }
  const body: Expr = { kind: 'MethodChain', e: base, chain, span: spanOf(base.span, linkSpan(chain[chain.length - 1])) };
  return short ? { kind: 'ShortLambda', body, span: body.span } : body;
}

function spanOf(a: Span, b: Span): Span {
  return { start: a.start, end: b.end, src: a.src };
}

// ---- operators ----

const BINARY_OPS_2 = ['==', '!=', '=~', '!~', '>=', '<=', '**'];
const BINARY_OPS_1 = '><+-*/%';
const NL_OPS_2 = ['??', '||', '&&'];
const NL_OPS_1 = '|^&';

/** `op term` pairs. Comparison and arithmetic operators must be on the operand's line;
 *  `??`, `||`, `&&`, `|`, `^`, `&` may start the next line. */
function opChain(c: Cursor): Op[] {
  const ops: Op[] = [];
  for (;;) {
    const s = c.pos;
    const op = binaryOp(c) ?? nlBinaryOp(c) ?? kwBinaryOp(c);
    if (op === null) return ops;
    const name = { str: op, span: c.span(s, c.pos) };
    c.nl();
    const rhs = term(c) ?? c.abort();
    ops.push({ name, prec: OPERATOR_PRECEDENCE.get(op)!, rhs });
  }
}

function binaryOp(c: Cursor): string | null {
  const t = c.text;
  const p = c.pos;
  if (t.startsWith('//', p) || t.startsWith('/*', p) || t.startsWith('->', p)) return null;
  for (const op of BINARY_OPS_2) if (t.startsWith(op, p)) return (c.pos += 2), op;
  const ch = t[p];
  if (ch !== undefined && BINARY_OPS_1.includes(ch)) return c.pos++, ch;
  return null;
}

function nlBinaryOp(c: Cursor): string | null {
  const save = c.pos;
  c.nl();
  const t = c.text;
  const p = c.pos;
  for (const op of NL_OPS_2) if (t.startsWith(op, p)) return (c.pos += 2), op;
  const ch = t[p];
  if (ch !== undefined && NL_OPS_1.includes(ch)) return c.pos++, ch;
  c.pos = save;
  return null;
}

function kwBinaryOp(c: Cursor): string | null {
  if (c.text.startsWith('isa', c.pos) && !isIdentRest(c.code(c.pos + 3))) return (c.pos += 3), 'isa';
  return null;
}

/** Applies operators by precedence (left-associative but `**`). A short lambda operand makes
 *  the whole a short lambda. */
function buildOps(c: Cursor, init: Expr, ops: Op[]): Expr {
  if (ops.length === 0) return init;
  let short = false;
  const unwrap = (e: Expr): Expr => {
    if (e.kind === 'ShortLambda') {
      short = true;
      return e.body;
    }
    if (e.kind === 'Tuple' && e.elems.length === 1 && e.elems[0].kind === 'ShortLambda') {
      short = true;
      return { kind: 'Tuple', elems: [e.elems[0].body], span: e.span };
    }
    return e;
  };
  const exprs: Expr[] = [init];
  const stack: Op[] = [];
  const build = (op: Op) => {
    const rhs = unwrap(exprs.pop()!);
    const lhs = unwrap(exprs.pop()!);
    exprs.push({ kind: 'OperatorCall', e: lhs, op: op.name, arg: rhs, argsSpan: rhs.span, span: c.span(lhs.span.start, rhs.span.end) });
  };
  for (const op of ops) {
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.prec > op.prec || (top.prec === op.prec && !RIGHT_ASSOCIATIVE.has(top.name.str))) build(stack.pop()!);
      else break;
    }
    stack.push(op);
    exprs.push(op.rhs);
  }
  while (stack.length > 0) build(stack.pop()!);
  const e = exprs.pop()!;
  return short ? { kind: 'ShortLambda', body: e, span: e.span } : e;
}

// ---- projection ----

/** `{ a, b { c }, d: expr }` or `{ * }` after an expression. */
function projection(c: Cursor): Projection | null {
  if (!c.eat('{')) return null;
  c.nl();
  const elems: [Name, Expr][] = [];
  if (c.eat('*')) c.nl();
  else {
    const first = projectElem(c);
    if (first === null) {
      c.note('`*`');
      c.abort();
    }
    elems.push(first);
    for (;;) {
      const save = c.pos;
      if (!c.maybe(',')) break;
      c.nl();
      const e = projectElem(c);
      if (e === null) {
        c.pos = save;
        break;
      }
      elems.push(e);
    }
    if (c.maybe(',')) c.nl();
  }
  c.need('}');
  const end = c.pos;
  c.ws();
  return { elems, end };
}

function projectElem(c: Cursor): [Name, Expr] | null {
  const name = ident(c);
  if (name === null) return null;
  c.ws();
  if (c.maybe(':')) {
    c.nl();
    const e = expr(c, true) ?? c.abort();
    c.nl();
    return [name, e.kind === 'ShortLambda' ? e.body : e];
  }
  const sp = c.span(name.span.start, name.span.start);
  const sel: Expr = {
    kind: 'MethodChain', e: { kind: 'Id', str: THIS_NAME, span: sp },
    chain: [{ kind: 'Select', dotSpan: sp, field: name, optional: false, span: spanOf(sp, name.span) }], span: name.span,
  };
  const inner = projection(c);
  c.nl();
  const e = buildProjection(c, sel, inner);
  return [name, e.kind === 'ShortLambda' ? e.body : e];
}

function buildProjection(c: Cursor, lhs: Expr, prj: Projection | null): Expr {
  if (prj === null) return lhs;
  const build = (l: Expr): Expr =>
    prj.elems.length === 0
      ? { kind: 'ProjectAll', e: l, span: c.span(l.span.start, prj.end) }
      : { kind: 'Project', e: l, bindings: prj.elems, span: c.span(l.span.start, prj.end) };
  if (lhs.kind === 'ShortLambda') {
    const body = build(lhs.body);
    return { kind: 'ShortLambda', body, span: body.span };
  }
  return build(lhs);
}
