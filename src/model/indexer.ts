// Index entry generation (fql-v4.md §5.2): the (terms, values, ref) tuples one document version
// contributes to an index, their keys (indexKeys.ts), payloads and size limits.

import { decodeValue, encodeValue, type RefNamer } from '../storage/valueCodec';
import type { Txn } from '../storage/types';
import { decodeAgain } from '../storage/naming';
import { valuesEqual } from '../values/order';
import { Ref, type Obj, type Value } from '../values/types';
import type { BindingEvaluator, FieldSpec, IndexDef, IndexedDoc, IndexEntryValue, IndexSource } from './indexDef';

export { cursorBound, entryKey, prefixEnd, termsPrefix } from './indexKeys';

/** The source name that covers every collection no other source names. */
export const WILDCARD_SOURCE = '_';

/**
 * Native collections an index may take as a source, and their source names. The `@` keeps them
 * apart from user collections (a user collection may be called `tokens`); the wildcard never
 * covers them. Stored secrets' hashes are never indexed.
 */
export const NATIVE_SOURCES: Readonly<Record<string, string>> = { tokens: '@tokens' };
const HIDDEN_NATIVE_FIELDS = new Set(['hashed_secret', 'hashed_password']);

export function isNativeSource(name: string): boolean {
  return name.startsWith('@');
}

/** The native collection a native source name stands for (`@tokens` → `tokens`). */
export function nativeOfSource(name: string): string | undefined {
  return isNativeSource(name) ? name.slice(1) : undefined;
}

/** The source name of a collection ref: a user collection's name, or a native source's name. */
export function sourceNameOf(coll: Ref): string | undefined {
  if (coll.collection === undefined) return NATIVE_SOURCES[coll.id];
  return coll.nativeParent === 'collections' ? coll.id : undefined;
}

/** The source that indexes documents of `collection`: the one naming it, else the wildcard. */
export function sourceFor(def: IndexDef, collection: string): IndexSource | undefined {
  const named = def.sources.find((s) => s.collection === collection);
  if (named || isNativeSource(collection)) return named;
  return def.sources.find((s) => s.collection === WILDCARD_SOURCE);
}

/**
 * Every entry `doc` contributes to `def`: per position a deduplicated list of scalars, then the
 * cartesian products of term lists and of value lists, minus all-null combinations (DECISIONS.md
 * #11). Lists are deduplicated, so the products hold no identical tuples.
 */
export async function deriveEntries(def: IndexDef, doc: IndexedDoc, evalBinding: BindingEvaluator): Promise<IndexEntryValue[]> {
  const collection = doc.ref.collection === undefined ? undefined : sourceNameOf(doc.ref.collection);
  const source = collection === undefined ? undefined : sourceFor(def, collection);
  if (source === undefined) return [];
  if (isNativeSource(collection!)) {
    const visible = new Map([...doc.fields].filter(([k]) => !HIDDEN_NATIVE_FIELDS.has(k)));
    doc = { ...doc, fields: visible };
  }
  const extractor = new Extractor(doc, source, evalBinding);
  const termCombos = withoutAllNull(product(await extractor.lists(def.terms)), def.terms.length);
  if (termCombos.length === 0) return [];
  const valueCombos = withoutAllNull(product(await extractor.lists(def.values)), def.values.length);
  const entries: IndexEntryValue[] = [];
  for (const terms of termCombos) {
    for (const values of valueCombos) entries.push({ terms, values, ref: doc.ref });
  }
  return entries;
}

/** Extracts the scalars of each position of one document, evaluating each binding once. */
class Extractor {
  private readonly bindingResults = new Map<string, Promise<Value | undefined>>();
  private docValue: Obj | undefined;

  constructor(
    private readonly doc: IndexedDoc,
    private readonly source: IndexSource,
    private readonly evalBinding: BindingEvaluator,
  ) {}

  /** Positions are extracted in order: binding lambdas run one at a time. */
  async lists(specs: readonly FieldSpec[]): Promise<Value[][]> {
    const out: Value[][] = [];
    for (const spec of specs) out.push(await this.list(spec));
    return out;
  }

