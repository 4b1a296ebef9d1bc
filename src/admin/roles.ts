// The selected database's roles: a table of them, and an editor for a new or an existing role (its
// name, the privileges matrix, its membership) that saves with CreateRole or Update as Fauna's
// clients do; deleting one first names who loses the access it gives.

import type { JsonValue } from '../wire/expr';
import type { FloraClient } from './client';
import { h, replace } from './dom';
import { focusFirstMistake } from './fqlField';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { predicateList } from './predicateList';
import { privilegeMatrix } from './privilegeMatrix';
import { readRole, resourceText, roleDependents, roleParams, SCHEMA_RESOURCES, type LoadedRole, type Resource } from './roleDocument';
import { createRole, deleteRole, listRoles, roleResources, roleUsers, updateRole } from './securityQueries';
import { field, pageItems, partialListNote, refId } from './values';

/** A role's privileges in one line: `Collection("users"): read, write (predicate)`. */
function privilegesText(role: LoadedRole): string {
  return role.privileges
    .map((p) => `${resourceText(p.resource)}: ${[...p.actions].map(([a, g]) => (g === true ? a : `${a} (predicate)`)).join(', ')}`)
    .join('; ');
}

export function rolesPanel(): Panel {
  const table = h('table', { id: 'roles' });
  const box = h('div', { class: 'messages' });
  const editor = h('div', { id: 'role-editor' });
  const create = h('button', { type: 'button', id: 'new-role', onclick: () => edit(undefined) }, 'New role');
  let client: FloraClient | undefined;
  let resources: Resource[] = [];
  let collections: string[] = [];

  const reload = async () => {
    const c = client!;
    const page = await attempt(box, 'list roles', () => c.query(listRoles()));
    if (!page) return replace(table);
    const docs = pageItems(page.value);
    const rows = docs.map((doc) => {
      const name = String(field(doc, 'name'));
      let summary: [string, string];
      try {
        const role = readRole(doc);
        summary = [privilegesText(role), role.membership.map((m) => m.collection).join(', ')];
      } catch (err) {
        summary = [(err as Error).message, ''];
      }
      return h('tr', { 'data-name': name, onclick: () => edit(doc) }, h('td', {}, name), h('td', {}, summary[0]), h('td', {}, summary[1]));
    });
    replace(table, h('thead', {}, h('tr', {}, h('th', {}, 'name'), h('th', {}, 'privileges'), h('th', {}, 'members from'))), h('tbody', {}, ...rows));
    if (docs.length === 0) table.append(h('caption', {}, 'No roles yet: press New role.'));
    const partial = partialListNote(page.value, 'roles');
    if (partial) table.append(h('caption', { class: 'partial' }, partial));
  };

  /** The collections, indexes and functions a privilege can name, then the schema resources. */
  const readResources = async (c: FloraClient) => {
    const found = await attempt(box, 'list the collections, indexes and functions', () => c.query(roleResources()));
    const [colls, indexes, fns] = Array.isArray(found?.value) ? found.value.map((page) => pageItems(page).map(refId)) : [[], [], []];
    collections = colls;
    resources = [
      ...colls.map((name): Resource => ({ kind: 'collection', name })),
      ...indexes.map((name): Resource => ({ kind: 'index', name })),
      ...fns.map((name): Resource => ({ kind: 'function', name })),
      ...Object.keys(SCHEMA_RESOURCES).map((name): Resource => ({ kind: 'schema', name })),
    ];
  };

  /** The editor, for a new role (undefined) or for an answer's role document. */
  const edit = (doc: JsonValue | undefined) => {
    let loaded: LoadedRole | undefined;
    try {
      loaded = doc === undefined ? undefined : readRole(doc);
    } catch (err) {
      replace(editor);
      return show(box, (err as Error).message);
    }
    const c = client!;
    const name = h('input', { id: 'role-name', placeholder: 'e.g. customer', required: true, value: loaded?.name ?? '' });
    const matrix = privilegeMatrix();
    matrix.load(resources, loaded);
    const members = predicateList({
      id: 'membership',
      choiceLabel: 'member collection',
      addLabel: 'Add member collection',
      empty: 'No members: the role applies only to keys and functions given it, and to access providers that grant it.',
      example: 'Query(Lambda("ref", Select(["data", "active"], Get(Var("ref")))))',
      noChoices: 'The database has no collection whose documents could be members.',
    });
    members.setChoices(collections);
    members.set((loaded?.membership ?? []).map((m) => ({ choice: m.collection, predicate: m.predicate })));
    const remove = loaded && h('button', { type: 'button', id: 'delete-role' }, 'Delete role');
    const form = h(
      'form',
      { id: 'role-form', class: 'stacked' },
      h('h3', {}, loaded ? `Role ${loaded.name}` : 'New role'),
      h('label', { for: 'role-name' }, 'Name'),
      name,
      h('h4', {}, 'Privileges'),
      h('p', { class: 'hint' }, 'Tick an action to grant it. A predicate under a ticked box, Query(Lambda(…)), grants it only when it returns true.'),
      matrix.element,
      h('h4', {}, 'Membership'),
      h('p', { class: 'hint' }, 'Tokens of documents in these collections get the role (when the optional predicate, given the document\u2019s ref, returns true).'),
      members.element,
      h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'save-role' }, loaded ? 'Save role' : 'Create role'), remove),
    );
    replace(editor, form);

    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const privileges = matrix.read();
      const membership = members.read();
      if (!privileges || !membership) {
        show(box, 'A predicate has a mistake (shown under it); nothing was saved.');
        return void focusFirstMistake(form);
      }
      const params = roleParams(name.value, privileges, membership.map((m) => ({ collection: m.choice, predicate: m.predicate })), loaded !== undefined);
      const action = loaded ? `save role ${loaded.name}` : `create role ${name.value}`;
      void attempt(box, action, async () => {
        const { value } = await c.query(loaded ? updateRole(loaded.name, params) : createRole(params));
        await reload();
        edit(value);
        show(box, `${loaded ? 'Saved' : 'Created'} role ${name.value}.`, 'notice');
      });
    });
    remove?.addEventListener('click', () => {
      const role = loaded!;
      void attempt(box, `delete role ${role.name}`, async () => {
        const { value } = await c.query(roleUsers());
        const [keys, functions, providers] = Array.isArray(value) ? value.map(pageItems) : [[], [], []];
        const losing = roleDependents(role, { keys, functions, providers });
        const who = losing.length ? `These lose the access it gives: ${losing.join('; ')}.` : 'No key, function, access provider or member uses it.';
        if (!window.confirm(`Delete role ${role.name}? ${who} It cannot be undone.`)) return;
        await c.query(deleteRole(role.name));
        replace(editor);
        await reload();
        show(box, `Deleted role ${role.name}.`, 'notice');
      });
    });
  };

  const open = (c: FloraClient) => {
    client = c;
    replace(editor);
    show(box, null);
    create.disabled = true; // until the resources a new role's matrix lists are read
    void readResources(c)
      .then(reload)
      .finally(() => (create.disabled = false));
  };
  const element = h('section', { id: 'roles-panel', class: 'panel' }, h('h2', {}, 'Roles'), table, create, box, editor);
  return { id: 'roles', label: 'Roles', element, open };
}
