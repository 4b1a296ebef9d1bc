// The JSON of a GraphQL request (body, or the `variables` parameter of a GET) → plain JS values.
// Integers stay exact (a Long variable keeps all 64 bits); an integer beyond the 64-bit range, which
// the FQL parser refuses, is read as a double, so that the variable it is given to answers with a
// GraphQL error of its own (Long and Int refuse it, Float takes it) instead of the whole body failing.

import { QueryError } from '../values/errors';
import { LONG_MAX, LONG_MIN } from '../values/types';
import type { JsonValue } from '../wire/expr';
import { loopPacer, parseJson, parseJsonSliced } from '../wire/json';

/** The text is not usable JSON; the message says why (for the client). */
export class RequestJsonError extends Error {}

/** Bodies longer than this are parsed a slice of `sliceMs` at a time (the event loop is not held). */
const SLICED_FROM = 64 * 1024;

export async function parseRequestJson(text: string, sliceMs: number): Promise<unknown> {
  const parse = (t: string): Promise<JsonValue> =>
    t.length <= SLICED_FROM ? Promise.resolve(parseJson(t)) : parseJsonSliced(t, loopPacer(sliceMs));
  try {
    return plain(await parse(text));
  } catch (e) {
    if (!(e instanceof QueryError)) throw e;
    const widened = widenHugeIntegers(text);
    if (widened === text) throw new RequestJsonError(e.description);
    try {
      return plain(await parse(widened));
    } catch (again) {
      if (!(again instanceof QueryError)) throw again;
      throw new RequestJsonError(again.description);
    }
  }
}

/** JSON with exact integers: numbers beyond 2^53 stay bigints (for Long), objects become plain. */
function plain(j: JsonValue): unknown {
  if (typeof j === 'bigint') return Number.isSafeInteger(Number(j)) ? Number(j) : j;
  if (Array.isArray(j)) return j.map(plain);
  if (j instanceof Map) {
    const out: Record<string, unknown> = {};
    // defineProperty: a `__proto__` key is data, not the object's prototype.
    for (const [k, v] of j) Object.defineProperty(out, k, { value: plain(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return j;
}

const NUMBER = /-?\d+([.eE][-+\d.eE]*)?/y;

/** Marks integer literals outside the 64-bit range as doubles (`…` → `….0`); strings are skipped. */
function widenHugeIntegers(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i += text.charCodeAt(i) === 92 /* \ */ ? 2 : 1);
      i++;
      continue;
    }
    NUMBER.lastIndex = i;
    const m = c === 45 || (c >= 48 && c <= 57) ? NUMBER.exec(text) : null;
    if (!m) {
      i++;
      continue;
    }
    const end = i + m[0].length;
    if (m[1] === undefined) {
      const n = BigInt(m[0]);
      if (n < LONG_MIN || n > LONG_MAX) {
        out += text.slice(from, end) + '.0';
        from = end;
      }
    }
    i = end;
  }
  return out + text.slice(from);
}