  private async list(spec: FieldSpec): Promise<Value[]> {
    const raw = spec.binding !== undefined ? await this.fromBinding(spec) : this.fromField(spec);
    const transformed = spec.transform === 'casefold' ? raw.map(casefoldValue) : raw;
    return transformed.length === 0 ? [null] : dedupe(transformed);
  }

  private fromField(spec: FieldSpec): Value[] {
    const path = spec.field ?? [];
    if (!spec.mva) return [valueAt(this.doc, path)];
    const out: Value[] = [];
    const root = path.length === 0 ? undefined : rootField(this.doc, path[0]);
    if (root !== undefined) collect(root, path, 1, out);
    return out;
  }

  private async fromBinding(spec: FieldSpec): Promise<Value[]> {
    const v = await this.binding(spec.binding!);
    if (v === undefined) return [];
    if (!spec.mva) return [v];
    const out: Value[] = [];
    collect(v, [], 0, out);
    return out;
  }

  /** The binding's result; undefined when this document's source does not define it. */
  private binding(name: string): Promise<Value | undefined> {
    let result = this.bindingResults.get(name);
    if (result === undefined) {
      const lambda = this.source.bindings.get(name);
      result = lambda === undefined ? Promise.resolve(undefined) : this.evalBinding(lambda, this.documentValue());
      this.bindingResults.set(name, result);
    }
    return result;
  }

  /** The document as a binding lambda sees it: `{ref, ts, …stored fields}` (ts as Long µs). */
  private documentValue(): Obj {
    this.docValue ??= new Map<string, Value>([['ref', this.doc.ref], ['ts', this.doc.ts], ...this.doc.fields]);
    return this.docValue;
  }
}

/**
 * A top-level field as indexes see the document: `ref`, `ts` (unresolved when entries are
 * computed, so null — fql-v4.md §5.2 quirk), `class`/`collection`, else a stored field.
 */
function rootField(doc: IndexedDoc, name: string | number): Value | undefined {
  switch (name) {
    case 'ref':
      return doc.ref;
    case 'ts':
      return null;
    case 'class':
    case 'collection':
      return doc.ref.collection ?? null;
  }
  return typeof name === 'string' ? doc.fields.get(name) : undefined;
}

/** One path step: a string selects an object field, an integer an array element. */
function step(v: Value, key: string | number): Value | undefined {
  if (typeof key === 'number') return Array.isArray(v) && Number.isInteger(key) && key >= 0 ? v[key] : undefined;
  return v instanceof Map ? v.get(key) : undefined;
}

/**
 * MVA extraction from `path[i…]` into `out`: arrays are flattened at every step (except where an
 * integer element indexes them), recursively; an object at the leaf is null; missing adds nothing.
 */
function collect(v: Value, path: readonly (string | number)[], i: number, out: Value[]): void {
  if (Array.isArray(v) && !(i < path.length && typeof path[i] === 'number')) {
    for (const x of v) collect(x, path, i, out);
    return;
  }
  if (i === path.length) {
    out.push(v instanceof Map ? null : v);
    return;
  }
  const next = step(v, path[i]);
  if (next !== undefined) collect(next, path, i + 1, out);
}

/** Non-MVA extraction: the value at the path as-is (composites included); missing is null. */
function valueAt(doc: IndexedDoc, path: readonly (string | number)[]): Value {
  let v = path.length === 0 ? undefined : rootField(doc, path[0]);
  for (let i = 1; i < path.length && v !== undefined; i++) v = step(v, path[i]);
  return v ?? null;
}

/**
 * Fauna's only index transform. NFKC then lowercase approximates Unicode NFKC_Casefold (it misses
 * full case folds such as ß → ss); non-strings pass through unchanged.
 */
export function casefold(s: string): string {
  return s.normalize('NFKC').toLowerCase();
}

function casefoldValue(v: Value): Value {
  return typeof v === 'string' ? casefold(v) : v;
}

