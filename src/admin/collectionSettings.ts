// A collection's settings as the create and edit dialogs show them (name, history_days, ttl_days,
// data, permissions) and as CreateCollection or Update takes them, without the DOM: each mistake
// says what to type instead.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import { parseDocumentData } from './dataJson';
import { field, literal, objectExpr, prettyJson } from './values';

/** history_days a new collection starts with (the server's default when none is given). */
export const DEFAULT_HISTORY_DAYS = '30';

export interface CollectionForm {
  name: string;
  historyDays: string;
  ttlDays: string;
  /** JSON text of the collection's data; '' for none. */
  data: string;
  /** The permissions object as an expression (the FQL field's reading); null for none. */
  permissions: JsonValue | null;
}

/** A whole number of days, or null for '' (which `empty` explains). */
function days(text: string, name: string, empty: string): bigint | null {
  const t = text.trim();
  if (t === '') return null;
  if (!/^\d+$/.test(t)) throw new Error(`${name} must be a whole number of days (0 or more), or empty ${empty}; '${text}' is not.`);
  return BigInt(t);
}

/**
 * CreateCollection's parameters (an expression) for `form`, or, when `editing`, Update's: an
 * emptied field is then sent as null, which removes the setting.
 */
export function collectionParams(form: CollectionForm, editing: boolean): JsonValue {
  const name = form.name.trim();
  if (name === '') throw new Error('Type a name for the collection, e.g. orders.');
  const historyDays = days(form.historyDays, 'history_days', 'to keep every version forever');
  const ttlDays = days(form.ttlDays, 'ttl_days', 'for documents that never expire');
  const data = form.data.trim() === '' ? null : literal(parseDocumentData(form.data));
  const absent = editing ? null : undefined;
  return objectExpr({
    name,
    // null on create too: history kept forever, not the default 30 days.
    history_days: historyDays,
    ttl_days: ttlDays ?? absent,
    data: data ?? absent,
    permissions: form.permissions ?? absent,
  });
}

/** The fields of the edit dialog for a collection as Get answers it. */
export function collectionForm(collection: JsonValue): Omit<CollectionForm, 'permissions'> & { permissions: string } {
  const text = (v: JsonValue | undefined) => (typeof v === 'bigint' || typeof v === 'number' ? String(v) : '');
  const data = field(collection, 'data');
  const permissions = field(collection, 'permissions');
  return {
    name: String(field(collection, 'name') ?? ''),
    historyDays: text(field(collection, 'history_days')),
    ttlDays: text(field(collection, 'ttl_days')),
    data: data instanceof Map ? prettyJson(data) : '',
    // In the driver's syntax, as the field reads it back (a role as Role("x"), a lambda as Query(Lambda(…))).
    permissions: permissions instanceof Map ? renderValue(permissions) : '',
  };
}
