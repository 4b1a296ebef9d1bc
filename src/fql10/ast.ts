// The FQL v10 syntax tree, as the core's parser builds it (fql/shared/.../ast/package.scala): the
// same node kinds, fields and spans, so the interpreter can follow FQLInterpreter.scala case by
// case. Every node has a `span`; `kind` discriminates within each union.

import type { Span } from './span';

/** An identifier occurrence (variable, parameter, field or object key) with its span. */
export interface Name {
  readonly str: string;
  readonly span: Span;
}

export type Literal =
  | { readonly kind: 'Null' }
  | { readonly kind: 'True' }
  | { readonly kind: 'False' }
  | { readonly kind: 'Int'; readonly value: bigint }
  /** `text` is the literal's digits without underscores (the core keeps a BigDecimal). */
  | { readonly kind: 'Float'; readonly value: number; readonly text: string }
  | { readonly kind: 'Str'; readonly value: string };

// ---- expressions ----

export type Expr =
  | Id
  | Lit
  | StrTemplate
  | If
  | IfElse
  | At
  | Match
  | LongLambda
  | ShortLambda
  | OperatorCall
  | MethodChain
  | Project
  | ProjectAll
  | ObjectExpr
  | Tuple
  | ArrayExpr
  | Block;

export interface Id {
  readonly kind: 'Id';
  readonly str: string;
  readonly span: Span;
}

/** The implicit parameter of a short lambda (`.foo` is `$this => $this.foo`). */
export const THIS_NAME = '$this';
/** The parameter name that binds nothing (`_ => 1`, `(a, _) => a`). */
export const UNDERSCORE_NAME = '_';

export interface Lit {
  readonly kind: 'Lit';
  readonly value: Literal;
  readonly span: Span;
}

/** `"a #{x} b"` and `<<+END` heredocs; parts are text or interpolated expressions. A template
 *  without interpolations is parsed as a `Lit` string instead. */
export interface StrTemplate {
  readonly kind: 'StrTemplate';
  readonly parts: ReadonlyArray<string | Expr>;
  readonly span: Span;
}

export interface If {
  readonly kind: 'If';
  readonly pred: Expr;
  readonly then: Expr;
  readonly span: Span;
}

export interface IfElse {
  readonly kind: 'IfElse';
  readonly pred: Expr;
  readonly then: Expr;
  readonly else: Expr;
  readonly span: Span;
}

/** `at (ts) body` */
export interface At {
  readonly kind: 'At';
  readonly ts: Expr;
  readonly body: Expr;
  readonly span: Span;
}

/** `match e { case pat => expr ... }`: parsed; the core's interpreter rejects it at run time. */
export interface Match {
  readonly kind: 'Match';
  readonly e: Expr;
  readonly branches: ReadonlyArray<readonly [PatExpr, Expr]>;
  readonly span: Span;
}

/** `(a, b) => body`, `a => body`, `(a, ...rest) => body`. A parameter written `_` is null;
 *  `variadic` is null without `...`, and `{ name: null }` for `..._`. */
export interface LongLambda {
  readonly kind: 'LongLambda';
  readonly params: ReadonlyArray<Name | null>;
  readonly variadic: { readonly name: Name | null } | null;
  readonly body: Expr;
  readonly span: Span;
}

/** A body using the anonymous parameter `$this` (`.foo`, `.bar() + 1`); one parameter `$this`.
 *  Its span is the body's. */
export interface ShortLambda {
  readonly kind: 'ShortLambda';
  readonly body: Expr;
  readonly span: Span;
}

export type Lambda = LongLambda | ShortLambda;

/** A unary (`arg` null: `-x`, `!x`, `~x`) or binary operator call (`a + b`, `a isa T`). `argsSpan`
 *  is the right operand's span for a binary operator, and operator-to-operand for a unary one;
 *  `span` runs from the receiver's start to `argsSpan`'s end, as the core's does (so a unary
 *  call's span leaves out its operator). */
export interface OperatorCall {
  readonly kind: 'OperatorCall';
  readonly e: Expr;
  readonly op: Name;
  readonly arg: Expr | null;
  readonly argsSpan: Span;
  readonly span: Span;
}

/** `e` followed by selects, calls, accesses and `!`s, left to right. */
export interface MethodChain {
  readonly kind: 'MethodChain';
  readonly e: Expr;
  readonly chain: ReadonlyArray<ChainComponent>;
  readonly span: Span;
}

export type ChainComponent = Select | Bang | Apply | MethodCall | Access;

/** `.field` or `?.field`; `dotSpan` covers the `.` or `?.`. */
export interface Select {
  readonly kind: 'Select';
  readonly dotSpan: Span;
  readonly field: Name;
  readonly optional: boolean;
  readonly span: Span;
}

/** The non-null assertion `!`. */
export interface Bang {
  readonly kind: 'Bang';
  readonly span: Span;
}

/** `(args)` or `?.(args)`; `optional` is the `?.`'s span, `applySpan` the parentheses'. */
export interface Apply {
  readonly kind: 'Apply';
  readonly args: ReadonlyArray<Expr>;
  readonly optional: Span | null;
  readonly applySpan: Span;
  readonly span: Span;
}

/** A select directly followed by an apply: `.m(args)`, `?.m(args)`, `.m?.(args)`. */
export interface MethodCall {
  readonly kind: 'MethodCall';
  readonly dotSpan: Span;
  readonly field: Name;
  readonly args: ReadonlyArray<Expr>;
  readonly selectOptional: boolean;
  readonly applyOptional: Span | null;
  readonly applySpan: Span;
  readonly span: Span;
}

