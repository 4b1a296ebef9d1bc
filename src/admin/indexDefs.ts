// Index definitions both ways, without the DOM: the create form's fields checked and turned into
// CreateIndex's parameters (each mistake named by its row), an index document described for the
// table (sources, terms, values), and the term inputs of a Match turned into expressions.

import { FqlJsError } from '../fqljs/errors';
import type { JsonValue } from '../wire/expr';
import { parseJson } from '../wire/json';
import { fql, str } from './queries';
import { field, literal, obj } from './values';

export interface IndexForm {
  name: string;
  /** The source collection's name. */
  source: string;
  /** Each a field path (`data.customer`) or a binding's name. */
  terms: string[];
  values: { field: string; reverse: boolean }[];
  /** Each body in the driver's syntax: `Query(Lambda("doc", …))`. */
  bindings: { name: string; body: string }[];
  unique: boolean;
  serialized: boolean;
}

/** Top-level document fields an index can read by a one-part path. */
const DOCUMENT_FIELDS = ['ref', 'ts', 'ttl', 'data'];

/** `data.tags.0` → ["data", "tags", 0]; a binding's name → {binding}; else an Error naming `row`. */
export function fieldSpec(text: string, bindings: readonly string[], row: string): JsonValue {
  const t = text.trim();
  if (t === '') throw new Error(`${row} is empty: type a field path such as data.customer, or remove the row.`);
  if (bindings.includes(t)) return obj({ binding: t });
  const parts = t.split('.');
  if (parts.some((p) => p === '')) throw new Error(`${row}: "${t}" has an empty part between dots.`);
  if (parts.length === 1 && !DOCUMENT_FIELDS.includes(t))
    throw new Error(`${row}: "${t}" is neither a field path (data.${t}, ref, ts) nor the name of a binding.`);
  return obj({ field: parts.map((p) => (/^(0|[1-9][0-9]*)$/.test(p) ? BigInt(p) : p)) });
}

/** A binding's body: the driver's syntax, parsed here so that a mistake is shown with its position. */
function bindingBody(name: string, body: string): JsonValue {
  let wire: JsonValue;
  try {
    wire = fql(body);
  } catch (err) {
    throw new Error(`Binding ${name}: ${err instanceof FqlJsError ? err.message : String(err)}`);
  }
  if (!(wire instanceof Map && wire.has('query')))
    throw new Error(`Binding ${name}: the body must be a Query(Lambda(…)), e.g. Query(Lambda("doc", Select(["data", "name"], Var("doc")))).`);
  return wire;
}

/** CreateIndex's parameter object (an expression) for a filled-in form, or an Error saying which field is wrong. */
export function indexParams(form: IndexForm): JsonValue {
  const name = form.name.trim();
  if (name === '') throw new Error('Type a name for the index, e.g. orders_by_customer.');
  if (form.source === '') throw new Error('Choose the source collection.');
  const names = form.bindings.map((b) => b.name.trim());
  const fields = new Map<string, JsonValue>();
  form.bindings.forEach((b, i) => {
    const bname = names[i];
    if (bname === '') throw new Error(`Binding ${i + 1} has no name: type one, e.g. name_lower.`);
    if (fields.has(bname)) throw new Error(`Two bindings are named ${bname}.`);
    fields.set(bname, bindingBody(bname, b.body));
  });
  const collection = fql(`Collection(${str(form.source)})`);
  const terms = form.terms.map((t, i) => obj({ object: fieldSpec(t, names, `Term ${i + 1}`) }));
  const values = form.values.map((v, i) => {
    const spec = fieldSpec(v.field, names, `Value ${i + 1}`) as Map<string, JsonValue>;
    if (v.reverse) spec.set('reverse', true);
    return obj({ object: spec });
  });
  const params: Record<string, JsonValue> = {
    name,
    source: fields.size ? obj({ object: obj({ collection, fields: obj({ object: fields }) }) }) : collection,
  };
  if (terms.length) params.terms = terms;
  if (values.length) params.values = values;
  params.unique = form.unique;
  params.serialized = form.serialized;
  return obj({ object: obj(params) });
}

/** A term or value of an index document, as the form writes it: `data.customer`, `binding name`, `… (reverse)`. */
export function describeField(spec: JsonValue): string {
  const path = field(spec, 'field');
  const binding = field(spec, 'binding');
  const text = Array.isArray(path) ? path.map(String).join('.') : typeof path === 'string' ? path : typeof binding === 'string' ? `binding ${binding}` : '?';
  return field(spec, 'reverse') === true ? `${text} (reverse)` : text;
}

/** The collection names of an index's `source` (a ref, `{collection, fields}`, an array of those, or "_" for all). */
export function sourceNames(source: JsonValue | undefined): string[] {
  if (source === '_') return ['all collections'];
  if (Array.isArray(source)) return source.flatMap(sourceNames);
  const ref = field(source, 'collection') ?? field(source, 'class') ?? source;
  const id = field(field(ref, '@ref'), 'id');
  return typeof id === 'string' ? [id] : [];
}

/**
 * A term typed to browse a Match: JSON (exact, e.g. "tea", 3, ["a"], 9007199254740993) or, failing
 * that, an FQL expression such as Ref(Collection("people"), "1"); an Error naming `label` otherwise.
 */
export function termValue(text: string, label: string): JsonValue {
  if (text.trim() === '') throw new Error(`Type a value for ${label}: JSON such as "tea", 3 or ["a"] (a string needs its quotes).`);
  try {
    return literal(parseJson(text));
  } catch {
    try {
      return fql(text);
    } catch (err) {
      throw new Error(`${label}: not JSON (a string needs its quotes: "tea") nor an FQL expression: ${err instanceof FqlJsError ? err.message : String(err)}`);
    }
  }
}
