// FSL, the language of schema files, in two forms as the core has them:
// - raw nodes (ast/package.scala `FSL`): what the grammar reads, `keyword name value` nested in
//   blocks, with no judgement on which keyword may go where;
// - schema items (ast/SchemaItem.scala): collections, roles, functions and access providers, which
//   ./convert.ts builds from the nodes, reporting what does not belong.
// Every span carries its source: a file's spans have `src.name` = the file's name.

import type { Block, Expr, LongLambda, Name, ShortLambda, TypeExpr } from '../ast';
import type { Span } from '../span';

// ---- raw nodes ----

/** `@alias(name)` or `@role(name)` before an item. */
export interface FslAnnotation {
  readonly keyword: Name;
  readonly value: Name;
  readonly span: Span;
}

/** One item: `keyword name? value?`. A field is keyword `field` (FIELD_KEYWORD) with its name and a
 *  `Field` value; `access provider` is one keyword. `span` runs from the first annotation (or the
 *  doc comment) to the value's end or the last `;` after it. */
export interface FslNode {
  readonly annotations: ReadonlyArray<FslAnnotation>;
  readonly keyword: Name;
  readonly name: Name | null;
  readonly body: FslValue | null;
  readonly span: Span;
  /** The `//` or `/* *\/` lines right above a top-level item. */
  readonly docComment: Span | null;
}

export const FIELD_KEYWORD = 'field';

export type FslValue = FslBlock | FslPaths | FslFunction | FslField | FslMigration | FslLit | FslInvalid;

export interface FslBlock {
  readonly kind: 'Block';
  readonly open: Span;
  readonly items: ReadonlyArray<FslNode>;
  readonly close: Span;
  readonly span: Span;
}

/** `[.a, mva(.b), desc(.c)]`: index terms and values, kept as expressions. */
export interface FslPaths {
  readonly kind: 'Paths';
  readonly open: Span;
  readonly paths: ReadonlyArray<Expr>;
  readonly close: Span;
  readonly span: Span;
}

/** `: Type` (the span of `:` kept for errors). */
export interface ColonType {
  readonly colon: Span;
  readonly ty: TypeExpr;
  readonly span: Span;
}

/** A field's `: Type`, whose object types may declare defaults (`{ a: Int = 0 }`): they are kept
 *  by the field names they follow, and become a SchemaTypeExpr or an error in convert.ts. */
export interface ColonPartialType extends ColonType {
  readonly defaults: ReadonlyMap<Name, Expr>;
}

export interface FslArg {
  readonly name: Name;
  readonly ty: ColonType | null;
  readonly span: Span;
}

/** `(args, ...rest): Ret { body }`. */
export interface FslFunction {
  readonly kind: 'Function';
  readonly open: Span;
  readonly args: ReadonlyArray<FslArg>;
  /** `...rest` and the span of its `...`. */
  readonly variadic: (FslArg & { readonly dots: Span }) | null;
  readonly close: Span;
  readonly ret: ColonType | null;
  readonly body: Block;
  readonly span: Span;
}

export type FieldKind = 'defined' | 'compute' | 'wildcard';

/** `name: Type = default`, `compute name: Type = lambda`, `*: Type`. */
export interface FslField {
  readonly kind: 'Field';
  readonly fieldKind: FieldKind;
  readonly ty: ColonPartialType | null;
  readonly value: FslValue | null;
  readonly span: Span;
}

/** `.a.b["c"][0]`. */
export interface FieldPath {
  readonly elems: ReadonlyArray<PathElem>;
  readonly span: Span;
}

export type PathElem =
  | { readonly kind: 'field'; readonly name: string; readonly span: Span }
  | { readonly kind: 'index'; readonly index: number; readonly span: Span };

export type FslMigration =
  | { readonly kind: 'Backfill'; readonly path: FieldPath; readonly value: FslLit; readonly span: Span }
  | { readonly kind: 'Drop'; readonly path: FieldPath; readonly span: Span }
  | { readonly kind: 'Split'; readonly from: FieldPath; readonly to: ReadonlyArray<FieldPath>; readonly span: Span }
  | { readonly kind: 'Move'; readonly from: FieldPath; readonly to: FieldPath; readonly span: Span }
  | { readonly kind: 'Add'; readonly path: FieldPath; readonly span: Span }
  | { readonly kind: 'MoveConflicts'; readonly into: FieldPath; readonly span: Span }
  | { readonly kind: 'MoveWildcard'; readonly into: FieldPath; readonly span: Span }
  | { readonly kind: 'AddWildcard'; readonly span: Span };

export interface FslLit {
  readonly kind: 'Lit';
  readonly expr: Expr;
  readonly span: Span;
}

/** Text the grammar could not read as a value, up to the end of the line or the closing brace. */
export interface FslInvalid {
  readonly kind: 'Invalid';
  readonly span: Span;
}