/** `[args]` or `?.[args]`; `accSpan` is the brackets'. */
export interface Access {
  readonly kind: 'Access';
  readonly args: ReadonlyArray<Expr>;
  readonly optional: Span | null;
  readonly accSpan: Span;
  readonly span: Span;
}

/** `e { a, b { c }, d: expr }`: a binding `a` is `a: $this.a`, `b { c }` is `b: $this.b { c }`. */
export interface Project {
  readonly kind: 'Project';
  readonly e: Expr;
  readonly bindings: ReadonlyArray<readonly [Name, Expr]>;
  readonly span: Span;
}

/** `e { * }`: parsed; the core's interpreter rejects it at run time. */
export interface ProjectAll {
  readonly kind: 'ProjectAll';
  readonly e: Expr;
  readonly span: Span;
}

export interface ObjectExpr {
  readonly kind: 'Object';
  readonly fields: ReadonlyArray<readonly [Name, Expr]>;
  readonly span: Span;
}

/** `(a)` or `(a, b)`: evaluates to its element when it has one, else to an array. */
export interface Tuple {
  readonly kind: 'Tuple';
  readonly elems: ReadonlyArray<Expr>;
  readonly span: Span;
}

export interface ArrayExpr {
  readonly kind: 'Array';
  readonly elems: ReadonlyArray<Expr>;
  readonly span: Span;
}

/** `{ stmt; ...; expr }`, and the query's top level. The last statement is always an expression. */
export interface Block {
  readonly kind: 'Block';
  readonly body: ReadonlyArray<Stmt>;
  readonly span: Span;
}

export type Stmt = Let | ExprStmt;

export interface Let {
  readonly kind: 'Let';
  readonly name: Name;
  readonly tpe: TypeExpr | null;
  readonly value: Expr;
  readonly span: Span;
}

export interface ExprStmt {
  readonly kind: 'ExprStmt';
  readonly expr: Expr;
  readonly span: Span;
}

// ---- type expressions (kept in the tree, not checked) ----

export type TypeExpr =
  | TypeAny
  | TypeNever
  | TypeSingleton
  | TypeId
  | TypeCons
  | TypeObject
  | TypeInterface
  | TypeTuple
  | TypeLambda
  | TypeUnion
  | TypeIntersect
  | TypeNullable;

export interface TypeAny {
  readonly kind: 'Any';
  readonly span: Span;
}

export interface TypeNever {
  readonly kind: 'Never';
  readonly span: Span;
}

/** A literal type: `true`, `3`, `"a"`. */
export interface TypeSingleton {
  readonly kind: 'Singleton';
  readonly value: Literal;
  readonly span: Span;
}

export interface TypeId {
  readonly kind: 'TypeId';
  readonly str: string;
  readonly span: Span;
}

/** `Array<Int>`, `Ref<User>`. */
export interface TypeCons {
  readonly kind: 'Cons';
  readonly name: Name;
  readonly targs: ReadonlyArray<TypeExpr>;
  readonly span: Span;
}

/** `{ a: Int, *: Any }`. */
export interface TypeObject {
  readonly kind: 'TypeObject';
  readonly fields: ReadonlyArray<readonly [Name, TypeExpr]>;
  readonly wildcard: TypeExpr | null;
  readonly span: Span;
}

/** `{ a: Int, ... }`. */
export interface TypeInterface {
  readonly kind: 'Interface';
  readonly fields: ReadonlyArray<readonly [Name, TypeExpr]>;
  readonly span: Span;
}

/** `[A, B]`, `()` and `(A, B)`. */
export interface TypeTuple {
  readonly kind: 'TypeTuple';
  readonly elems: ReadonlyArray<TypeExpr>;
  readonly span: Span;
}

/** `(a: A, ...b: B) => R`, `A => R`. */
export interface TypeLambda {
  readonly kind: 'TypeLambda';
  readonly params: ReadonlyArray<readonly [Name | null, TypeExpr]>;
  readonly variadic: readonly [Name | null, TypeExpr] | null;
  readonly ret: TypeExpr;
  readonly span: Span;
}

export interface TypeUnion {
  readonly kind: 'Union';
  readonly members: ReadonlyArray<TypeExpr>;
  readonly span: Span;
}

export interface TypeIntersect {
  readonly kind: 'Intersect';
  readonly members: ReadonlyArray<TypeExpr>;
  readonly span: Span;
}

/** `T?`; `qmarkSpan` is the `?`'s. */
export interface TypeNullable {
  readonly kind: 'Nullable';
  readonly base: TypeExpr;
  readonly qmarkSpan: Span;
  readonly span: Span;
}

// ---- patterns (of `match`) ----

export type PatExpr = PatHole | PatBind | PatType | PatLit | PatObject | PatArray;

/** `_`, `_: T`, `_ @ pat`. */
export interface PatHole {
  readonly kind: 'PatHole';
  readonly inner: PatExpr | null;
  readonly span: Span;
}

/** `x`, `x: T`, `x @ pat`. */
export interface PatBind {
  readonly kind: 'PatBind';
  readonly name: Name;
  readonly inner: PatExpr | null;
  readonly span: Span;
}

export interface PatType {
  readonly kind: 'PatType';
  readonly tpe: TypeExpr;
  readonly span: Span;
}

export interface PatLit {
  readonly kind: 'PatLit';
  readonly value: Literal;
  readonly span: Span;
}

export interface PatObject {
  readonly kind: 'PatObject';
  readonly fields: ReadonlyArray<readonly [Name, PatExpr]>;
  readonly span: Span;
}

/** `[a, b, ...rest]`, and `(a, b)`. */
export interface PatArray {
  readonly kind: 'PatArray';
  readonly elems: ReadonlyArray<PatExpr>;
  readonly rest: PatExpr | null;
  readonly span: Span;
}