/** Keeps the first of values equal under FQL equality (so Long 1 and Double 1.0 are one). */
function dedupe(values: readonly Value[]): Value[] {
  const out: Value[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    const id = primitiveId(v);
    if (id !== undefined ? seen.has(id) : out.some((x) => valuesEqual(x, v))) continue;
    if (id !== undefined) seen.add(id);
    out.push(v);
  }
  return out;
}

/**
 * A string equal for exactly the FQL-equal primitives (numbers by exact value), so large MVAs
 * dedupe in linear time; undefined for other values, which are compared pairwise.
 */
function primitiveId(v: Value): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'bigint':
      return `n${v}`;
    case 'number':
      return Number.isInteger(v) ? `n${BigInt(v)}` : `n${v}`; // -0 → n0, NaN → nNaN
    case 'boolean':
      return `b${v}`;
  }
  return v === null ? 'null' : undefined;
}

/** All combinations picking one element per list, in list order (one empty combination for none). */
function product(lists: readonly Value[][]): Value[][] {
  return lists.reduce<Value[][]>((combos, list) => combos.flatMap((c) => list.map((x) => [...c, x])), [[]]);
}

/** Drops combinations that are all null, when there are positions at all. */
function withoutAllNull(combos: Value[][], positions: number): Value[][] {
  return positions === 0 ? combos : combos.filter((c) => c.some((x) => x !== null));
}

// ---- payloads ------------------------------------------------------------------------------

/** What a scan returns for an entry: `[terms, values, ref]`, so keys never need decoding. */
export function entryPayload(e: IndexEntryValue): Uint8Array {
  return encodeValue([e.terms, e.values, e.ref]);
}

/** The payload; its refs named by `names` as of `at`, or anonymous without one. */
export function decodePayload(bytes: Uint8Array, names?: RefNamer, at = 0n): IndexEntryValue {
  const v = decodeValue(bytes, 0, names, at);
  if (!Array.isArray(v) || v.length !== 3 || !Array.isArray(v[0]) || !Array.isArray(v[1]) || !(v[2] instanceof Ref)) {
    throw new RangeError('malformed index entry payload');
  }
  return { terms: v[0], values: v[1], ref: v[2] };
}

/**
 * The payload with its refs named for the reading transaction, as of `at`: at once when the names
 * are at hand (nearly always: scans decode one entry after another), else once they are loaded.
 */
export function namedPayload(txn: Txn, bytes: Uint8Array, at: bigint): IndexEntryValue | Promise<IndexEntryValue> {
  try {
    return decodePayload(bytes, txn.names, at);
  } catch (e) {
    return decodeAgain(e, txn.names, () => decodePayload(bytes, txn.names, at));
  }
}

// ---- size limits ---------------------------------------------------------------------------

export const MAX_INDEX_FIELD_BYTES = 32768;
export const MAX_INDEX_ENTRY_BYTES = 65536;

/**
 * The error description when an entry breaks a size limit, else undefined; the write creating
 * it must fail. Sizes are those of the stored encoding (storage/valueCodec.ts, CBOR-like, about
 * the UTF-8 length for strings) — a term or value over 32 KiB, or the whole payload (terms,
 * values and ref) over 64 KiB — not of the key, whose collation weights make strings ~4x larger
 * and would cut the limit users see to a quarter. `_key` is accepted for call sites, unused.
 */
export function checkEntrySize(e: IndexEntryValue, payload = entryPayload(e)): string | undefined {
  // No field is longer than the payload holding it: only a long payload needs its fields measured.
  if (payload.length > MAX_INDEX_FIELD_BYTES) {
    for (const v of [...e.terms, ...e.values]) {
      const n = encodeValue(v).length;
      if (n > MAX_INDEX_FIELD_BYTES) return `Index term or value of ${n} bytes exceeds the limit of ${MAX_INDEX_FIELD_BYTES} bytes.`;
    }
  }
  const n = payload.length;
  if (n > MAX_INDEX_ENTRY_BYTES) return `Index entry of ${n} bytes exceeds the limit of ${MAX_INDEX_ENTRY_BYTES} bytes.`;
  return undefined;
}
