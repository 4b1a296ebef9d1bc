// The Indexes screen's queries: the database's index documents, creating and deleting one, and a
// page of a Match (next/previous with the page's own cursors, as the documents table pages).

import type { JsonValue } from '../wire/expr';
import { everyDocument, fql, str, withCursor, type Cursor } from './queries';
import { obj } from './values';

export const listIndexes = (): JsonValue => everyDocument('Indexes()');
/** CreateIndex with `params` already an expression (indexDefs.indexParams). */
export const createIndex = (params: JsonValue): JsonValue => obj({ create_index: params });
export const deleteIndex = (name: string): JsonValue => fql(`Delete(Index(${str(name)}))`);
/** Get of a ref as an answer holds it (`{"@ref": …}` is also its expression). */
export const getRef = (ref: JsonValue): JsonValue => obj({ get: ref });

/** A page of Match(Index(name), [terms…]): one element per term, so an array term stays one term. */
export function matchPage(name: string, terms: JsonValue[], size: number, cursor: Cursor): JsonValue {
  return withCursor(obj({ paginate: obj({ match: fql(`Index(${str(name)})`), terms }), size: BigInt(size) }), cursor);
}
