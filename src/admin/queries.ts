// The dashboard's own queries, written in the driver's syntax and turned into wire JSON by the same
// parser as the query editor; names go in as JSON strings, so any name is safe to splice.

import type { JsonValue } from '../wire/expr';
import { parseFqlJs } from '../fqljs/parse';
import { obj } from './values';

export const fql = parseFqlJs;

const str = (s: string): string => JSON.stringify(s);

export const listDatabases = (): JsonValue => fql('Paginate(Databases(), {size: 1000})');
export const listCollections = (): JsonValue => fql('Paginate(Collections(), {size: 1000})');
export const createDatabase = (name: string): JsonValue => fql(`CreateDatabase({name: ${str(name)}})`);
export const deleteDatabase = (name: string): JsonValue => fql(`Delete(Database(${str(name)}))`);
/** What deleting a database loses, counted inside it: [collections, child databases, keys]. */
export const databaseContents = (): JsonValue => fql('[Count(Collections()), Count(Databases()), Count(Keys())]');
export const listKeys = (): JsonValue => fql('Map(Paginate(Keys(), {size: 1000}), Lambda("k", Get(Var("k"))))');
export const revokeKey = (id: string): JsonValue => fql(`Delete(Ref(Keys(), ${str(id)}))`);
/** CreateKey with a role (a built-in's name or a Role ref, as a rolePicker gives it), named in its data when a name is given. */
export function createKey(role: JsonValue, name: string): JsonValue {
  return obj({ create_key: obj({ object: obj({ role, ...(name ? { data: obj({ object: obj({ name }) }) } : {}) }) }) });
}

export interface Cursor {
  after?: JsonValue;
  before?: JsonValue;
}

/** A page of a collection's documents, read whole; the cursor is the `after`/`before` of an earlier page, as it came. */
export function documentPage(collection: string, size: number, cursor: Cursor): JsonValue {
  const page = fql(`Paginate(Documents(Collection(${str(collection)})), {size: ${size}})`) as Map<string, JsonValue>;
  if (cursor.after !== undefined) page.set('after', cursor.after);
  else if (cursor.before !== undefined) page.set('before', cursor.before);
  return obj({ map: fql('Lambda("ref", Get(Var("ref")))'), collection: page });
}

const docRef = (collection: string, id: string) => `Ref(Collection(${str(collection)}), ${str(id)})`;

/** A document's history: [ts, action, that version's whole data or null] per event, oldest first. */
export function documentHistory(collection: string, id: string): JsonValue {
  const ref = docRef(collection, id);
  return fql(
    `Map(Select("data", Paginate(Events(${ref}), {size: 1000})), Lambda("e", Let({ts: Select("ts", Var("e")), action: Select("action", Var("e"))}, ` +
      `[Var("ts"), Var("action"), If(Exists(${ref}, Var("ts")), Select("data", Get(${ref}, Var("ts")), null), null)])))`,
  );
}

export const deleteDocument = (collection: string, id: string): JsonValue => fql(`Delete(${docRef(collection, id)})`);

/** Replace(ref, {data}) with `data` already a literal expression: a past version made the current one. */
export function replaceDocument(collection: string, id: string, data: JsonValue): JsonValue {
  return obj({ replace: fql(docRef(collection, id)), params: obj({ object: obj({ data }) }) });
}

/** Create(Collection(name), {data}) with `data` already a literal expression. */
export function createDocument(collection: string, data: JsonValue): JsonValue {
  return obj({ create: fql(`Collection(${str(collection)})`), params: obj({ object: obj({ data }) }) });
}
