// `Let` bindings as Fauna renders them inside a lambda: one object, bindings in order, whether they
// were sent as an object or as an array of one-key objects (Expression.scala LetE.literal;
// DECISIONS #16: the driver's let/var test expects `{let: {x: 1, y: 2}}` back).
//
// A lambda keeps the JSON it was sent as; this walks that JSON in expression position and rewrites
// only `let` forms. Literal data (`quote`, `@ref`, `@query`, … escapes) is left alone, and so is the
// payload object of `{"object": …}` (its keys are data, its values expressions).

import type { JsonObject, JsonValue } from './expr';

/** The bindings of a `let` form's array, or undefined when they cannot be one object faithfully. */
function bindingsAsObject(list: JsonValue[]): JsonObject | undefined {
  const out: JsonObject = new Map();
  for (const item of list) {
    if (!(item instanceof Map)) return undefined;
    for (const [name, e] of item) {
      // A repeated name rebinds (sequential semantics an object cannot hold); an `@` name would read
      // back as an escape.
      if (out.has(name) || name.startsWith('@')) return undefined;
      out.set(name, letsAsObjects(e));
    }
  }
  return out;
}

function mapValues(o: JsonObject): JsonObject {
  let changed = false;
  const out: JsonObject = new Map();
  for (const [k, v] of o) {
    const w = letsAsObjects(v);
    if (w !== v) changed = true;
    out.set(k, w);
  }
  return changed ? out : o;
}

/** `json` (an expression) with every `let` form's bindings as one object; unchanged input is returned as is. */
export function letsAsObjects(json: JsonValue): JsonValue {
  if (Array.isArray(json)) {
    const out = json.map(letsAsObjects);
    return out.some((v, i) => v !== json[i]) ? out : json;
  }
  if (!(json instanceof Map)) return json;
  if (json.size === 1) {
    const [key, inner] = json.entries().next().value as [string, JsonValue];
    if (key === 'quote' || (key.startsWith('@') && key !== '@obj')) return json;
    if (key === 'object' && inner instanceof Map) {
      const escaped = inner.size === 1 && inner.get('@obj') instanceof Map;
      const payload = escaped ? (inner.get('@obj') as JsonObject) : inner;
      const rewritten = mapValues(payload);
      if (rewritten === payload) return json;
      return new Map([['object', escaped ? new Map([['@obj', rewritten]]) : rewritten]]);
    }
  }
  if (json.size === 2 && json.has('let') && json.has('in')) {
    const b = json.get('let')!;
    const bindings = Array.isArray(b) ? (bindingsAsObject(b) ?? letsAsObjects(b)) : letsAsObjects(b);
    return new Map<string, JsonValue>([['let', bindings], ['in', letsAsObjects(json.get('in')!)]]);
  }
  return mapValues(json);
}
