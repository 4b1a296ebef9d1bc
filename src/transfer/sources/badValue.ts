// A record that cannot become a document: the reason names the field it is about.

import type { JsonObject, JsonValue } from '../../wire/expr';
import { parseJson } from '../../wire/json';
import { QueryError } from '../../values/errors';
import type { Origin, SourceItem } from './types';

export class BadValue extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(field ? `field ${field}: ${reason}` : reason);
  }
}

/** `path` extended by an object key or array index, as a report shows it (`address.lines[2]`). */
export function fieldPath(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

/** The record's JSON, through the wire parser (64-bit integers kept exact, first duplicate key wins). */
export function parseRecord(text: string): JsonValue {
  try {
    return parseJson(text);
  } catch (err) {
    if (!(err instanceof QueryError)) throw err;
    if (/nesting/.test(err.description)) throw new BadValue('', 'JSON nested deeper than the 1000 levels Fauna allows');
    throw new BadValue('', 'malformed JSON (or an integer beyond 64 bits)');
  }
}

const DIGITS = /^\d{1,19}$/;
const ID_MAX = 2n ** 63n - 1n;

/** Flora's document ids are 64-bit numbers (model/ids.ts): a string of digits that fits one. */
export function checkId(id: unknown, field: string): string {
  if (typeof id === 'bigint' && id >= 0n) id = id.toString();
  if (typeof id !== 'string') throw new BadValue(field, id === undefined ? 'missing' : 'an id must be a string of digits');
  if (!DIGITS.test(id) || BigInt(id) > ID_MAX) throw new BadValue(field, `id "${id}" is not a 64-bit number`);
  return id;
}

/** The record's text as the item `toItem` makes of its JSON object, or the problem (with where) that keeps it from being one. */
export function recordItem(text: string, origin: Origin, toItem: (json: JsonObject) => SourceItem): SourceItem {
  try {
    const json = parseRecord(text);
    if (!(json instanceof Map)) throw new BadValue('', 'not a JSON object');
    return toItem(json);
  } catch (err) {
    const reason = err instanceof BadValue ? err.message : err instanceof QueryError ? err.description : undefined;
    if (reason === undefined) throw err;
    return { kind: 'problem', file: origin.file, line: origin.line, element: origin.element, reason };
  }
}
