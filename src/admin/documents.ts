// The selected database's collections, a page of the chosen collection's documents (next/previous
// with the page's cursors), one document as JSON, a form that creates a document from JSON, and the
// collection's FSL.

import type { JsonValue } from '../wire/expr';
import { parseJson } from '../wire/json';
import { renderValue } from '../fqljs/render';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { showCollectionFsl } from './fslViews';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { showPager } from './pager';
import { createDocument, deleteDocument, documentHistory, documentPage, listCollections, replaceDocument, type Cursor } from './queries';
import { field, literal, pageItems, partialListNote, prettyJson, refId } from './values';
import { valueTree } from './valueTree';

const PAGE_SIZE = 20;

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

export function documentsPanel(): Panel {
  const collections = h('ul', { id: 'collections', class: 'list' });
  const table = h('table', { id: 'documents' });
  const pager = h('div', { class: 'pager' });
  const viewer = h('div', { id: 'document-view' });
  const box = h('div', { class: 'messages' });
  const data = h('textarea', { id: 'new-document', rows: '3', spellcheck: 'false', placeholder: '{"name": "value"}' });
  const form = h('form', { id: 'create-document', hidden: true }, h('label', { for: 'new-document' }, 'New document data (JSON)'), data, h('button', { type: 'submit' }, 'Create document'));
  const title = h('h2', {}, 'Collections');
  const fsl = h('div', { id: 'collection-fsl' });
  let client: FloraClient | undefined;
  let collection = '';

  const showPage = async (cursor: Cursor) => {
    const c = client!;
    const coll = collection;
    const page = await attempt(box, `read the documents of ${coll}`, () => c.query(documentPage(coll, PAGE_SIZE, cursor)));
    // Another collection or database chosen meanwhile: its own read draws the table.
    if (!page || coll !== collection || c !== client) return;
    const docs = pageItems(page.value);
    replace(
      table,
      h('thead', {}, h('tr', {}, h('th', {}, 'id'), h('th', {}, 'ts'), h('th', {}, 'data'))),
      h('tbody', {}, ...docs.map((doc) => {
        const row = h('tr', { 'data-id': refId(field(doc, 'ref')), onclick: () => void view(doc) });
        row.append(h('td', {}, refId(field(doc, 'ref'))), h('td', {}, String(field(doc, 'ts'))), h('td', {}, renderValue(field(doc, 'data') ?? null, { width: 1e9 })));
        return row;
      })),
    );
    if (docs.length === 0) table.append(h('caption', {}, 'No documents on this page.'));
    showPager(pager, page.value, { previous: 'previous-page', next: 'next-page' }, (cursor) => void showPage(cursor));
  };

  /** On submit of `form`: `input`'s JSON, checked (a mistake shown, nothing sent), then `write`. */
  const onData = (form: HTMLFormElement, input: HTMLTextAreaElement, action: () => string, write: (data: JsonValue) => Promise<void>) =>
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      let value: JsonValue;
      try {
        value = parseDocumentData(input.value);
      } catch (err) {
        show(box, (err as Error).message);
        return;
      }
      void attempt(box, action(), () => write(value));
    });

  /** After a write: the table read again, the written document opened, and `notice` said. */
  const shown = async (doc: JsonValue, notice: string) => {
    await showPage({});
    await view(doc);
    show(box, notice, 'notice');
  };

  /** One document: its JSON, its history (each version restorable), and its deletion. */
  const view = async (doc: JsonValue) => {
    const c = client!;
    // The document's own collection (its ref's), whatever the table shows by now.
    const coll = refId(field(field(field(doc, 'ref'), '@ref'), 'collection'));
    const id = refId(field(doc, 'ref'));
    const history = h('ol', { id: 'document-history' });
    const remove = h('button', { type: 'button', id: 'delete-document' }, 'Delete document');
    const edited = h('textarea', { id: 'edit-document', rows: '6', spellcheck: 'false' });
    edited.value = prettyJson(field(doc, 'data') ?? new Map());
    const edit = h('form', { id: 'save-document' }, h('label', { for: 'edit-document' }, 'Data (JSON): edit and save to replace it'), edited, h('button', { type: 'submit' }, 'Save'));
    replace(viewer, h('h3', {}, `Document ${id}`), valueTree(doc), edit, remove, h('h3', {}, 'History'), history);
    /** `data` made the document's current version, then shown with `notice`. */
    const replaceWith = async (data: JsonValue, notice: string) => {
      const { value } = await c.query(replaceDocument(coll, id, literal(data)));
      await shown(value, notice);
    };
    onData(edit, edited, () => `save document ${id}`, (data) => replaceWith(data, `Saved document ${id}.`));
    remove.addEventListener('click', () => {
      if (!window.confirm(`Delete document ${id} of ${coll}? Its history stays readable for the collection's history_days.`)) return;
      void attempt(box, `delete document ${id}`, async () => {
        await c.query(deleteDocument(coll, id));
        replace(viewer);
        await showPage({});
        show(box, `Deleted document ${id}.`, 'notice');
      });
    });
    const events = await attempt(box, `read the history of document ${id}`, () => c.query(documentHistory(coll, id)));
    if (!events || !Array.isArray(events.value)) return;
    for (const event of events.value) {
      const [ts, action, data] = Array.isArray(event) ? event : [];
      const restore =
        data instanceof Map &&
        h('button', {
          type: 'button',
          class: 'restore',
          onclick: () =>
            void attempt(box, `restore the version at ${String(ts)}`, () => replaceWith(data, `Restored the version of ${String(ts)} as the current one.`)),
        }, 'Restore');
      history.append(h('li', { 'data-ts': String(ts) }, `${String(ts)} ${String(action)} `, data instanceof Map ? renderValue(data, { width: 1e9 }) : '', restore));
    }
  };

  const openCollection = (name: string) => {
    collection = name;
    title.textContent = `Collection ${name}`;
    for (const b of collections.querySelectorAll('button.collection')) b.classList.toggle('selected', b.textContent === name);
    form.hidden = false;
    replace(viewer);
    void showPage({});
    const c = client!;
    void showCollectionFsl(fsl, c, name, () => collection === name && client === c);
  };

  onData(form, data, () => `create a document in ${collection}`, async (value) => {
    const { value: doc } = await client!.query(createDocument(collection, literal(value)));
    data.value = '';
    await shown(doc, `Created document ${refId(field(doc, 'ref'))}.`);
  });

  /** Reopened in the same database (the tab shown again), the open collection stays open, re-read. */
  const open = (c: FloraClient) => {
    const keep = client !== undefined && client.path.join('/') === c.path.join('/') ? collection : '';
    client = c;
    collection = '';
    title.textContent = 'Collections';
    form.hidden = true;
    replace(table);
    replace(pager);
    replace(viewer);
    replace(fsl);
    void attempt(box, 'list collections', async () => {
      const { value } = await c.query(listCollections());
      const names = pageItems(value).map(refId);
      replace(collections, ...names.map((n) => h('li', {}, h('button', { type: 'button', class: 'collection', onclick: () => openCollection(n) }, n))));
      if (names.length === 0) collections.append(h('li', { class: 'empty' }, 'No collections.'));
      const partial = partialListNote(value, 'collections');
      if (partial) collections.append(h('li', { class: 'partial' }, partial));
      if (names.includes(keep)) openCollection(keep);
    });
  };

  const element = h('section', { id: 'documents-panel', class: 'panel' }, title, collections, box, table, pager, viewer, form, fsl);
  return { id: 'documents', label: 'Collections', element, open };
}
