// The JSON text of a wire tree exactly as the driver's `JSON.stringify` writes it: numbers as
// JavaScript prints them (so a Double keeps its fraction or exponent), strings escaped the same way.

import type { JsonValue } from '../wire/expr';

export function wireText(v: JsonValue): string {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(v);
    case 'bigint':
      return v.toString();
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) return '[' + v.map(wireText).join(',') + ']';
  let out = '';
  for (const [k, item] of v) out += (out ? ',' : '') + JSON.stringify(k) + ':' + wireText(item);
  return '{' + out + '}';
}
