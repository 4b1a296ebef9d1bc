// The JSON a user types as a document's (or a collection's) data, read exactly: integers beyond a
// double's precision stay exact, and a mistake is worded with where it is.

import type { JsonValue } from '../wire/expr';
import { parseJson } from '../wire/json';

/** The document JSON a user typed, exact, or an error saying where it is wrong. */
export function parseDocumentData(text: string): JsonValue {
  let data: JsonValue;
  try {
    data = parseJson(text); // exact integers, as the server reads them
  } catch {
    // Only to word the mistake: the browser's message names its position.
    try {
      JSON.parse(text);
    } catch (err) {
      throw new Error(`The data is not valid JSON: ${(err as Error).message}`);
    }
    // Valid JSON the server would refuse: an integer beyond 64 bits.
    throw new Error('The data has an integer outside the 64-bit range (±9223372036854775807): write it as a decimal (1e20) or a string.');
  }
  if (!(data instanceof Map)) throw new Error('The data must be a JSON object ({…}).');
  return data;
}
