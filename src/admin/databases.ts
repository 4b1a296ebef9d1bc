// The databases tree: every database the key can see, read level by level with secrets scoped to
// each child (`secret:a/b:admin`); New database (a child of the selected one, selected once made)
// and the selected one's menu (rename, move into another database, delete), each a dialog.

import type { FloraClient } from './client';
import { h, replace } from './dom';
import { labelled, openDialog } from './dialog';
import { menu } from './menu';
import { planMove, renameProblem } from './databaseMoves';
import { attempt, show } from './messages';
import { createDatabase, databaseContents, deleteDatabase, listDatabases, moveDatabase, renameDatabase } from './queries';
import { pageItems, partialListNote, pathLabel, refId } from './values';

export interface DatabaseNode {
  path: string[];
  children: DatabaseNode[];
  /** Set when the level has more databases than the one page read: the line saying so. */
  partial?: string;
}

/** The tree below `path` (read recursively; each level is one query in that database). */
export async function readTree(client: FloraClient, path: string[] = []): Promise<DatabaseNode> {
  const { value } = await client.in(path).query(listDatabases());
  const names = pageItems(value).map(refId).filter((n) => n !== '');
  const children = await Promise.all(names.map((name) => readTree(client, [...path, name])));
  const partial = partialListNote(value, 'databases');
  return partial ? { path, children, partial } : { path, children };
}

