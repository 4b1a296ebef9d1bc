// The Collections tab: the selected database's collections (New collection; the open one's menu
// edits its settings or deletes it), the open collection's documents as a grid (documentGrid.ts)
// a page at a time, narrowed through one of its indexes, with the page's place and a count where
// it costs nothing; a document opened from its row (tree, raw JSON, edit, delete, history); New
// document in a dialog; the collection's FSL.

import type { JsonValue } from '../wire/expr';
import { renderValue } from '../fqljs/render';
import type { FloraClient } from './client';
import { collectionDialog, deleteCollectionConfirmed } from './collectionDialogs';
import { parseDocumentData } from './dataJson';
import { labelled, openDialog } from './dialog';
import { documentGrid } from './documentGrid';
import { countFiltered, filteredPage, filterTerm, indexFilters, type IndexFilter } from './documentFilters';
import { h, replace } from './dom';
import { showCollectionFsl } from './fslViews';
import { listIndexes } from './indexQueries';
import { menu } from './menu';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { showPager } from './pager';
import { countDocuments, createDocument, deleteDocument, documentHistory, documentPage, getCollection, listCollections, replaceDocument, type Cursor } from './queries';
import { humanTs, tsElement } from './times';
import { field, literal, pageItems, partialListNote, prettyJson, refId } from './values';
import { valueTree } from './valueTree';

const PAGE_SIZE = 20;

