// FQL v10 runtime values (the core's repo/values/Value.scala): Flora's data types plus the values
// only a running query has (functions, modules, sets, IDs, nulls that remember why they are null).
//
//   null          NullV (never a bare JS null: every null carries its cause)
//   Boolean       boolean          String  string
//   Int / Long    bigint (Int when it fits 32 bits, else Long; see Value.Number.apply), and
//                 SmallLong: a Long the core did not narrow (`@long` 5, Math.round's results)
//   Double        number           Time    Time (ns)     Date DateV     Bytes Bytes
//   TransactionTime  TxnTime       ID      IdV
//   Array         RtValue[] (never mutated once built)
//   Struct        Struct = Map (never mutated once built)
//   Function      Lambda | NativeFn
//   module        ModuleV (Math, Set, a collection, …)
//   Set           ValueSet (./sets.ts)
//   SetCursor     SetCursorV
//   anything the storage layer adds (documents, refs): an ExtValue subclass.

import type { Expr, Name } from '../ast';
import type { Span } from '../span';
import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import type { CallCtx, FieldTable } from './table';
import { SmallLong, type MValue } from '../../wire/v10/model';
import type { ValueSet } from './sets';
import type { QueryRuntimeFailure, Trace } from './failure';

export { Bytes, DateV, SmallLong, Time, TxnTime };

export type RtValue =
  | NullV
  | boolean
  | string
  | bigint
  | SmallLong
  | number
  | Time
  | DateV
  | Bytes
  | TxnTime
  | IdV
  | RtValue[]
  | Struct
  | Lambda
  | NativeFn
  | ModuleV
  | ValueSet
  | SetCursorV
  | ExtValue;

export type Struct = Map<string, RtValue>;

// ---- null ----

/** Why a value is null (Value.Null.Cause); `span` is where the null came from. */
export type NullCause =
  | { readonly kind: 'lit'; readonly span: Span }
  | { readonly kind: 'missingField'; readonly value: RtValue; readonly field: Name; readonly span: Span }
  | { readonly kind: 'noSuchElement'; readonly reason: string; readonly span: Span }
  | { readonly kind: 'invalidNumber'; readonly value: string; readonly span: Span }
  /** A cause the storage layer defines (document not found, permission denied…). */
  | ExtNullCause;

export interface ExtNullCause {
  readonly kind: 'ext';
  readonly span: Span;
  /** The failure of `!` on it (`access` false), or of reading a field of the value it stands for
   *  (`access` true: a missing document's `doc.name`); undefined: the generic null failures. */
  failure?(trace: Trace, access: boolean): QueryRuntimeFailure | undefined;
}

export class NullV {
  constructor(readonly cause: NullCause) {}
  static lit(span: Span): NullV {
    return new NullV({ kind: 'lit', span });
  }
  static missingField(value: RtValue, field: Name): NullV {
    return new NullV({ kind: 'missingField', value, field, span: field.span });
  }
  static noSuchElement(reason: string, span: Span): NullV {
    return new NullV({ kind: 'noSuchElement', reason, span });
  }
}

// ---- scalars v10 adds ----

/** A document ID (Value.ID): a signed 64-bit integer, rendered as a decimal string. */
export class IdV {
  constructor(readonly value: bigint) {}
}

export const INT_MIN = -(2n ** 31n);
export const INT_MAX = 2n ** 31n - 1n;
export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;

export function isInt32(v: bigint): boolean {
  return v >= INT_MIN && v <= INT_MAX;
}

/** A Long (Value.Long): a SmallLong when an Int could hold it. */
export function long(v: bigint): bigint | SmallLong {
  return isInt32(v) ? new SmallLong(v) : v;
}

/** A number's value, a SmallLong's as its bigint. */
export function numValue(v: bigint | number | SmallLong): bigint | number {
  return v instanceof SmallLong ? v.value : v;
}

/** An integer result: Int or Long when it fits 64 bits, else a Double (Value.Number(BigInt)). */
export function integer(v: bigint): bigint | number {
  return v >= LONG_MIN && v <= LONG_MAX ? v : Number(v);
}

// ---- functions ----

/** How many arguments a function takes (Value.Func.Arity). */
export type Arity = { readonly kind: 'fixed'; readonly counts: readonly number[] } | { readonly kind: 'variable'; readonly required: number };

export function fixedArity(...counts: number[]): Arity {
  return { kind: 'fixed', counts: [...new Set(counts)].sort((a, b) => a - b) };
}

export function arityAccepts(a: Arity, n: number): boolean {
  return a.kind === 'fixed' ? a.counts.includes(n) : n >= a.required;
}

