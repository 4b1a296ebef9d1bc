// An index definition as the rest of the server uses it: compiled once from the index document
// (fql-v4.md §5.3), cached with the database schema.

import type { Lambda, Ref, Value } from '../values/types';

/** A term or value position: a field path or a binding, with its options. */
export interface FieldSpec {
  /** Path through the document (`["data","name"]`, `["ref"]`, `["ts"]`); absent for a binding. */
  field?: (string | number)[];
  /** Name of a source binding; absent for a field path. */
  binding?: string;
  /** Values only: sort this position in descending order. */
  reverse: boolean;
  /** Arrays along the path are flattened into several entries (default true). */
  mva: boolean;
  /** The only transform Fauna has: `casefold` applied to each extracted value. */
  transform?: 'casefold';
}

export interface IndexSource {
  /** Collection name, or `_` for the wildcard source (every collection no other source names). */
  collection: string;
  /** Binding name → a pure one-argument lambda of the document. */
  bindings: Map<string, Lambda>;
}

export interface IndexDef {
  db: bigint;
  /** Internal index id (≥ 32768), the prefix of its entries in storage. */
  id: number;
  name: string;
  sources: IndexSource[];
  terms: FieldSpec[];
  values: FieldSpec[];
  unique: boolean;
  active: boolean;
}

/** One derived entry of one document version. */
export interface IndexEntryValue {
  terms: Value[];
  values: Value[];
  ref: Ref;
}

/** The document a set of entries is derived from: its ref, version time and stored fields. */
export interface IndexedDoc {
  ref: Ref;
  /** The version's ts in µs (a `["ts"]` term is always null, fql-v4.md §5.2 quirk). */
  ts: bigint;
  /** Stored fields: `data`, `ttl`. */
  fields: ReadonlyMap<string, Value>;
}

/** Evaluates a binding lambda on a document; implemented by the evaluator, pure (no reads/writes). */
export type BindingEvaluator = (binding: Lambda, doc: Value) => Promise<Value>;
