// The Indexes screen's queries: the database's index documents, creating and deleting one, and a
// page of a Match (next/previous with the page's own cursors, as the documents table pages).

import type { JsonValue } from '../wire/expr';
import { fql, type Cursor } from './queries';
import { obj } from './values';

const str = (s: string): string => JSON.stringify(s);

export const listIndexes = (): JsonValue => fql('Map(Paginate(Indexes(), {size: 1000}), Lambda("i", Get(Var("i"))))');
/** CreateIndex with `params` already an expression (indexDefs.indexParams). */
export const createIndex = (params: JsonValue): JsonValue => obj({ create_index: params });
export const deleteIndex = (name: string): JsonValue => fql(`Delete(Index(${str(name)}))`);
/** Get of a ref as an answer holds it (`{"@ref": …}` is also its expression). */
export const getRef = (ref: JsonValue): JsonValue => obj({ get: ref });

/** A page of Match(Index(name), [terms…]): one element per term, so an array term stays one term. */
export function matchPage(name: string, terms: JsonValue[], size: number, cursor: Cursor): JsonValue {
  const match = terms.length ? obj({ match: fql(`Index(${str(name)})`), terms }) : fql(`Match(Index(${str(name)}))`);
  const page = new Map<string, JsonValue>([['paginate', match], ['size', BigInt(size)]]);
  if (cursor.after !== undefined) page.set('after', cursor.after);
  else if (cursor.before !== undefined) page.set('before', cursor.before);
  return page;
}
