// The databases tree: every database the key can see, read level by level with secrets scoped to
// each child (`secret:a/b:admin`), forms to create a child of the selected one, to rename it and to
// move it into another database, and its deletion.

import type { FloraClient } from './client';
import { h, replace } from './dom';
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
  const name = h('input', { id: 'new-db-name', placeholder: 'new database name', required: true });
  const form = h('form', { id: 'create-db' }, name, h('button', { type: 'submit' }, 'Create database'));
  const remove = h('button', { type: 'button', id: 'delete-db', disabled: true }, 'Delete database');
  const newName = h('input', { id: 'rename-db-name', placeholder: 'new name, e.g. shop2' });
  const rename = h('form', { id: 'rename-db' }, h('label', { for: 'rename-db-name' }, 'Rename the selected database'), newName, h('button', { type: 'submit' }, 'Rename'));
  const destination = h('select', { id: 'move-db-to' });
  const move = h('form', { id: 'move-db' }, h('label', { for: 'move-db-to' }, 'Move the selected database into'), destination, h('button', { type: 'submit' }, 'Move'));
  let root: DatabaseNode = { path: [], children: [] };

  /** The path the screens were last opened for. */
  let opened: string | undefined;
  /**
   * Selects `path`; its screens are (re)opened when it is picked, or when it is another database
   * than they show: reading the tree again after a create leaves them as they are (a new key's
   * secret, shown once, stays shown).
   */
  const select = (path: string[], picked = true) => {
    current = path;
    // The database the secret belongs to is not deleted, renamed or moved from here.
    remove.disabled = path.length === 0;
    rename.hidden = move.hidden = path.length === 0;
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
  const reload = async () => {
    const read = await attempt(box, 'list databases', () => readTree(client));
    if (read) {
      root = read;
      replace(tree, item(root));
      replace(destination, h('option', { value: '' }, 'choose a database…'), ...destinations(root));
    }
    select(current, false);
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const where = current;
    void attempt(box, 'create the database', async () => {
      await client.in(where).query(createDatabase(name.value));
      const created = [...where, name.value].join('/');
      name.value = '';
      await reload();
      show(box, `Created database ${created}.`, 'notice');
    });
  });
  rename.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const path = current;
    const problem = renameProblem(root, path, newName.value);
    if (problem) return show(box, problem);
    const parent = path.slice(0, -1);
    void attempt(box, `rename database ${pathLabel(path)}`, async () => {
      await client.in(parent).query(renameDatabase(path[path.length - 1], newName.value));
      current = [...parent, newName.value];
      newName.value = '';
      await reload();
      show(box, `Renamed database ${pathLabel(path)} to ${pathLabel(current)}.`, 'notice');
    });
  });
  move.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const path = current;
    if (destination.value === '') return show(box, 'Choose the database to move it into.');
    const to = destination.value.split('/');
    const planned = planMove(root, path, to);
    if (typeof planned === 'string') return show(box, planned);
    void attempt(box, `move database ${pathLabel(path)} into ${pathLabel(to)}`, async () => {
      await client.query(moveDatabase(planned.from, planned.to));
      current = [...to, path[path.length - 1]];
      await reload();
      show(box, `Moved database ${pathLabel(path)} into ${pathLabel(to)}: it is now ${pathLabel(current)}.`, 'notice');
    });
  });
  remove.addEventListener('click', () => {
    const path = current;
    const label = path.join('/');
    void attempt(box, 'delete the database', async () => {
      const { value } = await client.in(path).query(databaseContents());
      const [collections, children, keys] = Array.isArray(value) ? value.map(Number) : [NaN, NaN, NaN];
      const lost = `its ${collections} collection(s) with every document and index in them, its ${children} child database(s) with everything in them, and its ${keys} key(s)`;
      if (!window.confirm(`Delete database ${label}? This deletes ${lost}. It cannot be undone.`)) return;
      await client.in(path.slice(0, -1)).query(deleteDatabase(path[path.length - 1]));
      current = path.slice(0, -1);
      await reload();
      show(box, `Deleted database ${label}.`, 'notice');
    });
  });
  void reload();
  return h('section', { id: 'databases', class: 'panel' }, h('h2', {}, 'Databases'), tree, form, rename, move, remove, box);
}
