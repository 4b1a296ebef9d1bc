// The databases tree: every database the key can see, read level by level with secrets scoped to
// each child (`secret:a/b:admin`), and a form to create a child of the selected one.

import type { FloraClient } from './client';
import { h, replace } from './dom';
import { attempt, show } from './messages';
import { createDatabase, databaseContents, deleteDatabase, listDatabases } from './queries';
import { pageItems, refId } from './values';

export interface DatabaseNode {
  path: string[];
  children: DatabaseNode[];
}

/** The tree below `path` (read recursively; each level is one query in that database). */
export async function readTree(client: FloraClient, path: string[] = []): Promise<DatabaseNode> {
  const { value } = await client.in(path).query(listDatabases());
  const names = pageItems(value).map(refId).filter((n) => n !== '');
  const children = await Promise.all(names.map((name) => readTree(client, [...path, name])));
  return { path, children };
}

export function databasesPanel(client: FloraClient, selected: (path: string[]) => void): HTMLElement {
  const tree = h('ul', { id: 'db-tree', class: 'tree' });
  const box = h('div', { class: 'messages' });
  let current: string[] = [];
  const name = h('input', { id: 'new-db-name', placeholder: 'new database name', required: true });
  const form = h('form', { id: 'create-db' }, name, h('button', { type: 'submit' }, 'Create database'));
  const remove = h('button', { type: 'button', id: 'delete-db', disabled: true }, 'Delete database');

  const select = (path: string[]) => {
    current = path;
    remove.disabled = path.length === 0; // the database the secret belongs to is not deleted from here
    for (const li of tree.querySelectorAll('[data-path]')) li.classList.toggle('selected', li.getAttribute('data-path') === path.join('/'));
    selected(path);
  };
  const item = (node: DatabaseNode): HTMLElement => {
    const label = node.path.length === 0 ? '(root)' : node.path[node.path.length - 1];
    const button = h('button', { type: 'button', class: 'db', 'data-path': node.path.join('/'), onclick: () => select(node.path) }, label);
    return h('li', {}, button, node.children.length > 0 && h('ul', {}, ...node.children.map(item)));
  };
  const reload = async () => {
    const root = await attempt(box, 'list databases', () => readTree(client));
    if (root) replace(tree, item(root));
    select(current);
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
  return h('section', { id: 'databases', class: 'panel' }, h('h2', {}, 'Databases'), tree, form, remove, box);
}
