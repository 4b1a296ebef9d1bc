// Browsing an index: one input per term, a page of the Match's entries (its values, or the refs of
// the documents when it has none), next/previous with the page's cursors, and any entry's document
// read with Get. An index without terms browses all its entries.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { attempt, show } from './messages';
import { describeField, termValue } from './indexDefs';
import { getRef, matchPage } from './indexQueries';
import { showPager } from './pager';
import type { Cursor } from './queries';
import { field, pageItems } from './values';
import { valueTree } from './valueTree';

const PAGE_SIZE = 20;

/** The document ref of an entry: the entry itself (no values), or the first ref among its values. */
function entryRef(entry: JsonValue): JsonValue | undefined {
  if (field(entry, '@ref') !== undefined) return entry;
  return Array.isArray(entry) ? entry.find((v) => field(v, '@ref') !== undefined) : undefined;
}

export interface IndexBrowser {
  readonly element: HTMLElement;
  /** Shows the browser for `index` (its document, as Get answers it) in `client`'s database. */
  open(client: FloraClient, index: JsonValue): void;
  close(): void;
}

export function indexBrowser(): IndexBrowser {
  const title = h('h3', {});
  const inputs = h('div', { class: 'terms' });
  const form = h('form', { id: 'browse-index' }, inputs, h('button', { type: 'submit' }, 'Show entries'));
  const box = h('div', { class: 'messages' });
  const table = h('table', { id: 'index-entries' });
  const pager = h('div', { class: 'pager' });
  const doc = h('div', { id: 'index-entry-document' });
  const element = h('section', { id: 'index-browser', hidden: true }, title, form, box, table, pager, doc);
  let client: FloraClient | undefined;
  let name = '';
  let terms: JsonValue[] = [];

  const showPage = async (cursor: Cursor) => {
    const c = client!;
    const index = name;
    const page = await attempt(box, `read the entries of ${index}`, () => c.query(matchPage(index, terms, PAGE_SIZE, cursor)));
    if (!page) return;
    const entries = pageItems(page.value);
    replace(
      table,
      h('thead', {}, h('tr', {}, h('th', {}, 'entry'), h('th', {}))),
      h('tbody', {}, ...entries.map((entry) => {
        const ref = entryRef(entry);
        const get = ref !== undefined && h('button', { type: 'button', class: 'get', onclick: () => void read(ref) }, 'Get');
        return h('tr', {}, h('td', {}, renderValue(entry, { width: 1e9 })), h('td', {}, get));
      })),
    );
    if (entries.length === 0) table.append(h('caption', {}, terms.length ? 'No entries match these terms.' : 'The index has no entries.'));
    showPager(pager, page.value, { previous: 'entries-previous', next: 'entries-next' }, (cursor) => void showPage(cursor));
  };

  const read = async (ref: JsonValue) => {
    const answer = await attempt(box, 'read the document', () => client!.query(getRef(ref)));
    if (answer) replace(doc, valueTree(answer.value));
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    try {
      terms = [...inputs.querySelectorAll('input')].map((input) => termValue(input.value, input.dataset.label ?? 'the term'));
    } catch (err) {
      show(box, (err as Error).message);
      return;
    }
    replace(doc);
    void showPage({});
  });

  return {
    element,
    open(c, index) {
      client = c;
      name = String(field(index, 'name'));
      terms = [];
      const specs = field(index, 'terms');
      const list = Array.isArray(specs) ? specs : [];
      title.textContent = `Browse ${name}`;
      replace(
        inputs,
        ...list.map((spec, i) => {
          const label = `term ${i + 1} (${describeField(spec)})`;
          const input = h('input', { id: `browse-term-${i}`, 'data-label': label, placeholder: '"tea", 3 or ["a"]' });
          return h('label', {}, `${label} `, input);
        }),
      );
      if (list.length === 0) inputs.append(h('p', { class: 'hint' }, 'This index has no terms: it lists all its entries.'));
      replace(table);
      replace(pager);
      replace(doc);
      show(box, null);
      element.hidden = false;
      if (list.length === 0) void showPage({});
    },
    close() {
      element.hidden = true;
      client = undefined;
    },
  };
}
