// The Indexes tab: the selected database's indexes (sources, terms, values, unique, serialized, and
// whether each is active or still building, with live progress), a form that creates one, deletion
// after a confirmation, and a browser of an index's Match.

import type { JsonValue } from '../wire/expr';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import type { Panel } from './panel';
import { attempt, describeError, show } from './messages';
import { listCollections } from './queries';
import { indexBrowser } from './indexBrowser';
import { progressView, watchBuilds } from './indexBuilds';
import { describeField, indexParams, sourceNames } from './indexDefs';
import { indexForm } from './indexForm';
import { createIndex, deleteIndex, listIndexes } from './indexQueries';
import { field, pageItems, partialListNote, refId } from './values';

const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const yesNo = (v: JsonValue | undefined) => (v === true ? 'yes' : 'no');

export function indexesPanel(): Panel {
  const table = h('table', { id: 'indexes' });
  const box = h('div', { class: 'messages' });
  const browser = indexBrowser();
  let client: FloraClient | undefined;
  /** Bumped on every open and reload: a poll of an older listing stops. */
  let generation = 0;
  /** Inactive indexes seen with no build running: shown as such, not polled again. */
  let stalled = new Set<string>();

  const form = indexForm((filled) => {
    let params: JsonValue;
    try {
      params = indexParams(filled);
    } catch (err) {
      show(box, (err as Error).message);
      return;
    }
    const c = client!;
    void attempt(box, `create index ${filled.name.trim()}`, async () => {
      const { value } = await c.query(createIndex(params));
      form.reset();
      await reload();
      const active = field(value, 'active') === true;
      show(box, `Created index ${String(field(value, 'name'))}${active ? '.' : ': it is being built in the background (progress below).'}`, 'notice');
    });
  });

  const remove = (name: string) => {
    if (!window.confirm(`Delete index ${name}? Its entries are lost, and queries using Index("${name}") fail from now on. The documents stay.`)) return;
    void attempt(box, `delete index ${name}`, async () => {
      await client!.query(deleteIndex(name));
      browser.close();
      await reload();
      show(box, `Deleted index ${name}.`, 'notice');
    });
  };

  const row = (index: JsonValue, building: Map<string, HTMLElement>): HTMLElement => {
    const name = String(field(index, 'name'));
    const active = field(index, 'active') === true;
    const status = h('td', { class: 'status' });
    if (active) status.append('active');
    else if (stalled.has(name)) status.append('not active (no build is running)');
    else {
      status.append(...progressView(undefined));
      building.set(name, status);
    }
    const browse = h('button', { type: 'button', class: 'browse', disabled: !active, title: active ? '' : 'Browsable once built', onclick: () => browser.open(client!, index) }, 'Browse');
    const del = h('button', { type: 'button', class: 'delete', onclick: () => remove(name) }, 'Delete');
    return h(
      'tr',
      { 'data-index': name },
      h('td', {}, name),
      h('td', {}, sourceNames(field(index, 'source')).join(', ')),
      h('td', {}, list(field(index, 'terms')).map(describeField).join(', ')),
      h('td', {}, list(field(index, 'values')).map(describeField).join(', ')),
      h('td', {}, yesNo(field(index, 'unique'))),
      h('td', {}, yesNo(field(index, 'serialized'))),
      status,
      h('td', { class: 'actions' }, browse, del),
    );
  };

  const reload = async () => {
    const c = client!;
    const mine = ++generation;
    const answer = await attempt(box, 'list indexes', () => c.query(listIndexes()));
    if (mine !== generation) return;
    if (!answer) return replace(table);
    const indexes = pageItems(answer.value);
    const building = new Map<string, HTMLElement>();
    replace(
      table,
      h('thead', {}, h('tr', {}, ...['name', 'source', 'terms', 'values', 'unique', 'serialized', 'status', ''].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...indexes.map((index) => row(index, building))),
    );
    if (indexes.length === 0) table.append(h('caption', {}, 'No indexes in this database.'));
    const partial = partialListNote(answer.value, 'indexes');
    if (partial) table.append(h('caption', { class: 'partial' }, partial));
    const alive = () => mine === generation && table.isConnected;
    watchBuilds(c, building, alive, (neverSeen) => {
      // Not building: active now, or (never seen building, and still inactive on reload) stalled.
      for (const name of neverSeen) stalled.add(name);
      void reload();
    }, (message) => show(box, message));
  };

  const open = (c: FloraClient) => {
    client = c;
    stalled = new Set();
    browser.close();
    show(box, null);
    void reload();
    // Said in the source's choices, not in the box: the index list's own error stays readable.
    c.query(listCollections()).then(
      ({ value }) => form.setCollections(pageItems(value).map(refId)),
      (err) => form.setCollections([], describeError(err, 'list collections')),
    );
  };

  const element = h('section', { id: 'indexes-panel', class: 'panel' }, h('h2', {}, 'Indexes'), box, table, browser.element, form.element);
  return { id: 'indexes', label: 'Indexes', element, open };
}
