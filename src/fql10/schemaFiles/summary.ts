// A schema diff in the core's `summary` format (DiffRender.renderSummary): one line per item
// added, removed or modified, additions first, then removals, then modifications, each group by
// kind then name, each pointing at `file:line:col` (a removed item where the active files have it).

import type { SchemaItem } from '../fsl/ast';
import type { Span } from '../span';
import { itemKey } from './current';
import type { ItemDiff } from './push';

const CATEGORY = { add: 0, remove: 1, modify: 2 } as const;
const KIND_ORDER = { collection: 0, function: 1, role: 2, 'access provider': 3 } as const;

function where(span: Span): string {
  const text = span.src.text;
  if (text === undefined) return '<no source>';
  const head = text.slice(0, span.start);
  const line = head.split('\n').length;
  const col = span.start - (head.lastIndexOf('\n') + 1) + 1;
  return `${span.src.name}:${line}:${col}`;
}

/** `active`: the items of the files the database answers now (for where removed ones were). */
export function renderSummary(diffs: ReadonlyArray<ItemDiff>, active: ReadonlyArray<SchemaItem>): string {
  const before = new Map(active.map((i) => [itemKey(i), i]));
  const sorted = [...diffs].sort(
    (a, b) => CATEGORY[a.kind] - CATEGORY[b.kind] || KIND_ORDER[a.item.kind] - KIND_ORDER[b.item.kind] || (a.item.name.str < b.item.name.str ? -1 : a.item.name.str > b.item.name.str ? 1 : 0),
  );
  let out = '';
  for (const d of sorted) {
    const title = `${d.item.kind} \`${d.item.name.str}\``;
    const was = before.get(itemKey(d.item))?.span;
    if (d.kind === 'add') out += `* Adding ${title} to ${where(d.item.span)}\n`;
    else if (d.kind === 'remove') out += `* Removing ${title} from ${was === undefined ? '<no source>' : where(was)}\n`;
    else {
      out += `* Modifying ${title} at ${where(d.item.span)}`;
      if (was !== undefined && was.src.name !== d.item.span.src.name) out += ` (previously defined at ${where(was)})`;
      out += '\n';
    }
  }
  return out;
}
