// Narrowing a collection's documents through one of its indexes: the indexes that can (one source,
// this collection; terms; entries that are the documents' refs or hold one among their values),
// the page query (Match with the typed terms, each entry's document read with Get), and the terms
// as typed (a bare word is a string, so `tea` works as well as `"tea"`).

import type { JsonValue } from '../wire/expr';
import { parseJson } from '../wire/json';
import { describeField, sourceNames, termValue } from './indexDefs';
import { matchPage } from './indexQueries';
import { fql, type Cursor } from './queries';
import { field, literal, obj } from './values';

export interface IndexFilter {
  name: string;
  /** What each term reads (`data.item`, `binding by_year`). */
  terms: string[];
  /** Where an entry's ref is among its values; null when the entry is the ref (no values). */
  refAt: number | null;
}

/** The indexes (documents as Get answers them) that can filter `collection`'s documents. */
export function indexFilters(indexes: readonly JsonValue[], collection: string): IndexFilter[] {
  const out: IndexFilter[] = [];
  for (const index of indexes) {
    const sources = sourceNames(field(index, 'source'));
    const terms = field(index, 'terms');
    if (sources.length !== 1 || sources[0] !== collection || !Array.isArray(terms) || terms.length === 0) continue;
    const values = field(index, 'values');
    let refAt: number | null = null;
    if (Array.isArray(values) && values.length > 0) {
      refAt = values.findIndex((v) => {
        const path = field(v, 'field');
        return (Array.isArray(path) && path.length === 1 && path[0] === 'ref') || path === 'ref';
      });
      if (refAt < 0) continue; // its entries do not say which document they are
    }
    out.push({ name: String(field(index, 'name')), terms: terms.map(describeField), refAt });
  }
  return out;
}

/** A typed term: JSON, an FQL expression, or else (a bare word, `tea`) the text as a string. */
export function filterTerm(text: string, label: string): JsonValue {
  const t = text.trim();
  try {
    return literal(parseJson(t));
  } catch {
    // not JSON
  }
  if (t !== '' && /^[^"'[{(]*$/.test(t)) return t;
  return termValue(text, label);
}

/** A page of the documents whose index entries match `terms`, each read whole. */
export function filteredPage(filter: IndexFilter, terms: JsonValue[], size: number, cursor: Cursor): JsonValue {
  const doc = filter.refAt === null ? 'Var("e")' : `Select(${filter.refAt}, Var("e"))`;
  return obj({ map: fql(`Lambda("e", Get(${doc}))`), collection: matchPage(filter.name, terms, size, cursor) });
}

/** Counts the matches of `terms` (reads every entry: asked for, not done with each page). */
export const countFiltered = (filter: IndexFilter, terms: JsonValue[]): JsonValue => obj({ count: obj({ match: fql(`Index(${JSON.stringify(filter.name)})`), terms }) });
