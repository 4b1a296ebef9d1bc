// The dashboard's own queries, written in the driver's syntax and turned into wire JSON by the same
// parser as the query editor; names go in as JSON strings, so any name is safe to splice.

import type { JsonValue } from '../wire/expr';
import { parseFqlJs } from '../fqljs/parse';
import { obj } from './values';

export const fql = parseFqlJs;

/** A name as a JSON string, safe to splice into a query's text. */
export const str = (s: string): string => JSON.stringify(s);

export const listDatabases = (): JsonValue => fql('Paginate(Databases(), {size: 1000})');
export const listCollections = (): JsonValue => fql('Paginate(Collections(), {size: 1000})');
export const createDatabase = (name: string): JsonValue => fql(`CreateDatabase({name: ${str(name)}})`);
export const deleteDatabase = (name: string): JsonValue => fql(`Delete(Database(${str(name)}))`);
// Rename and move (databaseMoves.ts says which moves FQL can make).
export const renameDatabase = (name: string, newName: string): JsonValue => fql(`Update(Database(${str(name)}), {name: ${str(newName)}})`);
/** `Database("c", Database("b", Database("a")))` for the path a/b/c below the query's database. */
function databaseRef(path: readonly string[]): string {
  return path.reduce((inner, name) => `Database(${str(name)}${inner ? `, ${inner}` : ''})`, '');
}

/** Moves the database at `from` into the one at `to` (both paths below the query's database, neither empty). */
export const moveDatabase = (from: readonly string[], to: readonly string[]): JsonValue => fql(`MoveDatabase(${databaseRef(from)}, ${databaseRef(to)})`);
/** What deleting a database loses, counted inside it: [collections, child databases, keys]. */
export const databaseContents = (): JsonValue => fql('[Count(Collections()), Count(Databases()), Count(Keys())]');
/** Every document of a set (a native collection such as Keys()), read whole: one page of 1,000. */
export const everyDocument = (set: string): JsonValue => fql(`Map(Paginate(${set}, {size: 1000}), Lambda("d", Get(Var("d"))))`);
export const listKeys = (): JsonValue => everyDocument('Keys()');
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
  const page = withCursor(fql(`Paginate(Documents(Collection(${str(collection)})), {size: ${size}})`), cursor);
  return obj({ map: fql('Lambda("ref", Get(Var("ref")))'), collection: page });
}

/** A Paginate call (a wire object) given the `after` or `before` of an earlier page, as it came. */
export function withCursor(paginate: JsonValue, cursor: Cursor): JsonValue {
  const page = paginate as Map<string, JsonValue>;
  if (cursor.after !== undefined) page.set('after', cursor.after);
  else if (cursor.before !== undefined) page.set('before', cursor.before);
  return page;
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

export const getCollection = (name: string): JsonValue => fql(`Get(Collection(${str(name)}))`);
/** CreateCollection with `params` already an expression (collectionSettings.collectionParams). */
export const createCollection = (params: JsonValue): JsonValue => obj({ create_collection: params });
/** Update of collection `name` with `params` already an expression. */
export const updateCollection = (name: string, params: JsonValue): JsonValue => obj({ update: fql(`Collection(${str(name)})`), params });
export const deleteCollection = (name: string): JsonValue => fql(`Delete(Collection(${str(name)}))`);
/** Every document of a collection counted (reads them all: run when asked). */
export const countDocuments = (name: string): JsonValue => fql(`Count(Documents(Collection(${str(name)})))`);