// ---- schema items ----

export type Lambda = LongLambda | ShortLambda;

/** A field's type with the defaults its nested object fields declare (SchemaTypeExpr). */
export type SchemaTypeExpr =
  | { readonly kind: 'Simple'; readonly ty: TypeExpr; readonly span: Span }
  | {
    readonly kind: 'Object';
    readonly fields: ReadonlyArray<{ readonly name: Name; readonly ty: SchemaTypeExpr; readonly default: Expr | null }>;
    readonly wildcard: TypeExpr | null;
    readonly span: Span;
  };

export type Field =
  | { readonly kind: 'defined'; readonly name: Name; readonly ty: SchemaTypeExpr; readonly default: Expr | null; readonly span: Span }
  | { readonly kind: 'computed'; readonly kwSpan: Span; readonly name: Name; readonly ty: TypeExpr | null; readonly value: Lambda; readonly span: Span }
  | { readonly kind: 'wildcard'; readonly ty: TypeExpr; readonly span: Span };

export interface IndexTerm {
  readonly path: FieldPath;
  readonly mva: boolean;
  readonly span: Span;
}

export interface IndexValue extends IndexTerm {
  readonly asc: boolean;
}

export interface Index {
  readonly name: Name;
  /** The `terms [...]` member (null when absent, or written `[]`). */
  readonly terms: { readonly terms: ReadonlyArray<IndexTerm>; readonly span: Span } | null;
  readonly values: { readonly values: ReadonlyArray<IndexValue>; readonly span: Span } | null;
  readonly span: Span;
}

export interface Unique {
  readonly terms: ReadonlyArray<IndexTerm>;
  /** The brackets'. */
  readonly termsSpan: Span;
  readonly span: Span;
}

export interface CheckConstraint {
  readonly name: Name;
  readonly predicate: Lambda;
  readonly span: Span;
}

/** A migration is kept as read (the converter only checks its paths). */
export type MigrationItem = FslMigration;

/** A value with where it was written (null: not written, the default). */
export interface Spanned<T> {
  readonly value: T;
  readonly span: Span | null;
}

export interface Collection {
  readonly kind: 'collection';
  readonly name: Name;
  readonly alias: FslAnnotation | null;
  readonly fields: ReadonlyArray<Field>;
  readonly migrations: { readonly items: ReadonlyArray<MigrationItem>; readonly span: Span } | null;
  readonly indexes: ReadonlyArray<Index>;
  readonly uniques: ReadonlyArray<Unique>;
  readonly checks: ReadonlyArray<CheckConstraint>;
  /** 0 when not written (the core's default `fauna.model.default-history_days`). */
  readonly historyDays: Spanned<bigint>;
  readonly ttlDays: Spanned<bigint> | null;
  readonly documentTTLs: Spanned<boolean> | null;
  readonly span: Span;
  readonly docComment: Span | null;
}

export const ACTIONS = ['create', 'create_with_id', 'delete', 'read', 'write', 'history_read', 'history_write', 'unrestricted_read', 'call'] as const;
export type Action = (typeof ACTIONS)[number];

export interface Privilege {
  /** The collection, function or native collection the privileges are on. */
  readonly resource: Name;
  readonly actions: ReadonlyArray<{ readonly action: Action; readonly predicate: Lambda | null; readonly span: Span }>;
  readonly span: Span;
}

/** `membership Coll { predicate (...) }`, and an access provider's `role R { predicate (...) }`. */
export interface Membership {
  readonly name: Name;
  readonly predicate: Lambda | null;
  readonly span: Span;
}

export interface Role {
  readonly kind: 'role';
  readonly name: Name;
  readonly privileges: ReadonlyArray<Privilege>;
  readonly membership: ReadonlyArray<Membership>;
  readonly span: Span;
  readonly docComment: Span | null;
}

export interface FunctionArg {
  readonly name: Name;
  readonly ty: TypeExpr | null;
  readonly variadic: boolean;
}

export interface FunctionItem {
  readonly kind: 'function';
  readonly name: Name;
  readonly alias: FslAnnotation | null;
  readonly role: FslAnnotation | null;
  readonly sig: { readonly args: ReadonlyArray<FunctionArg>; readonly ret: TypeExpr | null; readonly span: Span };
  readonly body: Block;
  readonly span: Span;
  readonly docComment: Span | null;
}

export interface AccessProvider {
  readonly kind: 'access provider';
  readonly name: Name;
  readonly issuer: Spanned<string>;
  readonly jwksUri: Spanned<string>;
  readonly roles: ReadonlyArray<Membership>;
  readonly span: Span;
  readonly docComment: Span | null;
}

export type SchemaItem = Collection | Role | FunctionItem | AccessProvider;
