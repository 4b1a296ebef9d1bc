// The values FQL v10 answers carry, materialized: what the evaluator builds from a query's result
// (documents read, sets paged) before encoding (encode.ts, decorated.ts). The shapes follow the core's
// MaterializedValue (model/.../fql2/serialization/MaterializedValue.scala).
//
// Scalars are Flora's v4 value types: `bigint` for Int and Long (encoded `@int` within 32 bits, else
// `@long`; a Long that fits 32 bits is a SmallLong), `number` for Double, Time, DateV, Bytes, and TxnTime (the running transaction's time,
// encoded as the commit time). An ID (a document's `id`) is a string.

import type { Bytes, DateV, Time, TxnTime } from '../../values/types';

export type MValue =
  | null
  | boolean
  | string
  | bigint
  | SmallLong
  | number
  | Time
  | DateV
  | Bytes
  | TxnTime
  | MValue[]
  | MObject
  | Module
  | DocRef
  | NamedRef
  | Doc
  | NullDoc
  | SetPage
  | SetToken
  | StreamToken
  | FunctionValue
  | LegacyRef;

/** A Long whose value would fit an Int (an `@long` argument, what `Math.round` or `parseLong`
 *  makes: the core's Value.Long is not narrowed): tagged `@long`, a plain number simple. */
export class SmallLong {
  constructor(readonly value: bigint) {}
}

/** A struct: keys in order. A key starting with `@` makes the tagged format wrap it in `@object`. */
export type MObject = Map<string, MValue>;

/**
 * A module (`Math`, `Collection`, a collection `Author`, …): `{"@mod": name}` tagged, its name
 * simple, `parent.name` decorated (a deleted collection is `Collection.Deleted`). Also what an
 * `{"@mod": name}` argument decodes to.
 */
export class Module {
  constructor(
    readonly name: string,
    readonly parent?: Module,
  ) {}
}

/** Where a reference to a document of a deleted collection points (CollectionDefCompanion.Deleted):
 *  tagged `{"@mod": "Deleted"}`, decorated `Collection.Deleted`. */
export const DELETED_COLLECTION = new Module('Deleted', new Module('Collection'));

/** A reference to a document by id: `{id, coll}`, decorated `Coll("id")`. */
export class DocRef {
  constructor(
    readonly coll: Module,
    /** The document id, decimal. */
    readonly id: string,
  ) {}
}

/** A reference to a named (schema) document: `{name, coll}`, decorated `Coll.byName("name")`. */
export class NamedRef {
  constructor(
    readonly coll: Module,
    readonly name: string,
  ) {}
}

/**
 * A document read: `@doc` of its fields, in the order the core's ReadBroker.getAllFields gives them
 * (id or name, coll, ts, ttl, then the fields). Inside a document's fields every document, read or
 * not, renders as a `@ref` (tagged and simple), as the core does.
 */
export class Doc {
  constructor(
    readonly ref: DocRef | NamedRef,
    readonly fields: MObject,
  ) {}
}

/** Why a document reference reads as null (MaterializedValue.nullCauseStr). */
export type NullCause = 'not found' | 'deleted' | 'collection deleted' | 'permission denied';

/** A reference to a document that is not there: tagged `@ref` with `exists: false` and the cause, simple `null`. */
export class NullDoc {
  constructor(
    readonly ref: DocRef | NamedRef,
    readonly cause: NullCause,
  ) {}
}

/** A set's first page: `{"@set": {data, after?}}`; `after` is a cursor token. */
export class SetPage {
  constructor(
    readonly data: MValue[],
    readonly after?: string,
  ) {}
}

/** A set not materialized (nested deeper than the core pages): `{"@set": "<cursor>"}`. */
export class SetToken {
  constructor(readonly token: string) {}
}

/** An event source: `{"@stream": "<token>"}`. */
export class StreamToken {
  constructor(readonly token: string) {}
}

/**
 * A function value, which has no wire form: the string `[function <lambda>]` for a lambda (name
 * undefined), `[function name()]` for a native function (`[function name]` decorated).
 */
export class FunctionValue {
  constructor(readonly name?: string) {}
}

/** A v4 reference v10 cannot express (an index): the string `[legacy index name]`. */
export class LegacyRef {
  constructor(
    readonly kind: string,
    readonly name: string,
  ) {}
}
