// Previous/next buttons for a page of a Paginate answer: each shows the page its cursor (the answer's
// `before` or `after`, passed back as it came) names, and is disabled when the answer has none.

import type { JsonValue } from '../wire/expr';
import { h, replace } from './dom';
import type { Cursor } from './queries';
import { field } from './values';

export function showPager(pager: HTMLElement, page: JsonValue, ids: { previous: string; next: string }, go: (cursor: Cursor) => void): void {
  const before = field(page, 'before');
  const after = field(page, 'after');
  replace(
    pager,
    h('button', { type: 'button', id: ids.previous, disabled: before === undefined, onclick: () => go({ before }) }, '← Previous'),
    h('button', { type: 'button', id: ids.next, disabled: after === undefined, onclick: () => go({ after }) }, 'Next →'),
  );
}
