// Reading answers and writing query pieces: wire trees are objects as Maps and integers as bigints
// (wire/json.ts), so a document's numbers reach the screen and the server exactly as they are.

import type { JsonValue } from '../wire/expr';

/** `v[key]` when v is an object, else undefined. */
export function field(v: JsonValue | undefined, key: string): JsonValue | undefined {
  return v instanceof Map ? v.get(key) : undefined;
}

/** The id of a ref in an answer (`{"@ref":{"id":…}}`), or '' when it is not one. */
export function refId(v: JsonValue | undefined): string {
  const id = field(field(v, '@ref'), 'id');
  return typeof id === 'string' ? id : '';
}

/** A user role's name when `v` is a ref to one, else ''. */
export function userRoleName(v: JsonValue | undefined): string {
  return field(field(field(field(v, '@ref'), 'collection'), '@ref'), 'id') === 'roles' ? refId(v) : '';
}

/** A database path as the dashboard names it: `a/b`, or `(root)` for the secret's own database. */
export const pathLabel = (path: readonly string[]): string => (path.length ? path.join('/') : '(root)');

/** The page's items (`data`) of a Paginate answer. */
export function pageItems(page: JsonValue): JsonValue[] {
  const data = field(page, 'data');
  return Array.isArray(data) ? data : [];
}

/**
 * The dashboard's lists read one page (1,000 items): when there is more after it, the line that
 * says so (a list is never cut short silently); '' when the page is the whole list.
 */
export function partialListNote(page: JsonValue, noun: string): string {
  return field(page, 'after') === undefined ? '' : `Only the first ${pageItems(page).length} ${noun} are shown.`;
}

/**
 * A value as a literal expression: objects inside `{"object": …}`, so that keys which name FQL
 * functions (a document field called `get`, say) are data, not a call.
 */
export function literal(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(literal);
  if (v instanceof Map) return new Map([['object', new Map([...v].map(([k, x]) => [k, literal(x)]))]]);
  return v;
}

/** `{…}` as the driver sends an object literal; entries whose value is undefined are left out. */
export function objectExpr(entries: Record<string, JsonValue | undefined>): JsonValue {
  return new Map([['object', new Map(Object.entries(entries).filter((e): e is [string, JsonValue] => e[1] !== undefined))]]);
}

/** `{key: value, …}` as a wire object (keys in order). */
export function obj(entries: Record<string, JsonValue>): JsonValue {
  return new Map(Object.entries(entries));
}

/** JSON text of a wire tree, indented; integers print exactly. */
export function prettyJson(v: JsonValue, indent = ''): string {
  const inner = indent + '  ';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + prettyJson(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (v.size === 0) return '{}';
  const rows = [...v].map(([k, x]) => `${inner}${JSON.stringify(k)}: ${prettyJson(x, inner)}`);
  return `{\n${rows.join(',\n')}\n${indent}}`;
}
