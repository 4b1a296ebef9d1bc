// An answer as a tree to fold and unfold: objects and arrays are <details> (three levels open, so
// a page's documents show their fields), and the wire's special values (a ref, a time, a set, a
// lambda…) are leaves printed as the shell prints them: a ref is one thing to the user, not three
// nested objects.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import { h } from './dom';
import { humanTs } from './times';

/** Levels unfolded when the tree is first shown. */
const OPEN_LEVELS = 3;

/** `{"@obj": {...}}` is an object whose keys start with `@`; other `@` keys mark a special value. */
function entriesOf(v: Map<string, JsonValue>): [string, JsonValue][] | null {
  const obj = v.get('@obj');
  if (v.size === 1 && obj instanceof Map) return [...obj];
  if (v.size === 1 && [...v.keys()][0].startsWith('@')) return null;
  return [...v];
}

function leafClass(v: JsonValue): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (v === null || typeof v === 'boolean') return 'literal';
  return 'special';
}

function node(label: string | null, v: JsonValue, depth: number): HTMLElement {
  const key = label === null ? null : h('span', { class: 'key' }, `${label}: `);
  const children: [string, JsonValue][] | null = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : v instanceof Map ? entriesOf(v) : null;
  if (children === null || children.length === 0) {
    // A document's ts (µs) also as a time people read, after the value to copy into At().
    const when = label === 'ts' && typeof v === 'bigint' && h('span', { class: 'when' }, ` (${humanTs(v)})`);
    return h('div', { class: 'leaf' }, key, h('span', { class: leafClass(v) }, renderValue(v, { width: 1e9 })), when);
  }
  const summary = Array.isArray(v) ? `[${children.length} item${children.length === 1 ? '' : 's'}]` : `{${children.length} field${children.length === 1 ? '' : 's'}}`;
  return h(
    'details',
    { open: depth < OPEN_LEVELS },
    h('summary', {}, key, h('span', { class: 'shape' }, summary)),
    ...children.map(([k, x]) => node(k, x, depth + 1)),
  );
}

/** The tree of `v` (the answer's `resource`, exact: objects as Maps, integers as bigints). */
export function valueTree(v: JsonValue): HTMLElement {
  return h('div', { class: 'value-tree' }, node(null, v, 0));
}