export function databasesPanel(client: FloraClient, selected: (path: string[]) => void): HTMLElement {
  const tree = h('ul', { id: 'db-tree', class: 'tree' });
  const box = h('div', { class: 'messages' });
  let current: string[] = [];
  let root: DatabaseNode = { path: [], children: [] };
  const actions = menu('db-actions', 'Actions', [
    { id: 'rename-db-open', label: 'Rename…', run: () => renameDialog() },
    { id: 'move-db-open', label: 'Move into…', run: () => moveDialog() },
    { id: 'delete-db', label: 'Delete…', danger: true, run: () => removeCurrent() },
  ]);
  const selectedName = h('span', { id: 'selected-db', class: 'selected-name' });
  const section = h(
    'section',
    { id: 'databases', class: 'panel' },
    h('div', { class: 'panel-head' }, h('h2', {}, 'Databases'), h('button', { type: 'button', id: 'new-db', onclick: () => createDialog() }, 'New database')),
    tree,
    h('div', { class: 'selected-bar' }, selectedName, actions.element),
    box,
  );

  /** The path the screens were last opened for. */
  let opened: string | undefined;
  /**
   * Selects `path`; its screens are (re)opened when it is picked, or when it is another database
   * than they show: reading the tree again leaves them as they are.
   */
  const select = (path: string[], picked = true) => {
    current = path;
    selectedName.textContent = pathLabel(path);
    // The database the secret belongs to is not deleted, renamed or moved from here.
    const why = 'The database the secret belongs to: select one below it.';
    for (const id of ['rename-db-open', 'move-db-open', 'delete-db']) actions.enable(id, path.length > 0, why);
    for (const li of tree.querySelectorAll('[data-path]')) li.classList.toggle('selected', li.getAttribute('data-path') === path.join('/'));
    if (!picked && opened === path.join('/')) return;
    opened = path.join('/');
    selected(path);
  };
  const item = (node: DatabaseNode): HTMLElement => {
    const label = node.path.length === 0 ? '(root)' : node.path[node.path.length - 1];
    const button = h('button', { type: 'button', class: 'db', 'data-path': node.path.join('/'), onclick: () => select(node.path) }, label);
    const more = node.partial !== undefined && h('li', { class: 'partial' }, node.partial);
    return h('li', {}, button, (node.children.length > 0 || more) && h('ul', {}, ...node.children.map(item), more));
  };
  /** Every database but the top one, as a destination of a move (planMove explains the ones FQL cannot reach). */
  const destinations = (node: DatabaseNode): HTMLOptionElement[] => [
    ...(node.path.length ? [h('option', { value: node.path.join('/') }, node.path.join('/'))] : []),
    ...node.children.flatMap(destinations),
  ];
  /** Reads the tree again and selects `path` (its screens opened when `picked`). */
  const reload = async (path = current, picked = false) => {
    const read = await attempt(box, 'list databases', () => readTree(client));
    if (read) {
      root = read;
      replace(tree, item(root));
    }
    select(path, picked);
  };
  /** A dialog's action: `run` with its failures in the dialog's box, then `notice` in the panel's. */
  const act = (action: string, run: () => Promise<string>) => async (dialogBox: HTMLElement) => {
    const notice = await attempt(dialogBox, action, run);
    if (notice === undefined) return false;
    show(box, notice, 'notice');
    return true;
  };

  const createDialog = () => {
    const where = current;
    const name = h('input', { id: 'new-db-name', placeholder: 'e.g. shop', required: true, autocomplete: 'off' });
    openDialog({
      id: 'create-db',
      title: 'New database',
      body: [labelled('new-db-name', 'Name', name, `Created inside ${pathLabel(where)}, then selected. Letters, digits, _ and -.`)],
      submit: 'Create database',
      run: act('create the database', async () => {
        await client.in(where).query(createDatabase(name.value));
        const created = [...where, name.value];
        // The new database is the one to work in: selected, its screens opened.
        await reload(created, true);
        return `Created database ${created.join('/')}: it is selected; create a collection in it next.`;
      }),
    }, section);
  };
  const renameDialog = () => {
    const path = current;
    const newName = h('input', { id: 'rename-db-name', placeholder: 'new name, e.g. shop2', autocomplete: 'off' });
    openDialog({
      id: 'rename-db',
      title: `Rename database ${pathLabel(path)}`,
      body: [labelled('rename-db-name', 'New name', newName, 'Keys and documents stay as they are; secrets scoped by name must use the new one.')],
      submit: 'Rename',
      run: async (dialogBox) => {
        const problem = renameProblem(root, path, newName.value);
        if (problem) return show(dialogBox, problem), false;
        const parent = path.slice(0, -1);
        const to = [...parent, newName.value];
        return act(`rename database ${pathLabel(path)}`, async () => {
          await client.in(parent).query(renameDatabase(path[path.length - 1], newName.value));
          await reload(to);
          return `Renamed database ${pathLabel(path)} to ${pathLabel(to)}.`;
        })(dialogBox);
      },
    }, section);
  };
  const moveDialog = () => {
    const path = current;
    const destination = h('select', { id: 'move-db-to' }, h('option', { value: '' }, 'choose a database…'), ...destinations(root));
    openDialog({
      id: 'move-db',
      title: `Move database ${pathLabel(path)}`,
      body: [labelled('move-db-to', 'Into', destination, 'It keeps its name, collections, documents and keys.')],
      submit: 'Move',
      run: async (dialogBox) => {
        if (destination.value === '') return show(dialogBox, 'Choose the database to move it into.'), false;
        const to = destination.value.split('/');
        const planned = planMove(root, path, to);
        if (typeof planned === 'string') return show(dialogBox, planned), false;
        const moved = [...to, path[path.length - 1]];
        return act(`move database ${pathLabel(path)} into ${pathLabel(to)}`, async () => {
          await client.query(moveDatabase(planned.from, planned.to));
          await reload(moved);
          return `Moved database ${pathLabel(path)} into ${pathLabel(to)}: it is now ${pathLabel(moved)}.`;
        })(dialogBox);
      },
    }, section);
  };
  const removeCurrent = () => {
    const path = current;
    const label = path.join('/');
    void attempt(box, 'delete the database', async () => {
      const { value } = await client.in(path).query(databaseContents());
      const [collections, children, keys] = Array.isArray(value) ? value.map(Number) : [NaN, NaN, NaN];
      const lost = `its ${collections} collection(s) with every document and index in them, its ${children} child database(s) with everything in them, and its ${keys} key(s)`;
      if (!window.confirm(`Delete database ${label}? This deletes ${lost}. It cannot be undone.`)) return;
      await client.in(path.slice(0, -1)).query(deleteDatabase(path[path.length - 1]));
      await reload(path.slice(0, -1), true);
      show(box, `Deleted database ${label}.`, 'notice');
    });
  };
  void reload();
  return section;
}