export function documentsPanel(): Panel {
  const collections = h('ul', { id: 'collections', class: 'list' });
  const newCollection = h('button', { type: 'button', id: 'new-collection', onclick: () => collectionDialog(element, client!, null, written) }, 'New collection');
  const box = h('div', { class: 'messages' });
  const title = h('h2', {});
  const count = h('span', { id: 'document-count', class: 'count' });
  const addDocument = h('button', { type: 'button', id: 'add-document', onclick: () => newDocumentDialog() }, 'New document');
  const actions = menu('collection-actions', 'Collection', [
    { id: 'edit-collection-open', label: 'Edit settings…', run: () => void editCollection() },
    { id: 'delete-collection', label: 'Delete collection…', danger: true, run: () => void deleteCollectionConfirmed(box, client!, collection, written) },
  ]);
  const filterIndex = h('select', { id: 'filter-index', 'aria-label': 'Filter through an index' });
  const filterTerms = h('span', { class: 'terms' });
  const filterForm = h('form', { id: 'document-filter', class: 'filters' }, filterIndex, filterTerms, h('button', { type: 'submit' }, 'Filter'));
  const filterHint = h('p', { class: 'hint', id: 'document-filter-hint' });
  const grid = documentGrid((doc) => void view(doc));
  const range = h('span', { id: 'page-range', class: 'count' });
  const pager = h('div', { class: 'pager' });
  const viewer = h('div', { id: 'document-view' });
  const fsl = h('div', { id: 'collection-fsl' });
  const head = h('div', { class: 'panel-head', hidden: true }, title, count, addDocument, actions.element);
  const body = h('div', { hidden: true }, filterForm, filterHint, h('div', { class: 'grid-scroll' }, grid.element), h('div', { class: 'pager-row' }, pager, range), viewer, fsl);
  let client: FloraClient | undefined;
  let collection = '';
  let filters: IndexFilter[] = [];
  /** The filter applied to the grid and its terms; null for every document. */
  let applied: { filter: IndexFilter; terms: JsonValue[] } | null = null;
  /** The shown page's place in the list: its first row's offset and its size. */
  let offset = 0;
  let shownSize = 0;

  /** Reads and draws a page; `step` says where it is relative to the one shown. */
  const showPage = async (cursor: Cursor, step: 'first' | 'next' | 'previous') => {
    const c = client!;
    const coll = collection;
    const filter = applied;
    const query = filter ? filteredPage(filter.filter, filter.terms, PAGE_SIZE, cursor) : documentPage(coll, PAGE_SIZE, cursor);
    const page = await attempt(box, `read the documents of ${coll}`, () => c.query(query));
    // Another collection, filter or database chosen meanwhile: its own read draws the grid.
    if (!page || coll !== collection || c !== client || filter !== applied) return;
    const docs = pageItems(page.value);
    const before = field(page.value, 'before');
    const after = field(page.value, 'after');
    offset = step === 'first' || before === undefined ? 0 : step === 'next' ? offset + shownSize : Math.max(0, offset - docs.length);
    shownSize = docs.length;
    const empty = filter ? 'No documents match these terms: try other values, or All documents.' : offset === 0 ? 'No documents yet: add one with New document.' : 'No documents on this page.';
    grid.show(docs, empty);
    showPager(pager, page.value, { previous: 'previous-page', next: 'next-page' }, (cursor) => void showPage(cursor, cursor.after !== undefined ? 'next' : 'previous'));
    const noun = filter ? 'matching document' : 'document';
    if (offset === 0 && after === undefined) {
      // The whole list is this page: its count is known.
      replace(count, `${docs.length} ${noun}${docs.length === 1 ? '' : 's'}`);
      replace(range);
    } else {
      replace(range, docs.length ? `${offset + 1}–${offset + docs.length}` : '');
      if (!count.querySelector('button') && !/^\d/.test(count.textContent ?? '')) replace(count, countButton());
    }
  };
  /** Counting reads every document (or index entry), so it is asked for rather than done for each page. */
  const countButton = () =>
    h('button', {
      type: 'button',
      id: 'count-documents',
      title: 'Reads every entry to count them',
      onclick: () => {
        const c = client!;
        const filter = applied;
        void attempt(box, `count the documents of ${collection}`, async () => {
          const { value } = await c.query(filter ? countFiltered(filter.filter, filter.terms) : countDocuments(collection));
          if (c === client && filter === applied) replace(count, `${String(value)} ${filter ? 'matching document' : 'document'}${value === 1n ? '' : 's'}`);
        });
      },
    }, 'Count');
  /** The grid from its first page (a new collection or filter). */
  const firstPage = () => {
    replace(pager);
    replace(count);
    replace(range);
    replace(viewer);
    void showPage({}, 'first');
  };

  const showFilters = () => {
    replace(filterIndex, h('option', { value: '' }, 'All documents'), ...filters.map((f) => h('option', { value: f.name }, `by ${f.name} (${f.terms.join(', ')})`)));
    filterForm.hidden = filters.length === 0;
    filterHint.textContent = filters.length ? '' : `To filter the documents of ${collection}, create an index on it with terms (Indexes tab): it is offered here.`;
    replace(filterTerms);
  };
  filterIndex.addEventListener('change', () => {
    const f = filters.find((x) => x.name === filterIndex.value);
    replace(filterTerms, ...(f?.terms ?? []).map((t, i) => h('input', { id: `filter-term-${i}`, 'aria-label': t, placeholder: `${t}, e.g. tea or 3`, autocomplete: 'off' })));
    if (!f && applied) {
      applied = null;
      firstPage();
    }
    filterTerms.querySelector('input')?.focus();
  });
  filterForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = filters.find((x) => x.name === filterIndex.value);
    if (!f) {
      applied = null;
      return firstPage();
    }
    try {
      const terms = [...filterTerms.querySelectorAll('input')].map((input, i) => filterTerm(input.value, f.terms[i]));
      applied = { filter: f, terms };
    } catch (err) {
      return show(box, (err as Error).message);
    }
    show(box, null);
    firstPage();
  });

  /** The dialog that adds a document to the open collection. */
  const newDocumentDialog = () => {
    const c = client!;
    const coll = collection;
    const data = h('textarea', { id: 'new-document', rows: '6', spellcheck: 'false', placeholder: '{"name": "value"}' });
    openDialog({
      id: 'create-document',
      title: `New document in ${coll}`,
      body: [labelled('new-document', 'Data (JSON)', data, 'An object: its fields become the grid\'s columns.')],
      submit: 'Create document',
      run: async (dialogBox) => {
        let value: JsonValue;
        try {
          value = parseDocumentData(data.value);
        } catch (err) {
          show(dialogBox, (err as Error).message);
          return false;
        }
        const made = await attempt(dialogBox, `create a document in ${coll}`, () => c.query(createDocument(coll, literal(value))));
        if (!made) return false;
        await shown(made.value, `Created document ${refId(field(made.value, 'ref'))}.`);
        return true;
      },
    }, element);
  };

  /** After a write: the grid read again, the written document opened, and `notice` said. */
  const shown = async (doc: JsonValue, notice: string) => {
    await showPage({}, 'first');
    await view(doc);
    show(box, notice, 'notice');
  };

  /** One document: its tree and raw JSON, its data to edit, its history (each version restorable), and its deletion. */
  const view = async (doc: JsonValue) => {
    const c = client!;
    // The document's own collection (its ref's), whatever the grid shows by now.
    const coll = refId(field(field(field(doc, 'ref'), '@ref'), 'collection'));
    const id = refId(field(doc, 'ref'));
    const history = h('ol', { id: 'document-history' });
    const remove = h('button', { type: 'button', id: 'delete-document', class: 'danger' }, 'Delete document');
    const edited = h('textarea', { id: 'edit-document', rows: '6', spellcheck: 'false' });
    edited.value = prettyJson(field(doc, 'data') ?? new Map());
    const edit = h('form', { id: 'save-document' }, h('label', { for: 'edit-document' }, 'Data (JSON): edit and save to replace it'), edited, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save'), remove));
    replace(
      viewer,
      h('h3', {}, `Document ${id} `, h('span', { class: 'muted' }, 'last written '), tsElement(field(doc, 'ts'))),
      h('div', { class: 'document-views' }, valueTree(doc), h('pre', { id: 'document-json', class: 'json' }, prettyJson(doc))),
      edit,
      h('h3', {}, 'History'),
      history,
    );
    /** `data` made the document's current version, then shown with `notice`. */
    const replaceWith = async (data: JsonValue, notice: string) => {
      const { value } = await c.query(replaceDocument(coll, id, literal(data)));
      await shown(value, notice);
    };
    edit.addEventListener('submit', (ev) => {
      ev.preventDefault();
      let value: JsonValue;
      try {
        value = parseDocumentData(edited.value);
      } catch (err) {
        return show(box, (err as Error).message);
      }
      void attempt(box, `save document ${id}`, () => replaceWith(value, `Saved document ${id}.`));
    });
    remove.addEventListener('click', () => {
      if (!window.confirm(`Delete document ${id} of ${coll}? Its history stays readable for the collection's history_days.`)) return;
      void attempt(box, `delete document ${id}`, async () => {
        await c.query(deleteDocument(coll, id));
        replace(viewer);
        await showPage({}, 'first');
        show(box, `Deleted document ${id}.`, 'notice');
      });
    });
    const events = await attempt(box, `read the history of document ${id}`, () => c.query(documentHistory(coll, id)));
    if (!events || !Array.isArray(events.value)) return;
    for (const event of events.value) {
      const [ts, action, data] = Array.isArray(event) ? event : [];
      const when = humanTs(ts);
      const restore =
        data instanceof Map &&
        h('button', {
          type: 'button',
          class: 'restore',
          onclick: () => void attempt(box, `restore the version of ${when}`, () => replaceWith(data, `Restored the version of ${when} as the current one.`)),
        }, 'Restore');
      history.append(h('li', { 'data-ts': String(ts) }, tsElement(ts), ` ${String(action)} `, data instanceof Map ? renderValue(data, { width: 1e9 }) : '', restore));
    }
  };

  const openCollection = (name: string) => {
    collection = name;
    applied = null;
    title.textContent = `Collection ${name}`;
    for (const b of collections.querySelectorAll('button.collection')) b.classList.toggle('selected', b.textContent === name);
    head.hidden = body.hidden = false;
    grid.reset();
    filters = [];
    showFilters();
    firstPage();
    const c = client!;
    const still = () => collection === name && client === c;
    void showCollectionFsl(fsl, c, name, still);
    // The indexes that can narrow the grid; without them the hint says how to get one.
    void c.query(listIndexes()).then(
      ({ value }) => {
        if (!still()) return;
        filters = indexFilters(pageItems(value), name);
        showFilters();
      },
      () => still() && (filterHint.textContent = ''), // a role that may not read indexes: no filter offered
    );
  };

  const editCollection = async () => {
    const c = client!;
    const got = await attempt(box, `read collection ${collection}`, () => c.query(getCollection(collection)));
    if (got) collectionDialog(element, c, got.value, written);
  };

  /** After a collection was created, edited or deleted: the list read again, `name` opened. */
  function written(name: string, notice: string): void {
    void readCollections(client!, name).then(() => show(box, notice, 'notice'));
  }

  const readCollections = (c: FloraClient, keep: string) =>
    attempt(box, 'list collections', async () => {
      const { value } = await c.query(listCollections());
      if (c !== client) return;
      const names = pageItems(value).map(refId);
      replace(collections, ...names.map((n) => h('li', {}, h('button', { type: 'button', class: 'collection', onclick: () => openCollection(n) }, n))));
      if (names.length === 0) collections.append(h('li', { class: 'empty' }, 'No collections yet: create one with New collection.'));
      const partial = partialListNote(value, 'collections');
      if (partial) collections.append(h('li', { class: 'partial' }, partial));
      if (names.includes(keep)) openCollection(keep);
      else closeCollection();
    });

  const closeCollection = () => {
    collection = '';
    applied = null;
    head.hidden = body.hidden = true;
    grid.reset();
    replace(pager);
    replace(viewer);
    replace(fsl);
  };

  /** Reopened in the same database (the tab shown again), the open collection stays open, re-read. */
  const open = (c: FloraClient) => {
    const keep = client !== undefined && client.path.join('/') === c.path.join('/') ? collection : '';
    client = c;
    closeCollection();
    show(box, null);
    void readCollections(c, keep);
  };

  const element = h(
    'section',
    { id: 'documents-panel', class: 'panel' },
    h('div', { class: 'panel-head' }, h('h2', {}, 'Collections'), newCollection),
    collections,
    box,
    head,
    body,
  );
  return { id: 'documents', label: 'Collections', element, open };
}
