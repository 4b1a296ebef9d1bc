// The selected database's keys: a table of them (id, role, name, created), a form that creates one
// and shows its secret once (it cannot be read again), and revoking one after a confirmation that
// says what stops working.

import type { FloraClient } from './client';
import { tsElement } from './times';
import { h, replace } from './dom';
import type { Panel } from './panel';
import { attempt, show } from './messages';
import { createKey, listKeys, revokeKey } from './queries';
import { offerRoles, rolePicker, roleText } from './rolePicker';
import { field, pageItems, partialListNote, refId } from './values';

export function keysPanel(): Panel {
  const table = h('table', { id: 'keys' });
  const box = h('div', { class: 'messages' });
  const secretBox = h('div', { id: 'new-key-secret' });
  const role = rolePicker({ id: 'new-key-role', builtIns: true });
  const rolesHint = h('p', { class: 'hint' });
  const name = h('input', { id: 'new-key-name', placeholder: 'name (optional)' });
  const form = h('form', { id: 'create-key' }, role.element, name, h('button', { type: 'submit' }, 'Create key'));
  let client: FloraClient | undefined;

  const reload = async () => {
    const c = client!;
    const page = await attempt(box, 'list keys', () => c.query(listKeys()));
    if (!page) return replace(table);
    const rows = pageItems(page.value).map((key) => {
      const id = refId(field(key, 'ref'));
      const revoke = h('button', { type: 'button', class: 'revoke', 'data-id': id, onclick: () => void revokeOne(id, roleText(field(key, 'role'))) }, 'Revoke');
      const label = field(field(key, 'data'), 'name');
      return h('tr', { 'data-id': id }, h('td', {}, id), h('td', {}, roleText(field(key, 'role'))), h('td', {}, typeof label === 'string' ? label : ''), h('td', {}, tsElement(field(key, 'ts'))), h('td', {}, revoke));
    });
    replace(table, h('thead', {}, h('tr', {}, h('th', {}, 'id'), h('th', {}, 'role'), h('th', {}, 'name'), h('th', {}, 'created'), h('th', {}))), h('tbody', {}, ...rows));
    const partial = partialListNote(page.value, 'keys');
    if (partial) table.append(h('caption', { class: 'partial' }, partial));
  };

  const revokeOne = async (id: string, roleText: string) => {
    if (!window.confirm(`Revoke key ${id} (${roleText})? Every application using its secret loses access at once; this cannot be undone.`)) return;
    const done = await attempt(box, 'revoke the key', () => client!.query(revokeKey(id)));
    if (done) {
      await reload(); // (it clears the messages first)
      show(box, `Key ${id} revoked.`, 'notice');
    }
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void attempt(box, 'create a key', async () => {
      const { value } = await client!.query(createKey(role.value(), name.value));
      const secret = String(field(value, 'secret') ?? '');
      const code = h('code', { id: 'new-key-secret-value' }, secret);
      const copy = h('button', { type: 'button', id: 'copy-key-secret', onclick: () => void navigator.clipboard?.writeText(secret) }, 'Copy');
      replace(secretBox, h('p', { class: 'notice', role: 'status' }, 'The new key\u2019s secret, shown this once (it cannot be read again): '), code, copy);
      name.value = '';
      await reload();
    });
  });

  const open = (c: FloraClient) => {
    client = c;
    void offerRoles(c, [role], rolesHint);
    replace(secretBox);
    show(box, null);
    void reload();
  };
  const element = h('section', { id: 'keys-panel', class: 'panel' }, h('h2', {}, 'Keys'), table, form, rolesHint, secretBox, box);
  return { id: 'keys', label: 'Keys', element, open };
}
