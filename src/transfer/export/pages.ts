// Reads a set page by page at the snapshot time: one query per page, the next one starting at the
// page's `after` cursor, so that only one page is ever held.

import { encodeJson } from '../../wire/encode';
import type { JsonValue } from '../../wire/expr';
import { parseIsoTime } from '../../wire/time';
import type { QueryClient } from './client';
import { at, NOW } from './fql';

/** Pages of 1000: large enough that queries are few, small enough that one page stays a few MiB. */
export const PAGE_SIZE = 1000;

/** `pageQuery(after)` is a Paginate (possibly under Map or Filter) starting at `after`; yields each page's data. */
export async function* pagesAt(client: QueryClient, ts: bigint, pageQuery: (after?: JsonValue) => string): AsyncGenerator<JsonValue[]> {
  let after: JsonValue | undefined;
  for (;;) {
    const page = await client.query(at(ts, pageQuery(after)));
    if (!(page instanceof Map) || !Array.isArray(page.get('data'))) throw new Error(`expected a page, got ${encodeJson(page).slice(0, 200)}`);
    yield page.get('data') as JsonValue[];
    if (!page.has('after')) return;
    after = page.get('after')!;
  }
}

/** A field of a wire object (a document as Get returned it). */
export function field(j: JsonValue, key: string): JsonValue | undefined {
  return j instanceof Map ? j.get(key) : undefined;
}

/** The name of a schema document (`name`), for the collections and databases an export walks into. */
export function nameOf(doc: JsonValue): string {
  const name = field(doc, 'name');
  if (typeof name !== 'string') throw new Error('a schema document without a name');
  return name;
}

/** Reads the snapshot time T of the export: the server's `Now()` as microseconds. */
export async function snapshotTime(client: QueryClient): Promise<bigint> {
  const t = await client.query(NOW);
  const iso = field(t, '@ts');
  if (typeof iso !== 'string') throw new Error('Now() did not answer a time');
  const nanos = parseIsoTime(iso);
  if (nanos === undefined) throw new Error(`Now() answered ${iso}, not a time`);
  return nanos / 1000n;
}