export function arityDisplay(a: Arity, word = 'argument'): string {
  if (a.kind === 'variable') {
    if (a.required === 0) return `any number of ${word}s`;
    return a.required === 1 ? `at least 1 ${word}` : `at least ${a.required} ${word}s`;
  }
  const l = a.counts;
  if (l.length === 1) {
    if (l[0] === 0) return `no ${word}s`;
    return l[0] === 1 ? `exactly 1 ${word}` : `exactly ${l[0]} ${word}s`;
  }
  return `${l.slice(0, -1).join(', ')} or ${l[l.length - 1]} ${word}s`;
}

/** Variables in scope: a chain of bindings, shared by the closures that capture it. */
export class Scope {
  constructor(
    readonly parent: Scope | null,
    readonly name: string,
    readonly value: RtValue,
  ) {}

  lookup(name: string): RtValue | undefined {
    for (let s: Scope | null = this; s !== null; s = s.parent) if (s.name === name) return s.value;
    return undefined;
  }
}

/** A function written in FQL: `(a, b) => body`, `(...rest) => body`, `.field`. A `null`
 *  parameter (`_`) binds nothing. */
export class Lambda {
  readonly arity: Arity;
  constructor(
    readonly params: ReadonlyArray<string | null>,
    /** `undefined`: not variadic; `null`: `..._`. */
    readonly variadic: string | null | undefined,
    readonly body: Expr,
    readonly closure: Scope | null,
  ) {
    this.arity = variadic === undefined ? fixedArity(params.length) : { kind: 'variable', required: params.length };
  }
}

/** A built-in function, possibly bound to a receiver (`"a".concat`). */
export class NativeFn {
  constructor(
    readonly name: string,
    readonly arity: Arity,
    /** The receiver a method is bound to; null for a global function. */
    readonly callee: RtValue | null,
    readonly call: (ctx: CallCtx, args: RtValue[]) => Promise<RtValue>,
    /** Its own fields and methods instead of Function's (a user function's `definition`). */
    readonly ownTable?: FieldTable,
  ) {}
}

export type Func = Lambda | NativeFn;

export function isFunc(v: RtValue): v is Func {
  return v instanceof Lambda || v instanceof NativeFn;
}

// ---- modules ----

/** A named singleton (SingletonObject): a module (`Math`), a type's companion (`String`, `Set`),
 *  a collection. Its methods and fields come from `table`; `contains` answers `isa`. */
export class ModuleV {
  constructor(
    readonly name: string,
    readonly table: FieldTable,
    readonly contains: (v: RtValue) => boolean,
    readonly parent?: ModuleV,
  ) {}
}

// ---- set cursors ----

/** A set cursor value (`Set.paginate(cursor)` takes it or its string). `token` is what the
 *  context's cursor codec made of a set and its position. */
export class SetCursorV {
  constructor(readonly token: string) {}
}

// ---- values the storage layer defines ----

/** A document's DocID and name in the core's terms: `coll` the core's collection id (Database 0,
 *  Collection 1, Key 2, Token 3, Credential 10, Function 11, Role 12, AccessProvider 13, user
 *  collections their own), `id` its id (a named document's internal id; undefined until known). */
export interface DocIdentity {
  readonly coll: bigint;
  readonly id: bigint | undefined;
  readonly name?: string;
}

/** A value defined above the evaluator (a document, a reference): it brings its own dispatch
 *  table, type name, display and comparison. */
export abstract class ExtValue {
  /** Name in type errors (`Doc`, `NullDoc`…). */
  abstract readonly typeName: string;
  /** Position in the cross-type order (Value.totalOrderingPosition: documents are 6). */
  abstract readonly orderRank: number;
  abstract table(): FieldTable;
  /** `toString()` and template rendering. */
  abstract display(): string;
  /** Same-kind comparison; undefined for unrelated values. */
  abstract compare(other: ExtValue): number | undefined;
  /** A document's identity, by which documents of any kind are ordered (cmp.ts). */
  docIdentity?(): DocIdentity;
  /** Learns what `docIdentity` lacks until it is read (a named document's id); once. */
  prepareCompare?(ctx: CallCtx): Promise<void>;
  /** The value's fields as a struct (`Object.keys(doc)`…), or the null it reads as. */
  abstract toStruct(ctx: CallCtx): Promise<Struct | NullV>;
  /** What the response carries for it. */
  abstract materialize(ctx: CallCtx): Promise<MValue>;
  /** Why it reads as null (a document that does not exist), checked by `!`, `??`, `== null` and
   *  projection; undefined when it is there. */
  nullCause(_ctx: CallCtx): Promise<NullCause | undefined> {
    return Promise.resolve(undefined);
  }
}
